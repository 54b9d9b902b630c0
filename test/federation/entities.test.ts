/**
 * `_entities` on the subgraph endpoint (issue 21): representations resolved through the token's
 * replica, batched by plan; what names nothing is null; what is malformed is refused before any
 * upstream call; no token is UNAUTHENTICATED; the list is priced like the lookups it does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_KEYS } from '../../src/schema/index.js';
import { dataOf, upstreamOf } from '../gateway/support/responses.js';
import { type Stack, startStack } from '../support/stack.js';
import { entities, type Representation } from './support/subgraph.js';

const TOKEN = 'federation-entities-token-01';
const OTHER_TOKEN = 'federation-entities-token-02';

interface Row {
  readonly id: string;
  readonly name?: string;
  readonly amount?: number;
  readonly month?: string;
  readonly deleted?: boolean;
}
interface PlanExport {
  readonly id: string;
  readonly name: string;
  readonly accounts: Row[];
  readonly payees: Row[];
  readonly payee_locations: Row[];
  readonly category_groups: Row[];
  readonly categories: Row[];
  readonly months: (Row & { month: string; to_be_budgeted: number })[];
  readonly transactions: Row[];
  readonly scheduled_transactions: Row[];
}

let stack: Stack;
let planA: PlanExport;
let planB: PlanExport;
let otherPlanId: string;
let movements: Row[];
let movementGroups: Row[];

async function restData<T>(path: string, key: string): Promise<T> {
  const { body } = await stack.rest<{ data: Record<string, T> }>(path, TOKEN);
  return body.data[key] as T;
}

beforeAll(async () => {
  stack = await startStack({
    serve: 'fetch',
    token: TOKEN,
    sandbox: {
      rateLimit: false,
      users: [
        {
          token: TOKEN,
          plans: [
            { seed: 3, transactions: 300 },
            { seed: 4, transactions: 50 },
          ],
        },
        { token: OTHER_TOKEN, plans: [{ seed: 5, transactions: 10 }] },
      ],
    },
  });
  const [a, b] = stack.sandbox.users[0]!.planIds;
  planA = await restData<PlanExport>(`/plans/${a}`, 'plan');
  planB = await restData<PlanExport>(`/plans/${b}`, 'plan');
  movements = await restData<Row[]>(`/plans/${a}/money_movements`, 'money_movements');
  movementGroups = await restData<Row[]>(
    `/plans/${a}/money_movement_groups`,
    'money_movement_groups',
  );
  otherPlanId = stack.sandbox.users[1]!.planIds[0]!;
});
afterAll(() => stack.close());

/** A gateway of its own, cold: nothing loaded for any token. */
const coldGateway = () => stack.addGateway({ serve: 'fetch' });

const live = (rows: Row[]) => rows.filter((row) => !row.deleted);
const inPlan = (plan: PlanExport, typename: string, row: Row): Representation => ({
  __typename: typename,
  planId: plan.id,
  id: row.id,
});

