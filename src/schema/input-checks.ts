/**
 * The checks arguments and mutation inputs are written with. Each throws BAD_USER_INPUT naming
 * the argument or input field (`input.transactions[2].memo`), before anything is sent upstream.
 */
import type { GraphQLError } from 'graphql';
import { gatewayError } from '../errors/codes.js';

/**
 * A gateway-side input problem found in a resolver (rules that span several fields, such as
 * both `id` and `importId`), raised before any upstream call. `field` is the argument path the
 * client wrote (e.g. `input.subtransactions[1].amount`), so a UI can point at it.
 */
export function badUserInput(field: string, message: string): GraphQLError {
  return gatewayError(`${field}: ${message}`, 'BAD_USER_INPUT', { extensions: { field } });
}

/** Longest id accepted: a UUID with a `_YYYY-MM-DD` occurrence suffix is 47 characters. */
export const MAX_ID_LENGTH = 100;
const ID_PATTERN = /^[A-Za-z0-9_-]+$/;

/**
 * Checks an id that becomes a REST path segment (a transaction id is a UUID, or a UUID with a
 * `_YYYY-MM-DD` suffix for a scheduled occurrence): letters, digits, `-` and `_`, at most
 * MAX_ID_LENGTH characters. Dot segments, NUL, non-ASCII characters or a 500 KB id are refused
 * here, naming the argument, instead of failing in the URL builder or upstream.
 */
export function checkId(field: string, value: string): string {
  if (value.length > MAX_ID_LENGTH) {
    throw badUserInput(
      field,
      `must be an id of at most ${MAX_ID_LENGTH} characters; got ${value.length} characters`,
    );
  }
  if (!ID_PATTERN.test(value)) {
    throw badUserInput(
      field,
      `must be an id made of letters, digits, "-" and "_"; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

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
