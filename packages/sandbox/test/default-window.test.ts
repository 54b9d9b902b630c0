/**
 * The transaction lists' default window (since 1.85.0): without `since_date`, the four lists that
 * state it start one year before today, on delta requests too, so an edit to an older
 * transaction never reaches a client that syncs through them. The list by month has no window,
 * and the plan export none: it carries every change. A sync path built on the lists misses old
 * edits; the gateway's tests rely on the sandbox behaving so.
 */
import type { TransactionDetail } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoDate, TEST_NOW } from './support/dates.js';
import { dataOf } from './support/rest.js';
import { exportPlan, startTestSandbox, type TestSandbox } from './support/sandbox.js';

const TODAY = isoDate(TEST_NOW); // 2025-06-15
const YEAR_AGO = '2024-06-15';
const TWO_YEARS_AGO = '2023-06-10';

let box: TestSandbox;
let old: TransactionDetail;
let edge: TransactionDetail;
let outside: TransactionDetail;
let accountId: string;
let categoryId: string;
let payeeId: string;

const path = (suffix = '') => `/plans/${box.planId}${suffix}`;

beforeAll(async () => {
  box = await startTestSandbox({ transactions: 80 });
  const plan = (await exportPlan(box.rest, box.planId)).plan;
  const account = plan.accounts.find((a) => a.on_budget && !a.closed && !a.deleted);
  const group = plan.category_groups.find(
    (g) => !g.internal && !g.deleted && !/credit card/i.test(g.name),
  );
  const category = plan.categories.find((c) => c.category_group_id === group?.id && !c.deleted);
  if (!account || !category) throw new Error('the seed lacks an account or category');
  accountId = account.id;
  categoryId = category.id;
  const create = async (date: string, memo: string) => {
    const tx = dataOf(
      await box.rest.post(path('/transactions'), {
        transaction: {
          account_id: accountId,
          date,
          amount: -7_000,
          payee_name: 'Window Test Payee',
          category_id: categoryId,
          memo,
        },
      }),
      'createTransaction',
      201,
    ).transaction;
    if (!tx) throw new Error('nothing created');
    return tx;
  };
  old = await create(TWO_YEARS_AGO, 'two years ago');
  edge = await create(YEAR_AGO, 'exactly a year ago');
  outside = await create('2024-06-14', 'a year and a day ago');
  payeeId = old.payee_id ?? '';
});

afterAll(() => box.close());

/** The four lists with the default window, each as a path. */
const windowed = () => [
  path('/transactions'),
  path(`/accounts/${accountId}/transactions`),
  path(`/categories/${categoryId}/transactions`),
  path(`/payees/${payeeId}/transactions`),
];

async function idsOf(listPath: string, query: Record<string, string | number> = {}) {
  const response = await box.rest.get(listPath, query);
  expect(response.status, response.text.slice(0, 200)).toBe(200);
  const data = (response.body as { data: { transactions: { id: string }[] } }).data;
  return data.transactions.map((t) => t.id);
}

describe('the one-year default window', () => {
  it('starts exactly one year before today on the four lists; since_date reaches further', async () => {
    expect(TODAY).toBe('2025-06-15');
    for (const list of windowed()) {
      const ids = await idsOf(list);
      expect(ids, list).toContain(edge.id);
      expect(ids, list).not.toContain(outside.id);
      expect(ids, list).not.toContain(old.id);
      expect(await idsOf(list, { since_date: '2023-01-01' }), list).toEqual(
        expect.arrayContaining([old.id, outside.id, edge.id]),
      );
    }
  });

  it('holds on delta requests: an edit or delete of an older transaction reaches no list delta', async () => {
    const k = (await exportPlan(box.rest, box.planId)).server_knowledge;
    const put = await box.rest.put(path(`/transactions/${old.id}`), {
      transaction: { memo: 'edited two years later' },
    });
    expect(put.status).toBe(200);
    expect((await box.rest.delete(path(`/transactions/${outside.id}`))).status).toBe(200);
    const edgeEdit = await box.rest.put(path(`/transactions/${edge.id}`), {
      transaction: { memo: 'edge edited' },
    });
    expect(edgeEdit.status).toBe(200);
    for (const list of windowed()) {
      const delta = await idsOf(list, { last_knowledge_of_server: k });
      expect(delta, list).toEqual([edge.id]);
      // A client that asks for the older dates gets them.
      const reaching = await idsOf(list, { last_knowledge_of_server: k, since_date: '2023-01-01' });
      expect(reaching.sort(), list).toEqual([old.id, outside.id, edge.id].sort());
    }
    // The plan export has no window: its delta carries both changes.
    const exported = dataOf(
      await box.rest.get(path(), { last_knowledge_of_server: k }),
      'getPlanById',
    ).plan.transactions;
    expect(exported.find((t) => t.id === old.id)?.memo).toBe('edited two years later');
    expect(exported.find((t) => t.id === outside.id)?.deleted).toBe(true);
  });

  it('does not apply to the list by month, full or delta', async () => {
    const month = path(`/months/${TWO_YEARS_AGO.slice(0, 8)}01/transactions`);
    expect(await idsOf(month)).toContain(old.id);
    const k = (await exportPlan(box.rest, box.planId)).server_knowledge;
    await box.rest.put(path(`/transactions/${old.id}`), { transaction: { memo: 'again' } });
    expect(await idsOf(month, { last_knowledge_of_server: k })).toEqual([old.id]);
  });
});
