/**
 * The official SDK against the sandbox: the five transaction lists and their filters, single
 * and batch creates (plain, transfer, split), bulk update by id and by import_id, import, and
 * read / update / delete of one transaction, each write checked through later reads.
 */

import type {
  AccountBase,
  CategoryBase,
  CurrencyFormat,
  PlanDetail,
} from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ynab from 'ynab';
import { addDays, isoDate, monthOf, TEST_NOW } from './support/dates.js';
import { expectConforms, expectError } from './support/expect-response.js';
import { dataOf } from './support/rest.js';
import { exportPlan, type TestSandbox } from './support/sandbox.js';
import { type RecordingApi, sdkError, startSdkSuite } from './support/sdk.js';

const TODAY = isoDate(TEST_NOW);
const CURRENT_MONTH = monthOf(TODAY);
/** The lists' default window starts one year before today. */
const YEAR_AGO = '2024-06-15';
/** The interface document gives 200 for the bulk update. */
const BULK_UPDATE_STATUS = 200;

let box: TestSandbox;
let api: RecordingApi;
let currency: CurrencyFormat | null;
let checking: AccountBase;
let savings: AccountBase;
let tracking: AccountBase;
let groceries: CategoryBase;
let dining: CategoryBase;

beforeAll(async () => {
  ({ box, api, currency } = await startSdkSuite({ transactions: 200 }));
  const plan = (await exportPlan(box.rest, box.planId)).plan;
  const open = plan.accounts.filter((a) => !a.closed && !a.deleted);
  const onBudget = open.filter((a) => a.on_budget && a.type !== 'creditCard');
  const [first, second] = onBudget;
  const offBudget = open.find((a) => !a.on_budget);
  if (first === undefined || second === undefined || offBudget === undefined) {
    throw new Error('the seed needs two open on-budget accounts and a tracking account');
  }
  checking = first;
  savings = second;
  tracking = offBudget;
  const [a, b] = userCategories(plan);
  if (a === undefined || b === undefined) throw new Error('the seed needs two user categories');
  groceries = a;
  dining = b;
});

afterAll(async () => {
  await box.close();
});

function userCategories(plan: PlanDetail): CategoryBase[] {
  const groups = new Map(plan.category_groups.map((g) => [g.id, g]));
  return plan.categories.filter((c) => {
    const group = groups.get(c.category_group_id);
    return (
      !c.deleted &&
      !c.hidden &&
      !c.internal &&
      group !== undefined &&
      !group.internal &&
      !/credit card/i.test(group.name)
    );
  });
}

async function currentPlan(): Promise<PlanDetail> {
  return (await exportPlan(box.rest, box.planId)).plan;
}

async function balanceOf(accountId: string): Promise<number> {
  return (await api.accounts.getAccountById(box.planId, accountId)).data.account.balance;
}

async function activityOf(month: string, categoryId: string): Promise<number> {
  return (await api.categories.getMonthCategoryById(box.planId, month, categoryId)).data.category
    .activity;
}

const liveIds = (
  plan: PlanDetail,
  keep: (t: PlanDetail['transactions'][number]) => boolean,
): string[] =>
  plan.transactions
    .filter((t) => !t.deleted && keep(t))
    .map((t) => t.id)
    .sort();

