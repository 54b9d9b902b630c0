/**
 * For every read operation of the REST interface, the GraphQL answer equals the REST answer
 * field by field for the mirrored fields (camelCase names), over real HTTP against the sandbox.
 */
import type { ResponseData } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectListMirrors, expectMirrors } from '../support/mirror.js';
import { allFields } from '../support/selection.js';
import { type Stack, startStack } from '../support/stack.js';

type Data<Op extends keyof ResponseData> = { data: ResponseData[Op] };

let stack: Stack;
let planId: string;

async function rest<Op extends keyof ResponseData>(
  _op: Op,
  path: string,
): Promise<ResponseData[Op]> {
  const response = await stack.rest<Data<Op>>(path);
  expect(response.status, `GET ${path}`).toBe(200);
  return response.body.data;
}

async function graph<T = Record<string, unknown>>(
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const response = await stack.gql<T>(query, { planId, ...variables });
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  return response.body.data as T;
}

interface PlanData<T> {
  plan: T;
}

beforeAll(async () => {
  stack = await startStack({ serve: 'fetch' });
  planId = stack.sandbox.users[0]!.planIds[0]!;
});

afterAll(() => stack.close());

describe('user and plans', () => {
  it('getUser', async () => {
    const restUser = await rest('getUser', '/user');
    const data = await graph<{ user: unknown }>(`{ user ${allFields('User')} }`);
    expectMirrors(restUser.user, data.user, 'user');
  });

  it('getPlans', async () => {
    const restPlans = await rest('getPlans', '/plans');
    const data = await graph<{ plans: Record<string, unknown>[] }>(
      `{ plans ${allFields('Plan')} }`,
    );
    expectListMirrors(restPlans.plans as never, data.plans, 'plans');
  });

  it('getPlanById: plan-level fields and every collection of the export', async () => {
    const exported = await rest('getPlanById', `/plans/${planId}`);
    const { plan } = exported;
    const data = await graph<PlanData<Record<string, unknown>>>(
      `query($planId: PlanId!) { plan(id: $planId) ${allFields('Plan', {
        accounts: allFields('Account'),
        payees: allFields('Payee'),
        payeeLocations: allFields('PayeeLocation'),
        categoryGroups: allFields('CategoryGroup'),
        months: allFields('Month'),
      })} }`,
    );
    const { accounts, payees, payee_locations, category_groups, months, ...planFields } = plan;
    expectMirrors(
      { ...planFields, server_knowledge: exported.server_knowledge },
      data.plan,
      'plan',
      {
        skip: [
          'categories',
          'transactions',
          'subtransactions',
          'scheduled_transactions',
          'scheduled_subtransactions',
        ],
      },
    );
    expectListMirrors(accounts as never, data.plan.accounts as never, 'plan.accounts');
    expectListMirrors(payees as never, data.plan.payees as never, 'plan.payees');
    expectListMirrors(
      payee_locations as never,
      data.plan.payeeLocations as never,
      'plan.payeeLocations',
    );
    expectListMirrors(
      category_groups as never,
      data.plan.categoryGroups as never,
      'plan.categoryGroups',
    );
    expectListMirrors(
      months.map(({ categories: _c, ...m }) => m) as never,
      data.plan.months as never,
      'plan.months',
      { idKey: 'month' },
    );
  });

  it('getPlanById with the last-used alias answers the same plan', async () => {
    const data = await graph<PlanData<{ id: string }>>(`{ plan(id: "last-used") { id } }`);
    expect(data.plan.id).toBe(planId);
  });

  it('getPlanSettingsById', async () => {
    const restSettings = await rest('getPlanSettingsById', `/plans/${planId}/settings`);
    const data = await graph<PlanData<{ settings: unknown }>>(
      `query($planId: PlanId!) { plan(id: $planId) { settings ${allFields('PlanSettings')} } }`,
    );
    expectMirrors(restSettings.settings, data.plan.settings, 'settings');
  });
});

