/**
 * Scheduled transaction bodies. `account_id` and `date` are required on create and update; the
 * date must be after today and at most 5 years ahead. Credit card payment categories are refused.
 * On update, absent fields keep their value; a new date restarts the series (date_first and
 * date_next both take it). A split keeps its amount and category and cannot become a transfer.
 */
import { FREQUENCIES, type IsoDate } from '@plans-gateway/rest-contract';
import { addYears } from '../core/dates.js';
import { badRequest } from '../core/errors.js';
import type { PlanStore } from '../store/plan-store.js';
import type { ScheduledTransactionRecord } from '../store/records.js';
import type { ScheduledState } from '../store/scheduled.js';
import {
  type JsonObject,
  readDate,
  readEnum,
  readInteger,
  readNullableString,
  readNullableUuid,
  readUuid,
  requirePresent,
} from './fields.js';
import {
  MEMO_MAX,
  PAYEE_NAME_MAX,
  payeeRefOf,
  readFlagColor,
  transferTargetOf,
} from './transaction.js';

const FUTURE_YEARS_ALLOWED = 5;
const PATH = 'scheduled_transaction';

export function resolveScheduled(
  store: PlanStore,
  today: IsoDate,
  body: JsonObject,
  existing: ScheduledTransactionRecord | null,
): ScheduledState {
  const accountId = readUuid(
    requirePresent(body.account_id, `${PATH}.account_id`),
    `${PATH}.account_id`,
  );
  if (!store.liveAccount(accountId))
    throw badRequest(`${PATH}.account_id '${accountId}' is not an account of this plan`);
  const date = readDate(requirePresent(body.date, `${PATH}.date`), `${PATH}.date`);
  const dateChanged = existing === null || date !== existing.date_next;
  if (dateChanged && date <= today)
    throw badRequest(`${PATH}.date must be in the future (after ${today})`);
  if (dateChanged && date > addYears(today, FUTURE_YEARS_ALLOWED)) {
    throw badRequest(
      `${PATH}.date must not be more than ${FUTURE_YEARS_ALLOWED} years in the future`,
    );
  }
  const amount =
    body.amount === undefined
      ? (existing?.amount ?? 0)
      : readInteger(requirePresent(body.amount, `${PATH}.amount`), `${PATH}.amount`);

  const payee = payeeRefOf(
    {
      payeeId:
        body.payee_id === undefined
          ? undefined
          : readNullableUuid(body.payee_id, `${PATH}.payee_id`),
      payeeName:
        body.payee_name === undefined
          ? undefined
          : readNullableString(body.payee_name, `${PATH}.payee_name`, {
              maxLength: PAYEE_NAME_MAX,
            }),
    },
    existing?.payee_id ?? null,
  );
  const transferAccountId = transferTargetOf({ store, today }, payee, accountId, PATH);
  if (transferAccountId !== null && existing !== null && existing.subtransactions.length > 0) {
    // It would come due as a split transaction, which cannot itself be a transfer.
    throw badRequest(`${PATH}.payee_id: a split scheduled transaction cannot be a transfer`);
  }
  const categoryId =
    body.category_id === undefined
      ? (existing?.category_id ?? null)
      : readNullableUuid(body.category_id, `${PATH}.category_id`);
  if (categoryId !== null) {
    const category = store.liveCategory(categoryId);
    if (!category)
      throw badRequest(`${PATH}.category_id '${categoryId}' is not a category of this plan`);
    if (category.role === 'creditCardPayment') {
      throw badRequest(
        `${PATH}.category_id: credit card payment categories are not permitted on scheduled transactions`,
      );
    }
  }
  const memo =
    body.memo === undefined
      ? (existing?.memo ?? null)
      : readNullableString(body.memo, `${PATH}.memo`, { maxLength: MEMO_MAX });
  const flagColor =
    body.flag_color === undefined
      ? (existing?.flag_color ?? null)
      : readFlagColor(body.flag_color, `${PATH}.flag_color`);
  const frequency =
    body.frequency === undefined
      ? (existing?.frequency ?? 'never')
      : readEnum(
          requirePresent(body.frequency, `${PATH}.frequency`),
          FREQUENCIES,
          `${PATH}.frequency`,
        );
  return {
    accountId,
    dateFirst: dateChanged ? date : (existing?.date_first ?? date),
    dateNext: date,
    frequency,
    amount,
    payee,
    transferAccountId,
    categoryId,
    memo,
    flagColor,
    subtransactions: [],
  };
}
