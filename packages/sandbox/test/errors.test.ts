/**
 * Every error row of the interface: 400 validation (with a detail naming the field), 401,
 * 403.3 for read-only tokens, 404.1 / 404.2 and 409, each leaving the plan untouched.
 */

import type {
  AccountBase,
  CategoryBase,
  CategoryGroup,
  TransactionDetail,
} from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, isoDate, TEST_NOW } from './support/dates.js';
import { expectError } from './support/expect-response.js';
import { dataOf, type QueryValue, type RestRequest } from './support/rest.js';
import {
  exportPlan,
  READ_ONLY_TOKEN,
  startTestSandbox,
  type TestSandbox,
} from './support/sandbox.js';
import { expectPlanUnchanged } from './support/unchanged.js';

const TODAY = isoDate(TEST_NOW);
const UNKNOWN_ID = '0d7c2b4e-1111-4aaa-8bbb-0123456789ab';

let box: TestSandbox;
let checking: AccountBase;
let savings: AccountBase;
let category: CategoryBase;
let userGroup: CategoryGroup;
let internalGroup: CategoryGroup;
let creditCardPayment: CategoryBase;
let imported: TransactionDetail;
let scheduledId: string;
let payeeId: string;
let locationId: string;

beforeAll(async () => {
  box = await startTestSandbox({ transactions: 120 });
  const plan = (await exportPlan(box.rest, box.planId)).plan;
  const [first, second] = plan.accounts.filter((a) => a.on_budget && !a.closed && !a.deleted);
  const user = plan.category_groups.find(
    (g) => !g.internal && !g.deleted && !/credit card/i.test(g.name),
  );
  const internal = plan.category_groups.find((g) => g.internal);
  const userCategory = plan.categories.find((c) => c.category_group_id === user?.id && !c.deleted);
  const scheduled = plan.scheduled_transactions.find((s) => !s.deleted);
  const payee = plan.payees.find((p) => p.transfer_account_id === null && !p.deleted);
  const location = plan.payee_locations.find((l) => !l.deleted);
  const cardGroup = plan.category_groups.find((g) => /credit card payments/i.test(g.name));
  const cardCategory = plan.categories.find(
    (c) => c.category_group_id === cardGroup?.id && !c.deleted,
  );
  if (
    !first ||
    !second ||
    !user ||
    !internal ||
    !userCategory ||
    !scheduled ||
    !payee ||
    !location ||
    !cardCategory
  ) {
    throw new Error('the seed lacks an entity these tests need');
  }
  checking = first;
  savings = second;
  userGroup = user;
  internalGroup = internal;
  category = userCategory;
  scheduledId = scheduled.id;
  payeeId = payee.id;
  locationId = location.id;
  creditCardPayment = cardCategory;
  const created = await box.rest.post(`/plans/${box.planId}/transactions`, {
    transaction: {
      account_id: checking.id,
      date: TODAY,
      amount: -10_000,
      payee_name: 'Imported shop',
      import_id: 'errors:1',
    },
  });
  const transaction = dataOf(created, 'createTransaction', 201).transaction;
  if (transaction === undefined) throw new Error('no transaction created');
  imported = transaction;
});

afterAll(async () => {
  await box.close();
});

const plan = (path = ''): string => `/plans/${box.planId}${path}`;

interface Case {
  name: string;
  method: string;
  path: () => string;
  request: () => RestRequest;
  /** What the detail must name. */
  detail: RegExp;
}

const valid = (): Record<string, unknown> => ({
  account_id: checking.id,
  date: TODAY,
  amount: -1_000,
  payee_name: 'Valid payee',
});
const post = (path: string, body: () => unknown, detail: RegExp, name: string): Case => ({
  name,
  method: 'POST',
  path: () => plan(path),
  request: () => ({ body: body() }),
  detail,
});

