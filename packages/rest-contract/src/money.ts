/**
 * Currency formatting of integer milliunits, shared by the sandbox (which fills the REST
 * `..._formatted` / `..._currency` companions) and the gateway (which offers the same companions
 * in the graph). Pure functions: no state, no locale lookups, only the plan's currency format.
 */
import type { CurrencyFormat, Milliunits } from './types.js';

/**
 * Used when a plan has no currency format (`currency_format: null`). We cannot know the
 * currency, so the default shows no symbol rather than a possibly wrong one, and uses the most
 * common layout: two decimals, `.` as the decimal separator and `,` between thousands.
 * Example: -1234560 → `-1,234.56`.
 */
export const DEFAULT_CURRENCY_FORMAT: CurrencyFormat = {
  iso_code: 'XXX',
  example_format: '123,456.78',
  decimal_digits: 2,
  decimal_separator: '.',
  symbol_first: true,
  group_separator: ',',
  currency_symbol: '',
  display_symbol: false,
};

const MILLIUNIT_DIGITS = 3;

/** The part of a currency format that decides how many decimals an amount has. */
export type DecimalFormat = Pick<CurrencyFormat, 'decimal_digits'>;

/** Private: the format's decimal digits, limited to what milliunits can carry (0..3). */
function decimalDigitsOf(format: DecimalFormat | null): number {
  const digits = (format ?? DEFAULT_CURRENCY_FORMAT).decimal_digits;
  if (!Number.isInteger(digits) || digits < 0) return 0;
  return Math.min(MILLIUNIT_DIGITS, digits);
}

/**
 * Private: bigint milliunits rounded to the format's digits, as the integer count of its smallest
 * unit, with the same rule as the number path (halves towards positive infinity).
 */
function roundedUnits(milliunits: bigint, digits: number): bigint {
  const step = 10n ** BigInt(MILLIUNIT_DIGITS - digits);
  if (step === 1n) return milliunits;
  const shifted = milliunits + step / 2n;
  const quotient = shifted / step;
  return shifted % step < 0n ? quotient - 1n : quotient; // floor, not truncation
}

/**
 * Milliunits as a decimal amount of the currency, rounded to the format's decimal digits.
 *
 * Rounds exactly like the ynab SDK's `convertMilliUnitsToCurrencyAmount`: halves go towards
 * positive infinity (`Math.round`), so 1235 → 1.24 but -1235 → -1.23 with two digits. Keeping
 * that quirk means a client comparing our `_currency` values with the SDK's helper never sees a
 * difference of one cent. A bigint (an amount past 2^53, which only sums reach) is rounded
 * exactly, then given as the nearest double, as a `_currency` value can only be.
 */
export function toCurrencyAmount(
  milliunits: Milliunits | bigint,
  format: DecimalFormat | null,
): number {
  const digits = decimalDigitsOf(format);
  if (typeof milliunits === 'bigint') {
    const amount = Number(roundedUnits(milliunits, digits)) / 10 ** digits;
    return amount === 0 ? 0 : amount;
  }
  const step = 10 ** (MILLIUNIT_DIGITS - digits);
  const perStep = 1 / step;
  const roundedMilliunits = Math.round(milliunits * perStep) / perStep;
  const amount = Number((roundedMilliunits * 0.001).toFixed(digits));
  // Normalise -0 so JSON and string forms never show a negative zero.
  return amount === 0 ? 0 : amount;
}

/** Private: inserts the group separator every three digits from the right. */
function groupDigits(integerDigits: string, separator: string): string {
  if (separator === '' || integerDigits.length <= 3) return integerDigits;
  const head = integerDigits.length % 3;
  const groups: string[] = head > 0 ? [integerDigits.slice(0, head)] : [];
  for (let i = head; i < integerDigits.length; i += 3) groups.push(integerDigits.slice(i, i + 3));
  return groups.join(separator);
}

/** Private: a count of the currency's smallest unit as its digits, split at the decimal point. */
function unitsDigits(
  units: bigint,
  digits: number,
): { integerPart: string; fractionPart: string; negative: boolean } {
  const text = (units < 0n ? -units : units).toString().padStart(digits + 1, '0');
  return {
    integerPart: text.slice(0, text.length - digits),
    fractionPart: text.slice(text.length - digits),
    negative: units < 0n,
  };
}

/** Private: the digits of an amount's absolute value, split at the decimal point, and its sign. */
function amountDigits(
  milliunits: Milliunits | bigint,
  format: CurrencyFormat,
  digits: number,
): { integerPart: string; fractionPart: string; negative: boolean } {
  if (typeof milliunits === 'bigint') return unitsDigits(roundedUnits(milliunits, digits), digits);
  const amount = toCurrencyAmount(milliunits, format);
  const [integerPart = '0', fractionPart = ''] = Math.abs(amount).toFixed(digits).split('.');
  return { integerPart, fractionPart, negative: amount < 0 };
}

/**
 * Milliunits as display text in the plan's currency format. The minus sign always comes first,
 * before a leading symbol: USD gives `-$1,234.56`, EUR with the symbol last gives `-1.234,56€`.
 * The digits shown are those of {@link toCurrencyAmount}, so both companions always agree; a
 * bigint shows every digit, exactly. A `null` format uses {@link DEFAULT_CURRENCY_FORMAT}.
 */
export function formatMilliunits(
  milliunits: Milliunits | bigint,
  format: CurrencyFormat | null,
): string {
  const fmt = format ?? DEFAULT_CURRENCY_FORMAT;
  const digits = decimalDigitsOf(fmt);
  const { integerPart, fractionPart, negative } = amountDigits(milliunits, fmt, digits);
  const number =
    groupDigits(integerPart, fmt.group_separator) +
    (digits > 0 ? fmt.decimal_separator + fractionPart : '');
  const symbol = fmt.display_symbol ? fmt.currency_symbol : '';
  const body = fmt.symbol_first ? symbol + number : number + symbol;
  return negative ? `-${body}` : body;
}

/**
 * Milliunits as an exact decimal string of the currency, with the format's decimal digits and
 * nothing else: `-1234.56` (USD), `1234` (a currency without decimals), `1234.567` (three). The
 * digits are those `formatMilliunits` shows, rounded by the same rule, but computed on integers,
 * so the text is exact to the last digit for any safe integer and for a bigint past 2^53. A
 * number that is not a whole number of milliunits within 2^53 - 1 is refused (a RangeError
 * naming it): it cannot be exact.
 */
export function toDecimalText(
  milliunits: Milliunits | bigint,
  format: DecimalFormat | null,
): string {
  if (typeof milliunits === 'number' && !Number.isSafeInteger(milliunits))
    throw new RangeError(
      `toDecimalText: ${milliunits} is not a whole number of milliunits within 2^53 - 1; give larger amounts as a bigint`,
    );
  const digits = decimalDigitsOf(format);
  const { integerPart, fractionPart, negative } = unitsDigits(
    roundedUnits(BigInt(milliunits), digits),
    digits,
  );
  return `${negative ? '-' : ''}${integerPart}${digits > 0 ? `.${fractionPart}` : ''}`;
}
