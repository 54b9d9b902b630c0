/**
 * Turns planned events into transaction states, deciding the details a real register shows:
 * cleared and reconciled status by age, imports with `YNAB:` import ids on linked accounts,
 * recent unapproved (and sometimes uncategorized) imports, flags and memos.
 */
import {
  type ClearedStatus,
  FLAG_COLORS,
  type FlagColor,
  type IsoDate,
} from '@plans-gateway/rest-contract';
import type { Random } from '../core/random.js';
import type {
  NewTransactionExtras,
  PayeeRef,
  TransactionState,
} from '../store/transaction-state.js';
import { ACCOUNTS, type AccountKey, MEMOS } from './catalog.js';
import { ageInDays, type RawEvent } from './history.js';
import type { SeededStructure } from './structure.js';

const LINKED = new Set<AccountKey>(ACCOUNTS.filter((a) => a.linked).map((a) => a.key));
const TRACKING = new Set<AccountKey>(ACCOUNTS.filter((a) => !a.onBudget).map((a) => a.key));
const COLORS = FLAG_COLORS.filter((c): c is Exclude<FlagColor, ''> => c !== '');

export interface SeededEvent {
  state: TransactionState;
  extras: NewTransactionExtras;
  status: { counterpartCleared: ClearedStatus };
}

function clearedFor(rng: Random, account: AccountKey, age: number): ClearedStatus {
  if (account === 'cash') return age > 2 ? 'cleared' : 'uncleared';
  if (TRACKING.has(account)) return age > 45 ? 'reconciled' : 'cleared';
  if (age > 45) return 'reconciled';
  if (age > 4) return 'cleared';
  return rng.chance(0.7) ? 'uncleared' : 'cleared';
}

export function stateOfEvent(
  event: RawEvent,
  structure: SeededStructure,
  rng: Random,
  today: IsoDate,
  occurrences: Map<string, number>,
): SeededEvent {
  const account = structure.accounts.get(event.account);
  if (!account) throw new Error(`seed: unknown account ${event.account}`);
  const payeeRef = (
    payee: RawEvent['payee'],
  ): { ref: PayeeRef; transferAccountId: string | null } => {
    if (typeof payee === 'string') {
      const id = structure.payees.get(payee);
      return {
        ref: id ? { kind: 'id', id } : { kind: 'name', name: payee },
        transferAccountId: null,
      };
    }
    const target = structure.accounts.get(payee.transferTo);
    if (!target?.transfer_payee_id)
      throw new Error(`seed: unknown transfer target ${payee.transferTo}`);
    return { ref: { kind: 'id', id: target.transfer_payee_id }, transferAccountId: target.id };
  };
  const categoryId = (key: string | null) =>
    key === null ? null : (structure.categories.get(key) ?? null);

  const age = ageInDays(event.date, today);
  const { ref, transferAccountId } = payeeRef(event.payee);
  const isTransfer = transferAccountId !== null;
  const imported =
    event.kind !== 'starting' &&
    !isTransfer &&
    LINKED.has(event.account) &&
    rng.chance(age <= 10 ? 0.9 : 0.6);
  const approved = !(imported && age <= 10 && rng.chance(0.5));
  let category = categoryId(event.category);
  if (!approved && !event.subs && rng.chance(0.35)) category = null;

  let importId: string | null = null;
  if (imported) {
    const key = `${event.account}:${event.amount}:${event.date}`;
    const occurrence = (occurrences.get(key) ?? 0) + 1;
    occurrences.set(key, occurrence);
    importId = `YNAB:${event.amount}:${event.date}:${occurrence}`;
  }
  const memo = event.memo ?? (event.kind === 'other' && rng.chance(0.15) ? rng.pick(MEMOS) : null);
  const flagColor = event.kind === 'other' && rng.chance(0.03) ? rng.pick(COLORS) : null;

  const state: TransactionState = {
    accountId: account.id,
    date: event.date,
    amount: event.amount,
    payee: ref,
    transferAccountId,
    categoryId: category,
    memo,
    cleared: event.kind === 'starting' ? 'reconciled' : clearedFor(rng, event.account, age),
    approved,
    flagColor,
    subtransactions: (event.subs ?? []).map((sub) => {
      const subPayee = sub.transferTo
        ? payeeRef({ transferTo: sub.transferTo })
        : { ref: { kind: 'none' } as PayeeRef, transferAccountId: null };
      return {
        amount: sub.amount,
        payee: subPayee.ref,
        transferAccountId: subPayee.transferAccountId,
        categoryId: categoryId(sub.category),
        memo: sub.memo ?? null,
      };
    }),
  };
  const payeeName = typeof event.payee === 'string' ? event.payee : null;
  return {
    state,
    extras: {
      importId,
      importPayeeName: imported ? payeeName : null,
      importPayeeNameOriginal: imported ? (event.statementName ?? payeeName) : null,
      debtTransactionType: event.debtType ?? null,
    },
    status: { counterpartCleared: clearedFor(rng, event.account, age) },
  };
}