describe('accounts', () => {
  it('getAccounts and getAccountById', async () => {
    const restAccounts = await rest('getAccounts', `/plans/${planId}/accounts`);
    const first = restAccounts.accounts[0]!;
    const restAccount = await rest('getAccountById', `/plans/${planId}/accounts/${first.id}`);
    const data = await graph<PlanData<{ accounts: Record<string, unknown>[]; account: unknown }>>(
      `query($planId: PlanId!, $id: UUID!) { plan(id: $planId) {
        accounts ${allFields('Account')} account(id: $id) ${allFields('Account')} } }`,
      { id: first.id },
    );
    expectListMirrors(restAccounts.accounts as never, data.plan.accounts, 'accounts');
    expectMirrors(restAccount.account, data.plan.account, 'account');
  });
});

describe('categories', () => {
  it('getCategories: groups with their categories, current month amounts', async () => {
    const restCategories = await rest('getCategories', `/plans/${planId}/categories`);
    const data = await graph<PlanData<{ categoryGroups: Record<string, unknown>[] }>>(
      `query($planId: PlanId!) { plan(id: $planId) {
        categoryGroups ${allFields('CategoryGroup', { categories: allFields('Category') })} } }`,
    );
    expectListMirrors(
      restCategories.category_groups as never,
      data.plan.categoryGroups,
      'categoryGroups',
    );
  });

  it('getCategoryById and getMonthCategoryById', async () => {
    const restCategories = await rest('getCategories', `/plans/${planId}/categories`);
    const category = restCategories.category_groups
      .flatMap((g) => g.categories)
      .find((c) => !c.internal)!;
    const months = await rest('getPlanMonths', `/plans/${planId}/months`);
    const month = months.months[1]!.month;
    const restCategory = await rest(
      'getCategoryById',
      `/plans/${planId}/categories/${category.id}`,
    );
    const restMonthCategory = await rest(
      'getMonthCategoryById',
      `/plans/${planId}/months/${month}/categories/${category.id}`,
    );
    const data = await graph<
      PlanData<{ category: Record<string, unknown> & { inMonth: unknown } }>
    >(
      `query($planId: PlanId!, $id: UUID!, $month: MonthSelector!) { plan(id: $planId) {
        category(id: $id) ${allFields('Category', { inMonth: `(month: $month) ${allFields('MonthCategory')}` })} } }`,
      { id: category.id, month },
    );
    expectMirrors(restCategory.category, data.plan.category, 'category');
    expectMirrors(restMonthCategory.category, data.plan.category.inMonth, 'category.inMonth', {
      rename: { id: 'categoryId' },
    });
  });
});

describe('payees and payee locations', () => {
  it('getPayees, getPayeeById, getPayeeLocations, getPayeeLocationById, getPayeeLocationsByPayee', async () => {
    const restPayees = await rest('getPayees', `/plans/${planId}/payees`);
    const restLocations = await rest('getPayeeLocations', `/plans/${planId}/payee_locations`);
    const location = restLocations.payee_locations[0]!;
    const payeeId = location.payee_id;
    const restPayee = await rest('getPayeeById', `/plans/${planId}/payees/${payeeId}`);
    const restLocation = await rest(
      'getPayeeLocationById',
      `/plans/${planId}/payee_locations/${location.id}`,
    );
    const restByPayee = await rest(
      'getPayeeLocationsByPayee',
      `/plans/${planId}/payees/${payeeId}/payee_locations`,
    );
    const data = await graph<
      PlanData<{
        payees: Record<string, unknown>[];
        payee: Record<string, unknown> & { locations: Record<string, unknown>[] };
        payeeLocations: Record<string, unknown>[];
        payeeLocation: unknown;
      }>
    >(
      `query($planId: PlanId!, $payee: UUID!, $location: UUID!) { plan(id: $planId) {
        payees ${allFields('Payee')}
        payee(id: $payee) ${allFields('Payee', { locations: allFields('PayeeLocation') })}
        payeeLocations ${allFields('PayeeLocation')}
        payeeLocation(id: $location) ${allFields('PayeeLocation')} } }`,
      { payee: payeeId, location: location.id },
    );
    expectListMirrors(restPayees.payees as never, data.plan.payees, 'payees');
    expectMirrors(restPayee.payee, data.plan.payee, 'payee');
    expectListMirrors(
      restLocations.payee_locations as never,
      data.plan.payeeLocations,
      'payeeLocations',
    );
    expectMirrors(restLocation.payee_location, data.plan.payeeLocation, 'payeeLocation');
    expectListMirrors(
      restByPayee.payee_locations as never,
      data.plan.payee.locations,
      'payee.locations',
    );
  });
});

