import { OPERATION_IDS, type OperationId } from '@plans-gateway/rest-contract';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/client.js';
import { sendJson, startTestServer, type TestServer } from './support/http-server.js';

const TOKEN = 'route-test-token-0123456789';
const PLAN = '11111111-1111-4111-8111-111111111111';
const ACCOUNT = '22222222-2222-4222-8222-222222222222';
const CATEGORY = '33333333-3333-4333-8333-333333333333';
const GROUP = '44444444-4444-4444-8444-444444444444';
const PAYEE = '55555555-5555-4555-8555-555555555555';
const LOCATION = '66666666-6666-4666-8666-666666666666';
const TRANSACTION = '77777777-7777-4777-8777-777777777777';
const SCHEDULED = '88888888-8888-4888-8888-888888888888';
const MONTH = '2024-05-01';

interface Case {
  op: OperationId;
  params?: Record<string, unknown>;
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

const ACCOUNT_BODY = { account: { name: 'Wallet', type: 'cash', balance: 12_340 } };
const CATEGORY_BODY = { category: { name: 'Books', category_group_id: GROUP } };
const TRANSACTION_BODY = {
  transaction: { account_id: ACCOUNT, date: '2024-05-03', amount: -5_000, memo: 'Café ☕' },
};
const SCHEDULED_BODY = {
  scheduled_transaction: {
    account_id: ACCOUNT,
    date: '2030-01-01',
    amount: -1_000,
    frequency: 'monthly',
  },
};
const LIST_QUERY = {
  sinceDate: '2024-01-01',
  untilDate: '2024-06-30',
  type: 'unapproved',
  lastKnowledgeOfServer: 42,
};
const LIST_WIRE = {
  since_date: '2024-01-01',
  until_date: '2024-06-30',
  type: 'unapproved',
  last_knowledge_of_server: '42',
};

// Written out by hand from the interface's endpoint table, independently of the route table.
const CASES: Case[] = [
  { op: 'getUser', method: 'GET', path: '/v1/user' },
  {
    op: 'getPlans',
    params: { includeAccounts: true },
    method: 'GET',
    path: '/v1/plans',
    query: { include_accounts: 'true' },
  },
  {
    op: 'getPlanById',
    params: { planId: PLAN, lastKnowledgeOfServer: 7 },
    method: 'GET',
    path: `/v1/plans/${PLAN}`,
    query: { last_knowledge_of_server: '7' },
  },
  {
    op: 'getPlanSettingsById',
    params: { planId: PLAN },
    method: 'GET',
    path: `/v1/plans/${PLAN}/settings`,
  },
  {
    op: 'getAccounts',
    params: { planId: PLAN, lastKnowledgeOfServer: 0 },
    method: 'GET',
    path: `/v1/plans/${PLAN}/accounts`,
    query: { last_knowledge_of_server: '0' },
  },
  {
    op: 'createAccount',
    params: { planId: PLAN, body: ACCOUNT_BODY },
    method: 'POST',
    path: `/v1/plans/${PLAN}/accounts`,
    body: ACCOUNT_BODY,
  },
  {
    op: 'getAccountById',
    params: { planId: PLAN, accountId: ACCOUNT },
    method: 'GET',
    path: `/v1/plans/${PLAN}/accounts/${ACCOUNT}`,
  },
  {
    op: 'getCategories',
    params: { planId: PLAN, lastKnowledgeOfServer: 3 },
    method: 'GET',
    path: `/v1/plans/${PLAN}/categories`,
    query: { last_knowledge_of_server: '3' },
  },
  {
    op: 'createCategory',
    params: { planId: PLAN, body: CATEGORY_BODY },
    method: 'POST',
    path: `/v1/plans/${PLAN}/categories`,
    body: CATEGORY_BODY,
  },
  {
    op: 'getCategoryById',
    params: { planId: PLAN, categoryId: CATEGORY },
    method: 'GET',
    path: `/v1/plans/${PLAN}/categories/${CATEGORY}`,
  },
  {
    op: 'updateCategory',
    params: { planId: PLAN, categoryId: CATEGORY, body: { category: { note: null } } },
    method: 'PATCH',
    path: `/v1/plans/${PLAN}/categories/${CATEGORY}`,
    body: { category: { note: null } },
  },
  {
    op: 'getMonthCategoryById',
    params: { planId: PLAN, month: MONTH, categoryId: CATEGORY },
    method: 'GET',
    path: `/v1/plans/${PLAN}/months/${MONTH}/categories/${CATEGORY}`,
  },
  {
    op: 'updateMonthCategory',
    params: {
      planId: PLAN,
      month: 'current',
      categoryId: CATEGORY,
      body: { category: { budgeted: 50_000 } },
    },
    method: 'PATCH',
    path: `/v1/plans/${PLAN}/months/current/categories/${CATEGORY}`,
    body: { category: { budgeted: 50_000 } },
  },
  {
    op: 'createCategoryGroup',
    params: { planId: PLAN, body: { category_group: { name: 'Fun' } } },
    method: 'POST',
    path: `/v1/plans/${PLAN}/category_groups`,
    body: { category_group: { name: 'Fun' } },
  },
  {
    op: 'updateCategoryGroup',
    params: {
      planId: PLAN,
      categoryGroupId: GROUP,
      body: { category_group: { name: 'More fun' } },
    },
    method: 'PATCH',
    path: `/v1/plans/${PLAN}/category_groups/${GROUP}`,
    body: { category_group: { name: 'More fun' } },
  },
  { op: 'getPayees', params: { planId: PLAN }, method: 'GET', path: `/v1/plans/${PLAN}/payees` },
  {
    op: 'createPayee',
    params: { planId: PLAN, body: { payee: { name: 'Bakery' } } },
    method: 'POST',
    path: `/v1/plans/${PLAN}/payees`,
    body: { payee: { name: 'Bakery' } },
  },
  {
    op: 'getPayeeById',
    params: { planId: PLAN, payeeId: PAYEE },
    method: 'GET',
    path: `/v1/plans/${PLAN}/payees/${PAYEE}`,
  },
  {
    op: 'updatePayee',
    params: { planId: PLAN, payeeId: PAYEE, body: { payee: { name: 'Baker' } } },
    method: 'PATCH',
    path: `/v1/plans/${PLAN}/payees/${PAYEE}`,
    body: { payee: { name: 'Baker' } },
  },
  {
    op: 'getPayeeLocations',
    params: { planId: PLAN },
    method: 'GET',
    path: `/v1/plans/${PLAN}/payee_locations`,
  },
  {
    op: 'getPayeeLocationById',
    params: { planId: PLAN, payeeLocationId: LOCATION },
    method: 'GET',
    path: `/v1/plans/${PLAN}/payee_locations/${LOCATION}`,
  },
  {
    op: 'getPayeeLocationsByPayee',
    params: { planId: PLAN, payeeId: PAYEE },
    method: 'GET',
    path: `/v1/plans/${PLAN}/payees/${PAYEE}/payee_locations`,
  },
  {
    op: 'getPlanMonths',
    params: { planId: PLAN, lastKnowledgeOfServer: 9 },
    method: 'GET',
    path: `/v1/plans/${PLAN}/months`,
    query: { last_knowledge_of_server: '9' },
  },
  {
    op: 'getPlanMonth',
    params: { planId: 'last-used', month: 'current' },
    method: 'GET',
    path: '/v1/plans/last-used/months/current',
  },
  {
    op: 'getMoneyMovements',
    params: { planId: PLAN },
    method: 'GET',
    path: `/v1/plans/${PLAN}/money_movements`,
  },
  {
    op: 'getMoneyMovementsByMonth',
    params: { planId: PLAN, month: MONTH },
    method: 'GET',
    path: `/v1/plans/${PLAN}/months/${MONTH}/money_movements`,
  },
  {
    op: 'getMoneyMovementGroups',
    params: { planId: PLAN },
    method: 'GET',
    path: `/v1/plans/${PLAN}/money_movement_groups`,
  },
  {
    op: 'getMoneyMovementGroupsByMonth',
    params: { planId: PLAN, month: MONTH },
    method: 'GET',
    path: `/v1/plans/${PLAN}/months/${MONTH}/money_movement_groups`,
  },
  {
    op: 'getTransactions',
    params: { planId: PLAN, ...LIST_QUERY },
    method: 'GET',
    path: `/v1/plans/${PLAN}/transactions`,
    query: LIST_WIRE,
  },
  {
    op: 'createTransaction',
    params: { planId: PLAN, body: TRANSACTION_BODY },
    method: 'POST',
    path: `/v1/plans/${PLAN}/transactions`,
    body: TRANSACTION_BODY,
  },
  {
    op: 'updateTransactions',
    params: { planId: PLAN, body: { transactions: [{ id: TRANSACTION, approved: true }] } },
    method: 'PATCH',
    path: `/v1/plans/${PLAN}/transactions`,
    body: { transactions: [{ id: TRANSACTION, approved: true }] },
  },
  {
    op: 'importTransactions',
    params: { planId: PLAN },
    method: 'POST',
    path: `/v1/plans/${PLAN}/transactions/import`,
  },
  {
    op: 'getTransactionById',
    params: { planId: PLAN, transactionId: TRANSACTION },
    method: 'GET',
    path: `/v1/plans/${PLAN}/transactions/${TRANSACTION}`,
  },
  {
    op: 'updateTransaction',
    params: { planId: PLAN, transactionId: TRANSACTION, body: { transaction: { memo: 'x' } } },
    method: 'PUT',
    path: `/v1/plans/${PLAN}/transactions/${TRANSACTION}`,
    body: { transaction: { memo: 'x' } },
  },
  {
    op: 'deleteTransaction',
    params: { planId: PLAN, transactionId: TRANSACTION },
    method: 'DELETE',
    path: `/v1/plans/${PLAN}/transactions/${TRANSACTION}`,
  },
  {
    op: 'getTransactionsByAccount',
    params: { planId: PLAN, accountId: ACCOUNT, ...LIST_QUERY },
    method: 'GET',
    path: `/v1/plans/${PLAN}/accounts/${ACCOUNT}/transactions`,
    query: LIST_WIRE,
  },
  {
    op: 'getTransactionsByCategory',
    params: { planId: PLAN, categoryId: CATEGORY, type: 'uncategorized' },
    method: 'GET',
    path: `/v1/plans/${PLAN}/categories/${CATEGORY}/transactions`,
    query: { type: 'uncategorized' },
  },
  {
    op: 'getTransactionsByPayee',
    params: { planId: PLAN, payeeId: PAYEE, sinceDate: '2023-12-01' },
    method: 'GET',
    path: `/v1/plans/${PLAN}/payees/${PAYEE}/transactions`,
    query: { since_date: '2023-12-01' },
  },
  {
    op: 'getTransactionsByMonth',
    params: { planId: 'default', month: 'current', ...LIST_QUERY },
    method: 'GET',
    path: '/v1/plans/default/months/current/transactions',
    query: LIST_WIRE,
  },
  {
    op: 'getScheduledTransactions',
    params: { planId: PLAN, lastKnowledgeOfServer: 11 },
    method: 'GET',
    path: `/v1/plans/${PLAN}/scheduled_transactions`,
    query: { last_knowledge_of_server: '11' },
  },
  {
    op: 'createScheduledTransaction',
    params: { planId: PLAN, body: SCHEDULED_BODY },
    method: 'POST',
    path: `/v1/plans/${PLAN}/scheduled_transactions`,
    body: SCHEDULED_BODY,
  },
  {
    op: 'getScheduledTransactionById',
    params: { planId: PLAN, scheduledTransactionId: SCHEDULED },
    method: 'GET',
    path: `/v1/plans/${PLAN}/scheduled_transactions/${SCHEDULED}`,
  },
  {
    op: 'updateScheduledTransaction',
    params: { planId: PLAN, scheduledTransactionId: SCHEDULED, body: SCHEDULED_BODY },
    method: 'PUT',
    path: `/v1/plans/${PLAN}/scheduled_transactions/${SCHEDULED}`,
    body: SCHEDULED_BODY,
  },
  {
    op: 'deleteScheduledTransaction',
    params: { planId: PLAN, scheduledTransactionId: SCHEDULED },
    method: 'DELETE',
    path: `/v1/plans/${PLAN}/scheduled_transactions/${SCHEDULED}`,
  },
];

// The methods are typed per operation; the table drives them through one loose signature.
type LooseMethod = (call: { token: string }, params?: Record<string, unknown>) => Promise<unknown>;
function method(client: UpstreamClient, op: OperationId): LooseMethod {
  return client[op] as unknown as LooseMethod;
}

let server: TestServer;
let client: UpstreamClient;

beforeAll(async () => {
  server = await startTestServer();
  client = createUpstreamClient({ baseUrl: server.baseUrl });
});
afterAll(async () => {
  await client.close();
  await server.close();
});
afterEach(() => {
  server.requests.length = 0;
});

describe('route table', () => {
  it('covers the 44 operations of the interface, each once', () => {
    expect(CASES).toHaveLength(44);
    expect(new Set(CASES.map((c) => c.op))).toEqual(new Set(OPERATION_IDS));
    expect(OPERATION_IDS).toHaveLength(44);
  });

  it.each(CASES)('$op sends $method $path', async (testCase) => {
    server.handle((request, res) =>
      sendJson(res, request.method === 'POST' ? 201 : 200, { data: { echo: testCase.op } }),
    );

    const result = await method(client, testCase.op)({ token: TOKEN }, testCase.params);

    expect(server.requests).toHaveLength(1);
    const received = server.requests[0]!;
    expect(received.method).toBe(testCase.method);
    expect(received.pathname).toBe(testCase.path);
    expect(received.query).toEqual(testCase.query ?? {});
    expect(received.headers.authorization).toBe(`Bearer ${TOKEN}`);
    if (testCase.body === undefined) {
      expect(received.body).toBe('');
      expect(received.headers['content-type']).toBeUndefined();
    } else {
      expect(JSON.parse(received.body)).toEqual(testCase.body);
      expect(received.headers['content-type']).toBe('application/json');
    }
    if (testCase.op === 'importTransactions') {
      expect(result).toEqual({ echo: testCase.op, status: 201 });
    } else {
      expect(result).toEqual({ echo: testCase.op });
    }
  });
});

describe('path and query encoding', () => {
  it('percent-encodes path parameters so they stay inside their segment', async () => {
    await client.getAccountById({ token: TOKEN }, { planId: 'a/b?c#d', accountId: 'é x%' });
    expect(server.requests[0]!.url).toBe('/v1/plans/a%2Fb%3Fc%23d/accounts/%C3%A9%20x%25');
  });

  it('passes the plan aliases and the current month through untouched', async () => {
    await client.getMonthCategoryById(
      { token: TOKEN },
      { planId: 'last-used', month: 'current', categoryId: CATEGORY },
    );
    await client.getPlanMonth({ token: TOKEN }, { planId: 'default', month: MONTH });
    expect(server.requests.map((r) => r.url)).toEqual([
      `/v1/plans/last-used/months/current/categories/${CATEGORY}`,
      `/v1/plans/default/months/${MONTH}`,
    ]);
  });

  it('omits query parameters that are not given', async () => {
    await client.getTransactions({ token: TOKEN }, { planId: PLAN, sinceDate: undefined });
    await client.getPlans({ token: TOKEN });
    expect(server.requests.map((r) => r.url)).toEqual([
      `/v1/plans/${PLAN}/transactions`,
      '/v1/plans',
    ]);
  });

  it('never sends parameters outside the route table, an access_token above all', async () => {
    const sneaky = { planId: PLAN, access_token: TOKEN, include_accounts: true, extra: 'x' };
    await client.getAccounts({ token: TOKEN }, sneaky as unknown as { planId: string });
    expect(server.requests[0]!.url).toBe(`/v1/plans/${PLAN}/accounts`);
  });

  it.each([
    [
      'a missing path parameter',
      'getAccountById',
      { planId: PLAN },
      /params\.accountId must be a non-empty string/,
    ],
    [
      'an empty path parameter',
      'getAccounts',
      { planId: '' },
      /params\.planId must be a non-empty string/,
    ],
    [
      'a dot segment',
      'getAccountById',
      { planId: PLAN, accountId: '..' },
      /params\.accountId must not be a dot segment/,
    ],
    [
      'a fractional knowledge',
      'getAccounts',
      { planId: PLAN, lastKnowledgeOfServer: 1.5 },
      /params\.lastKnowledgeOfServer must be a non-negative integer/,
    ],
    [
      'a negative knowledge',
      'getPayees',
      { planId: PLAN, lastKnowledgeOfServer: -1 },
      /params\.lastKnowledgeOfServer must be a non-negative integer/,
    ],
    [
      'a non-boolean includeAccounts',
      'getPlans',
      { includeAccounts: 'yes' },
      /params\.includeAccounts must be a boolean/,
    ],
    ['a missing body', 'createPayee', { planId: PLAN }, /params\.body must be an object/],
    ['an array body', 'createPayee', { planId: PLAN, body: [] }, /params\.body must be an object/],
  ] as const)('rejects %s before any request, naming it', async (_label, op, params, message) => {
    await expect(method(client, op)({ token: TOKEN }, params)).rejects.toThrow(message);
    expect(server.requests).toHaveLength(0);
  });
});
