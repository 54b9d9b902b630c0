/**
 * A write addressed through `last-used` lands in the plan the upstream resolves at write time,
 * and only there (issue 8, item 8): when another client of the same user moved `last-used`
 * since the gateway last resolved it, the write must not appear in the replica of the plan the
 * gateway remembered, now or after later syncs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack.js';

const TOKEN = 'alias-writes-token-0001';
let stack: Stack;
let first: string;
let second: string;

beforeAll(async () => {
  stack = await startStack({
    serve: 'fetch',
    sandbox: {
      rateLimit: false,
      users: [
        {
          token: TOKEN,
          plans: [
            { seed: 11, transactions: 40 },
            { seed: 12, transactions: 40 },
          ],
        },
      ],
    },
  });
  [first, second] = stack.sandbox.users[0]!.planIds as [string, string];
});

afterAll(() => stack.close());

const PAYEES = 'query($id: PlanId!) { plan(id: $id) { id payees { name } } }';
const names = async (planId: string) => {
  const answer = await stack.gql<{ plan: { payees: { name: string }[] } }>(
    PAYEES,
    { id: planId },
    { token: TOKEN, headers: { 'cache-control': 'no-cache' } },
  );
  return answer.body.data!.plan.payees.map((p) => p.name);
};

/** Another client of the same user reads the second plan: `last-used` now means it upstream. */
async function moveLastUsedBehindTheGateway(): Promise<void> {
  expect((await stack.rest(`/plans/${second}`, TOKEN)).status).toBe(200);
}

describe('writes through last-used', () => {
  it('create a payee only where the upstream wrote it', async () => {
    const seen = await stack.gql<{ plan: { id: string } }>(
      PAYEES,
      { id: 'last-used' },
      { token: TOKEN },
    );
    expect(seen.body.data!.plan.id).toBe(first);
    await moveLastUsedBehindTheGateway();
    const created = await stack.gql<{
      createPayee: { __typename: string; plan: { id: string }; payee: { name: string } };
    }>(
      'mutation { createPayee(planId: "last-used", input: { name: "Moved alias payee" }) { __typename ... on CreatePayeePayload { plan { id } payee { name } } } }',
      {},
      { token: TOKEN },
    );
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data!.createPayee.plan.id).toBe(second);
    expect(await names(first)).not.toContain('Moved alias payee');
    expect(await names(second)).toContain('Moved alias payee');
    // And it stays out of the first plan through later syncs.
    expect(await names(first)).not.toContain('Moved alias payee');
  });

  it('create a transaction only where the upstream wrote it', async () => {
    // The gateway last resolved last-used to the second plan (previous test); move it back.
    expect((await stack.rest(`/plans/${first}`, TOKEN)).status).toBe(200);
    const accounts = await stack.rest<{ data: { accounts: { id: string; closed: boolean }[] } }>(
      `/plans/${first}/accounts`,
      TOKEN,
    );
    const account = accounts.body.data.accounts.find((a) => !a.closed)!.id;
    const created = await stack.gql<{
      createTransaction: { __typename: string; transaction: { id: string } };
    }>(
      `mutation($account: UUID!) { createTransaction(planId: "last-used", input: { accountId: $account, date: "2025-01-02", amount: -1000, memo: "moved alias memo" }) { __typename ... on CreateTransactionPayload { transaction { id } } } }`,
      { account },
      { token: TOKEN },
    );
    expect(created.body.data!.createTransaction.__typename).toBe('CreateTransactionPayload');
    const memos = async (planId: string) =>
      (
        await stack.gql<{ plan: { transactions: { nodes: { memo: string | null }[] } } }>(
          'query($id: PlanId!) { plan(id: $id) { transactions(first: 500) { nodes { memo } } } }',
          { id: planId },
          { token: TOKEN, headers: { 'cache-control': 'no-cache' } },
        )
      ).body.data!.plan.transactions.nodes.map((t) => t.memo);
    expect(await memos(second)).not.toContain('moved alias memo');
    expect(await memos(first)).toContain('moved alias memo');
  });
});
