/**
 * The checks mutation rules are written with. Each throws BAD_USER_INPUT naming the input field
 * (`input.transactions[2].memo`), before anything is sent upstream.
 */
import { badUserInput } from './inputs.js';

/** Lengths count characters (code points), as the REST limits do. */
export function maxLength(value: string | null | undefined, limit: number, field: string): void {
  if (typeof value === 'string' && [...value].length > limit) {
    throw badUserInput(field, `must be at most ${limit} characters (got ${[...value].length})`);
  }
}

/** For fields GraphQL lets a client set to null where the REST body forbids null. */
export function notNull(value: unknown, field: string): void {
  if (value === null)
    throw badUserInput(field, 'must not be null (leave it out to keep the current value)');
}

export function nonEmptyList(list: readonly unknown[], field: string, what: string): void {
  if (list.length === 0) throw badUserInput(field, `must hold at least one ${what}`);
}

/** Exact for any safe-integer amounts: the sum may pass 2^53, so it is added as BigInt. */
export function sumsTo(
  amounts: readonly number[],
  total: number,
  field: string,
  totalField: string,
): void {
  const sum = amounts.reduce((acc, amount) => acc + BigInt(amount), 0n);
  if (sum !== BigInt(total)) {
    throw badUserInput(
      field,
      `the amounts must add up to ${totalField} (${total}); they add up to ${sum}`,
    );
  }
}

/** `date` plus `years` calendar years; 29 February becomes 28 February in a common year. */
export function addYears(date: string, years: number): string {
  const year = Number(date.slice(0, 4)) + years;
  const monthDay = date.slice(5);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return `${String(year).padStart(4, '0')}-${monthDay === '02-29' && !leap ? '02-28' : monthDay}`;
}