const badRequests: Case[] = [
  {
    name: 'a body that is not JSON',
    method: 'POST',
    path: () => plan('/transactions'),
    request: () => ({ rawBody: '{"transaction": {"amount": ' }),
    detail: /json|pars|body|syntax/i,
  },
  {
    name: 'a JSON body that is not an object',
    method: 'POST',
    path: () => plan('/payees'),
    request: () => ({ rawBody: '["payee"]' }),
    detail: /payee|body|object/i,
  },
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), amount: '12' } }),
    /amount/,
    'an amount given as a string',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), amount: 12.5 } }),
    /amount/,
    'a fractional amount',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), approved: 'yes' } }),
    /approved/,
    'approved as a string',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), memo: 42 } }),
    /memo/,
    'memo as a number',
  ),
  post(
    '/accounts',
    () => ({ account: { name: 7, type: 'checking', balance: 0 } }),
    /name/,
    'an account name as a number',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), cleared: 'maybe' } }),
    /cleared/,
    'an unknown cleared status',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), flag_color: 'pink' } }),
    /flag_color/,
    'an unknown flag colour',
  ),
  post(
    '/accounts',
    () => ({ account: { name: 'Crypto', type: 'crypto', balance: 0 } }),
    /type/,
    'an unknown account type',
  ),
  post(
    '/accounts',
    () => ({ account: { name: 'Loan', type: 'mortgage', balance: 0 } }),
    /type/,
    'an account type that cannot be created',
  ),
  post(
    '/scheduled_transactions',
    () => ({
      scheduled_transaction: {
        account_id: checking.id,
        date: addDays(TODAY, 5),
        amount: -1,
        frequency: 'hourly',
      },
    }),
    /frequency/,
    'an unknown frequency',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), date: '2025-02-30' } }),
    /date/,
    'an impossible date',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), date: '06/01/2025' } }),
    /date/,
    'a date in another format',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), account_id: 'not-a-uuid' } }),
    /account_id/,
    'a malformed account id',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), category_id: '1234' } }),
    /category_id/,
    'a malformed category id',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), payee_id: 'payee' } }),
    /payee_id/,
    'a malformed payee id',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), account_id: undefined } }),
    /account_id/,
    'a transaction without account',
  ),
  post(
    '/transactions',
    () => ({ transaction: valid(), transactions: [valid()] }),
    /transaction/,
    'both transaction and transactions',
  ),
  post('/transactions', () => ({}), /transaction/, 'neither transaction nor transactions'),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), date: addDays(TODAY, 1) } }),
    /date/,
    'a future-dated transaction',
  ),
  post(
    '/transactions',
    () => ({ transactions: [valid(), { ...valid(), date: addDays(TODAY, 3) }] }),
    /date/,
    'a batch with one future-dated transaction',
  ),
  post(
    '/transactions',
    () => ({
      transaction: {
        ...valid(),
        amount: -10_000,
        subtransactions: [
          { amount: -4_000, category_id: category.id },
          { amount: -5_000, category_id: category.id },
        ],
      },
    }),
    /subtransactions|amount/,
    'split amounts that do not add up',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), payee_name: 'p'.repeat(201) } }),
    /payee_name/,
    'a payee_name over 200 characters',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), memo: 'm'.repeat(501) } }),
    /memo/,
    'a memo over 500 characters',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), import_id: 'i'.repeat(37) } }),
    /import_id/,
    'an import_id over 36 characters',
  ),
  post(
    '/category_groups',
    () => ({ category_group: { name: 'g'.repeat(51) } }),
    /name/,
    'a category group name over 50 characters',
  ),
  post(
    '/payees',
    () => ({ payee: { name: 'p'.repeat(501) } }),
    /name/,
    'a payee name over 500 characters',
  ),
  post('/payees', () => ({ payee: {} }), /name/, 'a payee without name'),
  post(
    '/accounts',
    () => ({ account: { name: 'No type' } }),
    /type|balance/,
    'an account without type and balance',
  ),
  post(
    '/accounts',
    () => ({ name: 'Unwrapped', type: 'cash', balance: 0 }),
    /account/,
    'an account outside its wrapper',
  ),
  post(
    '/categories',
    () => ({ category: { name: 'Orphan' } }),
    /category_group_id/,
    'a category without group',
  ),
  post(
    '/categories',
    () => ({ category: { name: 'Internal', category_group_id: internalGroup.id } }),
    /category_group_id/,
    'a category in an internal group',
  ),
  post(
    '/scheduled_transactions',
    () => ({
      scheduled_transaction: {
        account_id: checking.id,
        date: addDays(TODAY, -1),
        amount: -1_000,
        frequency: 'monthly',
      },
    }),
    /date/,
    'a scheduled transaction in the past',
  ),
  post(
    '/scheduled_transactions',
    () => ({
      scheduled_transaction: {
        account_id: checking.id,
        date: '2031-01-01',
        amount: -1_000,
        frequency: 'monthly',
      },
    }),
    /date/,
    'a scheduled transaction more than five years ahead',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), date: `${TODAY}T24:30:00Z` } }),
    /transaction\.date must be a date in YYYY-MM-DD format \(or an ISO 8601 date-time\)/,
    'a date-time with an impossible hour',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), date: `${TODAY} at noon` } }),
    /transaction\.date/,
    'a date with trailing text',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), account_id: UNKNOWN_ID } }),
    /account_id/,
    'an account of no plan',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), category_id: UNKNOWN_ID } }),
    /category_id/,
    'a category of no plan',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), payee_name: null, payee_id: UNKNOWN_ID } }),
    /payee_id/,
    'a payee of no plan',
  ),
  post(
    '/transactions',
    () => ({ transaction: { ...valid(), payee_name: null, payee_id: checking.transfer_payee_id } }),
    /payee_id/,
    'a transfer to the account itself',
  ),
  post('/transactions', () => ({ transactions: [] }), /transactions/, 'an empty batch'),
  post('/payees', () => ({ payee: { name: '' } }), /name/, 'an empty payee name'),
  post(
    '/accounts',
    () => ({ account: { name: '', type: 'cash', balance: 0 } }),
    /name/,
    'an empty account name',
  ),
  post(
    '/categories',
    () => ({ category: { name: 'Lost', category_group_id: UNKNOWN_ID } }),
    /category_group_id/,
    'a category in a group of no plan',
  ),
  post(
    '/scheduled_transactions',
    () => ({
      scheduled_transaction: {
        account_id: checking.id,
        date: addDays(TODAY, 3),
        amount: -1_000,
        category_id: creditCardPayment.id,
      },
    }),
    /category_id/,
    'a scheduled transaction in a credit card payment category',
  ),
  {
    name: 'a bulk update with both id and import_id',
    method: 'PATCH',
    path: () => plan('/transactions'),
    request: () => ({
      body: { transactions: [{ id: imported.id, import_id: 'errors:1', memo: 'x' }] },
    }),
    detail: /import_id/,
  },
  {
    name: 'a bulk update that would change an import_id',
    method: 'PATCH',
    path: () => plan('/transactions'),
    request: () => ({ body: { transactions: [{ id: imported.id, import_id: 'errors:changed' }] } }),
    detail: /import_id/,
  },
  {
    name: 'a bulk update whose import_id matches no transaction',
    method: 'PATCH',
    path: () => plan('/transactions'),
    request: () => ({ body: { transactions: [{ import_id: 'errors:nowhere', memo: 'x' }] } }),
    detail: /import_id/,
  },
  {
    name: 'an update that changes the import_id',
    method: 'PUT',
    path: () => plan(`/transactions/${imported.id}`),
    request: () => ({ body: { transaction: { import_id: 'errors:changed', memo: 'x' } } }),
    detail: /import_id/,
  },
  {
    name: 'a bulk update with neither id nor import_id',
    method: 'PATCH',
    path: () => plan('/transactions'),
    request: () => ({ body: { transactions: [{ memo: 'who am I' }] } }),
    detail: /id/,
  },
  {
    name: 'a bulk update without the transactions array',
    method: 'PATCH',
    path: () => plan('/transactions'),
    request: () => ({ body: { transaction: { id: imported.id } } }),
    detail: /transactions/,
  },
  {
    name: 'an update that moves a transaction into the future',
    method: 'PUT',
    path: () => plan(`/transactions/${imported.id}`),
    request: () => ({ body: { transaction: { date: addDays(TODAY, 10) } } }),
    detail: /date/,
  },
  {
    name: 'an update with a wrong type',
    method: 'PUT',
    path: () => plan(`/transactions/${imported.id}`),
    request: () => ({ body: { transaction: { amount: 'ten' } } }),
    detail: /amount/,
  },
  {
    name: 'an assignment that is not an integer',
    method: 'PATCH',
    path: () => plan(`/months/${TODAY.slice(0, 8)}01/categories/${category.id}`),
    request: () => ({ body: { category: { budgeted: 'lots' } } }),
    detail: /budgeted/,
  },
  {
    name: 'an assignment without budgeted',
    method: 'PATCH',
    path: () => plan(`/months/${TODAY.slice(0, 8)}01/categories/${category.id}`),
    request: () => ({ body: { category: {} } }),
    detail: /budgeted/,
  },
  {
    name: 'a category moved into an internal group',
    method: 'PATCH',
    path: () => plan(`/categories/${category.id}`),
    request: () => ({ body: { category: { category_group_id: internalGroup.id } } }),
    detail: /category_group_id/,
  },
  {
    name: 'a category group renamed beyond 50 characters',
    method: 'PATCH',
    path: () => plan(`/category_groups/${userGroup.id}`),
    request: () => ({ body: { category_group: { name: 'n'.repeat(51) } } }),
    detail: /name/,
  },
  {
    name: 'a payee renamed beyond 500 characters',
    method: 'PATCH',
    path: () => plan(`/payees/${payeeId}`),
    request: () => ({ body: { payee: { name: 'n'.repeat(501) } } }),
    detail: /name/,
  },
];