describe('transaction lists', () => {
  it('lists the last year of transactions by default, with details and the server knowledge', async () => {
    const old = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: '2024-03-10',
        amount: -1_500,
        payee_name: 'Long ago',
      },
    });
    const response = await api.transactions.getTransactions(box.planId);
    expectConforms(api.last(), 'getTransactions', 200, currency);
    expect(response.data.server_knowledge).toBeGreaterThan(0);
    const plan = await currentPlan();
    expect(response.data.transactions.map((t) => t.id).sort()).toEqual(
      liveIds(plan, (t) => t.date >= YEAR_AGO),
    );
    expect(response.data.transactions.map((t) => t.id)).not.toContain(old.data.transaction?.id);
    const explicit = await api.transactions.getTransactions(box.planId, '2024-01-01');
    expect(explicit.data.transactions.map((t) => t.id)).toContain(old.data.transaction?.id);
  });

  it('names the account, payee and category of each transaction and nests its subtransactions', async () => {
    await api.transactions.getTransactions(box.planId);
    const rows = dataOf(api.last(), 'getTransactions').transactions;
    const plan = await currentPlan();
    const accounts = new Map(plan.accounts.map((a) => [a.id, a.name]));
    const payees = new Map(plan.payees.map((p) => [p.id, p.name]));
    const categories = new Map(plan.categories.map((c) => [c.id, c.name]));
    let splits = 0;
    for (const row of rows) {
      expect(row.account_name).toBe(accounts.get(row.account_id));
      expect(row.payee_name).toBe(row.payee_id === null ? null : payees.get(row.payee_id));
      const subs = plan.subtransactions.filter((s) => s.transaction_id === row.id && !s.deleted);
      expect(row.subtransactions.map((s) => s.id).sort()).toEqual(subs.map((s) => s.id).sort());
      if (subs.length > 0) {
        splits += 1;
        expect(row.category_name).toBe('Split');
        expect(row.subtransactions.reduce((total, s) => total + s.amount, 0)).toBe(row.amount);
      } else {
        expect(row.category_name).toBe(
          row.category_id === null ? null : categories.get(row.category_id),
        );
      }
    }
    expect(splits).toBeGreaterThan(0);
  });

  it('filters by since_date and by type', async () => {
    const since = '2025-04-01';
    const recent = await api.transactions.getTransactions(box.planId, since);
    const plan = await currentPlan();
    expect(recent.data.transactions.map((t) => t.id).sort()).toEqual(
      liveIds(plan, (t) => t.date >= since),
    );

    const unapproved = await api.transactions.getTransactions(
      box.planId,
      '2020-01-01',
      ynab.GetTransactionsTypeEnum.Unapproved,
    );
    expectConforms(api.last(), 'getTransactions', 200, currency);
    expect(unapproved.data.transactions.map((t) => t.id).sort()).toEqual(
      liveIds(plan, (t) => !t.approved),
    );

    await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -3_000,
        payee_name: 'No category yet',
      },
    });
    const uncategorized = await api.transactions.getTransactionsByType(box.planId, 'uncategorized');
    expectConforms(api.last(), 'getTransactions', 200, currency);
    expect(uncategorized.data.transactions.length).toBeGreaterThan(0);
    for (const row of uncategorized.data.transactions) expect(row.category_id).toBeUndefined();
    expect(uncategorized.data.transactions.map((t) => t.payee_name)).toContain('No category yet');
    // The README's reading: on budget, no category, not a split, not a transfer between on-budget accounts.
    const now = await currentPlan();
    const onBudget = new Set(now.accounts.filter((a) => a.on_budget).map((a) => a.id));
    const splits = new Set(
      now.subtransactions.filter((s) => !s.deleted).map((s) => s.transaction_id),
    );
    expect(uncategorized.data.transactions.map((t) => t.id).sort()).toEqual(
      liveIds(
        now,
        (t) =>
          t.date >= YEAR_AGO &&
          onBudget.has(t.account_id) &&
          t.category_id === null &&
          !splits.has(t.id) &&
          !(t.transfer_account_id !== null && onBudget.has(t.transfer_account_id)),
      ),
    );
  });

  it('filters by until_date (a parameter the SDK does not send)', async () => {
    const response = await box.rest.get(`/plans/${box.planId}/transactions`, {
      since_date: '2025-01-01',
      until_date: '2025-03-31',
    });
    expectConforms(response, 'getTransactions', 200, currency);
    const plan = await currentPlan();
    expect(
      dataOf(response, 'getTransactions')
        .transactions.map((t) => t.id)
        .sort(),
    ).toEqual(liveIds(plan, (t) => t.date >= '2025-01-01' && t.date <= '2025-03-31'));
  });

  it("lists one account's transactions", async () => {
    const response = await api.transactions.getTransactionsByAccount(box.planId, checking.id);
    expectConforms(api.last(), 'getTransactions', 200, currency);
    const plan = await currentPlan();
    expect(response.data.transactions.map((t) => t.id).sort()).toEqual(
      liveIds(plan, (t) => t.account_id === checking.id && t.date >= YEAR_AGO),
    );
    const since = await api.transactions.getTransactionsByAccount(
      box.planId,
      checking.id,
      '2025-05-01',
    );
    expect(since.data.transactions.every((t) => t.date >= '2025-05-01')).toBe(true);
    await api.transactions.getTransactionsByAccount('last-used', checking.id);
    expect(api.last().status).toBe(200);
  });

  it("lists one category's transactions and split lines as hybrid rows", async () => {
    const split = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -30_000,
        payee_name: 'Hybrid market',
        approved: true,
        subtransactions: [
          { amount: -10_000, category_id: groceries.id, memo: 'food' },
          { amount: -20_000, category_id: dining.id, memo: 'lunch' },
        ],
      },
    });
    const parent = split.data.transaction;
    if (parent === undefined) throw new Error('no transaction in the create response');
    const response = await api.transactions.getTransactionsByCategory(box.planId, groceries.id);
    expectConforms(api.last(), 'getHybridTransactions', 200, currency);
    const rows = dataOf(api.last(), 'getTransactionsByCategory').transactions;
    expect(rows.length).toBe(response.data.transactions.length);
    for (const row of rows) {
      expect(row.category_id).toBe(groceries.id);
      expect(row.category_name).toBe(groceries.name);
      if (row.type === 'transaction') expect(row.parent_transaction_id).toBeNull();
      else expect(row.parent_transaction_id).not.toBeNull();
    }
    const line = rows.find((r) => r.parent_transaction_id === parent.id);
    expect(line).toMatchObject({
      type: 'subtransaction',
      amount: -10_000,
      memo: 'food',
      account_id: checking.id,
      account_name: checking.name,
      date: TODAY,
    });
    expect(line?.id).toBe(parent.subtransactions.find((s) => s.category_id === groceries.id)?.id);
  });

  it("lists one payee's transactions as hybrid rows", async () => {
    const plan = await currentPlan();
    const counts = new Map<string, number>();
    for (const t of plan.transactions)
      if (t.payee_id !== null && !t.deleted && t.date >= YEAR_AGO)
        counts.set(t.payee_id, (counts.get(t.payee_id) ?? 0) + 1);
    const [payeeId] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? [];
    if (payeeId === undefined) throw new Error('no payee with transactions');
    await api.transactions.getTransactionsByPayee(box.planId, payeeId);
    expectConforms(api.last(), 'getHybridTransactions', 200, currency);
    const rows = dataOf(api.last(), 'getTransactionsByPayee').transactions;
    expect(
      rows
        .filter((r) => r.type === 'transaction')
        .map((r) => r.id)
        .sort(),
    ).toEqual(liveIds(plan, (t) => t.payee_id === payeeId && t.date >= YEAR_AGO));
    for (const row of rows) expect(row.payee_id).toBe(payeeId);
  });

  it('names the category of an uncategorized hybrid row with a string, as the schema requires', async () => {
    const created = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -1_000,
        payee_name: 'Hybrid without category',
      },
    });
    await api.transactions.getTransactionsByPayee(
      box.planId,
      created.data.transaction?.payee_id ?? '',
    );
    expectConforms(api.last(), 'getHybridTransactions', 200, currency);
    const rows = dataOf(api.last(), 'getTransactionsByPayee').transactions;
    expect(rows.map((r) => [r.id, r.type, r.category_id, typeof r.category_name])).toEqual([
      [created.data.transaction?.id, 'transaction', null, 'string'],
    ]);
  });

  it("lists one month's transactions, the current alias included", async () => {
    const month = '2025-03-01';
    const response = await api.transactions.getTransactionsByMonth(box.planId, month);
    expectConforms(api.last(), 'getTransactions', 200, currency);
    const plan = await currentPlan();
    expect(response.data.transactions.map((t) => t.id).sort()).toEqual(
      liveIds(plan, (t) => monthOf(t.date) === month),
    );
    const current = await api.transactions.getTransactionsByMonth(box.planId, 'current');
    expect(current.data.transactions.map((t) => t.id).sort()).toEqual(
      liveIds(plan, (t) => monthOf(t.date) === CURRENT_MONTH),
    );
  });

  it('answers delta requests on every list with what changed since the knowledge', async () => {
    const knowledge = (await api.transactions.getTransactions(box.planId)).data.server_knowledge;
    const lists = {
      all: () => api.transactions.getTransactions(box.planId, undefined, undefined, knowledge),
      account: () =>
        api.transactions.getTransactionsByAccount(
          box.planId,
          checking.id,
          undefined,
          undefined,
          knowledge,
        ),
      category: () =>
        api.transactions.getTransactionsByCategory(
          box.planId,
          dining.id,
          undefined,
          undefined,
          knowledge,
        ),
      month: () =>
        api.transactions.getTransactionsByMonth(
          box.planId,
          CURRENT_MONTH,
          undefined,
          undefined,
          knowledge,
        ),
    };
    for (const list of Object.values(lists)) expect((await list()).data.transactions).toEqual([]);
    const created = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -8_000,
        category_id: dining.id,
        payee_name: 'Delta diner',
      },
    });
    const id = created.data.transaction?.id;
    for (const [name, list] of Object.entries(lists)) {
      const delta = await list();
      expect(
        delta.data.transactions.map((t) => t.id),
        name,
      ).toEqual([id]);
      expect(delta.data.server_knowledge, name).toBe(created.data.server_knowledge);
    }
    const payeeId = created.data.transaction?.payee_id ?? '';
    const byPayee = await api.transactions.getTransactionsByPayee(
      box.planId,
      payeeId,
      undefined,
      undefined,
      knowledge,
    );
    expect(byPayee.data.transactions.map((t) => t.id)).toEqual([id]);
  });
});

