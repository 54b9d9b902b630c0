import { describe, expect, it } from 'vitest';
import {
  type CurrencyFormat,
  DEFAULT_CURRENCY_FORMAT,
  formatMilliunits,
  toDecimalText,
} from '../src/index.js';

const usd: CurrencyFormat = { ...DEFAULT_CURRENCY_FORMAT, iso_code: 'USD', currency_symbol: '$' };
const jpy: CurrencyFormat = { ...usd, iso_code: 'JPY', currency_symbol: '¥', decimal_digits: 0 };
const bhd: CurrencyFormat = { ...usd, iso_code: 'BHD', currency_symbol: 'BD', decimal_digits: 3 };

describe('toDecimalText', () => {
  it("writes the currency's decimal digits, a minus sign first and nothing else", () => {
    expect(toDecimalText(-1_234_560, usd)).toBe('-1234.56');
    expect(toDecimalText(1_234_500, usd)).toBe('1234.50');
    expect(toDecimalText(120, usd)).toBe('0.12');
    expect(toDecimalText(-1, bhd)).toBe('-0.001');
  });

  it('writes no decimal point for a currency without decimals', () => {
    expect(toDecimalText(1_234_000, jpy)).toBe('1234');
    expect(toDecimalText(-1_234_000, jpy)).toBe('-1234');
    expect(toDecimalText(0, jpy)).toBe('0');
  });

  it('keeps every digit of a currency with three decimals', () => {
    expect(toDecimalText(1_234_567, bhd)).toBe('1234.567');
    expect(toDecimalText(-1_234_567, bhd)).toBe('-1234.567');
    expect(toDecimalText(9_007_199_254_740_991, bhd)).toBe('9007199254740.991');
  });

  it('rounds as formatMilliunits does: halves towards positive infinity, never a negative zero', () => {
    expect(toDecimalText(1_235, usd)).toBe('1.24');
    expect(toDecimalText(-1_235, usd)).toBe('-1.23');
    expect(toDecimalText(1_234_500, jpy)).toBe('1235');
    expect(toDecimalText(-1_234_500, jpy)).toBe('-1234');
    expect(toDecimalText(-5, usd)).toBe('0.00');
    expect(toDecimalText(0, usd)).toBe('0.00');
  });

  it('uses two decimals without a format, as the default format does', () => {
    expect(toDecimalText(-1_234_560, null)).toBe('-1234.56');
    expect(toDecimalText(7, { decimal_digits: 2 })).toBe('0.01');
  });

  it('is exact past 2^53 when given a bigint', () => {
    const past = 2n ** 53n * 1000n + 1_234n;
    expect(toDecimalText(past, bhd)).toBe('9007199254740993.234');
    expect(toDecimalText(-past, usd)).toBe('-9007199254740993.23');
    expect(toDecimalText(123_456_789_012_345_678_905n, jpy)).toBe('123456789012345679');
  });

  it("shows the digits formatMilliunits shows, for any currency's digits", () => {
    // A fixed sequence, so a failure repeats: amounts of every magnitude up to 10^15.
    let seed = 7;
    const next = () => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed / 2_147_483_647;
    };
    const differ: string[] = [];
    for (const digits of [0, 1, 2, 3]) {
      const plain = { ...usd, decimal_digits: digits, group_separator: '', currency_symbol: '' };
      for (let i = 0; i < 2_000; i += 1) {
        const milliunits = Math.round((next() - 0.5) * 2 * 10 ** Math.floor(next() * 16));
        const text = toDecimalText(milliunits, plain);
        if (text !== formatMilliunits(milliunits, plain)) differ.push(`${digits}: ${milliunits}`);
      }
    }
    expect(differ).toEqual([]);
  });

  it('refuses a number it cannot write exactly, naming it', () => {
    expect(() => toDecimalText(1.5, usd)).toThrow(
      new RangeError(
        'toDecimalText: 1.5 is not a whole number of milliunits within 2^53 - 1; give larger amounts as a bigint',
      ),
    );
    expect(() => toDecimalText(2 ** 53, usd)).toThrow(/9007199254740992 is not a whole number/);
  });
});