const listPaths = (): [string, string][] => [
  ['all transactions', plan('/transactions')],
  ['account transactions', plan(`/accounts/${checking.id}/transactions`)],
  ['category transactions', plan(`/categories/${category.id}/transactions`)],
  ['payee transactions', plan(`/payees/${payeeId}/transactions`)],
  ['month transactions', plan(`/months/${TODAY.slice(0, 8)}01/transactions`)],
];

const badQueries: [string, Record<string, QueryValue>, RegExp][] = [
  ['since_date=yesterday', { since_date: 'yesterday' }, /since_date/],
  ['until_date=2025-13-01', { until_date: '2025-13-01' }, /until_date/],
  ['type=weird', { type: 'weird' }, /type/],
  ['last_knowledge_of_server=abc', { last_knowledge_of_server: 'abc' }, /last_knowledge_of_server/],
  ['last_knowledge_of_server=-1', { last_knowledge_of_server: -1 }, /last_knowledge_of_server/],
];

describe('400 bad_request', () => {
  for (const testCase of badRequests) {
    it(`refuses ${testCase.name}, naming the field, and changes nothing`, async () => {
      const response = await expectPlanUnchanged(box.rest, box.planId, () =>
        box.rest.request(testCase.method, testCase.path(), testCase.request()),
      );
      expectError(response, 400, '400', 'bad_request', testCase.detail);
    });
  }

  it('refuses a create that mixes valid and invalid transactions as a whole', async () => {
    const response = await expectPlanUnchanged(box.rest, box.planId, () =>
      box.rest.post(plan('/transactions'), {
        transactions: [valid(), { ...valid(), cleared: 'nope' }],
      }),
    );
    expectError(response, 400, '400', 'bad_request', /cleared/);
  });

  it('refuses malformed query parameters on every transaction list', async () => {
    for (const [list, path] of listPaths()) {
      for (const [label, query, detail] of badQueries) {
        const response = await box.rest.get(path, query);
        expect(response.status, `${list} with ${label}`).toBe(400);
        expectError(response, 400, '400', 'bad_request', detail);
      }
    }
  });

  it('refuses a malformed last_knowledge_of_server on every delta endpoint', async () => {
    for (const path of [
      '',
      '/accounts',
      '/categories',
      '/payees',
      '/months',
      '/scheduled_transactions',
    ]) {
      const response = await box.rest.get(plan(path), { last_knowledge_of_server: 'abc' });
      expectError(response, 400, '400', 'bad_request', /last_knowledge_of_server/);
    }
  });

  it('refuses include_accounts that is not a boolean', async () => {
    expectError(
      await box.rest.get('/plans', { include_accounts: 'maybe' }),
      400,
      '400',
      'bad_request',
      /include_accounts/,
    );
  });

  it('refuses a month that is not a date', async () => {
    expectError(await box.rest.get(plan('/months/june')), 400, '400', 'bad_request', /month/);
    expectError(
      await box.rest.get(plan(`/months/2025-13-01/categories/${category.id}`)),
      400,
      '400',
      'bad_request',
      /month/,
    );
  });
});

