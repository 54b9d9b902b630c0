import {
  type CurrencyFormat,
  DEFAULT_CURRENCY_FORMAT,
  formatMilliunits,
  toCurrencyAmount,
} from '@plans-gateway/rest-contract';
import { describe, expect, it } from 'vitest';
import { utils } from 'ynab';
import { createRandom } from '../../src/core/random.js';

const USD: CurrencyFormat = {
  iso_code: 'USD',
  example_format: '123,456.78',
  decimal_digits: 2,
  decimal_separator: '.',
  symbol_first: true,
  group_separator: ',',
  currency_symbol: '$',
  display_symbol: true,
};
const EUR: CurrencyFormat = {
  ...USD,
  iso_code: 'EUR',
  decimal_separator: ',',
  group_separator: '.',
  symbol_first: false,
  currency_symbol: '€',
};
const JPY: CurrencyFormat = { ...USD, iso_code: 'JPY', decimal_digits: 0, currency_symbol: '¥' };
const BHD: CurrencyFormat = { ...USD, iso_code: 'BHD', decimal_digits: 3, currency_symbol: 'BD ' };

describe('formatMilliunits', () => {
  it('puts the minus sign before a leading symbol and groups thousands', () => {
    expect(formatMilliunits(-1_234_560, USD)).toBe('-$1,234.56');
    expect(formatMilliunits(1_234_560, USD)).toBe('$1,234.56');
    expect(formatMilliunits(0, USD)).toBe('$0.00');
    expect(formatMilliunits(-5_000, USD)).toBe('-$5.00');
    expect(formatMilliunits(1_234_567_890_120, USD)).toBe('$1,234,567,890.12');
  });

  it('writes the symbol last with the format separators', () => {
    expect(formatMilliunits(-1_234_560, EUR)).toBe('-1.234,56€');
    expect(formatMilliunits(999_990, EUR)).toBe('999,99€');
  });

  it('follows decimal_digits from 0 to 3', () => {
    expect(formatMilliunits(-1_234_567, JPY)).toBe('-¥1,235');
    expect(formatMilliunits(1_234_567, BHD)).toBe('BD 1,234.567');
  });

  it('hides the symbol when display_symbol is false', () => {
    expect(formatMilliunits(-1_234_560, { ...USD, display_symbol: false })).toBe('-1,234.56');
  });

  it('falls back to a symbol-less two-decimal format when the plan has none', () => {
    expect(formatMilliunits(-1_234_560, null)).toBe('-1,234.56');
    expect(formatMilliunits(-1_234_560, null)).toBe(
      formatMilliunits(-1_234_560, DEFAULT_CURRENCY_FORMAT),
    );
  });

  it('never shows a negative zero', () => {
    expect(formatMilliunits(-4, USD)).toBe('$0.00');
    expect(formatMilliunits(-400, JPY)).toBe('¥0');
  });

  it('shows the digits of toCurrencyAmount, so both companions agree', () => {
    const random = createRandom(42);
    for (let i = 0; i < 2_000; i++) {
      const milliunits = random.int(-10_000_000_000, 10_000_000_000);
      for (const format of [USD, EUR, JPY, BHD]) {
        const text = formatMilliunits(milliunits, format);
        const digits = text.replace(/[^0-9]/g, '');
        const amount = toCurrencyAmount(milliunits, format);
        expect(Number(digits) / 10 ** format.decimal_digits).toBeCloseTo(Math.abs(amount), 6);
        expect(text.startsWith('-')).toBe(amount < 0);
      }
    }
  });
});

describe('toCurrencyAmount', () => {
  it('converts milliunits with the format decimal digits', () => {
    expect(toCurrencyAmount(-1_234_560, USD)).toBe(-1234.56);
    expect(toCurrencyAmount(1_234_567, BHD)).toBe(1234.567);
    expect(toCurrencyAmount(1_234_567, JPY)).toBe(1235);
    expect(toCurrencyAmount(-4, USD)).toBe(0);
    expect(Object.is(toCurrencyAmount(-4, USD), -0)).toBe(false);
  });

  it('rounds half-way values like the ynab SDK (towards positive infinity)', () => {
    expect(toCurrencyAmount(1_235, USD)).toBe(1.24);
    expect(toCurrencyAmount(-1_235, USD)).toBe(-1.23);
  });

  it('matches convertMilliUnitsToCurrencyAmount of the ynab SDK on random amounts', () => {
    const random = createRandom(7);
    for (let i = 0; i < 5_000; i++) {
      const milliunits = random.int(-100_000_000_000, 100_000_000_000);
      for (const digits of [0, 1, 2, 3]) {
        const expected = utils.convertMilliUnitsToCurrencyAmount(milliunits, digits);
        expect(toCurrencyAmount(milliunits, { ...USD, decimal_digits: digits })).toBe(
          expected === 0 ? 0 : expected,
        );
      }
    }
  });
});