describe('months', () => {
  it('getPlanMonths', async () => {
    const restMonths = await rest('getPlanMonths', `/plans/${planId}/months`);
    const data = await graph<PlanData<{ months: Record<string, unknown>[] }>>(
      `query($planId: PlanId!) { plan(id: $planId) { months ${allFields('Month')} } }`,
    );
    expectListMirrors(restMonths.months as never, data.plan.months, 'months', { idKey: 'month' });
  });

  it.each(['current', 'an earlier month'])(
    'getPlanMonth for %s, with its categories',
    async (which) => {
      const restMonths = await rest('getPlanMonths', `/plans/${planId}/months`);
      const month = which === 'current' ? 'current' : restMonths.months.at(-3)!.month;
      const restMonth = await rest('getPlanMonth', `/plans/${planId}/months/${month}`);
      const data = await graph<PlanData<{ month: unknown }>>(
        `query($planId: PlanId!, $month: MonthSelector!) { plan(id: $planId) {
        month(month: $month) ${allFields('Month', { categories: allFields('MonthCategory') })} } }`,
        { month },
      );
      expectMirrors(restMonth.month, data.plan.month, 'month', { rename: { id: 'categoryId' } });
    },
  );
});

describe('money movements', () => {
  it('getMoneyMovements, getMoneyMovementsByMonth, getMoneyMovementGroups, getMoneyMovementGroupsByMonth', async () => {
    const restMovements = await rest('getMoneyMovements', `/plans/${planId}/money_movements`);
    const restGroups = await rest(
      'getMoneyMovementGroups',
      `/plans/${planId}/money_movement_groups`,
    );
    const month = restMovements.money_movements.find((m) => m.month !== null)!.month!;
    const restByMonth = await rest(
      'getMoneyMovementsByMonth',
      `/plans/${planId}/months/${month}/money_movements`,
    );
    const restGroupsByMonth = await rest(
      'getMoneyMovementGroupsByMonth',
      `/plans/${planId}/months/${month}/money_movement_groups`,
    );
    const data = await graph<
      PlanData<{
        all: { nodes: Record<string, unknown>[] };
        inMonth: { nodes: Record<string, unknown>[] };
        groups: Record<string, unknown>[];
        groupsInMonth: Record<string, unknown>[];
      }>
    >(
      `query($planId: PlanId!, $month: MonthSelector!) { plan(id: $planId) {
        all: moneyMovements(first: 500) { nodes ${allFields('MoneyMovement')} }
        inMonth: moneyMovements(month: $month, first: 500) { nodes ${allFields('MoneyMovement')} }
        groups: moneyMovementGroups ${allFields('MoneyMovementGroup')}
        groupsInMonth: moneyMovementGroups(month: $month) ${allFields('MoneyMovementGroup')} } }`,
      { month },
    );
    expectListMirrors(
      restMovements.money_movements as never,
      data.plan.all.nodes,
      'moneyMovements',
    );
    expectListMirrors(
      restByMonth.money_movements as never,
      data.plan.inMonth.nodes,
      'moneyMovements(month)',
    );
    expectListMirrors(
      restGroups.money_movement_groups as never,
      data.plan.groups,
      'moneyMovementGroups',
    );
    expectListMirrors(
      restGroupsByMonth.money_movement_groups as never,
      data.plan.groupsInMonth,
      'moneyMovementGroups(month)',
    );
  });
});

