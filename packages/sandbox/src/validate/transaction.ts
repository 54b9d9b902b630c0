/**
 * Transaction bodies: first parsed (types, lengths, enums), then resolved against the plan
 * (accounts, payees, categories, transfers, split sums, dates) into the `TransactionState` the
 * store applies. Everything that can fail fails here, before the store changes.
 */
import {
  CLEARED_STATUSES,
  type ClearedStatus,
  FLAG_COLORS,
  type FlagColor,
  type IsoDate,
} from '@plans-gateway/rest-contract';
import { addYears } from '../core/dates.js';
import { badRequest } from '../core/errors.js';
import type { PlanStore } from '../store/plan-store.js';
import type { TransactionRecord } from '../store/records.js';
import type {
  PayeeRef,
  SubTransactionState,
  TransactionState,
} from '../store/transaction-state.js';
import { splitSourceOf } from '../store/transactions.js';
import {
  readArray,
  readBoolean,
  readDate,
  readEnum,
  readInteger,
  readNullableString,
  readNullableUuid,
  readObject,
  readUuid,
} from './fields.js';

export const MEMO_MAX = 500;
export const PAYEE_NAME_MAX = 200;
export const IMPORT_ID_MAX = 36;
/** How far back a transaction may be dated (scheduled occurrences coming due included). */
export const PAST_YEARS_ALLOWED = 5;

export interface SubTransactionDraft {
  path: string;
  amount: number;
  payeeId?: string | null;
  payeeName?: string | null;
  categoryId?: string | null;
  memo?: string | null;
}

/** A transaction body as sent: `undefined` = absent. */
export interface TransactionDraft {
  path: string;
  id?: string | null;
  importId?: string | null;
  accountId?: string;
  date?: IsoDate;
  amount?: number;
  payeeId?: string | null;
  payeeName?: string | null;
  categoryId?: string | null;
  memo?: string | null;
  cleared?: ClearedStatus;
  approved?: boolean;
  flagColor?: FlagColor | null;
  subtransactions?: SubTransactionDraft[];
}

function nonNull<T>(value: unknown, path: string, read: (v: unknown, p: string) => T): T {
  if (value === null) throw badRequest(`${path} must not be null`);
  return read(value, path);
}

function parseSubTransaction(value: unknown, path: string): SubTransactionDraft {
  const body = readObject(value, path);
  if (body.amount === undefined) throw badRequest(`${path}.amount is required`);
  const draft: SubTransactionDraft = {
    path,
    amount: nonNull(body.amount, `${path}.amount`, readInteger),
  };
  if (body.payee_id !== undefined)
    draft.payeeId = readNullableUuid(body.payee_id, `${path}.payee_id`);
  if (body.payee_name !== undefined) {
    draft.payeeName = readNullableString(body.payee_name, `${path}.payee_name`, {
      maxLength: PAYEE_NAME_MAX,
    });
  }
  if (body.category_id !== undefined)
    draft.categoryId = readNullableUuid(body.category_id, `${path}.category_id`);
  if (body.memo !== undefined)
    draft.memo = readNullableString(body.memo, `${path}.memo`, { maxLength: MEMO_MAX });
  return draft;
}

/** Parses one transaction object of any write body (create, update, bulk update). */
export function parseTransactionDraft(value: unknown, path: string): TransactionDraft {
  const body = readObject(value, path);
  const draft: TransactionDraft = { path };
  if (body.id !== undefined) draft.id = readNullableUuid(body.id, `${path}.id`);
  if (body.import_id !== undefined) {
    const importId = readNullableString(body.import_id, `${path}.import_id`, {
      maxLength: IMPORT_ID_MAX,
      nonEmpty: true,
    });
    draft.importId = importId;
  }
  if (body.account_id !== undefined)
    draft.accountId = nonNull(body.account_id, `${path}.account_id`, readUuid);
  if (body.date !== undefined) draft.date = nonNull(body.date, `${path}.date`, readDate);
  if (body.amount !== undefined) draft.amount = nonNull(body.amount, `${path}.amount`, readInteger);
  if (body.payee_id !== undefined)
    draft.payeeId = readNullableUuid(body.payee_id, `${path}.payee_id`);
  if (body.payee_name !== undefined) {
    draft.payeeName = readNullableString(body.payee_name, `${path}.payee_name`, {
      maxLength: PAYEE_NAME_MAX,
    });
  }
  if (body.category_id !== undefined)
    draft.categoryId = readNullableUuid(body.category_id, `${path}.category_id`);
  if (body.memo !== undefined)
    draft.memo = readNullableString(body.memo, `${path}.memo`, { maxLength: MEMO_MAX });
  if (body.cleared !== undefined) {
    draft.cleared = nonNull(body.cleared, `${path}.cleared`, (v, p) =>
      readEnum(v, CLEARED_STATUSES, p),
    );
  }
  if (body.approved !== undefined)
    draft.approved = nonNull(body.approved, `${path}.approved`, readBoolean);
  if (body.flag_color !== undefined)
    draft.flagColor = readFlagColor(body.flag_color, `${path}.flag_color`);
  if (body.subtransactions !== undefined) {
    draft.subtransactions = nonNull(body.subtransactions, `${path}.subtransactions`, readArray).map(
      (sub, i) => parseSubTransaction(sub, `${path}.subtransactions[${i}]`),
    );
  }
  return draft;
}