describe('400 for totals beyond the int64 of the interface', () => {
  const MAX = Number.MAX_SAFE_INTEGER;
  const INT64 = '9223372036854775807';

  /** A new, empty tracking-free account and a new category, so only the test's amounts count. */
  async function emptyAccountAndCategory(
    label: string,
  ): Promise<{ accountId: string; categoryId: string }> {
    const account = dataOf(
      await box.rest.post(plan('/accounts'), {
        account: { name: `Big ${label}`, type: 'checking', balance: 0 },
      }),
      'createAccount',
      201,
    ).account;
    const created = dataOf(
      await box.rest.post(plan('/categories'), {
        category: { name: `Big ${label}`, category_group_id: userGroup.id },
      }),
      'createCategory',
      201,
    ).category;
    return { accountId: account.id, categoryId: created.id };
  }

  /** `count` transactions of `amount` in one request. */
  const batch = (count: number, line: Record<string, unknown>) => ({
    transactions: Array.from(
      { length: count },
      (): Record<string, unknown> => ({ date: TODAY, ...line }),
    ),
  });

  it('takes an account balance past 2^53 exactly, and refuses one past int64, changing nothing', async () => {
    const { accountId } = await emptyAccountAndCategory('balance');
    expect(
      (await box.rest.post(plan('/transactions'), batch(2, { account_id: accountId, amount: MAX })))
        .status,
    ).toBe(201);
    const read = await box.rest.get(plan(`/accounts/${accountId}`));
    expect(read.text).toContain(`"balance":${2n * BigInt(MAX)},`);
    const response = await expectPlanUnchanged(box.rest, box.planId, () =>
      box.rest.post(plan('/transactions'), batch(1_023, { account_id: accountId, amount: MAX })),
    );
    expectError(
      response,
      400,
      '400',
      'bad_request',
      new RegExp(
        `^transactions\\[0\\]\\.amount would take the balance of account 'Big balance' beyond ±${INT64} milliunits$`,
      ),
    );
  });

  it("refuses a transaction that would take a category's activity past int64, changing nothing", async () => {
    const a = await emptyAccountAndCategory('activity a');
    const b = await emptyAccountAndCategory('activity b');
    // Half on each account: each balance stays within int64, their category's activity would not.
    const half = { amount: -MAX, category_id: a.categoryId };
    expect(
      (await box.rest.post(plan('/transactions'), batch(512, { ...half, account_id: a.accountId })))
        .status,
    ).toBe(201);
    const response = await expectPlanUnchanged(box.rest, box.planId, () =>
      box.rest.post(plan('/transactions'), batch(513, { ...half, account_id: b.accountId })),
    );
    expectError(response, 400, '400', 'bad_request', /activity of category 'Big activity a'/);
  });

  it("refuses an assignment that would take a category's month balance past int64, changing nothing", async () => {
    const a = await emptyAccountAndCategory('assigned a');
    const b = await emptyAccountAndCategory('assigned b');
    const month = `${TODAY.slice(0, 8)}01`;
    // Inflows categorized to the category: 2^63 - 11 of activity, on two accounts.
    const inflow = { amount: MAX, category_id: a.categoryId };
    expect(
      (
        await box.rest.post(
          plan('/transactions'),
          batch(512, { ...inflow, account_id: a.accountId }),
        )
      ).status,
    ).toBe(201);
    const rest = batch(512, { ...inflow, account_id: b.accountId });
    rest.transactions.push({ date: TODAY, ...inflow, account_id: b.accountId, amount: 1_013 });
    expect((await box.rest.post(plan('/transactions'), rest)).status).toBe(201);
    const within = await box.rest.patch(plan(`/months/${month}/categories/${a.categoryId}`), {
      category: { budgeted: 10 },
    });
    expect(within.text).toContain(`"balance":${2n ** 63n - 1n},`);
    const response = await expectPlanUnchanged(box.rest, box.planId, () =>
      box.rest.patch(plan(`/months/${month}/categories/${a.categoryId}`), {
        category: { budgeted: 11 },
      }),
    );
    expectError(
      response,
      400,
      '400',
      'bad_request',
      /budgeted would take the balance of the category/,
    );
  });
});

