import { describe, expect, it } from 'vitest';
import { addDays, addYears, isoDateOf } from '../../src/core/dates.js';
import { followClock } from '../../src/handlers/context.js';
import { createManualClock, createSandbox } from '../../src/index.js';
import type { PlanStore } from '../../src/store/plan-store.js';
import type { ScheduledTransactionRecord, TransactionRecord } from '../../src/store/records.js';
import {
  createScheduledTransaction,
  deleteScheduledTransaction,
  updateScheduledTransaction,
} from '../../src/store/scheduled.js';
import { resolveScheduled } from '../../src/validate/scheduled.js';
import {
  budgetProblems,
  NOW,
  type SeededPlan,
  safe,
  seedTestPlan,
  TODAY,
  transferProblems,
} from '../support/seeded-store.js';

const DAY = 86_400_000;
const at = (date: string) => Date.parse(`${date}T12:00:00Z`);

function account(store: PlanStore, name: string) {
  const found = [...store.accounts.values()].find((a) => a.name === name);
  if (!found) throw new Error(`seed changed: no account ${name}`);
  return found;
}

function category(store: PlanStore, name: string) {
  const found = [...store.categories.values()].find((c) => c.name === name);
  if (!found) throw new Error(`seed changed: no category ${name}`);
  return found;
}

function seededSchedule(store: PlanStore, payeeName: string): ScheduledTransactionRecord {
  const found = [...store.scheduledTransactions.values()].find(
    (s) => store.payees.get(s.payee_id ?? '')?.name === payeeName,
  );
  if (!found) throw new Error(`seed changed: no scheduled transaction for ${payeeName}`);
  return found;
}

/** Creates a scheduled transaction through the same validation as the REST handler. */
function schedule(
  plan: SeededPlan,
  body: Record<string, unknown>,
  today = TODAY,
  now = NOW,
): ScheduledTransactionRecord {
  const state = resolveScheduled(plan.store, today, body, null);
  return plan.store.change(now, () => createScheduledTransaction(plan.store, plan.newId, state));
}

/** Live transactions dated after `since` (the seed dates none after its today). */
function enteredAfter(
  store: PlanStore,
  since: string,
  filter: (tx: TransactionRecord) => boolean = () => true,
): TransactionRecord[] {
  return [...store.transactions.values()].filter(
    (tx) => !tx.deleted && tx.date > since && filter(tx),
  );
}

const datesOf = (transactions: TransactionRecord[]) => transactions.map((tx) => tx.date).sort();

