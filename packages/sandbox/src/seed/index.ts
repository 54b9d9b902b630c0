/**
 * Deterministic demo plans. The same seed, transaction count and `today` always give the same
 * plan; dates are laid out backwards from `today` and none lies in the future.
 */
import type { CurrencyFormat, DateFormat, IsoDate } from '@plans-gateway/rest-contract';
import { addDays, addMonths, isoDateTimeOf, monthOf } from '../core/dates.js';
import { createRandom, type Random } from '../core/random.js';
import {
  creditOverspendingByCard,
  ensureMonth,
  setBudgeted,
  settleBudget,
} from '../store/budget.js';
import { PlanStore } from '../store/plan-store.js';
import type { MonthRecord } from '../store/records.js';
import { createTransaction, setTransactionStatus } from '../store/transactions.js';
import { ACCOUNTS, FLAG_NAMES, MONTH_NOTES } from './catalog.js';
import { stateOfEvent } from './events.js';
import { seedImportQueue, seedScheduledTransactions } from './extras.js';
import { type PlannedMonth, planHistory } from './history.js';
import { recordAssignments } from './money-movements.js';
import { type SeededStructure, seedStructure } from './structure.js';

export const DEFAULT_SEED_TRANSACTIONS = 1200;
const MIN_MONTHS = 13;
const MAX_MONTHS = 59;
const TRANSACTIONS_PER_EXTRA_MONTH = 1700;

export const USD_FORMAT: CurrencyFormat = {
  iso_code: 'USD',
  example_format: '123,456.78',
  decimal_digits: 2,
  decimal_separator: '.',
  symbol_first: true,
  group_separator: ',',
  currency_symbol: '$',
  display_symbol: true,
};

export const US_DATE_FORMAT: DateFormat = { format: 'MM/DD/YYYY' };

export interface SeedPlanOptions {
  name: string;
  ownerUserId: string;
  seed: number;
  transactions: number;
  today: IsoDate;
  nowMs: number;
  /** Source of every id of the plan; it keeps serving the plan's ids at runtime. */
  ids: Random;
  currencyFormat: CurrencyFormat | null;
  dateFormat: DateFormat | null;
}

/** How many months of history a plan of this size spans (13 to 59). */
export function monthsOfHistory(transactions: number): number {
  return Math.min(
    MAX_MONTHS,
    Math.max(MIN_MONTHS, Math.ceil(transactions / TRANSACTIONS_PER_EXTRA_MONTH)),
  );
}

export function seedPlan(options: SeedPlanOptions): PlanStore {
  const { today, nowMs, ids } = options;
  const rng = createRandom(options.seed, 0x5eed);
  const newId = () => ids.uuid();
  const store = new PlanStore(
    {
      id: ids.uuid(),
      name: options.name,
      ownerUserId: options.ownerUserId,
      currencyFormat: options.currencyFormat,
      dateFormat: options.dateFormat,
      flagNames: { ...FLAG_NAMES },
    },
    today,
    nowMs,
    settleBudget,
  );
  const currentMonth = monthOf(today);
  const monthCount = monthsOfHistory(options.transactions);
  const months = Array.from({ length: monthCount }, (_, i) =>
    addMonths(currentMonth, i - monthCount + 1),
  );

  const structure = store.change(nowMs, () => {
    for (const month of months) ensureMonth(store, month);
    return seedStructure(store, ids, nowMs);
  });

  const history = planHistory({ rng, months, today, transactions: options.transactions });
  const occurrences = new Map<string, number>();
  history.forEach((planned, index) => {
    store.change(nowMs, () => {
      const previous = index > 0 ? store.monthsByKey.get(addMonths(planned.month, -1)) : undefined;
      fundCardPayments(store, structure, planned, previous);
      applyMonthPlan(store, planned, structure.categories, options.ownerUserId, newId, nowMs);
      const month = store.monthsByKey.get(planned.month);
      if (month) {
        month.age_of_money = Math.min(60, 12 + index * 2 + rng.int(0, 4));
        if (index % 5 === 4) month.note = rng.pick(MONTH_NOTES);
      }
      for (const event of planned.events) {
        const { state, extras, status } = stateOfEvent(event, structure, rng, today, occurrences);
        const tx = createTransaction(store, newId, state, extras);
        const counterpart = tx.transfer_transaction_id
          ? store.transactions.get(tx.transfer_transaction_id)
          : undefined;
        if (counterpart) {
          setTransactionStatus(store, counterpart, {
            cleared: status.counterpartCleared,
            approved: true,
            debt_transaction_type: event.counterpartDebtType ?? null,
          });
        }
        for (const sub of tx.subtransactions) {
          const subCounterpart = sub.transfer_transaction_id
            ? store.transactions.get(sub.transfer_transaction_id)
            : undefined;
          if (subCounterpart)
            setTransactionStatus(store, subCounterpart, {
              cleared: status.counterpartCleared,
              approved: true,
            });
        }
      }
    });
  });

  store.change(nowMs, () => {
    seedScheduledTransactions(store, structure, newId, today);
    store.importQueue = seedImportQueue(structure, rng, today);
    const reconciledAt = isoDateTimeOf(Date.parse(`${addDays(today, -46)}T17:30:00Z`));
    for (const [key, account] of structure.accounts) {
      if (key !== 'cash') account.last_reconciled_at = reconciledAt;
      if (key === 'storeCard') {
        account.closed = true;
        account.last_reconciled_at = null;
      }
      store.touch(account);
    }
  });
  return store;
}

/**
 * Private: what the household assigns to its card payment categories, as people who pay their
 * card in full do: in the first month the debt each card starts with, later the card spending of
 * the previous month that no category had the money for. The payment on the 20th (last month's
 * card spending) is then always covered, and a payment category holds about what its card owes
 * for funded spending, as the product shows it.
 */
function fundCardPayments(
  store: PlanStore,
  structure: SeededStructure,
  planned: PlannedMonth,
  previous: MonthRecord | undefined,
): void {
  for (const spec of ACCOUNTS) {
    const card = structure.accounts.get(spec.key);
    if (!card || !store.paymentCategoryByCard.has(card.id)) continue;
    const amount =
      previous === undefined
        ? Math.max(0, -spec.startingBalance)
        : Number(creditOverspendingByCard(previous).get(card.id) ?? 0); // seeded sums are small
    if (amount > 0) planned.budgets.set(`card:${spec.key}`, amount);
  }
}

/** Private: the month's assignments, recorded as one group of money movements. */
function applyMonthPlan(
  store: PlanStore,
  planned: PlannedMonth,
  categories: Map<string, string>,
  userId: string,
  newId: () => string,
  nowMs: number,
): void {
  const month = store.monthsByKey.get(planned.month);
  if (!month) return;
  const budgets = new Map<string, number>();
  for (const [key, amount] of planned.budgets) {
    const id = categories.get(key);
    if (id) budgets.set(id, amount);
  }
  const cover = planned.cover && {
    from: categories.get(planned.cover.from) ?? '',
    to: categories.get(planned.cover.to) ?? '',
    amount: planned.cover.amount,
  };
  for (const [categoryId, amount] of budgets) setBudgeted(store, month, categoryId, amount);
  recordAssignments(store, {
    month: planned.month,
    budgets,
    cover: cover?.from && cover.to ? cover : null,
    userId,
    at: Date.parse(`${planned.month}T09:00:00Z`),
    nowMs,
    newId,
  });
}
