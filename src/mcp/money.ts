/**
 * Money as a model reads and writes it. Results: every amount becomes `{ milliunits, decimal,
 * formatted }` (the integer the graph holds, an exact decimal string in the plan's currency, and
 * the text the plan shows). Arguments: `amount-arguments.ts`.
 */

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
  all.message = `${errors.length} arguments are invalid (fix them all before calling again): ${errors.map((error) => error.message).join(' ')}`;
  return all;
}

/**
 * An amount of a result in its three forms, from the graph's own companions: `currency` (the
 * amount in the plan's currency, rounded to its decimal digits, a JSON number) and `formatted`.
 * The decimal string is `currency` written with as many decimals as the formatted text shows
 * (1234.5 formatted `$1,234.50` is `"1234.50"`): the number alone cannot tell 2 digits from 1.
 */
export function amountOf(milliunits: number, currency: number, formatted: string): Amount {
  return { milliunits, decimal: decimalOf(currency, formatted), formatted };
}

// Private: `currency` with the decimals `formatted` shows: the digits of both must agree (group
// and decimal separators and the symbol are not digits).
function decimalOf(currency: number, formatted: string): string {
  const shown = formatted.replace(/\D/g, '');
  const sign = currency < 0 ? '-' : '';
  for (let digits = 0; digits <= 3; digits += 1) {
    const fixed = Math.abs(currency).toFixed(digits);
    if (fixed.replace('.', '') === shown) return sign + fixed;
  }
  return String(currency);
}