// ---------------------------------------------------------------------------------------------
// Resolution against the plan

/** `flag_color` as stored: '' clears the flag like null. */
export function readFlagColor(value: unknown, path: string): FlagColor | null {
  const color = value === null ? null : readEnum(value, FLAG_COLORS, path);
  return color === '' ? null : color;
}

export interface ResolveContext {
  store: PlanStore;
  today: IsoDate;
}

/** `payee_id` wins; otherwise a non-blank `payee_name`; explicit nulls clear; absent keeps `current`. */
export function payeeRefOf(
  draft: { payeeId?: string | null; payeeName?: string | null },
  current: string | null,
): PayeeRef {
  if (draft.payeeId) return { kind: 'id', id: draft.payeeId };
  if (draft.payeeName && draft.payeeName.trim() !== '')
    return { kind: 'name', name: draft.payeeName };
  if (draft.payeeId === null || draft.payeeName !== undefined) return { kind: 'none' };
  return current === null ? { kind: 'none' } : { kind: 'id', id: current };
}

/** Checks the payee exists and returns the account it transfers to, if any (never `accountId`). */
export function transferTargetOf(
  ctx: ResolveContext,
  ref: PayeeRef,
  accountId: string,
  path: string,
): string | null {
  if (ref.kind !== 'id') return null;
  const payee = ctx.store.livePayee(ref.id);
  if (!payee) throw badRequest(`${path}.payee_id '${ref.id}' is not a payee of this plan`);
  if (payee.transfer_account_id === null) return null;
  const target = ctx.store.liveAccount(payee.transfer_account_id);
  if (!target)
    throw badRequest(`${path}.payee_id '${ref.id}' transfers to an account that no longer exists`);
  if (target.id === accountId) {
    throw badRequest(
      `${path}.payee_id is the transfer payee of the account itself; a transfer needs another account`,
    );
  }
  return target.id;
}

function checkCategory(ctx: ResolveContext, categoryId: string | null, path: string): void {
  if (categoryId !== null && !ctx.store.liveCategory(categoryId)) {
    throw badRequest(`${path}.category_id '${categoryId}' is not a category of this plan`);
  }
}

function checkDate(ctx: ResolveContext, date: IsoDate, path: string): void {
  if (date > ctx.today) {
    throw badRequest(
      `${path}.date must not be in the future (today is ${ctx.today}); use scheduled transactions for future dates`,
    );
  }
  if (date < addYears(ctx.today, -PAST_YEARS_ALLOWED)) {
    throw badRequest(`${path}.date must not be more than ${PAST_YEARS_ALLOWED} years in the past`);
  }
}

function resolveSubTransactions(
  ctx: ResolveContext,
  drafts: readonly SubTransactionDraft[],
  accountId: string,
  amount: number,
  path: string,
): SubTransactionState[] {
  const subs = drafts.map((draft): SubTransactionState => {
    const payee = payeeRefOf(draft, null);
    const transferAccountId = transferTargetOf(ctx, payee, accountId, draft.path);
    const categoryId = draft.categoryId ?? null;
    checkCategory(ctx, categoryId, draft.path);
    return { amount: draft.amount, payee, transferAccountId, categoryId, memo: draft.memo ?? null };
  });
  const sum = subs.reduce((total, sub) => total + sub.amount, 0);
  if (subs.length > 0 && sum !== amount) {
    throw badRequest(
      `${path}.subtransactions amounts must add up to ${path}.amount (${sum} != ${amount})`,
    );
  }
  return subs;
}

function requireField<T>(value: T | undefined, path: string): T {
  if (value === undefined) throw badRequest(`${path} is required`);
  return value;
}