describe('scheduled transactions coming due', () => {
  it('seeds every scheduled transaction with date_next after today', () => {
    for (const [seed, transactions, now] of [
      [1, 300, NOW],
      [5, 40, NOW],
      [9, 2_000, at('2024-02-29')],
      [3, 100, at('2025-12-31')],
    ] as const) {
      const { store } = seedTestPlan({ seed, transactions, now });
      const scheduled = [...store.scheduledTransactions.values()];
      expect(scheduled.length).toBe(7);
      for (const record of scheduled)
        expect(record.date_next > isoDateOf(now), `${seed}: ${record.id} ${record.date_next}`).toBe(
          true,
        );
    }
  });

  it('changes nothing and keeps the knowledge when nothing is due', () => {
    const plan = seedTestPlan({ transactions: 100 });
    const { store } = plan;
    const knowledge = store.knowledge;
    const modified = store.lastModifiedOn;
    const count = store.transactions.size;
    followClock(plan, TODAY, NOW + 3_600_000);
    followClock(plan, TODAY, NOW + 11 * 3_600_000);
    expect(store.knowledge).toBe(knowledge);
    expect(store.lastModifiedOn).toBe(modified);
    expect(store.transactions.size).toBe(count);
  });

  it('enters the seeded schedules missed while idle, in one change, and moves every date_next past today', () => {
    const plan = seedTestPlan({ transactions: 300 });
    const { store } = plan;
    const checking = account(store, 'Everyday Checking');
    const savings = account(store, 'Rainy Day Savings');
    const knowledge = store.knowledge;
    const today = '2025-09-10';
    followClock(plan, today, at(today));

    expect(store.knowledge).toBe(knowledge + 1);
    expect(store.lastModifiedOn).toBe(at(today));
    const entered = enteredAfter(store, TODAY);
    for (const tx of entered) expect(tx.knowledge).toBe(knowledge + 1);
    const paycheck = seededSchedule(store, 'Acme Corp Payroll');
    expect(datesOf(entered.filter((tx) => tx.payee_id === paycheck.payee_id))).toEqual([
      '2025-06-16',
      '2025-07-01',
      '2025-07-16',
      '2025-08-01',
      '2025-08-16',
      '2025-09-01',
    ]);
    expect(paycheck.date_next).toBe('2025-09-16');
    const toSavings = entered.filter(
      (tx) => tx.account_id === checking.id && tx.transfer_account_id === savings.id,
    );
    expect(datesOf(toSavings)).toEqual(['2025-06-16', '2025-07-16', '2025-08-16']);
    const streaming = seededSchedule(store, 'StreamFlix');
    expect(datesOf(entered.filter((tx) => tx.payee_id === streaming.payee_id))).toEqual([
      '2025-07-03',
      '2025-08-03',
      '2025-09-03',
    ]);
    expect(streaming.date_next).toBe('2025-10-03');
    const dmv = seededSchedule(store, 'State DMV');
    expect(datesOf(entered.filter((tx) => tx.payee_id === dmv.payee_id))).toEqual(['2025-06-28']);
    expect(dmv.date_next).toBe('2026-06-28');
    const clinic = seededSchedule(store, 'Family Clinic');
    expect(datesOf(entered.filter((tx) => tx.payee_id === clinic.payee_id))).toEqual([
      '2025-08-05',
    ]);
    expect(clinic).toMatchObject({ deleted: true, knowledge: knowledge + 1 });

    for (const record of store.scheduledTransactions.values()) {
      if (!record.deleted)
        expect(record.date_next > today, `${record.id} ${record.date_next}`).toBe(true);
    }
    expect(budgetProblems(store)).toEqual([]);
    expect(transferProblems(store)).toEqual([]);
    expect(store.currentMonth).toBe('2025-09-01');
  });

  it('enters an occurrence as the scheduled transaction describes it: unapproved, uncleared, flag, memo, category', () => {
    const plan = seedTestPlan({ transactions: 100 });
    const { store } = plan;
    const dmv = seededSchedule(store, 'State DMV');
    followClock(plan, dmv.date_next, at(dmv.date_next));
    const [tx] = enteredAfter(store, TODAY, (t) => t.payee_id === dmv.payee_id);
    expect(tx).toMatchObject({
      date: '2025-06-28',
      amount: dmv.amount,
      account_id: dmv.account_id,
      category_id: dmv.category_id,
      memo: 'Registration renewal',
      flag_color: 'purple',
      approved: false,
      cleared: 'uncleared',
      import_id: null,
      matched_transaction_id: null,
      transfer_account_id: null,
    });
  });

  it('enters occurrences in cash accounts cleared', () => {
    const plan = seedTestPlan({ transactions: 100 });
    const cash = account(plan.store, 'Wallet Cash');
    const clearedBefore = safe(cash.cleared_balance);
    schedule(plan, {
      account_id: cash.id,
      date: addDays(TODAY, 1),
      amount: -12_000,
      payee_name: 'Laundromat',
      frequency: 'weekly',
    });
    followClock(plan, addDays(TODAY, 8), NOW + 8 * DAY);
    const entered = enteredAfter(plan.store, TODAY, (tx) => tx.account_id === cash.id);
    expect(entered.map((tx) => tx.cleared)).toEqual(['cleared', 'cleared']);
    expect(cash.cleared_balance).toBe(clearedBefore - 24_000);
    expect(budgetProblems(plan.store)).toEqual([]);
  });

  it('enters a split schedule as a split with the same lines', () => {
    const plan = seedTestPlan({ transactions: 100 });
    const { store } = plan;
    const utilities = seededSchedule(store, 'City Utilities');
    const electric = category(store, 'Electric');
    const day = utilities.date_next;
    followClock(plan, day, at(day));
    const [tx] = enteredAfter(store, TODAY, (t) => t.payee_id === utilities.payee_id);
    if (!tx) throw new Error('not entered');
    expect(tx).toMatchObject({
      date: day,
      amount: -160_000,
      category_id: null,
      memo: 'Power and water on one bill',
    });
    expect(tx.subtransactions.map((sub) => [sub.amount, sub.category_id])).toEqual(
      utilities.subtransactions.map((sub) => [sub.amount, sub.category_id]),
    );
    expect(
      tx.subtransactions.every(
        (sub) => sub.transaction_id === tx.id && sub.knowledge === store.knowledge,
      ),
    ).toBe(true);
    const month = store.monthsByKey.get(`${day.slice(0, 7)}-01`);
    const electricBefore = seedTestPlan({ transactions: 100 })
      .store.monthsByKey.get(`${day.slice(0, 7)}-01`)
      ?.categories.get(electric.id);
    expect(month?.categories.get(electric.id)?.activity).toBe(
      safe(electricBefore?.activity ?? 0) - 100_000,
    );
    expect(budgetProblems(store)).toEqual([]);
  });

  it('enters a transfer schedule as a transfer pair', () => {
    const plan = seedTestPlan({ transactions: 100 });
    const { store } = plan;
    const checking = account(store, 'Everyday Checking');
    const savings = account(store, 'Rainy Day Savings');
    const savingsBalance = safe(savings.balance);
    followClock(plan, '2025-06-16', at('2025-06-16'));
    const [tx] = enteredAfter(
      store,
      TODAY,
      (t) => t.account_id === checking.id && t.transfer_account_id === savings.id,
    );
    if (!tx) throw new Error('not entered');
    const counterpart = store.transactions.get(tx.transfer_transaction_id ?? '');
    expect(counterpart).toMatchObject({
      account_id: savings.id,
      amount: 400_000,
      date: '2025-06-16',
      transfer_account_id: checking.id,
      transfer_transaction_id: tx.id,
      payee_id: checking.transfer_payee_id,
    });
    expect(savings.balance).toBe(savingsBalance + 400_000);
    expect(transferProblems(store)).toEqual([]);
    expect(budgetProblems(store)).toEqual([]);
  });

  it('enters every missed occurrence of a long idle time, but none older than 5 years', () => {
    const plan = seedTestPlan({ transactions: 100 });
    const checking = account(plan.store, 'Everyday Checking');
    const daily = schedule(plan, {
      account_id: checking.id,
      date: addDays(TODAY, 1),
      amount: -1_000,
      payee_name: 'Daily',
      frequency: 'daily',
    });
    const monthly = schedule(plan, {
      account_id: checking.id,
      date: '2025-07-31',
      amount: -2_000,
      payee_name: 'Month end',
      frequency: 'monthly',
    });
    const today = '2031-08-01';
    followClock(plan, today, at(today));
    const oldest = addYears(today, -5);
    const dailyDates = datesOf(
      enteredAfter(plan.store, TODAY, (tx) => tx.payee_id === daily.payee_id),
    );
    expect(dailyDates[0]).toBe(oldest);
    expect(dailyDates[dailyDates.length - 1]).toBe(today);
    expect(new Set(dailyDates).size).toBe(dailyDates.length);
    expect(dailyDates.length).toBe(Math.round((at(today) - at(oldest)) / DAY) + 1);
    expect(daily.date_next).toBe('2031-08-02');
    const monthEnds = datesOf(
      enteredAfter(plan.store, TODAY, (tx) => tx.payee_id === monthly.payee_id),
    );
    expect(monthEnds.slice(0, 3)).toEqual(['2026-08-31', '2026-09-30', '2026-10-31']);
    expect(monthEnds).toContain('2028-02-29');
    expect(monthEnds).toContain('2027-02-28');
    expect(monthEnds[monthEnds.length - 1]).toBe('2031-07-31');
    expect(monthly.date_next).toBe('2031-08-31');
    expect(budgetProblems(plan.store)).toEqual([]);
    expect(transferProblems(plan.store)).toEqual([]);
  });

  it('follows the schedule as it is now: a moved date_next or a deleted schedule enters nothing', () => {
    const plan = seedTestPlan({ transactions: 100 });
    const { store, newId } = plan;
    const checking = account(store, 'Everyday Checking');
    const moved = schedule(plan, {
      account_id: checking.id,
      date: '2025-06-17',
      amount: -3_000,
      payee_name: 'Moved',
      frequency: 'monthly',
    });
    const gone = schedule(plan, {
      account_id: checking.id,
      date: '2025-06-17',
      amount: -4_000,
      payee_name: 'Gone',
      frequency: 'weekly',
    });
    const state = resolveScheduled(
      store,
      TODAY,
      { account_id: checking.id, date: '2025-06-20' },
      moved,
    );
    store.change(NOW, () => updateScheduledTransaction(store, newId, moved, state));
    store.change(NOW, () => deleteScheduledTransaction(store, gone));
    followClock(plan, '2025-06-18', at('2025-06-18'));
    expect(
      enteredAfter(
        store,
        TODAY,
        (tx) => tx.payee_id === moved.payee_id || tx.payee_id === gone.payee_id,
      ),
    ).toEqual([]);
    followClock(plan, '2025-06-20', at('2025-06-20'));
    expect(datesOf(enteredAfter(store, TODAY, (tx) => tx.payee_id === moved.payee_id))).toEqual([
      '2025-06-20',
    ]);
    expect(moved).toMatchObject({ date_first: '2025-06-20', date_next: '2025-07-20' });
    expect(enteredAfter(store, TODAY, (tx) => tx.payee_id === gone.payee_id)).toEqual([]);
  });

  it('enters occurrences past 2^53 exactly, skips one that would leave int64, and moves on', () => {
    const plan = seedTestPlan({ transactions: 100 });
    // No seeded schedule touches the cash account, so only the windfalls move its balance.
    const cash = account(plan.store, 'Wallet Cash');
    const big = 4_000_000_000_000_000;
    const record = schedule(plan, {
      account_id: cash.id,
      date: addDays(TODAY, 1),
      amount: big,
      payee_name: 'Windfall',
      frequency: 'daily',
    });
    const balance = BigInt(safe(cash.balance));
    followClock(plan, addDays(TODAY, 3), NOW + 3 * DAY);
    expect(enteredAfter(plan.store, TODAY, (tx) => tx.payee_id === record.payee_id).length).toBe(3);
    expect(cash.balance).toBe(balance + 3n * BigInt(big));
    expect(BigInt(cash.cleared_balance) + BigInt(cash.uncleared_balance)).toBe(
      BigInt(cash.balance),
    );
    expect(record.date_next).toBe(addDays(TODAY, 4));
    expect(budgetProblems(plan.store)).toEqual([]);

    // Up to the interface's int64, then occurrences are skipped and date_next still moves.
    const MAX = Number.MAX_SAFE_INTEGER;
    const room = 2n ** 63n - 1n - BigInt(cash.balance);
    const fits = Number(room / BigInt(MAX));
    record.amount = MAX;
    followClock(plan, addDays(TODAY, 3 + fits + 2), NOW + (3 + fits + 2) * DAY);
    const entered = enteredAfter(plan.store, TODAY, (tx) => tx.payee_id === record.payee_id);
    expect(entered.length).toBe(3 + fits);
    expect(cash.balance).toBe(balance + 3n * BigInt(big) + BigInt(fits) * BigInt(MAX));
    expect(BigInt(cash.balance) <= 2n ** 63n - 1n).toBe(true);
    expect(record.date_next).toBe(addDays(TODAY, 3 + fits + 3));
    expect(budgetProblems(plan.store)).toEqual([]);
  });

  it('refuses to turn a split schedule into a transfer (it could not come due as one)', () => {
    const { store } = seedTestPlan({ transactions: 100 });
    const utilities = seededSchedule(store, 'City Utilities');
    const savings = account(store, 'Rainy Day Savings');
    expect(() =>
      resolveScheduled(
        store,
        TODAY,
        {
          account_id: utilities.account_id,
          date: utilities.date_next,
          payee_id: savings.transfer_payee_id,
        },
        utilities,
      ),
    ).toThrow(/scheduled_transaction\.payee_id.*split/);
  });

  it('gives the same plan for the same seed and clock', () => {
    const run = () => {
      const plan = seedTestPlan({ seed: 4, transactions: 200 });
      followClock(plan, '2025-07-02', at('2025-07-02'));
      followClock(plan, '2025-10-20', at('2025-10-20'));
      return {
        knowledge: plan.store.knowledge,
        transactions: [...plan.store.transactions.values()],
        scheduled: [...plan.store.scheduledTransactions.values()],
      };
    };
    expect(run()).toEqual(run());
  });
});