describe('401 not_authorized', () => {
  it('refuses a request without a token', async () => {
    expectError(
      await box.rest.request('GET', '/user', { token: null }),
      401,
      '401',
      'not_authorized',
    );
    expectError(
      await box.rest.request('GET', plan('/accounts'), { token: null }),
      401,
      '401',
      'not_authorized',
    );
  });

  it('refuses an unknown token in the header and in the query', async () => {
    expectError(
      await box.rest.request('GET', '/user', { token: 'not-a-token' }),
      401,
      '401',
      'not_authorized',
    );
    expectError(
      await box.rest.request('GET', '/user', { token: 'not-a-token', tokenIn: 'query' }),
      401,
      '401',
      'not_authorized',
    );
    expectError(
      await box.rest.request('GET', plan('/accounts'), { token: '', tokenIn: 'query' }),
      401,
      '401',
      'not_authorized',
    );
  });

  it('accepts a valid token in the access_token query parameter', async () => {
    const viaQuery = await box.rest.request('GET', plan('/accounts'), { tokenIn: 'query' });
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.body).toEqual((await box.rest.get(plan('/accounts'))).body);
  });

  it('refuses an unknown token before anything else, even on writes', async () => {
    const response = await expectPlanUnchanged(box.rest, box.planId, () =>
      box.rest.request('POST', plan('/payees'), {
        token: 'not-a-token',
        body: { payee: { name: 'Nope' } },
      }),
    );
    expectError(response, 401, '401', 'not_authorized');
  });
});

