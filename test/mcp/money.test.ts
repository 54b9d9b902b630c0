/**
 * Amounts as tools take and give them: currency units (numbers or strings) and `…Milliunits`
 * integers in, exactly or refused naming the argument; three forms out, the decimal with the currency's digits.
 */
import {
  DEFAULT_CURRENCY_FORMAT,
  formatMilliunits,
  toCurrencyAmount,
} from '@plans-gateway/rest-contract';
import { describe, expect, it } from 'vitest';
import { checkedMilliunits, unitsToMilliunits } from '../../src/mcp/amount-arguments.js';
import { ArgumentError, amountOf } from '../../src/mcp/money.js';

describe('unitsToMilliunits', () => {
  it('reads currency units exactly, the same as a number or a string', () => {
    expect(unitsToMilliunits(800, 'budgeted')).toBe(800_000);
    expect(unitsToMilliunits('800', 'budgeted')).toBe(800_000);
    expect(unitsToMilliunits('800.00', 'budgeted')).toBe(800_000);
    expect(unitsToMilliunits(12.5, 'amount')).toBe(12_500);
    expect(unitsToMilliunits(-12.34, 'amount')).toBe(-12_340);
    expect(unitsToMilliunits('-12.34', 'amount')).toBe(-12_340);
    expect(unitsToMilliunits('+0.005', 'amount')).toBe(5);
    expect(unitsToMilliunits('-0', 'amount')).toBe(0);
    expect(unitsToMilliunits(' 7.1 ', 'amount')).toBe(7_100);
    expect(unitsToMilliunits('9007199254740.991', 'amount')).toBe(Number.MAX_SAFE_INTEGER);
    // 0.1 + 0.2 in floating point is not 0.3; its shortest text, like the string, is exact.
    expect(unitsToMilliunits(0.3, 'x')).toBe(300);
  });

  it('refuses what is not exact, naming the argument', () => {
    const refusal = (value: unknown) => {
      try {
        unitsToMilliunits(value, 'transactions[1].amount');
      } catch (error) {
        expect(error).toBeInstanceOf(ArgumentError);
        return (error as ArgumentError).message;
      }
      throw new Error(`${String(value)} was accepted`);
    };
    expect(refusal('1.2345')).toBe(
      'Argument "transactions[1].amount": "1.2345" has 4 decimals; amounts are exact to the thousandth (3 decimals at most), and are never rounded.',
    );
    expect(refusal(1.2345)).toMatch(/has 4 decimals/);
    expect(refusal('1,234.56')).toMatch(/is not a decimal amount/);
    expect(refusal('12.')).toMatch(/is not a decimal amount/);
    expect(refusal('1e3')).toMatch(/is not a decimal amount/);
    expect(refusal(1e21)).toMatch(/is not a decimal amount/);
    expect(refusal('')).toMatch(/is not a decimal amount/);
    expect(refusal(Number.NaN)).toMatch(/is not an amount/);
    expect(refusal(true)).toMatch(/an amount in currency units is a number or a decimal string/);
    expect(refusal('90071992547410')).toMatch(/beyond the exact range/);
  });
});

describe('checkedMilliunits', () => {
  it('takes integers only, pointing at the units argument otherwise', () => {
    expect(checkedMilliunits(-12_340, 'amountMilliunits')).toBe(-12_340);
    expect(() => checkedMilliunits(12.5, 'amountMilliunits')).toThrow(
      'Argument "amountMilliunits": milliunits are an integer (thousandths of the currency); got 12.5. For an amount in currency units, use "amount".',
    );
    expect(() => checkedMilliunits('800', 'budgetedMilliunits')).toThrow(/use "budgeted"/);
    expect(() => checkedMilliunits(2 ** 53, 'xMilliunits')).toThrow(/beyond the exact range/);
  });
});

describe('amountOf', () => {
  const forms = (milliunits: number, digits: number) => {
    const format = {
      ...DEFAULT_CURRENCY_FORMAT,
      decimal_digits: digits,
      currency_symbol: '€',
      display_symbol: true,
      symbol_first: false,
      decimal_separator: ',',
      group_separator: '.',
    };
    return amountOf(
      milliunits,
      toCurrencyAmount(milliunits, format),
      formatMilliunits(milliunits, format),
    );
  };

  it('writes the decimal with as many digits as the currency shows', () => {
    expect(forms(-1_234_500, 2)).toEqual({
      milliunits: -1_234_500,
      decimal: '-1234.50',
      formatted: '-1.234,50€',
    });
    expect(forms(1_234_000, 0)).toEqual({
      milliunits: 1_234_000,
      decimal: '1234',
      formatted: '1.234€',
    });
    expect(forms(1_234_567, 3)).toEqual({
      milliunits: 1_234_567,
      decimal: '1234.567',
      formatted: '1.234,567€',
    });
    expect(forms(0, 2)).toEqual({ milliunits: 0, decimal: '0.00', formatted: '0,00€' });
    expect(forms(-5, 2).decimal).toBe('0.00');
  });

  it('writes the decimal from the milliunits, exact where the formatted text is not', () => {
    // Near 2^53 the formatted companion, computed on doubles, shows …740,990€.
    expect(forms(9_007_199_254_740_991, 3)).toEqual({
      milliunits: 9_007_199_254_740_991,
      decimal: '9007199254740.991',
      formatted: '9.007.199.254.740,990€',
    });
    // A rounding carry: 999.995 in two digits is 1000.00, as long as 999.995 itself.
    expect(forms(999_995, 2).decimal).toBe('1000.00');
    expect(forms(999_995, 3).decimal).toBe('999.995');
  });
});
