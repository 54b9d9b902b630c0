/** The official SDK against the sandbox: scheduled transactions, list / read / create / update / delete. */

import type { AccountBase, CategoryBase, CurrencyFormat } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ynab from 'ynab';
import { budgetProblems } from './support/budget.js';
import { expectConforms, expectError } from './support/expect-response.js';
import { dataOf } from './support/rest.js';
import { exportPlan, startTestSandbox, type TestSandbox, TOKEN } from './support/sandbox.js';
import { RecordingApi, sdkError, startSdkSuite } from './support/sdk.js';

let box: TestSandbox;
let api: RecordingApi;
let currency: CurrencyFormat | null;
let checking: AccountBase;
let savings: AccountBase;
let category: CategoryBase;

beforeAll(async () => {
  ({ box, api, currency } = await startSdkSuite({ transactions: 100 }));
  const plan = (await exportPlan(box.rest, box.planId)).plan;
  const [first, second] = plan.accounts.filter(
    (a) => a.on_budget && !a.closed && a.type !== 'creditCard',
  );
  const internalGroups = new Set(
    plan.category_groups.filter((g) => g.internal || /credit card/i.test(g.name)).map((g) => g.id),
  );
  const userCategory = plan.categories.find(
    (c) => !c.internal && !c.hidden && !internalGroups.has(c.category_group_id),
  );
  if (first === undefined || second === undefined || userCategory === undefined)
    throw new Error('the seed is too small');
  checking = first;
  savings = second;
  category = userCategory;
});

afterAll(async () => {
  await box.close();
});

