/**
 * A short budgeting conversation over stdio, as a desktop assistant has it: the SDK's client
 * talking to `src/cli.ts mcp` in a process of its own (writes on), against a sandbox this test
 * runs. The plans, the overview, this month's grocery spending, then assigning to groceries with
 * a whole number. Every amount of every answer is checked in its three forms (they agree with
 * each other), and the ones asked about against the sandbox's REST answers.
 */
import { createSandbox, type Sandbox } from '@plans-gateway/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AmountForms,
  amountsIn,
  call,
  launchStdio,
  type StdioServer,
  textOf,
} from './support/mcp-clients.js';

let sandbox: Sandbox;
let server: StdioServer;
let planId: string;
let token: string;

beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, host: '127.0.0.1', rateLimit: false });
  token = sandbox.users[0]!.token;
  planId = sandbox.users[0]!.planIds[0]!;
  server = await launchStdio({
    UPSTREAM_URL: sandbox.url,
    PLANS_TOKEN: token,
    MCP_WRITES: 'on',
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

/** A REST answer's `data`, read from the sandbox with the same token. */
async function rest<T>(path: string): Promise<T> {
  const response = await fetch(`${sandbox.url}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status, path).toBe(200);
  return ((await response.json()) as { data: T }).data;
}

/** The milliunits a decimal text says, exactly (no floating point). */
function milliunitsOf(decimal: string): number {
  const [, sign, whole, fraction = ''] = /^(-?)(\d+)(?:\.(\d{1,3}))?$/.exec(decimal) ?? [];
  expect(whole, `decimal "${decimal}"`).toBeDefined();
  const value = Number(whole) * 1000 + Number(fraction.padEnd(3, '0'));
  return sign === '-' ? -value : value;
}

/** The plan's (USD) text of a decimal: `-$1,234.56`. */
function usd(decimal: string): string {
  const negative = decimal.startsWith('-');
  const [whole, fraction] = decimal.replace('-', '').split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}$${grouped}.${fraction}`;
}

/** Each amount's three forms agree: integer milliunits, its exact decimal, its USD text. */
function expectFormsAgree(amount: AmountForms): void {
  expect(Number.isInteger(amount.milliunits), JSON.stringify(amount)).toBe(true);
  expect(milliunitsOf(amount.decimal), JSON.stringify(amount)).toBe(amount.milliunits);
  expect(amount.formatted, JSON.stringify(amount)).toBe(usd(amount.decimal));
}

/** A tool call that must succeed, every amount in its answer checked. */
async function ok(name: string, args: Record<string, unknown> = {}) {
  const result = await call(server.client, name, args);
  expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
  const amounts = amountsIn(result.structuredContent);
  for (const amount of amounts) expectFormsAgree(amount);
  return { structured: result.structuredContent as Record<string, unknown>, amounts };
}

/** The three forms the gateway gives `milliunits` of a USD plan (cents, or exact thousandths). */
function forms(milliunits: number): AmountForms {
  const thousandths = String(Math.abs(milliunits) % 1000).padStart(3, '0');
  const fraction = thousandths.endsWith('0') ? thousandths.slice(0, 2) : thousandths;
  const whole = Math.floor(Math.abs(milliunits) / 1000);
  const decimal = `${milliunits < 0 ? '-' : ''}${whole}.${fraction}`;
  return { milliunits, decimal, formatted: usd(decimal) };
}

interface RestMonth {
  month: {
    month: string;
    to_be_budgeted: number;
    categories: { id: string; name: string; budgeted: number; activity: number; hidden: boolean }[];
  };
}

describe('a budgeting conversation over stdio', () => {
  it('lists the plans', async () => {
    const { structured } = await ok('list_plans');
    const plans = structured.plans as { id: string; currencyFormat: { isoCode: string } }[];
    expect(plans.map((plan) => plan.id)).toContain(planId);
    expect(plans.find((plan) => plan.id === planId)?.currencyFormat.isoCode).toBe('USD');
  });

  it('gives the overview: balances and Ready to Assign as REST has them', async () => {
    const { structured, amounts } = await ok('plan_overview', { planId });
    const plan = structured.plan as {
      accounts: { id: string; balance: AmountForms }[];
      month: { toBeBudgeted: AmountForms };
    };
    expect(amounts.length).toBeGreaterThan(plan.accounts.length);
    const { month } = await rest<RestMonth>(`/plans/${planId}/months/current`);
    expect(plan.month.toBeBudgeted).toEqual(forms(month.to_be_budgeted));
    const { accounts } = await rest<{ accounts: { id: string; balance: number }[] }>(
      `/plans/${planId}/accounts`,
    );
    for (const account of plan.accounts)
      expect(account.balance.milliunits).toBe(
        accounts.find((rest) => rest.id === account.id)?.balance,
      );
  });

  it("answers this month's grocery spending: the category's activity", async () => {
    const { structured } = await ok('spending_report', { planId, month: 'current' });
    const groups = structured.groups as { name: string; net: AmountForms }[];
    const groceries = groups.find((group) => group.name === 'Groceries');
    const { month } = await rest<RestMonth>(`/plans/${planId}/months/current`);
    const restGroceries = month.categories.find((category) => category.name === 'Groceries')!;
    expect(restGroceries.activity).toBeLessThan(0);
    expect(groceries?.net).toEqual(forms(restGroceries.activity));
  });

  it('assigns 800 (a whole number) to groceries: 800.00 written, the old value given', async () => {
    const before = (await rest<RestMonth>(`/plans/${planId}/months/current`)).month;
    const category = before.categories.find((c) => c.name === 'Groceries')!;
    expect(category.budgeted).not.toBe(800_000);
    const { structured } = await ok('assign_to_category', {
      planId,
      categoryId: category.id,
      budgeted: 800,
    });
    const answer = JSON.stringify(structured);
    // The amount written and the amount it replaced, each in its three forms.
    expect(amountsIn(structured)).toEqual(
      expect.arrayContaining([forms(800_000), forms(category.budgeted)]),
    );
    expect(answer).toContain('"formatted":"$800.00"');
    const after = (await rest<RestMonth>(`/plans/${planId}/months/current`)).month;
    expect(after.categories.find((c) => c.id === category.id)?.budgeted).toBe(800_000);
    // Ready to Assign moved by the difference, and the answer says the new one.
    expect(after.to_be_budgeted).toBe(before.to_be_budgeted - (800_000 - category.budgeted));
    expect(amountsIn(structured)).toEqual(expect.arrayContaining([forms(after.to_be_budgeted)]));
  });
});