describe('creating transactions', () => {
  it('creates one transaction (201) with transaction_ids, and balance and activity follow', async () => {
    const balance = await balanceOf(checking.id);
    const activity = await activityOf(CURRENT_MONTH, groceries.id);
    const response = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: addDays(TODAY, -2),
        amount: -45_670,
        payee_name: 'Fresh greens',
        category_id: groceries.id,
        memo: 'weekly shop',
        cleared: ynab.TransactionClearedStatus.Cleared,
        flag_color: ynab.TransactionFlagColor.Green,
      },
    });
    expectConforms(api.last(), 'saveTransactions', 201, currency);
    const transaction = response.data.transaction;
    if (transaction === undefined) throw new Error('no transaction in the response');
    expect(response.data.transaction_ids).toEqual([transaction.id]);
    expect(transaction).toMatchObject({
      account_id: checking.id,
      account_name: checking.name,
      amount: -45_670,
      payee_name: 'Fresh greens',
      category_id: groceries.id,
      category_name: groceries.name,
      memo: 'weekly shop',
      cleared: 'cleared',
      approved: false,
      flag_color: 'green',
      deleted: false,
    });
    const raw = dataOf(api.last(), 'createTransaction', 201).transaction;
    expect(raw?.flag_name === null || typeof raw?.flag_name === 'string').toBe(true);
    expect(raw?.import_id).toBeNull();

    const payees = (await api.payees.getPayees(box.planId)).data.payees;
    expect(payees.find((p) => p.id === transaction.payee_id)?.name).toBe('Fresh greens');
    expect(await balanceOf(checking.id)).toBe(balance - 45_670);
    expect(await activityOf(CURRENT_MONTH, groceries.id)).toBe(activity - 45_670);
    expect(
      (await api.transactions.getTransactionById(box.planId, transaction.id)).data.transaction,
    ).toEqual(transaction);
  });

  it('resolves payee_name to an existing payee of that name', async () => {
    const first = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -1_000,
        payee_name: 'Same name payee',
      },
    });
    const second = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: savings.id,
        date: TODAY,
        amount: -2_000,
        payee_name: 'Same name payee',
      },
    });
    expect(second.data.transaction?.payee_id).toBe(first.data.transaction?.payee_id);
  });

  it("creates a transfer through the target account's transfer payee, paired on both accounts", async () => {
    const from = await balanceOf(checking.id);
    const to = await balanceOf(savings.id);
    const response = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -250_000,
        payee_id: savings.transfer_payee_id ?? '',
        approved: true,
      },
    });
    expectConforms(api.last(), 'saveTransactions', 201, currency);
    const transfer = response.data.transaction;
    expect(transfer?.transfer_account_id).toBe(savings.id);
    expect(transfer?.payee_name).toBe(
      (await api.payees.getPayeeById(box.planId, savings.transfer_payee_id ?? '')).data.payee.name,
    );
    const otherId = transfer?.transfer_transaction_id;
    if (transfer === undefined || otherId === undefined)
      throw new Error('the transfer has no other side');
    const other = (await api.transactions.getTransactionById(box.planId, otherId)).data.transaction;
    expect(other).toMatchObject({
      account_id: savings.id,
      amount: 250_000,
      date: TODAY,
      transfer_account_id: checking.id,
      transfer_transaction_id: transfer.id,
      payee_id: checking.transfer_payee_id,
    });
    expect(await balanceOf(checking.id)).toBe(from - 250_000);
    expect(await balanceOf(savings.id)).toBe(to + 250_000);
  });

  it('creates a categorized transfer to a tracking account', async () => {
    const activity = await activityOf(CURRENT_MONTH, dining.id);
    const response = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -5_000,
        payee_id: tracking.transfer_payee_id ?? '',
        category_id: dining.id,
      },
    });
    expect(response.data.transaction?.transfer_account_id).toBe(tracking.id);
    expect(response.data.transaction?.category_id).toBe(dining.id);
    expect(await activityOf(CURRENT_MONTH, dining.id)).toBe(activity - 5_000);
  });

  it('creates a split whose lines carry their own categories', async () => {
    const before = {
      groceries: await activityOf(CURRENT_MONTH, groceries.id),
      dining: await activityOf(CURRENT_MONTH, dining.id),
    };
    const response = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -60_000,
        payee_name: 'Split store',
        subtransactions: [
          { amount: -45_000, category_id: groceries.id },
          { amount: -15_000, category_id: dining.id, memo: 'coffee' },
        ],
      },
    });
    expectConforms(api.last(), 'saveTransactions', 201, currency);
    const split = dataOf(api.last(), 'createTransaction', 201).transaction;
    expect(split?.category_id).toBeNull();
    expect(split?.category_name).toBe('Split');
    expect(
      split?.subtransactions.map((s) => [
        s.amount,
        s.category_id,
        s.category_name,
        s.transaction_id,
      ]),
    ).toEqual([
      [-45_000, groceries.id, groceries.name, split?.id],
      [-15_000, dining.id, dining.name, split?.id],
    ]);
    expect(response.data.transaction?.subtransactions[1]?.memo).toBe('coffee');
    expect(await activityOf(CURRENT_MONTH, groceries.id)).toBe(before.groceries - 45_000);
    expect(await activityOf(CURRENT_MONTH, dining.id)).toBe(before.dining - 15_000);
  });

  it('creates a batch (201) and lists the saved transactions and their ids', async () => {
    const response = await api.transactions.createTransactions(box.planId, {
      transactions: [
        {
          account_id: checking.id,
          date: TODAY,
          amount: -1_100,
          payee_name: 'Batch one',
          import_id: 'sdk:batch:1',
        },
        {
          account_id: checking.id,
          date: addDays(TODAY, -40),
          amount: -2_200,
          payee_name: 'Batch two',
          category_id: dining.id,
        },
        {
          account_id: savings.id,
          date: TODAY,
          amount: 3_300,
          payee_name: 'Batch three',
          import_id: 'sdk:batch:3',
        },
      ],
    });
    expectConforms(api.last(), 'saveTransactions', 201, currency);
    const saved = response.data.transactions ?? [];
    expect(saved.map((t) => t.amount)).toEqual([-1_100, -2_200, 3_300]);
    expect(response.data.transaction_ids).toEqual(saved.map((t) => t.id));
    expect(response.data.duplicate_import_ids).toEqual([]);
    expect(saved.map((t) => t.import_id)).toEqual(['sdk:batch:1', undefined, 'sdk:batch:3']);
    for (const transaction of saved) {
      expect(
        (await api.transactions.getTransactionById(box.planId, transaction.id)).data.transaction,
      ).toEqual(transaction);
    }
  });

  it('ignores a credit card payment category on a transaction and on a split line', async () => {
    const plan = await currentPlan();
    const groups = new Map(plan.category_groups.map((g) => [g.id, g.name]));
    const payment = plan.categories.find((c) =>
      /credit card payments/i.test(groups.get(c.category_group_id) ?? ''),
    );
    if (payment === undefined) throw new Error('the seed has no credit card payment category');
    const plain = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -1_000,
        payee_name: 'Card category',
        category_id: payment.id,
      },
    });
    expect(api.last().status).toBe(201);
    expect(plain.data.transaction?.category_id).toBeUndefined();
    const split = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -3_000,
        payee_name: 'Card category split',
        subtransactions: [
          { amount: -1_000, category_id: payment.id },
          { amount: -2_000, category_id: dining.id },
        ],
      },
    });
    expect(split.data.transaction?.subtransactions.map((s) => s.category_id)).toEqual([
      undefined,
      dining.id,
    ]);
  });

  it('matches an imported transaction to a user-entered one on the same account, amount and date within 10 days', async () => {
    const entered = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: savings.id,
        date: addDays(TODAY, -6),
        amount: -77_770,
        payee_name: 'Entered by hand',
      },
    });
    const imported = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: savings.id,
        date: addDays(TODAY, -1),
        amount: -77_770,
        payee_name: 'BANK TEXT',
        import_id: 'sdk:match:1',
      },
    });
    const enteredId = entered.data.transaction?.id ?? '';
    const importedId = imported.data.transaction?.id ?? '';
    const read = async (id: string): Promise<string | undefined> => {
      const response = await box.rest.get(`/plans/${box.planId}/transactions/${id}`);
      return response.status === 200
        ? (dataOf(response, 'getTransactionById').transaction.matched_transaction_id ?? undefined)
        : undefined;
    };
    const links = [
      await read(enteredId),
      await read(importedId),
      imported.data.transaction?.matched_transaction_id,
    ];
    expect(links.includes(enteredId) || links.includes(importedId)).toBe(true);

    // Another amount, another account or more than 10 days apart: no match.
    for (const transaction of [
      {
        account_id: savings.id,
        date: addDays(TODAY, -1),
        amount: -77_771,
        import_id: 'sdk:match:2',
      },
      {
        account_id: checking.id,
        date: addDays(TODAY, -1),
        amount: -77_770,
        import_id: 'sdk:match:3',
      },
      {
        account_id: savings.id,
        date: addDays(TODAY, -20),
        amount: -77_770,
        import_id: 'sdk:match:4',
      },
    ]) {
      const other = await api.transactions.createTransaction(box.planId, {
        transaction: { ...transaction, payee_name: 'No match' },
      });
      expect(other.data.transaction?.matched_transaction_id).toBeUndefined();
    }
  });

  it("imports the linked accounts' new transactions once (201 with ids), then has nothing to import (200)", async () => {
    const before = await currentPlan();
    const linked = new Set(before.accounts.filter((a) => a.direct_import_linked).map((a) => a.id));
    expect(linked.size).toBeGreaterThan(0);
    const first = await api.transactions.importTransactions(box.planId);
    expectConforms(api.last(), 'importTransactions', 201, currency);
    expect(first.data.transaction_ids.length).toBeGreaterThan(0);
    for (const id of first.data.transaction_ids) {
      const raw = (await box.rest.get(`/plans/${box.planId}/transactions/${id}`)).body as {
        data: { transaction: Record<string, unknown> };
      };
      const imported = raw.data.transaction;
      expect(linked.has(String(imported.account_id))).toBe(true);
      expect(String(imported.import_id)).toMatch(/^YNAB:-?\d+:\d{4}-\d{2}-\d{2}:\d+$/);
      expect(String(imported.import_id).split(':')[1]).toBe(String(imported.amount));
      expect(String(imported.import_id).split(':')[2]).toBe(imported.date);
      expect(String(imported.date) <= TODAY).toBe(true);
      expect(imported.approved).toBe(false);
    }
    const second = await api.transactions.importTransactions(box.planId);
    expectConforms(api.last(), 'importTransactions', 200, currency);
    expect(second.data.transaction_ids).toEqual([]);
  });

  it('orders lists by date, then id', async () => {
    await api.transactions.getTransactions(box.planId, '2020-01-01');
    const rows = dataOf(api.last(), 'getTransactions').transactions;
    const keys = rows.map((t) => `${t.date} ${t.id}`);
    expect(keys).toEqual([...keys].sort());
  });
});