describe('scheduled transactions', () => {
  it('lists scheduled transactions with the server knowledge and named lines', async () => {
    const response = await api.scheduledTransactions.getScheduledTransactions(box.planId);
    expectConforms(api.last(), 'getScheduledTransactions', 200, currency);
    expect(response.data.scheduled_transactions.length).toBeGreaterThan(0);
    expect(response.data.server_knowledge).toBeGreaterThan(0);
    const accounts = new Map(
      dataOf(await box.rest.get(`/plans/${box.planId}/accounts`), 'getAccounts').accounts.map(
        (a) => [a.id, a.name],
      ),
    );
    for (const scheduled of response.data.scheduled_transactions) {
      expect(scheduled.account_name).toBe(accounts.get(scheduled.account_id));
      expect(scheduled.date_next >= scheduled.date_first).toBe(true);
      if (scheduled.subtransactions.length > 0) expect(scheduled.category_name).toBe('Split');
    }
  });

  it('reads one scheduled transaction as the list shows it', async () => {
    await api.scheduledTransactions.getScheduledTransactions(box.planId);
    const listed = dataOf(api.last(), 'getScheduledTransactions').scheduled_transactions;
    for (const scheduled of listed.slice(0, 3)) {
      await api.scheduledTransactions.getScheduledTransactionById(box.planId, scheduled.id);
      expectConforms(api.last(), 'scheduledTransaction', 200, currency);
      expect(api.last().body).toEqual({ data: { scheduled_transaction: scheduled } });
    }
  });

  it('creates (201), updates (200) and deletes (200) a scheduled transaction, visible in later reads', async () => {
    const created = await api.scheduledTransactions.createScheduledTransaction(box.planId, {
      scheduled_transaction: {
        account_id: checking.id,
        date: '2025-07-01',
        amount: -120_000,
        payee_name: 'Landlord',
        category_id: category.id,
        memo: 'rent',
        flag_color: ynab.TransactionFlagColor.Blue,
        frequency: ynab.ScheduledTransactionFrequency.Monthly,
      },
    });
    expectConforms(api.last(), 'scheduledTransaction', 201, currency);
    const scheduled = created.data.scheduled_transaction;
    expect(scheduled).toMatchObject({
      account_id: checking.id,
      account_name: checking.name,
      date_first: '2025-07-01',
      date_next: '2025-07-01',
      frequency: 'monthly',
      amount: -120_000,
      payee_name: 'Landlord',
      category_id: category.id,
      category_name: category.name,
      memo: 'rent',
      flag_color: 'blue',
      deleted: false,
    });
    const knowledge = (await api.scheduledTransactions.getScheduledTransactions(box.planId)).data
      .server_knowledge;
    expect(
      (await api.scheduledTransactions.getScheduledTransactionById(box.planId, scheduled.id)).data
        .scheduled_transaction,
    ).toEqual(scheduled);

    const updated = await api.scheduledTransactions.updateScheduledTransaction(
      box.planId,
      scheduled.id,
      {
        scheduled_transaction: {
          account_id: savings.id,
          date: '2025-07-05',
          amount: -125_000,
          frequency: ynab.ScheduledTransactionFrequency.EveryOtherMonth,
          memo: 'rent, raised',
        },
      },
    );
    expectConforms(api.last(), 'scheduledTransaction', 200, currency);
    expect(updated.data.scheduled_transaction).toMatchObject({
      id: scheduled.id,
      account_id: savings.id,
      account_name: savings.name,
      date_next: '2025-07-05',
      amount: -125_000,
      frequency: 'everyOtherMonth',
      memo: 'rent, raised',
    });
    expect(
      (await api.scheduledTransactions.getScheduledTransactionById(box.planId, scheduled.id)).data
        .scheduled_transaction,
    ).toEqual(updated.data.scheduled_transaction);
    const delta = await api.scheduledTransactions.getScheduledTransactions(box.planId, knowledge);
    expectConforms(api.last(), 'getScheduledTransactions', 200, currency);
    expect(delta.data.scheduled_transactions.map((s) => s.id)).toEqual([scheduled.id]);

    const deleted = await api.scheduledTransactions.deleteScheduledTransaction(
      box.planId,
      scheduled.id,
    );
    expectConforms(api.last(), 'scheduledTransaction', 200, currency, { allowDeleted: true });
    expect(deleted.data.scheduled_transaction).toMatchObject({ id: scheduled.id, deleted: true });
    await sdkError(api.scheduledTransactions.getScheduledTransactionById(box.planId, scheduled.id));
    expectError(api.last(), 404, '404.2', 'resource_not_found');
    const list = (await api.scheduledTransactions.getScheduledTransactions(box.planId)).data
      .scheduled_transactions;
    expect(list.map((s) => s.id)).not.toContain(scheduled.id);
    const afterDelete = await api.scheduledTransactions.getScheduledTransactions(
      box.planId,
      knowledge,
    );
    expect(
      afterDelete.data.scheduled_transactions.find((s) => s.id === scheduled.id)?.deleted,
    ).toBe(true);
  });

  it('schedules a transfer through a transfer payee without touching balances', async () => {
    const before = dataOf(
      await box.rest.get(`/plans/${box.planId}/accounts/${checking.id}`),
      'getAccountById',
    ).account.balance;
    const created = await api.scheduledTransactions.createScheduledTransaction(box.planId, {
      scheduled_transaction: {
        account_id: checking.id,
        date: '2025-08-15',
        amount: -50_000,
        payee_id: savings.transfer_payee_id ?? '',
        frequency: ynab.ScheduledTransactionFrequency.Never,
      },
    });
    expect(created.data.scheduled_transaction.transfer_account_id).toBe(savings.id);
    const after = dataOf(
      await box.rest.get(`/plans/${box.planId}/accounts/${checking.id}`),
      'getAccountById',
    ).account.balance;
    expect(after).toBe(before);
  });

  it('carries payee_name and category_name on scheduled lines', async () => {
    const plan = (await exportPlan(box.rest, box.planId)).plan;
    const parentId = plan.scheduled_subtransactions.find(
      (s) => !s.deleted,
    )?.scheduled_transaction_id;
    if (parentId === undefined) throw new Error('the seed has no split scheduled transaction');
    await api.scheduledTransactions.getScheduledTransactionById(box.planId, parentId);
    const scheduled = dataOf(api.last(), 'getScheduledTransactionById').scheduled_transaction;
    const payees = new Map(plan.payees.map((p) => [p.id, p.name]));
    const categories = new Map(plan.categories.map((c) => [c.id, c.name]));
    expect(scheduled.subtransactions.length).toBeGreaterThan(1);
    for (const line of scheduled.subtransactions) {
      expect(line.scheduled_transaction_id).toBe(parentId);
      expect(line.payee_name).toBe(line.payee_id === null ? null : payees.get(line.payee_id));
      expect(line.category_name).toBe(
        line.category_id === null ? null : categories.get(line.category_id),
      );
    }
  });

  it('refuses an unknown scheduled transaction with 404.2', async () => {
    await sdkError(
      api.scheduledTransactions.getScheduledTransactionById(
        box.planId,
        '9a1c6c4e-0000-4000-8000-000000000005',
      ),
    );
    expectError(api.last(), 404, '404.2', 'resource_not_found');
  });

  it('enters occurrences that come due as the clock passes them, and moves date_next on', async () => {
    const own = await startTestSandbox({ transactions: 40, seed: 5 });
    try {
      const sdk = new RecordingApi(TOKEN, own.sandbox.url);
      const plan = (await exportPlan(own.rest, own.planId)).plan;
      const account = plan.accounts.find((a) => a.on_budget && !a.closed && a.type === 'checking');
      if (account === undefined) throw new Error('no checking account');
      const monthly = await sdk.scheduledTransactions.createScheduledTransaction(own.planId, {
        scheduled_transaction: {
          account_id: account.id,
          date: '2025-06-20',
          amount: -5_000,
          payee_name: 'Gym',
          frequency: 'monthly',
        },
      });
      const once = await sdk.scheduledTransactions.createScheduledTransaction(own.planId, {
        scheduled_transaction: {
          account_id: account.id,
          date: '2025-07-01',
          amount: -7_000,
          payee_name: 'Once',
          frequency: 'never',
        },
      });
      const knowledge = (await sdk.scheduledTransactions.getScheduledTransactions(own.planId)).data
        .server_knowledge;

      own.clock.set(Date.UTC(2025, 7, 25, 12));
      const after = (await exportPlan(own.rest, own.planId)).plan;
      const stillScheduled = after.scheduled_transactions.filter((s) => !s.deleted);
      // Nothing scheduled is overdue by the sandbox clock.
      for (const scheduled of stillScheduled)
        expect(scheduled.date_next > '2025-08-25', scheduled.id).toBe(true);
      const gym = stillScheduled.find((s) => s.id === monthly.data.scheduled_transaction.id);
      expect(gym).toMatchObject({ date_first: '2025-06-20', date_next: '2025-09-20' });
      expect(stillScheduled.map((s) => s.id)).not.toContain(once.data.scheduled_transaction.id);

      const entered = (amount: number) =>
        after.transactions
          .filter((t) => !t.deleted && t.account_id === account.id && t.amount === amount)
          .map((t) => t.date)
          .sort();
      expect(entered(-5_000)).toEqual(['2025-06-20', '2025-07-20', '2025-08-20']);
      expect(entered(-7_000)).toEqual(['2025-07-01']);
      expect(budgetProblems(after)).toEqual([]);

      const delta = await sdk.scheduledTransactions.getScheduledTransactions(own.planId, knowledge);
      expect(
        delta.data.scheduled_transactions.find((s) => s.id === once.data.scheduled_transaction.id)
          ?.deleted,
      ).toBe(true);
    } finally {
      await own.close();
    }
  });
});