describe('403.3 unauthorized_scope', () => {
  const writes = (): [string, string, unknown][] => [
    ['POST', plan('/accounts'), { account: { name: 'Read only', type: 'cash', balance: 0 } }],
    [
      'POST',
      plan('/categories'),
      { category: { name: 'Read only', category_group_id: userGroup.id } },
    ],
    ['PATCH', plan(`/categories/${category.id}`), { category: { name: 'Read only' } }],
    ['PATCH', plan(`/months/current/categories/${category.id}`), { category: { budgeted: 1_000 } }],
    ['POST', plan('/category_groups'), { category_group: { name: 'Read only' } }],
    ['PATCH', plan(`/category_groups/${userGroup.id}`), { category_group: { name: 'Read only' } }],
    ['POST', plan('/payees'), { payee: { name: 'Read only' } }],
    ['PATCH', plan(`/payees/${payeeId}`), { payee: { name: 'Read only' } }],
    ['POST', plan('/transactions'), { transaction: valid() }],
    ['POST', plan('/transactions'), { transactions: [valid()] }],
    ['PATCH', plan('/transactions'), { transactions: [{ id: imported.id, memo: 'read only' }] }],
    ['POST', plan('/transactions/import'), undefined],
    ['PUT', plan(`/transactions/${imported.id}`), { transaction: { memo: 'read only' } }],
    ['DELETE', plan(`/transactions/${imported.id}`), undefined],
    [
      'POST',
      plan('/scheduled_transactions'),
      {
        scheduled_transaction: {
          account_id: checking.id,
          date: addDays(TODAY, 3),
          amount: -1,
          frequency: 'never',
        },
      },
    ],
    [
      'PUT',
      plan(`/scheduled_transactions/${scheduledId}`),
      { scheduled_transaction: { account_id: checking.id, date: addDays(TODAY, 3) } },
    ],
    ['DELETE', plan(`/scheduled_transactions/${scheduledId}`), undefined],
  ];

  it('lets the read-only token read', async () => {
    expect((await box.readOnly.get(plan('/accounts'))).status).toBe(200);
    expect((await box.readOnly.get(plan())).body).toEqual((await box.rest.get(plan())).body);
  });

  it('refuses every kind of write with the read-only token and changes nothing', async () => {
    for (const [method, path, body] of writes()) {
      const response = await expectPlanUnchanged(box.rest, box.planId, () =>
        box.rest.request(method, path, {
          token: READ_ONLY_TOKEN,
          ...(body === undefined ? {} : { body }),
        }),
      );
      expect(response.status, `${method} ${path}`).toBe(403);
      expectError(response, 403, '403.3', 'unauthorized_scope');
    }
  });

  it('refuses writes with the read-only token passed in the query too', async () => {
    const response = await box.rest.request('POST', plan('/payees'), {
      token: READ_ONLY_TOKEN,
      tokenIn: 'query',
      body: { payee: { name: 'Read only' } },
    });
    expectError(response, 403, '403.3', 'unauthorized_scope');
  });
});