describe('batches by plan', () => {
  it('resolves 100 representations of one plan with one upstream call cold and none warm', async () => {
    const gateway = await coldGateway();
    const rows = live(planA.transactions).slice(0, 100);
    const representations = rows.map((row) => inPlan(planA, 'Transaction', row));
    stack.resetUpstreamCalls();

    const cold = await entities(
      gateway,
      representations,
      '__typename ... on Transaction { id planId amount }',
      TOKEN,
    );
    expect(dataOf(cold)._entities).toEqual(
      rows.map((row) => ({
        __typename: 'Transaction',
        id: row.id,
        planId: planA.id,
        amount: row.amount,
      })),
    );
    expect(stack.upstreamCalls()).toEqual(['getPlanById']);
    expect(upstreamOf(cold).calls).toBe(1);

    stack.resetUpstreamCalls();
    const warm = await entities(gateway, representations, '... on Transaction { id }', TOKEN);
    expect(dataOf(warm)._entities).toHaveLength(100);
    expect(stack.upstreamCalls()).toEqual([]);
    expect(upstreamOf(warm).calls).toBe(0);
  });

  it('resolves every entity type of a plan in one request: one export, one call per REST list', async () => {
    const gateway = await coldGateway();
    const month = planA.months.find((m) => !m.deleted)!;
    const category = live(planA.categories)[0]!;
    const cases: [Representation, Record<string, unknown>][] = [
      [
        { __typename: 'Plan', id: planA.id },
        { id: planA.id, name: planA.name },
      ],
      [inPlan(planA, 'Account', planA.accounts[0]!), { name: planA.accounts[0]!.name }],
      [
        inPlan(planA, 'CategoryGroup', planA.category_groups[0]!),
        {
          name: planA.category_groups[0]!.name,
        },
      ],
      [inPlan(planA, 'Category', category), { name: category.name }],
      [inPlan(planA, 'Payee', planA.payees[0]!), { name: planA.payees[0]!.name }],
      [
        inPlan(planA, 'PayeeLocation', planA.payee_locations[0]!),
        {
          id: planA.payee_locations[0]!.id,
        },
      ],
      [
        inPlan(planA, 'Transaction', planA.transactions[0]!),
        {
          amount: planA.transactions[0]!.amount,
        },
      ],
      [
        inPlan(planA, 'ScheduledTransaction', planA.scheduled_transactions[0]!),
        {
          amount: planA.scheduled_transactions[0]!.amount,
        },
      ],
      [inPlan(planA, 'MoneyMovement', movements[0]!), { amount: movements[0]!.amount }],
      [inPlan(planA, 'MoneyMovementGroup', movementGroups[0]!), { id: movementGroups[0]!.id }],
      [
        { __typename: 'Month', planId: planA.id, month: month.month },
        {
          month: month.month,
          toBeBudgeted: month.to_be_budgeted,
        },
      ],
      [
        {
          __typename: 'MonthCategory',
          planId: planA.id,
          month: month.month,
          categoryId: category.id,
        },
        {
          categoryId: category.id,
          month: month.month,
        },
      ],
    ];
    // Every entity the subgraph declares is covered.
    expect(cases.map(([r]) => r.__typename).sort()).toEqual(Object.keys(ENTITY_KEYS).sort());
    stack.resetUpstreamCalls();

    const answer = await entities(
      gateway,
      cases.map(([representation]) => representation),
      `__typename
       ... on Plan { id name }
       ... on Account { planId id name }
       ... on CategoryGroup { planId id name }
       ... on Category { planId id name }
       ... on Payee { planId id name }
       ... on PayeeLocation { planId id }
       ... on Transaction { planId id amount }
       ... on ScheduledTransaction { planId id amount }
       ... on MoneyMovement { planId id amount }
       ... on MoneyMovementGroup { planId id }
       ... on Month { planId month toBeBudgeted }
       ... on MonthCategory { planId month categoryId }`,
      TOKEN,
    );
    const found = dataOf(answer)._entities;
    cases.forEach(([representation, expected], i) => {
      // The representation's own fields come back (keys included), and the row it names.
      const { __typename, ...key } = representation;
      expect(found[i]).toMatchObject({ __typename, ...key, ...expected });
    });
    expect(stack.upstreamCalls().sort()).toEqual([
      'getMoneyMovementGroups',
      'getMoneyMovements',
      'getPlanById',
    ]);
  });

  it('reads each plan named once, however many representations name it', async () => {
    const gateway = await coldGateway();
    const representations = [
      ...live(planA.transactions)
        .slice(0, 50)
        .map((row) => inPlan(planA, 'Transaction', row)),
      ...live(planB.accounts).map((row) => inPlan(planB, 'Account', row)),
      ...live(planB.transactions)
        .slice(0, 30)
        .map((row) => inPlan(planB, 'Transaction', row)),
    ];
    stack.resetUpstreamCalls();
    const answer = await entities(gateway, representations, '__typename', TOKEN);
    expect(dataOf(answer)._entities.every((item) => item !== null)).toBe(true);
    expect(stack.upstreamCalls()).toEqual(['getPlanById', 'getPlanById']);
  });
});

describe('what names nothing', () => {
  it('resolves to null without an error, beside what it finds', async () => {
    const month = planA.months.find((m) => !m.deleted)!.month;
    const unknownUuid = '00000000-0000-4000-8000-000000000000';
    const representations = [
      inPlan(planA, 'Transaction', planA.transactions[0]!),
      { __typename: 'Transaction', planId: planA.id, id: 'no-such-transaction' },
      { __typename: 'Account', planId: planA.id, id: unknownUuid },
      // An id of another type, or another plan's row, is not this key.
      { __typename: 'Account', planId: planA.id, id: planA.payees[0]!.id },
      inPlan(planA, 'Account', planB.accounts[0]!),
      { __typename: 'Plan', id: unknownUuid },
      { __typename: 'Month', planId: planA.id, month: '1999-01-01' },
      // A key names a month by its first day; any other day names nothing.
      { __typename: 'Month', planId: planA.id, month: `${month.slice(0, 7)}-15` },
      {
        __typename: 'MonthCategory',
        planId: planA.id,
        month: '1999-01-01',
        categoryId: planA.categories[0]!.id,
      },
      { __typename: 'MoneyMovement', planId: planA.id, id: unknownUuid },
    ];
    const answer = await entities(stack, representations, '__typename', TOKEN);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?._entities).toEqual([
      { __typename: 'Transaction' },
      ...representations.slice(1).map(() => null),
    ]);
  });

  it("resolves another token's plan to null, and shows nothing of it", async () => {
    const representations = [
      { __typename: 'Plan', id: otherPlanId },
      { __typename: 'Month', planId: otherPlanId, month: '2025-01-01' },
    ];
    const answer = await entities(stack, representations, '__typename ... on Plan { name }', TOKEN);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?._entities).toEqual([null, null]);
  });
});

