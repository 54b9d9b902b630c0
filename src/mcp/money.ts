/**
 * Money as a model reads and writes it. Results: every amount becomes `{ milliunits, decimal,
 * formatted }` (the integer the graph holds, an exact decimal string in the plan's currency, and
 * the text the plan shows). Arguments: `amount-arguments.ts`.
 */

import { type DecimalFormat, toDecimalText } from '@plans-gateway/rest-contract';
import { QUOTED_CHARACTERS, quoted } from './quote.js';

/** The scalar that holds amounts. */
export const MILLIUNITS = 'Milliunits';

/** An amount in a tool result. */
export interface Amount {
  readonly milliunits: number;
  /** Exact, with the currency's decimal digits: `"-1234.56"`. */
  readonly decimal: string;
  /** As the plan formats it: `"-$1,234.56"`. */
  readonly formatted: string;
}

/** The JSON Schema of an amount in a result. */
export function amountOutputSchema(description: string | undefined): Record<string, unknown> {
  return {
    type: 'object',
    description: `${description ? `${description} ` : ''}Three forms of one amount: \`milliunits\` (integer thousandths of the currency; negative = outflow), \`decimal\` (exact, in the plan's currency) and \`formatted\` (as the plan shows it).`,
    properties: {
      milliunits: { type: 'integer' },
      decimal: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' },
      formatted: { type: 'string' },
    },
    required: ['milliunits', 'decimal', 'formatted'],
  };
}

/** An argument a tool refuses: which one (its path, such as `transactions[1].amount`) and why. */
export class ArgumentError extends Error {
  readonly code = 'GW_ERR_ARGUMENT';
  /** Each refused argument (this one alone, or the several `argumentErrors` joined). */
  all: readonly ArgumentError[] = [this];
  constructor(
    readonly argument: string,
    reason: string,
  ) {
    super(
      `Argument ${argument.length > QUOTED_CHARACTERS ? quoted(argument) : `"${argument}"`}: ${reason}`,
    );
    this.name = 'ArgumentError';
  }
}

/** Several refused arguments as one error that names each (one when there is one). */
export function argumentErrors(errors: readonly ArgumentError[]): ArgumentError {
  const [first] = errors;
  if (errors.length === 1 && first) return first;
  const all = new ArgumentError(
    errors.map((error) => error.argument).join(', '),
    'several arguments are invalid.',
  );
  all.all = errors;
  all.message = `${errors.length} arguments are invalid (fix them all before calling again): ${errors.map((error) => error.message).join(' ')}`;
  return all;
}

/**
 * An amount of a result in its three forms, from the graph's own companions: `currency` (the
 * amount in the plan's currency, rounded to its decimal digits, a JSON number) and `formatted`.
 * The decimal string is the contract's `toDecimalText` of the milliunits, exact, in the
 * currency's decimal digits. The answer carries no currency format, and the number alone cannot
 * tell 2 digits from 1 (`1234.5`), so the digits are the ones `formatted` shows: of the 0 to 3
 * the contract knows, the one whose text has the same digits (`$1,234.50` is 2).
 */
export function amountOf(milliunits: number, currency: number, formatted: string): Amount {
  const format = shownDecimals(milliunits, formatted);
  const decimal = format ? toDecimalText(milliunits, format) : String(currency);
  return { milliunits, decimal, formatted };
}

// Private: the decimal digits `formatted` shows (group and decimal separators and the symbol are
// not digits): the count whose text has the same digits, else the same number of digits (near
// 2^53 the formatted text, computed on doubles, may differ in its last digit; a rounding carry
// can make two counts equally long, so the digits are compared first).
function shownDecimals(milliunits: number, formatted: string): DecimalFormat | undefined {
  if (!Number.isSafeInteger(milliunits)) return undefined;
  const shown = formatted.replace(/\D/g, '');
  const candidates = [0, 1, 2, 3].map((digits) => {
    const format = { decimal_digits: digits };
    return { format, digits: toDecimalText(milliunits, format).replace(/\D/g, '') };
  });
  return (
    candidates.find((candidate) => candidate.digits === shown) ??
    candidates.find((candidate) => candidate.digits.length === shown.length)
  )?.format;
}
