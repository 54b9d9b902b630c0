import type { IsoDate } from '@plans-gateway/rest-contract';
import { GraphQLError } from 'graphql';

/**
 * A gateway-side input problem found in a resolver (rules that span several fields, such as
 * both `id` and `importId`), raised before any upstream call. `field` is the argument path the
 * client wrote (e.g. `input.subtransactions[1].amount`), so a UI can point at it.
 */
export function badUserInput(field: string, message: string): GraphQLError {
  return new GraphQLError(`${field}: ${message}`, {
    extensions: { code: 'BAD_USER_INPUT', field },
  });
}

/** The last day of the month that starts on `month` (`YYYY-MM-01`). */
export function lastDayOfMonth(month: IsoDate): IsoDate {
  const year = Number(month.slice(0, 4));
  const mon = Number(month.slice(5, 7));
  const last = new Date(Date.UTC(year, mon, 0)).getUTCDate();
  return `${month.slice(0, 7)}-${String(last).padStart(2, '0')}`;
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