describe('404.1 not_found', () => {
  it('refuses paths that match no endpoint', async () => {
    for (const path of [
      '/nothing-here',
      plan('/widgets'),
      plan('/accounts/x/y/z'),
      '/budgets-and-more',
    ]) {
      expectError(await box.rest.get(path), 404, '404.1', 'not_found');
    }
  });

  it('refuses methods a known path does not offer', async () => {
    const cases: [string, string][] = [
      ['DELETE', plan('/accounts')],
      ['PUT', '/user'],
      ['POST', plan('/payee_locations')],
      ['DELETE', plan(`/categories/${category.id}`)],
      ['PATCH', plan(`/transactions/${imported.id}`)],
      ['POST', plan('/months')],
    ];
    for (const [method, path] of cases) {
      const response = await expectPlanUnchanged(box.rest, box.planId, () =>
        box.rest.request(method, path, { body: {} }),
      );
      expect(response.status, `${method} ${path}`).toBe(404);
      expectError(response, 404, '404.1', 'not_found');
    }
  });
});

describe('404.2 resource_not_found', () => {
  it('refuses unknown entities on every read', async () => {
    const paths = [
      `/plans/${UNKNOWN_ID}`,
      `/plans/${UNKNOWN_ID}/accounts`,
      `/plans/${UNKNOWN_ID}/settings`,
      plan(`/accounts/${UNKNOWN_ID}`),
      plan(`/accounts/${UNKNOWN_ID}/transactions`),
      plan(`/categories/${UNKNOWN_ID}`),
      plan(`/categories/${UNKNOWN_ID}/transactions`),
      plan(`/months/current/categories/${UNKNOWN_ID}`),
      plan(`/payees/${UNKNOWN_ID}`),
      plan(`/payees/${UNKNOWN_ID}/transactions`),
      plan(`/payees/${UNKNOWN_ID}/payee_locations`),
      plan(`/payee_locations/${UNKNOWN_ID}`),
      plan(`/transactions/${UNKNOWN_ID}`),
      plan(`/scheduled_transactions/${UNKNOWN_ID}`),
      plan('/months/1990-01-01'),
      plan(`/months/1990-01-01/categories/${category.id}`),
    ];
    for (const path of paths) {
      const response = await box.rest.get(path);
      expect(response.status, path).toBe(404);
      expectError(response, 404, '404.2', 'resource_not_found');
    }
    expect((await box.rest.get(plan(`/payee_locations/${locationId}`))).status).toBe(200);
  });

  it('refuses writes to unknown entities and changes nothing', async () => {
    const cases: [string, string, unknown][] = [
      ['PUT', plan(`/transactions/${UNKNOWN_ID}`), { transaction: { memo: 'ghost' } }],
      ['DELETE', plan(`/transactions/${UNKNOWN_ID}`), undefined],
      [
        'PUT',
        plan(`/scheduled_transactions/${UNKNOWN_ID}`),
        { scheduled_transaction: { account_id: checking.id, date: addDays(TODAY, 2) } },
      ],
      ['DELETE', plan(`/scheduled_transactions/${UNKNOWN_ID}`), undefined],
      ['PATCH', plan(`/categories/${UNKNOWN_ID}`), { category: { name: 'ghost' } }],
      ['PATCH', plan(`/months/current/categories/${UNKNOWN_ID}`), { category: { budgeted: 1 } }],
      ['PATCH', plan(`/category_groups/${UNKNOWN_ID}`), { category_group: { name: 'ghost' } }],
      ['PATCH', plan(`/payees/${UNKNOWN_ID}`), { payee: { name: 'ghost' } }],
      ['POST', `/plans/${UNKNOWN_ID}/payees`, { payee: { name: 'ghost' } }],
    ];
    for (const [method, path, body] of cases) {
      const response = await expectPlanUnchanged(box.rest, box.planId, () =>
        box.rest.request(method, path, body === undefined ? {} : { body }),
      );
      expect(response.status, `${method} ${path}`).toBe(404);
      expectError(response, 404, '404.2', 'resource_not_found');
    }
  });
});

