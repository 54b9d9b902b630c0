/**
 * Changes no delta carries: the `silent` fault on REST writes, and `editSplitLine` (the one edit
 * the product's apps make that REST cannot), ordinary or silent. A replica kept by deltas drifts
 * from the plan this way, which is what the gateway's reconciliation must find.
 */
import type { PlanDetail, TransactionDetail } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFaultRule } from '../src/cli-options.js';
import { isoDate, TEST_NOW } from './support/dates.js';
import { dataOf } from './support/rest.js';
import { exportPlan, startTestSandbox, type TestSandbox } from './support/sandbox.js';

const TODAY = isoDate(TEST_NOW);

let box: TestSandbox;
const path = (suffix = '') => `/plans/${box.planId}${suffix}`;

beforeAll(async () => {
  box = await startTestSandbox({ transactions: 150 });
});

afterAll(() => box.close());

async function knowledge(): Promise<number> {
  return (await exportPlan(box.rest, box.planId)).server_knowledge;
}

/** The plan export's delta since `since`. */
async function exportDelta(since: number) {
  return dataOf(await box.rest.get(path(), { last_knowledge_of_server: since }), 'getPlanById');
}

/** Every entity a delta of the export and of the transaction list carries, by id. */
async function idsInDeltas(since: number): Promise<Set<string>> {
  const plan = (await exportDelta(since)).plan;
  const list = dataOf(
    await box.rest.get(path('/transactions'), {
      last_knowledge_of_server: since,
      since_date: '2000-01-01',
    }),
    'getTransactions',
  ).transactions;
  const ids = new Set<string>();
  for (const kind of [
    plan.accounts,
    plan.categories,
    plan.transactions,
    plan.subtransactions,
    plan.months,
  ] as { id?: string; month?: string }[][]) {
    for (const entity of kind) ids.add(entity.id ?? entity.month ?? '');
  }
  for (const tx of list) ids.add(tx.id);
  return ids;
}

async function newTransaction(memo: string): Promise<TransactionDetail> {
  const plan = (await exportPlan(box.rest, box.planId)).plan;
  const account = plan.accounts.find((a) => a.on_budget && !a.closed && !a.deleted);
  if (!account) throw new Error('no open budget account');
  const created = dataOf(
    await box.rest.post(path('/transactions'), {
      transaction: { account_id: account.id, date: TODAY, amount: -4_200, memo },
    }),
    'createTransaction',
    201,
  ).transaction;
  if (!created) throw new Error('nothing created');
  return created;
}

describe("the 'silent' fault", () => {
  it('applies a write that no delta ever brings, while full reads and the export show it', async () => {
    const tx = await newTransaction('before');
    const account = dataOf(
      await box.rest.get(path(`/accounts/${tx.account_id}`)),
      'getAccountById',
    ).account;
    const k = await knowledge();
    box.sandbox.setFaults([{ kind: 'silent', operationId: 'updateTransaction', times: 1 }]);
    // Reads never use the rule up.
    await box.rest.get(path(`/transactions/${tx.id}`));
    const answer = dataOf(
      await box.rest.put(path(`/transactions/${tx.id}`), {
        transaction: { memo: 'changed silently', amount: -5_200 },
      }),
      'updateTransaction',
    );
    expect(answer.transaction.memo).toBe('changed silently');
    expect(answer.server_knowledge).toBe(k);
    expect(await knowledge()).toBe(k);

    // Shown by full reads, the export and the account's balance...
    expect(
      dataOf(await box.rest.get(path(`/transactions/${tx.id}`)), 'getTransactionById').transaction
        .memo,
    ).toBe('changed silently');
    const exported = (await exportPlan(box.rest, box.planId)).plan;
    expect(exported.transactions.find((t) => t.id === tx.id)?.amount).toBe(-5_200);
    expect(exported.accounts.find((a) => a.id === tx.account_id)?.balance).toBe(
      account.balance - 1_000,
    );
    // ...but in no delta, not even after the next ordinary write.
    expect(await idsInDeltas(k)).toEqual(new Set());
    const next = await newTransaction('an ordinary write');
    const after = await idsInDeltas(k);
    expect(after).toContain(next.id);
    expect(after).not.toContain(tx.id);
    // The rule is spent: the next update is an ordinary one again.
    const k2 = await knowledge();
    await box.rest.put(path(`/transactions/${tx.id}`), { transaction: { memo: 'seen' } });
    expect(await knowledge()).toBe(k2 + 1);
    expect(await idsInDeltas(k2)).toContain(tx.id);
    box.sandbox.setFaults([]);
  });

  it('hides a delete, a category change and an assignment the same way', async () => {
    const tx = await newTransaction('to delete silently');
    const plan = (await exportPlan(box.rest, box.planId)).plan;
    const category = plan.categories.find((c) => !c.internal && !c.deleted && c.goal_type === null);
    if (!category) throw new Error('no plain category');
    const k = await knowledge();
    box.sandbox.setFaults([
      { kind: 'silent', method: 'DELETE' },
      { kind: 'silent', method: 'PATCH' },
    ]);
    expect((await box.rest.delete(path(`/transactions/${tx.id}`))).status).toBe(200);
    expect(
      (await box.rest.patch(path(`/categories/${category.id}`), { category: { note: 'quiet' } }))
        .status,
    ).toBe(200);
    expect(
      (
        await box.rest.patch(path(`/months/current/categories/${category.id}`), {
          category: { budgeted: 12_345 },
        })
      ).status,
    ).toBe(200);
    box.sandbox.setFaults([]);
    expect(await knowledge()).toBe(k);
    expect(await idsInDeltas(k)).toEqual(new Set());
    const now = (await exportPlan(box.rest, box.planId)).plan;
    expect(now.transactions.some((t) => t.id === tx.id)).toBe(false);
    expect(now.categories.find((c) => c.id === category.id)?.note).toBe('quiet');
    const month = dataOf(
      await box.rest.get(path(`/months/current/categories/${category.id}`)),
      'getMonthCategoryById',
    ).category;
    expect(month.budgeted).toBe(12_345);
  });

  it('is a fault rule like the others: op, method, times, and the CLI kind list', async () => {
    box.sandbox.setFaults([{ kind: 'silent', operationId: 'createTransaction', times: 1 }]);
    const k = await knowledge();
    await newTransaction('silent create');
    expect(await knowledge()).toBe(k);
    await newTransaction('ordinary create');
    expect(await knowledge()).toBe(k + 1);
    box.sandbox.setFaults([]);
    expect(parseFaultRule('silent,op=updateTransaction,times=2', '--fault')).toEqual({
      kind: 'silent',
      operationId: 'updateTransaction',
      times: 2,
    });
  });
});

