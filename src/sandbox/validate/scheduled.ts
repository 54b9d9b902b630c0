/**
 * Scheduled transaction bodies. `account_id` and `date` are required on create and update; the
 * date must be after today and at most 5 years ahead. Credit card payment categories are refused.
 * On update, absent fields keep their value; a new date restarts the series (date_first and
 * date_next both take it). A split keeps its amount and category.
 */
import { FLAG_COLORS, FREQUENCIES } from '../../upstream/types.js';
import type { IsoDate } from '../../upstream/types.js';
import { addYears } from '../dates.js';
import { badRequest } from '../errors.js';
import type { PlanStore } from '../store/plan-store.js';
import type { ScheduledTransactionRecord } from '../store/records.js';
import type { ScheduledState } from '../store/scheduled.js';
import type { PayeeRef } from '../store/transaction-state.js';
import {
  readDate,
  readEnum,
  readInteger,
  readNullableString,
  readNullableUuid,
  readUuid,
  requirePresent,
  type JsonObject,
} from './fields.js';
import { MEMO_MAX, PAYEE_NAME_MAX } from './transaction.js';

const FUTURE_YEARS_ALLOWED = 5;
const PATH = 'scheduled_transaction';

function payeeRef(body: JsonObject, current: string | null): PayeeRef {
  const payeeId = body.payee_id === undefined ? undefined : readNullableUuid(body.payee_id, `${PATH}.payee_id`);
  const payeeName =
    body.payee_name === undefined
      ? undefined
      : readNullableString(body.payee_name, `${PATH}.payee_name`, { maxLength: PAYEE_NAME_MAX });
  if (payeeId) return { kind: 'id', id: payeeId };
  if (payeeName && payeeName.trim() !== '') return { kind: 'name', name: payeeName };
  if (payeeId === null || payeeName !== undefined) return { kind: 'none' };
  return current === null ? { kind: 'none' } : { kind: 'id', id: current };
}

export function resolveScheduled(
  store: PlanStore,
  today: IsoDate,
  body: JsonObject,
  existing: ScheduledTransactionRecord | null,
): ScheduledState {
  const accountId = readUuid(requirePresent(body.account_id, `${PATH}.account_id`), `${PATH}.account_id`);
  if (!store.liveAccount(accountId)) throw badRequest(`${PATH}.account_id '${accountId}' is not an account of this plan`);
  const date = readDate(requirePresent(body.date, `${PATH}.date`), `${PATH}.date`);
  const dateChanged = existing === null || date !== existing.date_next;
  if (dateChanged && date <= today) throw badRequest(`${PATH}.date must be in the future (after ${today})`);
  if (dateChanged && date > addYears(today, FUTURE_YEARS_ALLOWED)) {
    throw badRequest(`${PATH}.date must not be more than ${FUTURE_YEARS_ALLOWED} years in the future`);
  }
  const amount = body.amount === undefined ? (existing?.amount ?? 0) : readInteger(requirePresent(body.amount, `${PATH}.amount`), `${PATH}.amount`);

  const payee = payeeRef(body, existing?.payee_id ?? null);
  let transferAccountId: string | null = null;
  if (payee.kind === 'id') {
    const record = store.livePayee(payee.id);
    if (!record) throw badRequest(`${PATH}.payee_id '${payee.id}' is not a payee of this plan`);
    transferAccountId = record.transfer_account_id;
    if (transferAccountId === accountId) {
      throw badRequest(`${PATH}.payee_id is the transfer payee of the scheduled transaction's own account`);
    }
  }
  const categoryId =
    body.category_id === undefined
      ? (existing?.category_id ?? null)
      : readNullableUuid(body.category_id, `${PATH}.category_id`);
  if (categoryId !== null) {
    const category = store.liveCategory(categoryId);
    if (!category) throw badRequest(`${PATH}.category_id '${categoryId}' is not a category of this plan`);
    if (category.role === 'creditCardPayment') {
      throw badRequest(`${PATH}.category_id: credit card payment categories are not permitted on scheduled transactions`);
    }
  }
  const memo =
    body.memo === undefined ? (existing?.memo ?? null) : readNullableString(body.memo, `${PATH}.memo`, { maxLength: MEMO_MAX });
  let flagColor = existing?.flag_color ?? null;
  if (body.flag_color !== undefined) {
    const color = body.flag_color === null ? null : readEnum(body.flag_color, FLAG_COLORS, `${PATH}.flag_color`);
    flagColor = color === '' ? null : color;
  }
  const frequency =
    body.frequency === undefined
      ? (existing?.frequency ?? 'never')
      : readEnum(requirePresent(body.frequency, `${PATH}.frequency`), FREQUENCIES, `${PATH}.frequency`);
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