/** The state of a transaction to create. */
export function resolveNewTransaction(
  ctx: ResolveContext,
  draft: TransactionDraft,
): TransactionState {
  const path = draft.path;
  const accountId = requireField(draft.accountId, `${path}.account_id`);
  const date = requireField(draft.date, `${path}.date`);
  const amount = requireField(draft.amount, `${path}.amount`);
  if (!ctx.store.liveAccount(accountId))
    throw badRequest(`${path}.account_id '${accountId}' is not an account of this plan`);
  checkDate(ctx, date, path);
  const payee = payeeRefOf(draft, null);
  const transferAccountId = transferTargetOf(ctx, payee, accountId, path);
  const categoryId = draft.categoryId ?? null;
  checkCategory(ctx, categoryId, path);
  const subtransactions = resolveSubTransactions(
    ctx,
    draft.subtransactions ?? [],
    accountId,
    amount,
    path,
  );
  if (subtransactions.length > 0 && transferAccountId !== null) {
    throw badRequest(
      `${path}.payee_id: a split transaction cannot be a transfer; put the transfer on a subtransaction`,
    );
  }
  return {
    accountId,
    date,
    amount,
    payee,
    transferAccountId,
    categoryId,
    memo: draft.memo ?? null,
    cleared: draft.cleared ?? 'uncleared',
    approved: draft.approved ?? false,
    flagColor: draft.flagColor ?? null,
    subtransactions,
  };
}

/**
 * The state an existing transaction will have after the update: absent fields keep their value.
 * A split keeps its date, amount, category and subtransactions (the interface ignores changes).
 */
export function resolveTransactionUpdate(
  ctx: ResolveContext,
  draft: TransactionDraft,
  tx: TransactionRecord,
): TransactionState {
  const path = draft.path;
  const { store } = ctx;
  const isSplit = tx.subtransactions.length > 0;
  const accountId = draft.accountId ?? tx.account_id;
  if (!store.liveAccount(accountId))
    throw badRequest(`${path}.account_id '${accountId}' is not an account of this plan`);
  const date = isSplit || draft.date === undefined ? tx.date : draft.date;
  if (date !== tx.date) checkDate(ctx, date, path);
  const amount = isSplit || draft.amount === undefined ? tx.amount : draft.amount;
  const payee = payeeRefOf(draft, tx.payee_id);
  const transferAccountId = transferTargetOf(ctx, payee, accountId, path);
  const categoryId = isSplit
    ? null
    : draft.categoryId === undefined
      ? tx.category_id
      : draft.categoryId;
  checkCategory(ctx, categoryId, path);

  const splitSource = splitSourceOf(store, tx);
  if (
    splitSource &&
    (accountId !== tx.account_id ||
      date !== tx.date ||
      amount !== tx.amount ||
      transferAccountId !== tx.transfer_account_id)
  ) {
    throw badRequest(
      `${path}: this transaction is the other side of a transfer inside split transaction '${splitSource.transaction_id}'; change the split instead`,
    );
  }
  if (accountId !== tx.account_id && tx.import_id !== null) {
    const clash = store.findByImportId(accountId, tx.import_id);
    if (clash && clash !== tx) {
      throw badRequest(
        `${path}.account_id: that account already has a transaction with import_id '${tx.import_id}'`,
      );
    }
  }
  if (accountId !== tx.account_id) {
    for (const sub of tx.subtransactions) {
      if (!sub.deleted && sub.transfer_account_id === accountId) {
        throw badRequest(
          `${path}.account_id: a subtransaction of this split transfers to that account`,
        );
      }
    }
  }

  let subtransactions: SubTransactionState[] = [];
  if (!isSplit && draft.subtransactions && draft.subtransactions.length > 0) {
    subtransactions = resolveSubTransactions(ctx, draft.subtransactions, accountId, amount, path);
    if (transferAccountId !== null) {
      throw badRequest(
        `${path}.payee_id: a split transaction cannot be a transfer; put the transfer on a subtransaction`,
      );
    }
    if (splitSource)
      throw badRequest(
        `${path}.subtransactions: the other side of a transfer cannot become a split`,
      );
  }
  return {
    accountId,
    date,
    amount,
    payee,
    transferAccountId,
    categoryId,
    memo: draft.memo === undefined ? tx.memo : draft.memo,
    cleared: draft.cleared ?? tx.cleared,
    approved: draft.approved ?? tx.approved,
    flagColor: draft.flagColor === undefined ? tx.flag_color : draft.flagColor,
    subtransactions,
  };
}
