import { GraphQLError } from 'graphql';
import type { IsoDate } from '../upstream/types.js';

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
