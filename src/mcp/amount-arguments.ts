/**
 * Amount arguments a model cannot misread. An amount `x` is taken in the plan's currency units
 * (`800`, `"800.00"`, `12.5`: the same number of units whether sent as a JSON number or a
 * string, exactly, never rounded); milliunits only through an argument whose name says so,
 * `xMilliunits` (an integer). A value that could be read either way is refused: both forms at
 * once, a fraction of a milliunit, thousands separators, exponents.
 */
import { ArgumentError } from './money.js';
import { quoted } from './quote.js';

/** The suffix of an argument that takes milliunits. */
export const MILLIUNITS_SUFFIX = 'Milliunits';

/** The JSON Schema of an amount argument in currency units. */
export const UNITS_INPUT_SCHEMA = {
  anyOf: [{ type: 'number' }, { type: 'string', pattern: '^[+-]?\\d+(\\.\\d+)?$' }],
  description:
    'An amount in the plan currency units, exactly (at most 3 decimals): 800 and "800.00" are both 800.00; negative amounts are outflows. Never milliunits: for those, use the argument of the same name ending in Milliunits.',
} as const;

/** The JSON Schema of an amount argument in milliunits. */
export const MILLIUNITS_INPUT_SCHEMA = {
  type: 'integer',
  description:
    'The same amount in milliunits (integer thousandths of the currency: -12340 is an outflow of 12.34). Give this or the amount in units, not both.',
} as const;

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?$/;

/**
 * An amount in currency units as milliunits: a JSON number or a decimal string, read as the same
 * decimal text (`12.5` and `"12.50"` are 12,500). Refused, naming `argument`: more than three
 * decimals, exponents, separators, anything beyond 2^53 - 1 milliunits.
 */
export function unitsToMilliunits(value: unknown, argument: string): number {
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new ArgumentError(argument, `${value} is not an amount.`);
  if (typeof value !== 'number' && typeof value !== 'string')
    throw new ArgumentError(
      argument,
      `an amount in currency units is a number or a decimal string such as -12.34 or "-12.34"; got ${quoted(value)}.`,
    );
  // A JSON number is read through its shortest decimal text: 12.34 is "12.34", exactly.
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = DECIMAL.exec(text);
  if (!match)
    throw new ArgumentError(
      argument,
      `${quoted(value)} is not a decimal amount of currency units: write digits with at most one "." and no thousands separators or exponent, such as "-1234.56".`,
    );
  const [, sign, whole = '0', fraction = ''] = match;
  if (fraction.length > 3)
    throw new ArgumentError(
      argument,
      `${quoted(value)} has ${fraction.length} decimals; amounts are exact to the thousandth (3 decimals at most), and are never rounded.`,
    );
  const milliunits = Number(whole) * 1000 + Number(fraction.padEnd(3, '0'));
  if (!Number.isSafeInteger(milliunits) || whole.length > 13)
    throw new ArgumentError(argument, `${quoted(value)} is beyond the exact range of amounts.`);
  return sign === '-' ? -milliunits || 0 : milliunits;
}

/** An amount given as `…Milliunits`: an integer, nothing else. */
export function checkedMilliunits(value: unknown, argument: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new ArgumentError(
      argument,
      `milliunits are an integer (thousandths of the currency); got ${quoted(value)}. For an amount in currency units, use ${JSON.stringify(argument.slice(0, -MILLIUNITS_SUFFIX.length))}.`,
    );
  if (!Number.isSafeInteger(value))
    throw new ArgumentError(argument, `${value} milliunits is beyond the exact range (2^53 - 1).`);
  return value;
}

/**
 * The amount of `name` in an object of arguments, from `name` (units) or `nameMilliunits`,
 * removing the latter; `undefined` when neither is there. Both at once are refused.
 */
export function takeAmount(
  values: Record<string, unknown>,
  name: string,
  path: string,
): number | null | undefined {
  const milliunitsName = `${name}${MILLIUNITS_SUFFIX}`;
  const units = values[name];
  const milliunits = values[milliunitsName];
  delete values[milliunitsName];
  if (units !== undefined && milliunits !== undefined)
    throw new ArgumentError(
      `${path}${MILLIUNITS_SUFFIX}`,
      `give the amount once: either ${JSON.stringify(name)} in currency units or ${JSON.stringify(milliunitsName)} in milliunits, not both.`,
    );
  if (milliunits !== undefined)
    return milliunits === null
      ? null
      : checkedMilliunits(milliunits, `${path}${MILLIUNITS_SUFFIX}`);
  if (units === undefined || units === null) return units;
  return unitsToMilliunits(units, path);
}

/** `2026-11` as `2026-11-01`: a month as people write it; anything else as sent. */
export function monthArgument(value: unknown): unknown {
  return typeof value === 'string' && /^\d{4}-\d{2}$/.test(value.trim())
    ? `${value.trim()}-01`
    : value;
}