describe('updating and deleting transactions', () => {
  it('updates several transactions by id (transaction_ids, saved transactions, later reads)', async () => {
    const created = await api.transactions.createTransactions(box.planId, {
      transactions: [
        { account_id: checking.id, date: TODAY, amount: -7_000, payee_name: 'Bulk A' },
        { account_id: checking.id, date: TODAY, amount: -8_000, payee_name: 'Bulk B' },
      ],
    });
    const [a, b] = created.data.transactions ?? [];
    if (a === undefined || b === undefined) throw new Error('batch create returned too few');
    const balance = await balanceOf(checking.id);
    const response = await api.transactions.updateTransactions(box.planId, {
      transactions: [
        { id: a.id, memo: 'bulk edited', approved: true },
        { id: b.id, amount: -9_500, category_id: dining.id },
      ],
    });
    expectConforms(api.last(), 'saveTransactions', BULK_UPDATE_STATUS, currency);
    expect(response.data.transaction_ids.sort()).toEqual([a.id, b.id].sort());
    expect(response.data.transactions?.map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
    const readA = (await api.transactions.getTransactionById(box.planId, a.id)).data.transaction;
    const readB = (await api.transactions.getTransactionById(box.planId, b.id)).data.transaction;
    expect(readA).toMatchObject({ memo: 'bulk edited', approved: true, amount: -7_000 });
    expect(readB).toMatchObject({ amount: -9_500, category_id: dining.id, payee_name: 'Bulk B' });
    expect(await balanceOf(checking.id)).toBe(balance - 1_500);
  });

  it('updates a transaction found by its import_id', async () => {
    const created = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -4_000,
        payee_name: 'By import',
        import_id: 'sdk:lookup:1',
      },
    });
    const response = await api.transactions.updateTransactions(box.planId, {
      transactions: [{ import_id: 'sdk:lookup:1', memo: 'found by import id', amount: -4_400 }],
    });
    expectConforms(api.last(), 'saveTransactions', BULK_UPDATE_STATUS, currency);
    expect(response.data.transaction_ids).toEqual([created.data.transaction?.id]);
    const read = (
      await api.transactions.getTransactionById(box.planId, created.data.transaction?.id ?? '')
    ).data.transaction;
    expect(read).toMatchObject({
      memo: 'found by import id',
      amount: -4_400,
      import_id: 'sdk:lookup:1',
    });
  });

  it('looks a transaction up by import_id when id is null', async () => {
    const created = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -2_500,
        payee_name: 'Null id',
        import_id: 'sdk:null-id:1',
      },
    });
    const response = await box.rest.patch(`/plans/${box.planId}/transactions`, {
      transactions: [{ id: null, import_id: 'sdk:null-id:1', memo: 'found with a null id' }],
    });
    expect(dataOf(response, 'updateTransactions', BULK_UPDATE_STATUS).transaction_ids).toEqual([
      created.data.transaction?.id,
    ]);
    expect(
      (await api.transactions.getTransactionById(box.planId, created.data.transaction?.id ?? ''))
        .data.transaction.memo,
    ).toBe('found with a null id');
  });

  it('keeps the date, amount and category of a split, and applies its other fields', async () => {
    const created = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: addDays(TODAY, -3),
        amount: -9_000,
        payee_name: 'Split to edit',
        subtransactions: [
          { amount: -4_000, category_id: groceries.id },
          { amount: -5_000, category_id: dining.id },
        ],
      },
    });
    const split = created.data.transaction;
    if (split === undefined) throw new Error('no split created');
    const response = await api.transactions.updateTransaction(box.planId, split.id, {
      transaction: {
        date: addDays(TODAY, -30),
        amount: -1_234,
        category_id: groceries.id,
        memo: 'edited split',
        approved: true,
      },
    });
    expect(api.last().status).toBe(200);
    expect(response.data.transaction).toMatchObject({
      date: split.date,
      amount: -9_000,
      category_name: 'Split',
      memo: 'edited split',
      approved: true,
    });
    expect(response.data.transaction.category_id).toBeUndefined();
    expect(response.data.transaction.subtransactions.map((s) => s.amount)).toEqual([
      -4_000, -5_000,
    ]);
  });

  it('reads one transaction with server knowledge and without transaction_ids', async () => {
    const id = (await api.transactions.getTransactions(box.planId)).data.transactions[0]?.id ?? '';
    await api.transactions.getTransactionById(box.planId, id);
    expectConforms(api.last(), 'transaction', 200, currency);
    const data = dataOf(api.last(), 'getTransactionById') as unknown as Record<string, unknown>;
    expect(Object.keys(data).sort()).toEqual(['server_knowledge', 'transaction']);
  });

  it('updates one transaction (200), moving its amount to another month and category', async () => {
    const created = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -12_000,
        payee_name: 'Mover',
        category_id: groceries.id,
      },
    });
    const id = created.data.transaction?.id ?? '';
    const lastMonth = '2025-05-01';
    const before = {
      currentGroceries: await activityOf(CURRENT_MONTH, groceries.id),
      lastDining: await activityOf(lastMonth, dining.id),
    };
    const response = await api.transactions.updateTransaction(box.planId, id, {
      transaction: {
        date: '2025-05-20',
        amount: -13_000,
        category_id: dining.id,
        memo: 'moved',
        flag_color: ynab.TransactionFlagColor.Red,
      },
    });
    expectConforms(api.last(), 'transaction', 200, currency);
    expect(response.data.transaction).toMatchObject({
      id,
      date: '2025-05-20',
      amount: -13_000,
      category_id: dining.id,
      memo: 'moved',
      flag_color: 'red',
    });
    expect(await activityOf(CURRENT_MONTH, groceries.id)).toBe(before.currentGroceries + 12_000);
    expect(await activityOf(lastMonth, dining.id)).toBe(before.lastDining - 13_000);
    expect((await api.transactions.getTransactionById(box.planId, id)).data.transaction).toEqual(
      response.data.transaction,
    );
  });

  it('moves a transaction to another account', async () => {
    const created = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -6_000,
        payee_name: 'Wrong account',
      },
    });
    const id = created.data.transaction?.id ?? '';
    const before = { checking: await balanceOf(checking.id), savings: await balanceOf(savings.id) };
    await api.transactions.updateTransaction(box.planId, id, {
      transaction: { account_id: savings.id },
    });
    expect(await balanceOf(checking.id)).toBe(before.checking + 6_000);
    expect(await balanceOf(savings.id)).toBe(before.savings - 6_000);
    expect(
      (await api.transactions.getTransactionById(box.planId, id)).data.transaction.account_name,
    ).toBe(savings.name);
  });

  it('turns a transaction into a transfer and back', async () => {
    const created = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -9_000,
        payee_name: 'Not yet a transfer',
      },
    });
    const id = created.data.transaction?.id ?? '';
    const savingsBefore = await balanceOf(savings.id);
    const made = await api.transactions.updateTransaction(box.planId, id, {
      transaction: { payee_id: savings.transfer_payee_id ?? '' },
    });
    const otherId = made.data.transaction.transfer_transaction_id ?? '';
    expect(made.data.transaction.transfer_account_id).toBe(savings.id);
    expect(
      (await api.transactions.getTransactionById(box.planId, otherId)).data.transaction.amount,
    ).toBe(9_000);
    expect(await balanceOf(savings.id)).toBe(savingsBefore + 9_000);

    const unmade = await api.transactions.updateTransaction(box.planId, id, {
      transaction: { payee_name: 'A shop after all' },
    });
    expect(unmade.data.transaction.transfer_account_id).toBeUndefined();
    expect(unmade.data.transaction.transfer_transaction_id).toBeUndefined();
    await sdkError(api.transactions.getTransactionById(box.planId, otherId));
    expectError(api.last(), 404, '404.2', 'resource_not_found');
    expect(await balanceOf(savings.id)).toBe(savingsBefore);
  });

  it('deletes a transaction (200): later reads miss it, the delta carries it as deleted', async () => {
    const created = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -3_210,
        payee_name: 'Soon gone',
        category_id: groceries.id,
      },
    });
    const id = created.data.transaction?.id ?? '';
    const knowledge = created.data.server_knowledge;
    const balance = await balanceOf(checking.id);
    const activity = await activityOf(CURRENT_MONTH, groceries.id);

    const response = await api.transactions.deleteTransaction(box.planId, id);
    expectConforms(api.last(), 'transaction', 200, currency, { allowDeleted: true });
    expect(response.data.transaction).toMatchObject({ id, deleted: true });

    await sdkError(api.transactions.getTransactionById(box.planId, id));
    expectError(api.last(), 404, '404.2', 'resource_not_found');
    expect(
      (await api.transactions.getTransactions(box.planId)).data.transactions.map((t) => t.id),
    ).not.toContain(id);
    expect(await balanceOf(checking.id)).toBe(balance + 3_210);
    expect(await activityOf(CURRENT_MONTH, groceries.id)).toBe(activity + 3_210);
    const delta = await api.transactions.getTransactions(
      box.planId,
      undefined,
      undefined,
      knowledge,
    );
    expect(delta.data.transactions.find((t) => t.id === id)?.deleted).toBe(true);

    await sdkError(api.transactions.deleteTransaction(box.planId, id));
    expectError(api.last(), 404, '404.2', 'resource_not_found');
  });

  it('deletes both sides of a transfer', async () => {
    const created = await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -11_000,
        payee_id: savings.transfer_payee_id ?? '',
      },
    });
    const otherId = created.data.transaction?.transfer_transaction_id ?? '';
    await api.transactions.deleteTransaction(box.planId, created.data.transaction?.id ?? '');
    await sdkError(api.transactions.getTransactionById(box.planId, otherId));
    expectError(api.last(), 404, '404.2', 'resource_not_found');
  });
});
