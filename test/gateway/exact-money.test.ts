/**
 * Money past 2^53 through the whole stack (issue 33): the sandbox sums two of the largest
 * amounts a request can carry into one balance and one Ready to Assign beyond 2^53 and sends
 * them as the JSON integers they are. The gateway's replica holds them exactly, and the graph
 * never rounds them: the `Milliunits` field and its `…Currency` fail with AMOUNT_BEYOND_JSON at
 * their path, and `…Formatted` shows every digit, the same text REST formats.
 */
import {
  type CurrencyFormat,
  formatMilliunits,
  parseExactJson,
} from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClockedStack, startStack } from '../support/stack.js';

const TOKEN = 'exact-money-token-000000001';
const MAX = Number.MAX_SAFE_INTEGER;
const NO_CACHE = { 'cache-control': 'no-cache' };

let stack: ClockedStack;
let accountId: string;
let before: bigint;

interface GqlError {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string };
}

/** The account as REST has it, read as exact JSON: balance and formatted text. */
async function restAccount(): Promise<{ balance: number | bigint; balance_formatted: string }> {
  const response = await fetch(`${stack.sandbox.url}/plans/${stack.planId}/accounts/${accountId}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const body = parseExactJson(await response.text()) as {
    data: { account: { balance: number | bigint; balance_formatted: string } };
  };
  return body.data.account;
}

beforeAll(async () => {
  stack = await startStack({
    clock: 'manual',
    sandbox: { rateLimit: false, users: [{ token: TOKEN, plans: [{ seed: 53 }] }] },
  });
  const { accounts } = await stack.writer.getAccounts({ token: TOKEN }, { planId: stack.planId });
  accountId = accounts.find((a) => !a.closed && !a.deleted && a.on_budget)!.id;
  before = BigInt((await restAccount()).balance);
  const today = new Date(stack.clock.now()).toISOString().slice(0, 10);
  const { category_groups } = await stack.writer.getCategories(
    { token: TOKEN },
    { planId: stack.planId },
  );
  const readyToAssign = category_groups
    .flatMap((group) => group.categories)
    .find((c) => c.name === 'Inflow: Ready to Assign')!.id;
  // Two inflows of the largest amount a request carries: income, so Ready to Assign passes 2^53.
  for (let i = 0; i < 2; i++) {
    await stack.writer.createTransaction(
      { token: TOKEN },
      {
        planId: stack.planId,
        body: {
          transaction: {
            account_id: accountId,
            date: today,
            amount: MAX,
            category_id: readyToAssign,
            memo: 'large',
          },
        },
      },
    );
  }
});

afterAll(async () => {
  await stack?.close();
});

describe('money past 2^53 in the graph', () => {
  it('the sandbox sums past 2^53 and sends every digit', async () => {
    const account = await restAccount();
    expect(account.balance).toBe(before + 2n * BigInt(MAX));
  });

  it('answers the formatted text exactly and refuses to round the numbers', async () => {
    const { balance_formatted } = await restAccount();
    const answer = await stack.gql<{ plan: { account: unknown } | null }>(
      `query ($planId: PlanId!, $id: UUID!) {
        plan(id: $planId) { account(id: $id) { id balanceFormatted } }
      }`,
      { planId: stack.planId, id: accountId },
      { token: TOKEN, headers: NO_CACHE },
    );
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?.plan?.account).toEqual({
      id: accountId,
      balanceFormatted: balance_formatted,
    });
    // Every digit: the formatted text of the exact sum, not of any double near it.
    const settings = await fetch(`${stack.sandbox.url}/plans/${stack.planId}/settings`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const { currency_format } = (
      (await settings.json()) as { data: { settings: { currency_format: CurrencyFormat | null } } }
    ).data.settings;
    expect(balance_formatted).toBe(formatMilliunits(before + 2n * BigInt(MAX), currency_format));

    // Three times each: a document's first repeat is compiled after its answer (graphql-jit), so
    // its third run is compiled, and answers the same.
    const fields = ['balance', 'balanceCurrency'];
    for (const field of [...fields, ...fields, ...fields]) {
      const refused = await stack.gql<{ plan: { account: unknown } | null }>(
        `query ($planId: PlanId!, $id: UUID!) {
          plan(id: $planId) { account(id: $id) { id ${field} } }
        }`,
        { planId: stack.planId, id: accountId },
        { token: TOKEN },
      );
      const errors = (refused.body.errors ?? []) as GqlError[];
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        path: ['plan', 'account', field],
        extensions: { code: 'AMOUNT_BEYOND_JSON' },
      });
      expect(errors[0]!.message).toMatch(/2\^53/);
      // The non-null field's null reaches the nullable account, as for any field error.
      expect(refused.body.data?.plan?.account).toBeNull();
    }
  });

  it('keeps a month figure past 2^53 exact too (Ready to Assign)', async () => {
    const response = await fetch(`${stack.sandbox.url}/plans/${stack.planId}/months/current`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const month = (
      parseExactJson(await response.text()) as {
        data: { month: { to_be_budgeted: number | bigint; to_be_budgeted_formatted: string } };
      }
    ).data.month;
    expect(typeof month.to_be_budgeted).toBe('bigint');
    const answer = await stack.gql<{ plan: { month: unknown } | null }>(
      `query ($planId: PlanId!) {
        plan(id: $planId) { month(month: "current") { toBeBudgetedFormatted } }
      }`,
      { planId: stack.planId },
      { token: TOKEN },
    );
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?.plan?.month).toEqual({
      toBeBudgetedFormatted: month.to_be_budgeted_formatted,
    });
  });
});