describe('malformed representations', () => {
  const planId = () => planA.id;
  const cases: [string, () => unknown, string, RegExp][] = [
    ['not an object', () => 42, 'representations[1]', /must be an object/],
    [
      'no __typename',
      () => ({ planId: planId(), id: 'x' }),
      'representations[1].__typename',
      /must name an entity/,
    ],
    [
      'a type that is no entity',
      () => ({ __typename: 'SubTransaction', planId: planId(), id: 'x' }),
      'representations[1].__typename',
      /must name an entity/,
    ],
    [
      'an unknown type',
      () => ({ __typename: 'Budget', id: 'x' }),
      'representations[1].__typename',
      /Plan, Account/,
    ],
    [
      'a missing key field',
      () => ({ __typename: 'Transaction', planId: planId() }),
      'representations[1].id',
      /found by `planId id`/,
    ],
    [
      'a plan id that cannot be one',
      () => ({ __typename: 'Account', planId: 'plan-7', id: planA.accounts[0]!.id }),
      'representations[1].planId',
      /UUID/,
    ],
    [
      'an account id that is no UUID',
      () => ({ __typename: 'Account', planId: planId(), id: 'acc-1' }),
      'representations[1].id',
      /UUID/,
    ],
    [
      'a transaction id that would leave its path',
      () => ({ __typename: 'Transaction', planId: planId(), id: '../../user' }),
      'representations[1].id',
      /letters, digits/,
    ],
    [
      'a key field of the wrong type',
      () => ({ __typename: 'Transaction', planId: planId(), id: 7 }),
      'representations[1].id',
      /string/,
    ],
    [
      'a month that is no date',
      () => ({ __typename: 'Month', planId: planId(), month: '2025-13-01' }),
      'representations[1].month',
      /calendar day/,
    ],
  ];

  it.each(cases)(
    'refuses %s with BAD_USER_INPUT, before any upstream call',
    async (_what, bad, field, message) => {
      const gateway = await coldGateway();
      stack.resetUpstreamCalls();
      // A valid representation first: the whole list is checked before any is resolved.
      const answer = await entities(
        gateway,
        [inPlan(planA, 'Transaction', planA.transactions[0]!), bad()],
        '__typename',
        TOKEN,
      );
      expect(answer.body.data).toBeNull();
      expect(answer.body.errors).toHaveLength(1);
      expect(answer.body.errors?.[0]).toMatchObject({
        path: ['_entities'],
        extensions: { code: 'BAD_USER_INPUT', field },
      });
      expect(answer.body.errors?.[0]?.message).toMatch(message);
      expect(answer.body.errors?.[0]?.message.startsWith(`${field}: `)).toBe(true);
      expect(stack.upstreamCalls()).toEqual([]);
    },
  );
});

describe('tokens', () => {
  it('answers UNAUTHENTICATED for each representation without a token, with no upstream call', async () => {
    stack.resetUpstreamCalls();
    const representations = live(planA.accounts)
      .slice(0, 3)
      .map((row) => inPlan(planA, 'Account', row));
    const answer = await entities(stack, representations, '__typename', null);
    expect(answer.body.data?._entities).toEqual([null, null, null]);
    expect(answer.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['_entities', 0], 'UNAUTHENTICATED'],
      [['_entities', 1], 'UNAUTHENTICATED'],
      [['_entities', 2], 'UNAUTHENTICATED'],
    ]);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('keeps the REST error of a token the upstream refuses, and refuses it at the door next time', async () => {
    const gateway = await coldGateway();
    const representations = [inPlan(planA, 'Account', planA.accounts[0]!)];
    stack.resetUpstreamCalls();
    const first = await entities(gateway, representations, '__typename', 'not-a-known-token-0001');
    expect(first.body.errors?.[0]).toMatchObject({
      path: ['_entities', 0],
      extensions: { code: 'UNAUTHENTICATED', upstream: { status: 401, id: '401' } },
    });
    expect(stack.upstreamCalls()).toEqual(['getPlanById']);

    stack.resetUpstreamCalls();
    const again = await entities(gateway, representations, '__typename', 'not-a-known-token-0001');
    expect(again.status).toBe(401);
    expect(again.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(stack.upstreamCalls()).toEqual([]);
  });
});

describe('price', () => {
  it('refuses 10,000 representations before running any, as the lookups they are', async () => {
    const gateway = await coldGateway();
    const representations = Array.from({ length: 10_000 }, () => ({
      __typename: 'Plan',
      id: planA.id,
    }));
    stack.resetUpstreamCalls();
    const answer = await entities(gateway, representations, '__typename', TOKEN);
    expect(answer.status).toBe(400);
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({
      code: 'OPERATION_TOO_COMPLEX',
      limit: 'cost',
      max: 100_000,
    });
    expect(answer.body.errors?.[0]?.extensions?.value).toBeGreaterThan(100_000);
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('runs a router-sized list: 1,000 representations of one plan, one upstream call', async () => {
    const gateway = await coldGateway();
    const rows = live(planA.transactions);
    const representations = Array.from({ length: 1_000 }, (_, i) =>
      inPlan(planA, 'Transaction', rows[i % rows.length]!),
    );
    stack.resetUpstreamCalls();
    const answer = await entities(
      gateway,
      representations,
      '... on Transaction { id amount memo }',
      TOKEN,
    );
    expect(dataOf(answer)._entities).toHaveLength(1_000);
    expect(stack.upstreamCalls()).toEqual(['getPlanById']);
  });
});
