/**
 * Every row that belongs to an account says so in the schema (`account: Account!`), so typed
 * clients need no null check: transactions, their split parts as hybrid rows, and scheduled
 * transactions; and every such row of the demo plan resolves it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ serve: 'fetch', sandbox: { rateLimit: false } });
});
afterAll(() => stack.close());

interface Row {
  account: { id: string } | null;
  accountId: string;
}

describe('the account of a row', () => {
  it('is non-null on every type whose rows belong to an account', async () => {
    const { body } = await stack.gql<{
      __schema: {
        types: { name: string; fields: { name: string; type: { kind: string } }[] | null }[];
      };
    }>('{ __schema { types { name fields { name type { kind } } } } }');
    const rowTypes = ['HybridTransaction', 'ScheduledTransaction', 'Transaction'];
    const accountFields = body
      .data!.__schema.types.filter((type) => rowTypes.includes(type.name))
      .flatMap((type) =>
        (type.fields ?? [])
          .filter((field) => field.name === 'account')
          .map((field) => [type.name, field.type.kind]),
      )
      .sort();
    expect(accountFields).toEqual([
      ['HybridTransaction', 'NON_NULL'],
      ['ScheduledTransaction', 'NON_NULL'],
      ['Transaction', 'NON_NULL'],
    ]);
  });

  it('resolves for every transaction, split part and scheduled transaction of the plan', async () => {
    const { body } = await stack.gql<{
      plan: {
        transactions: { nodes: Row[] };
        categories: { transactions: { nodes: Row[] } }[];
        scheduledTransactions: { nodes: Row[] };
      };
    }>(`{
      plan(id: "last-used") {
        transactions(first: 500) { nodes { accountId account { id } } }
        categories { transactions(first: 100) { nodes { accountId account { id } } } }
        scheduledTransactions { nodes { accountId account { id } } }
      }
    }`);
    expect(body.errors).toBeUndefined();
    const plan = body.data!.plan;
    const rows = [
      ...plan.transactions.nodes,
      ...plan.categories.flatMap((category) => category.transactions.nodes),
      ...plan.scheduledTransactions.nodes,
    ];
    expect(plan.transactions.nodes.length).toBeGreaterThan(100);
    expect(plan.scheduledTransactions.nodes.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.account?.id).toBe(row.accountId);
  });
});