describe('transactions', () => {
  const TRANSACTION = allFields('Transaction', { subtransactions: allFields('SubTransaction') });
  const HYBRID = allFields('HybridTransaction');
  let sinceDate: string;

  beforeAll(async () => {
    const months = await rest('getPlanMonths', `/plans/${planId}/months`);
    sinceDate = months.months.at(-4)!.month;
  });

  async function pages(
    query: string,
    variables: Record<string, unknown>,
    pick: (d: never) => {
      nodes: Record<string, unknown>[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    },
  ) {
    const nodes: Record<string, unknown>[] = [];
    let after: string | null = null;
    for (;;) {
      const data = await graph<never>(query, { ...variables, after });
      const page = pick(data);
      nodes.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) return nodes;
      after = page.pageInfo.endCursor;
    }
  }

  it('getTransactions with since_date, and with type=unapproved', async () => {
    for (const type of [undefined, 'unapproved'] as const) {
      const query = type ? `&type=${type}` : '';
      const restList = await rest(
        'getTransactions',
        `/plans/${planId}/transactions?since_date=${sinceDate}${query}`,
      );
      const nodes = await pages(
        `query($planId: PlanId!, $since: Date!, $type: TransactionTypeFilter, $after: String) { plan(id: $planId) {
          transactions(sinceDate: $since, type: $type, first: 200, after: $after) { nodes ${TRANSACTION} pageInfo { hasNextPage endCursor } } } }`,
        { since: sinceDate, type: type ?? null },
        (d: PlanData<{ transactions: never }>) => d.plan.transactions,
      );
      expect(restList.transactions.length).toBeGreaterThan(0);
      expectListMirrors(
        restList.transactions as never,
        nodes,
        `transactions(type=${type ?? 'all'})`,
      );
    }
  });

  it('getTransactionsByAccount and account.transactions', async () => {
    const accounts = await rest('getAccounts', `/plans/${planId}/accounts`);
    const account = accounts.accounts.find((a) => a.on_budget && !a.closed)!;
    const restList = await rest(
      'getTransactionsByAccount',
      `/plans/${planId}/accounts/${account.id}/transactions?since_date=${sinceDate}`,
    );
    const nodes = await pages(
      `query($planId: PlanId!, $id: UUID!, $since: Date!, $after: String) { plan(id: $planId) { account(id: $id) {
        transactions(sinceDate: $since, first: 200, after: $after) { nodes ${TRANSACTION} pageInfo { hasNextPage endCursor } } } } }`,
      { id: account.id, since: sinceDate },
      (d: PlanData<{ account: { transactions: never } }>) => d.plan.account.transactions,
    );
    expectListMirrors(restList.transactions as never, nodes, 'account.transactions');
  });

  it('getTransactionsByMonth and month.transactions', async () => {
    const months = await rest('getPlanMonths', `/plans/${planId}/months`);
    const month = months.months.at(-2)!.month;
    const restList = await rest(
      'getTransactionsByMonth',
      `/plans/${planId}/months/${month}/transactions`,
    );
    const nodes = await pages(
      `query($planId: PlanId!, $month: MonthSelector!, $after: String) { plan(id: $planId) { month(month: $month) {
        transactions(first: 200, after: $after) { nodes ${TRANSACTION} pageInfo { hasNextPage endCursor } } } } }`,
      { month },
      (d: PlanData<{ month: { transactions: never } }>) => d.plan.month.transactions,
    );
    expectListMirrors(restList.transactions as never, nodes, 'month.transactions');
  });

  it('getTransactionsByCategory and getTransactionsByPayee as hybrid rows', async () => {
    const exported = await rest('getPlanById', `/plans/${planId}`);
    const split = exported.plan.subtransactions.find((s) => s.category_id && !s.deleted)!;
    const categoryId = split.category_id!;
    const payeeId = exported.plan.transactions.find((t) => t.payee_id && t.date >= sinceDate)!
      .payee_id!;
    const byCategory = await rest(
      'getTransactionsByCategory',
      `/plans/${planId}/categories/${categoryId}/transactions?since_date=${sinceDate}`,
    );
    const byPayee = await rest(
      'getTransactionsByPayee',
      `/plans/${planId}/payees/${payeeId}/transactions?since_date=${sinceDate}`,
    );
    const categoryNodes = await pages(
      `query($planId: PlanId!, $id: UUID!, $since: Date!, $after: String) { plan(id: $planId) { category(id: $id) {
        transactions(sinceDate: $since, first: 200, after: $after) { nodes ${HYBRID} pageInfo { hasNextPage endCursor } } } } }`,
      { id: categoryId, since: sinceDate },
      (d: PlanData<{ category: { transactions: never } }>) => d.plan.category.transactions,
    );
    const payeeNodes = await pages(
      `query($planId: PlanId!, $id: UUID!, $since: Date!, $after: String) { plan(id: $planId) { payee(id: $id) {
        transactions(sinceDate: $since, first: 200, after: $after) { nodes ${HYBRID} pageInfo { hasNextPage endCursor } } } } }`,
      { id: payeeId, since: sinceDate },
      (d: PlanData<{ payee: { transactions: never } }>) => d.plan.payee.transactions,
    );
    expect(byCategory.transactions.some((t) => t.type === 'subtransaction')).toBe(true);
    // A hybrid row has an id of its own; REST's id is its transactionId or subtransactionId.
    const withRestIds = (nodes: Record<string, unknown>[]) =>
      nodes.map((node) => ({ ...node, id: node.subtransactionId ?? node.transactionId }));
    expectListMirrors(
      byCategory.transactions as never,
      withRestIds(categoryNodes),
      'category.transactions',
    );
    expectListMirrors(byPayee.transactions as never, withRestIds(payeeNodes), 'payee.transactions');
  });

  it('getTransactionById, a split with its subtransactions', async () => {
    const exported = await rest('getPlanById', `/plans/${planId}`);
    const parentId = exported.plan.subtransactions.find((s) => !s.deleted)!.transaction_id;
    const restTransaction = await rest(
      'getTransactionById',
      `/plans/${planId}/transactions/${parentId}`,
    );
    const data = await graph<PlanData<{ transaction: unknown }>>(
      `query($planId: PlanId!, $id: ID!) { plan(id: $planId) { transaction(id: $id) ${TRANSACTION} } }`,
      { id: parentId },
    );
    expect(restTransaction.transaction.subtransactions.length).toBeGreaterThan(1);
    expectMirrors(restTransaction.transaction, data.plan.transaction, 'transaction');
  });
});

