import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/config/config.js';
import { type Stack, startStack } from '../support/stack.js';

/** Every object type with an id, reached from one plan: REST entities and derived rows alike. */
const EVERY_ID = /* GraphQL */ `
  query EveryId {
    user { __typename id }
    plan(id: "last-used") {
      __typename id
      accounts { __typename id }
      payees {
        __typename id
        locations { __typename id }
        transactions(first: 500) { nodes { __typename id transactionId subtransactionId } }
      }
      payeeLocations { __typename id }
      categoryGroups {
        __typename id
        categories { __typename id transactions(first: 500) { nodes { __typename id } } }
      }
      months { __typename id categories { __typename id } }
      moneyMovements(first: 500) { nodes { __typename id } }
      moneyMovementGroups { __typename id }
      transactions(first: 500) { nodes { __typename id subtransactions { __typename id } } }
      scheduledTransactions(first: 100) {
        nodes { __typename id subtransactions { __typename id } }
      }
    }
  }
`;

interface Named {
  readonly __typename: string;
  readonly id: string;
}

/** Every object with an id and a typename anywhere in an answer. */
function objectsWithIds(value: unknown, into: Named[] = []): Named[] {
  if (Array.isArray(value)) for (const item of value) objectsWithIds(item, into);
  else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record.id === 'string' && typeof record.__typename === 'string') {
      into.push({ __typename: record.__typename, id: record.id });
    }
    for (const inner of Object.values(record)) objectsWithIds(inner, into);
  }
  return into;
}

describe('global object identification', () => {
  let stack: Stack;
  let named: Named[];

  beforeAll(async () => {
    stack = await startStack({
      sandbox: {
        users: [
          { token: 'ids-token', plans: [{ seed: 5, transactions: 150 }] },
          { token: 'other-token', plans: [{ seed: 9, transactions: 20 }] },
        ],
      },
      config: { limits: { ...DEFAULT_LIMITS, complexity: 10_000_000, breadth: 5_000 } },
    });
    const answer = await stack.gql(EVERY_ID);
    expect(answer.body.errors).toBeUndefined();
    named = objectsWithIds(answer.body.data);
  });
  afterAll(() => stack.close());

  it('gives every id one type across the whole graph (derived rows have ids of their own)', () => {
    const typesById = new Map<string, Set<string>>();
    for (const { id, __typename } of named) {
      const types = typesById.get(id) ?? new Set();
      types.add(__typename);
      typesById.set(id, types);
    }
    const shared = [...typesById].filter(([, types]) => types.size > 1);
    expect(shared).toEqual([]);
    const types = new Set(named.map((n) => n.__typename));
    // Each of these appeared, so the check above covered them all.
    expect([...types].sort()).toEqual(
      [
        'Account',
        'Category',
        'CategoryGroup',
        'HybridTransaction',
        'MoneyMovement',
        'MoneyMovementGroup',
        'Month',
        'MonthCategory',
        'Payee',
        'PayeeLocation',
        'Plan',
        'ScheduledSubTransaction',
        'ScheduledTransaction',
        'SubTransaction',
        'Transaction',
        'User',
      ].sort(),
    );
  });

  it('keeps REST ids: a hybrid row names its transaction and split line by their REST ids', async () => {
    const answer = await stack.gql<{
      plan: {
        transactions: { nodes: { id: string; subtransactions: { id: string }[] }[] };
        payees: {
          transactions: {
            nodes: { id: string; transactionId: string; subtransactionId: string | null }[];
          };
        }[];
      };
    }>(`{ plan(id: "last-used") {
      transactions(first: 500) { nodes { id subtransactions { id } } }
      payees { transactions(first: 500) { nodes { id transactionId subtransactionId } } }
    } }`);
    const plan = answer.body.data!.plan;
    const transactionIds = new Set(plan.transactions.nodes.map((t) => t.id));
    const lineIds = new Set(
      plan.transactions.nodes.flatMap((t) => t.subtransactions.map((s) => s.id)),
    );
    const rows = plan.payees.flatMap((p) => p.transactions.nodes);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(transactionIds.has(row.transactionId)).toBe(true);
      if (row.subtransactionId !== null) expect(lineIds.has(row.subtransactionId)).toBe(true);
      expect(row.id).toBe(`${row.subtransactionId ?? row.transactionId}:hybrid`);
    }
    expect(rows.some((row) => row.subtransactionId !== null)).toBe(true);
  });

  it('node(id:) and nodes(ids:) find every id the graph handed out, as the same type', async () => {
    const unique = [...new Map(named.map((n) => [n.id, n])).values()];
    for (let start = 0; start < unique.length; start += 100) {
      const batch = unique.slice(start, start + 100);
      const answer = await stack.gql<{ nodes: (Named | null)[] }>(
        'query Refetch($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }',
        { ids: batch.map((n) => n.id) },
      );
      expect(answer.body.errors).toBeUndefined();
      expect(answer.body.data!.nodes).toEqual(batch);
    }
    const one = unique.find((n) => n.__typename === 'MonthCategory')!;
    const answer = await stack.gql('query($id: ID!) { node(id: $id) { __typename id } }', {
      id: one.id,
    });
    expect(answer.body.data).toEqual({ node: one });
  });

  it('answers null for an id no object has, and refuses more than 100 ids', async () => {
    const unknown = await stack.gql('{ node(id: "00000000-0000-4000-8000-000000000000") { id } }');
    expect(unknown.body).toMatchObject({ data: { node: null } });
    const many = Array.from({ length: 101 }, (_, i) => `id-${i}`);
    const refused = await stack.gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
      ids: many,
    });
    expect(refused.body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
  });

  it("never finds another token's objects", async () => {
    const ids = [...new Set(named.map((n) => n.id))].slice(0, 100);
    const answer = await stack.gql<{ nodes: unknown[] }>(
      'query($ids: [ID!]!) { nodes(ids: $ids) { id } }',
      { ids },
      { token: 'other-token' },
    );
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data!.nodes).toEqual(ids.map(() => null));
  });
});