describe('S4 over HTTP: occurrences come due as the sandbox clock passes them', () => {
  it('enters them, moves date_next on and carries it all in deltas', async () => {
    const clock = createManualClock(NOW);
    const token = 'due-token';
    const sandbox = await createSandbox({
      clock,
      rateLimit: false,
      users: [{ token, plans: [{ seed: 5, transactions: 40 }] }],
    });
    try {
      const planId = sandbox.users[0]?.planIds[0] ?? '';
      const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
        const response = await fetch(`${sandbox.url}/plans/${planId}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        expect(response.status, `${method} ${path}`).toBeLessThan(300);
        return ((await response.json()) as { data: T }).data;
      };
      interface Scheduled {
        id: string;
        date_first: string;
        date_next: string;
        deleted: boolean;
      }
      interface Tx {
        id: string;
        date: string;
        amount: number;
        account_id: string;
        payee_name: string | null;
        approved: boolean;
        cleared: string;
        deleted: boolean;
      }
      const accounts = (
        await call<{ accounts: { id: string; type: string; balance: number }[] }>(
          'GET',
          '/accounts',
        )
      ).accounts;
      const checking = accounts.find((a) => a.type === 'checking');
      if (!checking) throw new Error('no checking account');
      const gym = (
        await call<{ scheduled_transaction: Scheduled }>('POST', '/scheduled_transactions', {
          scheduled_transaction: {
            account_id: checking.id,
            date: '2025-06-20',
            amount: -5_000,
            payee_name: 'Gym',
            frequency: 'monthly',
          },
        })
      ).scheduled_transaction;
      const once = (
        await call<{ scheduled_transaction: Scheduled }>('POST', '/scheduled_transactions', {
          scheduled_transaction: {
            account_id: checking.id,
            date: '2025-07-01',
            amount: -7_000,
            payee_name: 'Once',
            frequency: 'never',
          },
        })
      ).scheduled_transaction;
      const { server_knowledge: knowledge } = await call<{ server_knowledge: number }>(
        'GET',
        '/scheduled_transactions',
      );
      const { server_knowledge: sameKnowledge } = await call<{ server_knowledge: number }>(
        'GET',
        '/scheduled_transactions',
      );
      expect(sameKnowledge).toBe(knowledge);

      clock.set(Date.UTC(2025, 7, 25, 12));
      const list = (
        await call<{ scheduled_transactions: Scheduled[] }>('GET', '/scheduled_transactions')
      ).scheduled_transactions;
      for (const scheduled of list) expect(scheduled.date_next > '2025-08-25').toBe(true);
      expect(list.find((s) => s.id === gym.id)).toMatchObject({
        date_first: '2025-06-20',
        date_next: '2025-09-20',
      });
      expect(list.map((s) => s.id)).not.toContain(once.id);

      const transactions = (
        await call<{ transactions: Tx[] }>(
          'GET',
          `/accounts/${checking.id}/transactions?since_date=2025-06-16`,
        )
      ).transactions;
      const ofAmount = (amount: number) => transactions.filter((t) => t.amount === amount);
      expect(ofAmount(-5_000).map((t) => t.date)).toEqual([
        '2025-06-20',
        '2025-07-20',
        '2025-08-20',
      ]);
      expect(ofAmount(-7_000).map((t) => [t.date, t.payee_name])).toEqual([['2025-07-01', 'Once']]);
      for (const tx of [...ofAmount(-5_000), ...ofAmount(-7_000)])
        expect(tx).toMatchObject({ approved: false, cleared: 'uncleared' });

      const delta = await call<{ scheduled_transactions: Scheduled[]; server_knowledge: number }>(
        'GET',
        `/scheduled_transactions?last_knowledge_of_server=${knowledge}`,
      );
      expect(delta.server_knowledge).toBe(knowledge + 1);
      expect(delta.scheduled_transactions.find((s) => s.id === once.id)?.deleted).toBe(true);
      expect(delta.scheduled_transactions.find((s) => s.id === gym.id)?.date_next).toBe(
        '2025-09-20',
      );
      const txDelta = (
        await call<{ transactions: Tx[] }>(
          'GET',
          `/transactions?last_knowledge_of_server=${knowledge}`,
        )
      ).transactions;
      expect(
        txDelta
          .filter((t) => t.amount === -5_000 || t.amount === -7_000)
          .map((t) => t.date)
          .sort(),
      ).toEqual(['2025-06-20', '2025-07-01', '2025-07-20', '2025-08-20']);
      const accountDelta = (
        await call<{ accounts: { id: string; balance: number }[] }>(
          'GET',
          `/accounts?last_knowledge_of_server=${knowledge}`,
        )
      ).accounts;
      const enteredOnChecking = transactions.reduce((sum, t) => sum + t.amount, 0);
      expect(accountDelta.find((a) => a.id === checking.id)?.balance).toBe(
        checking.balance + enteredOnChecking,
      );
    } finally {
      await sandbox.close();
    }
  });
});