describe('scheduled transactions', () => {
  it('getScheduledTransactions and getScheduledTransactionById', async () => {
    const restList = await rest(
      'getScheduledTransactions',
      `/plans/${planId}/scheduled_transactions`,
    );
    const one =
      restList.scheduled_transactions.find((s) => s.subtransactions.length > 0) ??
      restList.scheduled_transactions[0]!;
    const restOne = await rest(
      'getScheduledTransactionById',
      `/plans/${planId}/scheduled_transactions/${one.id}`,
    );
    const SCHEDULED = allFields('ScheduledTransaction', {
      subtransactions: allFields('ScheduledSubTransaction'),
    });
    const data = await graph<
      PlanData<{
        scheduledTransactions: { nodes: Record<string, unknown>[] };
        scheduledTransaction: unknown;
      }>
    >(
      `query($planId: PlanId!, $id: UUID!) { plan(id: $planId) {
        scheduledTransactions(first: 500) { nodes ${SCHEDULED} }
        scheduledTransaction(id: $id) ${SCHEDULED} } }`,
      { id: one.id },
    );
    expectListMirrors(
      restList.scheduled_transactions as never,
      data.plan.scheduledTransactions.nodes,
      'scheduledTransactions',
    );
    expectMirrors(
      restOne.scheduled_transaction,
      data.plan.scheduledTransaction,
      'scheduledTransaction',
    );
  });
});
