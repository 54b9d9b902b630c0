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

describe('amounts past 2^53 (bigint)', () => {
  it('shows every digit, rounded like the number path', () => {
    const INT64 = 2n ** 63n - 1n;
    expect(formatMilliunits(INT64, USD)).toBe('$9,223,372,036,854,775.81');
    expect(formatMilliunits(-INT64, USD)).toBe('-$9,223,372,036,854,775.81');
    expect(formatMilliunits(INT64, BHD)).toBe('BD 9,223,372,036,854,775.807');
    expect(formatMilliunits(-INT64, EUR)).toBe('-9.223.372.036.854.775,81€');
    expect(formatMilliunits(9_007_199_254_740_993n, JPY)).toBe('¥9,007,199,254,741');
    expect(formatMilliunits(18_014_398_509_481_982n, null)).toBe('18,014,398,509,481.98');
    // A double is all `_currency` can be: the nearest one.
    expect(toCurrencyAmount(INT64, USD)).toBe(Number(922_337_203_685_477_581n) / 100);
  });

  it('agrees with the number path wherever both apply', () => {
    const random = createRandom(53);
    for (let i = 0; i < 2_000; i++) {
      const milliunits = random.int(-10_000_000_000, 10_000_000_000);
      for (const format of [USD, EUR, JPY, BHD, null]) {
        expect(formatMilliunits(BigInt(milliunits), format)).toBe(
          formatMilliunits(milliunits, format),
        );
        expect(toCurrencyAmount(BigInt(milliunits), format)).toBe(
          toCurrencyAmount(milliunits, format),
        );
      }
    }
    // Halves go towards positive infinity, zero is never negative.
    expect(formatMilliunits(-1_235n, USD)).toBe('-$1.23');
    expect(formatMilliunits(1_235n, USD)).toBe('$1.24');
    expect(formatMilliunits(-1_500n, JPY)).toBe('-¥1');
    expect(formatMilliunits(-4n, USD)).toBe('$0.00');
  });
});