describe('editSplitLine', () => {
  async function aSplit(plan: PlanDetail) {
    const line = plan.subtransactions.find((s) => {
      const parent = plan.transactions.find((t) => t.id === s.transaction_id);
      return !s.deleted && s.transfer_account_id === null && parent && !parent.deleted;
    });
    if (!line) throw new Error('the seed has no split');
    return line;
  }

  it('changes a line as the apps do: a new knowledge, the line and its parent in deltas, activity moved', async () => {
    const plan = (await exportPlan(box.rest, box.planId)).plan;
    const line = await aSplit(plan);
    const spending = plan.category_groups.filter(
      (g) => !g.internal && !g.deleted && !/credit card/i.test(g.name),
    );
    const other = plan.categories.find(
      (c) =>
        spending.some((g) => g.id === c.category_group_id) &&
        !c.deleted &&
        c.id !== line.category_id,
    );
    if (!other) throw new Error('no other category');
    const parent = plan.transactions.find((t) => t.id === line.transaction_id);
    const activity = async () =>
      dataOf(
        await box.rest.get(path(`/months/${parent?.date.slice(0, 8)}01/categories/${other.id}`)),
        'getMonthCategoryById',
      ).category.activity;
    const before = await activity();
    const k = await knowledge();
    box.sandbox.editSplitLine(box.planId, line.id, {
      memo: 'edited in the app',
      categoryId: other.id,
    });
    expect(await activity()).toBe(before + line.amount);
    expect(await knowledge()).toBe(k + 1);
    const delta = (await exportDelta(k)).plan;
    expect(delta.subtransactions.find((s) => s.id === line.id)).toMatchObject({
      memo: 'edited in the app',
      category_id: other.id,
    });
    expect(delta.transactions.map((t) => t.id)).toContain(line.transaction_id);
    const read = dataOf(
      await box.rest.get(path(`/transactions/${line.transaction_id}`)),
      'getTransactionById',
    ).transaction;
    expect(read.subtransactions.find((s) => s.id === line.id)?.category_name).toBe(other.name);
  });

  it('silently: the export shows it, no delta does', async () => {
    const line = await aSplit((await exportPlan(box.rest, box.planId)).plan);
    const k = await knowledge();
    box.sandbox.editSplitLine(box.planId, line.id, { memo: 'nobody was told' }, { silent: true });
    expect(await knowledge()).toBe(k);
    expect(await idsInDeltas(k)).toEqual(new Set());
    const now = (await exportPlan(box.rest, box.planId)).plan;
    expect(now.subtransactions.find((s) => s.id === line.id)?.memo).toBe('nobody was told');
  });

  it('names what is wrong', async () => {
    const line = await aSplit((await exportPlan(box.rest, box.planId)).plan);
    const unknown = '0d7c2b4e-1111-4aaa-8bbb-0123456789ab';
    expect(() => box.sandbox.editSplitLine(unknown, line.id, { memo: 'x' })).toThrow(
      `editSplitLine: no sandbox plan has the id '${unknown}'`,
    );
    expect(() => box.sandbox.editSplitLine(box.planId, unknown, { memo: 'x' })).toThrow(
      /has no live split line/,
    );
    expect(() => box.sandbox.editSplitLine(box.planId, line.id, { categoryId: unknown })).toThrow(
      /is not a live category/,
    );
    expect(() => box.sandbox.editSplitLine(box.planId, line.id, { memo: 'm'.repeat(501) })).toThrow(
      /at most 500 characters/,
    );
  });
});
