/** Seeded scheduled transactions (one of them a split) and the linked accounts' import queue. */
import type { Frequency, IsoDate } from '@plans-gateway/rest-contract';
import { addDays, addMonths, monthOf } from '../core/dates.js';
import type { Random } from '../core/random.js';
import { firstOccurrenceAfter } from '../core/recurrence.js';
import type { PlanStore } from '../store/plan-store.js';
import type { ImportableTransaction } from '../store/records.js';
import { createScheduledTransaction, type ScheduledState } from '../store/scheduled.js';
import type { PayeeRef } from '../store/transaction-state.js';
import { type AccountKey, EMPLOYER, MERCHANTS, MONTHLY_BILLS } from './catalog.js';
import type { SeededStructure } from './structure.js';

interface ScheduleSpec {
  account: AccountKey;
  firstDay: IsoDate;
  frequency: Frequency;
  amount: number;
  payee: { name: string } | { transferTo: AccountKey };
  category: string | null;
  memo?: string;
  flag?: 'red' | 'purple';
  split?: { amount: number; category: string }[];
}

export function seedScheduledTransactions(
  store: PlanStore,
  structure: SeededStructure,
  newId: () => string,
  today: IsoDate,
): void {
  const firstMonth = store.firstMonth;
  const lastPaycheck = [...store.transactionOrder]
    .reverse()
    .find((tx) => !tx.deleted && tx.payee_id === structure.payees.get(EMPLOYER.name));
  const electric = MONTHLY_BILLS.find((bill) => bill.category === 'electric');
  const specs: ScheduleSpec[] = [
    {
      account: 'checking',
      firstDay: firstMonth,
      frequency: 'twiceAMonth',
      amount: lastPaycheck?.amount ?? 3_200_000,
      payee: { name: EMPLOYER.name },
      category: 'readyToAssign',
    },
    {
      account: 'checking',
      firstDay: firstMonth,
      frequency: 'monthly',
      amount: -1_850_000,
      payee: { transferTo: 'mortgage' },
      category: 'mortgage',
      memo: 'Mortgage payment',
    },
    {
      account: 'checking',
      firstDay: addDays(firstMonth, 15),
      frequency: 'monthly',
      amount: -400_000,
      payee: { transferTo: 'savings' },
      category: null,
    },
    {
      account: 'visa',
      firstDay: addDays(firstMonth, 2),
      frequency: 'monthly',
      amount: -15_490,
      payee: { name: 'StreamFlix' },
      category: 'streaming',
    },
    {
      account: 'checking',
      firstDay: addDays(monthOf(today), 27),
      frequency: 'yearly',
      amount: -186_000,
      payee: { name: 'State DMV' },
      category: 'carMaintenance',
      memo: 'Registration renewal',
      flag: 'purple',
    },
    {
      account: 'checking',
      firstDay: addDays(addMonths(monthOf(today), 2), 4),
      frequency: 'never',
      amount: -240_000,
      payee: { name: 'Family Clinic' },
      category: 'medical',
      memo: 'Annual checkup copay',
    },
    {
      account: 'checking',
      firstDay: addDays(firstMonth, (electric?.day ?? 6) - 1),
      frequency: 'monthly',
      amount: -160_000,
      payee: { name: 'City Utilities' },
      category: null,
      memo: 'Power and water on one bill',
      split: [
        { amount: -100_000, category: 'electric' },
        { amount: -60_000, category: 'water' },
      ],
    },
  ];
  for (const spec of specs) {
    const dateNext = firstOccurrenceAfter(spec.firstDay, spec.frequency, today);
    if (dateNext === null) continue;
    const account = structure.accounts.get(spec.account);
    if (!account) continue;
    let payee: PayeeRef;
    let transferAccountId: string | null = null;
    if ('transferTo' in spec.payee) {
      const target = structure.accounts.get(spec.payee.transferTo);
      payee = target?.transfer_payee_id
        ? { kind: 'id', id: target.transfer_payee_id }
        : { kind: 'none' };
      transferAccountId = target?.id ?? null;
    } else {
      const id = structure.payees.get(spec.payee.name);
      payee = id ? { kind: 'id', id } : { kind: 'name', name: spec.payee.name };
    }
    const categoryId = (key: string | null) =>
      key === null ? null : (structure.categories.get(key) ?? null);
    const state: ScheduledState = {
      accountId: account.id,
      dateFirst: spec.firstDay,
      dateNext,
      frequency: spec.frequency,
      amount: spec.amount,
      payee,
      transferAccountId,
      categoryId: categoryId(spec.category),
      memo: spec.memo ?? null,
      flagColor: spec.flag ?? null,
      subtransactions: (spec.split ?? []).map((line) => ({
        amount: line.amount,
        payee: { kind: 'none' },
        transferAccountId: null,
        categoryId: categoryId(line.category),
        memo: null,
      })),
    };
    createScheduledTransaction(store, newId, state);
  }
}

/** A few purchases "at the bank" of each linked account, waiting for POST /transactions/import. */
export function seedImportQueue(
  structure: SeededStructure,
  rng: Random,
  today: IsoDate,
): ImportableTransaction[] {
  const queue: ImportableTransaction[] = [];
  const plan: [AccountKey, number][] = [
    ['checking', 2],
    ['visa', 3],
  ];
  for (const [key, count] of plan) {
    const account = structure.accounts.get(key);
    if (!account) continue;
    for (let i = 0; i < count; i++) {
      const merchant = rng.pick(MERCHANTS.filter((m) => m.accounts.includes(key)));
      const amount =
        -Math.round((merchant.min + rng.next() * (merchant.max - merchant.min)) / 10) * 10;
      queue.push({
        accountId: account.id,
        date: addDays(today, -rng.int(0, 2)),
        amount,
        payeeName: merchant.name,
        statementName: merchant.statementName,
        memo: null,
      });
    }
  }
  return queue;
}
