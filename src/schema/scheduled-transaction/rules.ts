/**
 * Scheduled transaction input rules, checked before any upstream call (openapi-1.85.0:
 * SaveScheduledTransaction). Splits cannot be created through the interface, so there is no
 * split rule.
 */

import { addYears, badUserInput, maxLength } from '../input-checks.js';
import { MEMO_MAX, PAYEE_NAME_MAX } from '../transaction/rules.js';

export const FUTURE_YEARS_MAX = 5;

export interface ScheduledFields {
  date: string;
  payeeName?: string | null;
  memo?: string | null;
}

/**
 * `currentDate` is the scheduled transaction's `dateNext` as the replica holds it (updates only):
 * an update that keeps the date is not a new date and is left for the upstream to judge (the
 * occurrence may have come due upstream since the replica's last sync).
 */
export function checkScheduled(
  input: ScheduledFields,
  path: string,
  today: string,
  currentDate?: string,
): void {
  if (input.date !== currentDate) {
    if (input.date <= today) {
      throw badUserInput(`${path}.date`, `must be in the future (after ${today}, UTC)`);
    }
    const latest = addYears(today, FUTURE_YEARS_MAX);
    if (input.date > latest) {
      throw badUserInput(
        `${path}.date`,
        `must be at most ${FUTURE_YEARS_MAX} years ahead (${latest} at the latest)`,
      );
    }
  }
  maxLength(input.memo, MEMO_MAX, `${path}.memo`);
  maxLength(input.payeeName, PAYEE_NAME_MAX, `${path}.payeeName`);
}
