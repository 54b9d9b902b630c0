/**
 * Checks that every `<amount>_formatted` / `<amount>_currency` companion agrees with its
 * milliunit amount under the plan's currency format, anywhere in a response.
 */
import { isRecord } from './check-shape.js';

export interface CurrencyFormatLike {
  decimal_digits: number;
  decimal_separator: string;
  group_separator: string;
  currency_symbol: string;
  symbol_first: boolean;
  display_symbol: boolean;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The largest gap allowed between a milliunit amount and a value rounded to the currency's digits. */
function tolerance(format: CurrencyFormatLike): number {
  return 0.5 * 10 ** -format.decimal_digits + 1e-9;
}

/** What is wrong with `formatted` as a rendering of `milliunits`, or null when it is right. */
export function formattedProblem(
  milliunits: number,
  formatted: string,
  format: CurrencyFormatLike,
): string | null {
  let rest = formatted.trim();
  let negative = false;
  const takeMinus = (): void => {
    if (rest.startsWith('-')) {
      negative = true;
      rest = rest.slice(1).trim();
    }
  };
  takeMinus();
  if (format.display_symbol && format.currency_symbol !== '') {
    if (format.symbol_first) {
      if (!rest.startsWith(format.currency_symbol))
        return `symbol ${format.currency_symbol} not first`;
      rest = rest.slice(format.currency_symbol.length).trim();
      takeMinus();
    } else {
      if (!rest.endsWith(format.currency_symbol))
        return `symbol ${format.currency_symbol} not last`;
      rest = rest.slice(0, rest.length - format.currency_symbol.length).trim();
    }
  }
  const group = format.group_separator === '' ? '' : escapeRegExp(format.group_separator);
  const decimals =
    format.decimal_digits > 0
      ? `${escapeRegExp(format.decimal_separator)}\\d{${format.decimal_digits}}`
      : '';
  const pattern = new RegExp(`^\\d{1,3}(${group}\\d{3})*${decimals}$|^\\d+${decimals}$`);
  if (!pattern.test(rest)) return `number part ${JSON.stringify(rest)} does not follow the format`;
  let digits = rest;
  if (format.group_separator !== '') digits = digits.split(format.group_separator).join('');
  if (format.decimal_digits > 0) digits = digits.replace(format.decimal_separator, '.');
  const value = (negative ? -1 : 1) * Number(digits);
  if (Math.abs(value - milliunits / 1000) > tolerance(format)) {
    return `reads as ${value}, amount is ${milliunits / 1000}`;
  }
  if (negative && milliunits >= 0) return 'negative sign on a non-negative amount';
  return null;
}

/** Every companion problem found in `value`, with its path. */
export function moneyProblems(value: unknown, format: CurrencyFormatLike, path = 'data'): string[] {
  const problems: string[] = [];
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) walk(item, `${at}[${index}]`);
      return;
    }
    if (!isRecord(node)) return;
    for (const [key, item] of Object.entries(node)) {
      const match = /^(.*)_(formatted|currency)$/.exec(key);
      if (match?.[1] !== undefined && match[1] in node) {
        const amount = node[match[1]];
        if (amount === null) {
          if (item !== null) problems.push(`${at}.${key}: should be null beside a null amount`);
        } else if (typeof amount === 'number') {
          if (match[2] === 'currency') {
            if (typeof item !== 'number' || Math.abs(item - amount / 1000) > tolerance(format)) {
              problems.push(`${at}.${key}: ${String(item)} does not match ${amount} milliunits`);
            }
          } else if (typeof item !== 'string') {
            problems.push(`${at}.${key}: not a string`);
          } else {
            const problem = formattedProblem(amount, item, format);
            if (problem !== null) problems.push(`${at}.${key}: ${JSON.stringify(item)} ${problem}`);
          }
        }
      } else {
        walk(item, `${at}.${key}`);
      }
    }
  };
  walk(value, path);
  return problems.slice(0, 30);
}