describe('409 conflict', () => {
  it('refuses a single create whose import_id exists on the same account, changing nothing', async () => {
    const response = await expectPlanUnchanged(box.rest, box.planId, () =>
      box.rest.post(plan('/transactions'), { transaction: { ...valid(), import_id: 'errors:1' } }),
    );
    expectError(response, 409, '409', 'conflict');
  });

  it('accepts the same import_id on another account', async () => {
    const response = await box.rest.post(plan('/transactions'), {
      transaction: { ...valid(), account_id: savings.id, import_id: 'errors:1' },
    });
    expect(dataOf(response, 'createTransaction', 201).transaction?.import_id).toBe('errors:1');
  });

  it('creates the rest of a batch and reports the duplicate import ids', async () => {
    const before = (await exportPlan(box.rest, box.planId)).plan.transactions.filter(
      (t) => !t.deleted,
    ).length;
    const response = await box.rest.post(plan('/transactions'), {
      transactions: [
        { ...valid(), import_id: 'errors:1', memo: 'duplicate' },
        { ...valid(), import_id: 'errors:batch:new', memo: 'new one' },
        { ...valid(), memo: 'no import id' },
      ],
    });
    const data = dataOf(response, 'createTransaction', 201);
    expect(data.duplicate_import_ids).toEqual(['errors:1']);
    expect(data.transactions?.map((t) => t.memo)).toEqual(['new one', 'no import id']);
    expect(data.transaction_ids).toEqual(data.transactions?.map((t) => t.id));
    const after = (await exportPlan(box.rest, box.planId)).plan.transactions.filter(
      (t) => !t.deleted,
    ).length;
    expect(after).toBe(before + 2);
  });
});
