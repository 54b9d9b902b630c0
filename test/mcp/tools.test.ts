/**
 * The MCP server's read tools over Streamable HTTP at `/mcp`, with the SDK's own client: what
 * `tools/list` shows, each tool's answer against the REST interface, amounts in three forms,
 * refusals that name the argument and cost no upstream call, and the read-only default.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NAME_NOTE } from '../../src/mcp/names.js';
import { type ClockedStack, startStack } from '../support/stack.js';
import { type AmountForms, amountsIn, call, connectHttp, textOf } from './support/mcp-clients.js';

const READ_TOOLS = [
  'get_transaction',
  'list_months',
  'list_payees',
  'list_plans',
  'month_budget',
  'plan_overview',
  'scheduled_transactions',
  'search_transactions',
  'spending_report',
];

let stack: ClockedStack;
let client: Client;
let tools: Tool[];

beforeAll(async () => {
  // A manual clock: every call below is within the max-age of the first.
  stack = await startStack({ clock: 'manual', sandbox: { rateLimit: false }, mcp: {} });
  client = await connectHttp(stack.mcpUrl, stack.token);
  tools = (await client.listTools()).tools;
});
afterAll(async () => {
  await client.close();
  await stack.close();
});

const structured = async (name: string, args: Record<string, unknown> = {}) => {
  const result = await call(client, name, args);
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent as Record<string, unknown>;
};

describe('tools/list', () => {
  it('lists the read tools only, annotated as reads, by default', () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual(READ_TOOLS);
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      expect(tool.outputSchema?.type).toBe('object');
    }
  });

  it('describes each tool and argument from the document comment and the schema', () => {
    const search = tools.find((tool) => tool.name === 'search_transactions')!;
    expect(search.description).toMatch(/^Transactions, newest first, narrowed by any of/);
    // The comment alone: the root field's description speaks of GraphQL and REST.
    expect(search.description).not.toContain('`plan`');
    expect(search.description).not.toContain('REST');
    const properties = search.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(properties.search?.description).toMatch(/memo, payee name or category name/);
    // An id or a name: any string, the matching rules said.
    expect(properties.accountId).toEqual({
      type: ['string', 'null'],
      description: `Only transactions of this account. ${NAME_NOTE}`,
    });
    expect(properties.type?.enum).toEqual(['uncategorized', 'unapproved', null]);
    expect(properties.first?.default).toBe(25);
    expect(properties.planId?.default).toBe('last-used');
    expect(search.inputSchema.required).toBeUndefined();
  });

  it('gives amounts in results an object schema with their three forms', () => {
    const overview = tools.find((tool) => tool.name === 'plan_overview')!;
    const plan = (overview.outputSchema!.properties as Record<string, Record<string, unknown>>)
      .plan!;
    expect(plan.type).toEqual(['object', 'null']);
    const account = (plan.properties as Record<string, Record<string, unknown>>).accounts!
      .items as Record<string, Record<string, Record<string, unknown>>>;
    expect(account.properties!.balance).toMatchObject({
      type: 'object',
      required: ['milliunits', 'decimal', 'formatted'],
    });
    expect(String(account.properties!.balance!.description)).toMatch(/^The current balance\./);
    // The companions the gateway adds to compute them are not part of the result.
    expect(account.properties!.balanceFormatted).toBeUndefined();
  });
});

describe('tools/call', () => {
  it('lists the plans', async () => {
    const { plans } = await structured('list_plans');
    expect(plans).toEqual([
      expect.objectContaining({ id: stack.planId, currencyFormat: expect.any(Object) }),
    ]);
  });

  it("answers a plan's overview with the REST balances, in three forms that agree", async () => {
    const { plan } = await structured('plan_overview', { planId: stack.planId });
    const { accounts } = await stack.writer.getAccounts(
      { token: stack.token },
      { planId: stack.planId },
    );
    const open = accounts.filter((a) => !a.deleted);
    const answered = (plan as { accounts: { id: string; balance: AmountForms }[] }).accounts;
    expect(answered.map((a) => [a.id, a.balance.milliunits]).sort()).toEqual(
      open.map((a) => [a.id, a.balance]).sort(),
    );
    const amounts = amountsIn(plan);
    expect(amounts.length).toBeGreaterThan(10);
    for (const amount of amounts) expectAgree(amount);
    expect((plan as { month: { toBeBudgeted: AmountForms } }).month.toBeBudgeted.formatted).toMatch(
      /^-?\$[\d,]+\.\d\d$/,
    );
  });

  it("answers a month's budget by category, hidden and internal ones only when asked", async () => {
    type Budget = {
      month: {
        month: string;
        categories: {
          categoryId: string;
          hidden: boolean;
          internal: boolean;
          budgeted: AmountForms;
        }[];
      };
    };
    const all = (
      (await structured('month_budget', { month: '2025-06-15', includeHidden: true })) as {
        plan: Budget;
      }
    ).plan.month;
    expect(all.month).toBe('2025-06-01');
    const rest = await stack.writer.getPlanMonth(
      { token: stack.token },
      { planId: stack.planId, month: '2025-06-01' },
    );
    const budgeted = new Map(rest.month.categories.map((c) => [c.id, c.budgeted]));
    expect(all.categories.length).toBe(rest.month.categories.length);
    for (const category of all.categories)
      expect(category.budgeted.milliunits).toBe(budgeted.get(category.categoryId));
    // By default (and with the month written as people write it): the shown categories only.
    const shown = ((await structured('month_budget', { month: '2025-06' })) as { plan: Budget })
      .plan.month;
    expect(shown.month).toBe('2025-06-01');
    const expected = all.categories.filter((c) => !c.hidden && !c.internal);
    expect(expected.length).toBeLessThan(all.categories.length);
    expect(shown.categories.map((c) => c.categoryId)).toEqual(expected.map((c) => c.categoryId));
  });

  it('searches transactions by text, type, account and dates, page by page', async () => {
    const { plan } = await structured('search_transactions', { search: 'GROC', first: 500 });
    const found = (
      plan as {
        transactions: {
          nodes: {
            payeeName: string | null;
            categoryName: string | null;
            memo: string | null;
            subtransactions: { categoryName: string | null }[];
          }[];
        };
      }
    ).transactions.nodes;
    expect(found.length).toBeGreaterThan(0);
    for (const row of found) {
      const texts = [
        row.payeeName,
        row.categoryName,
        row.memo,
        ...row.subtransactions.map((s) => s.categoryName),
      ];
      expect(texts.some((text) => text?.toLowerCase().includes('groc'))).toBe(true);
    }

    const unapproved = await structured('search_transactions', { type: 'unapproved', first: 500 });
    const rows = (unapproved.plan as { transactions: { nodes: { approved: boolean }[] } })
      .transactions.nodes;
    expect(rows.every((row) => !row.approved)).toBe(true);

    const first = await structured('search_transactions', { first: 3, sinceDate: '2025-01-01' });
    const page = (
      first.plan as {
        transactions: {
          nodes: { id: string; date: string }[];
          pageInfo: { endCursor: string; hasNextPage: boolean };
        };
      }
    ).transactions;
    expect(page.nodes).toHaveLength(3);
    expect(page.pageInfo.hasNextPage).toBe(true);
    const next = await structured('search_transactions', {
      first: 3,
      sinceDate: '2025-01-01',
      after: page.pageInfo.endCursor,
    });
    const nextIds = (
      next.plan as { transactions: { nodes: { id: string }[] } }
    ).transactions.nodes.map((n) => n.id);
    expect(nextIds).toHaveLength(3);
    expect(nextIds.filter((id) => page.nodes.some((n) => n.id === id))).toEqual([]);
  });

  it('lists scheduled transactions', async () => {
    const { plan } = await structured('scheduled_transactions');
    const rest = await stack.writer.getScheduledTransactions(
      { token: stack.token },
      { planId: stack.planId },
    );
    const nodes = (
      plan as { scheduledTransactions: { nodes: { id: string; amount: AmountForms }[] } }
    ).scheduledTransactions.nodes;
    expect(nodes.map((n) => n.id).sort()).toEqual(
      rest.scheduled_transactions
        .filter((s) => !s.deleted)
        .map((s) => s.id)
        .sort(),
    );
  });

  it('answers 20 tool calls within max-age with no upstream call', async () => {
    await structured('plan_overview');
    await structured('month_budget');
    stack.resetUpstreamCalls();
    const names = [
      'plan_overview',
      'month_budget',
      'search_transactions',
      'scheduled_transactions',
      'list_plans',
    ];
    for (let i = 0; i < 20; i += 1) {
      const name = names[i % names.length]!;
      await structured(name, name === 'list_plans' ? {} : { planId: stack.planId });
    }
    expect(stack.upstreamCalls()).toEqual([]);
  });
});

describe('refusals', () => {
  const refused = async (name: string, args: Record<string, unknown>) => {
    await structured('list_plans');
    stack.resetUpstreamCalls();
    const result = await call(client, name, args);
    expect(result.isError).toBe(true);
    expect(stack.upstreamCalls()).toEqual([]);
    return textOf(result);
  };

  it('an unknown tool, naming the tools there are', async () => {
    expect(await refused('drop_plan', {})).toMatch(
      /^Unknown tool "drop_plan"\. The tools are: .*list_plans/,
    );
  });

  it('an argument of the wrong type, naming it', async () => {
    expect(await refused('search_transactions', { first: 'ten' })).toBe(
      'Argument "first": got invalid value "ten"; Int cannot represent non-integer value: "ten"',
    );
    expect(await refused('search_transactions', { type: 'pending' })).toMatch(
      /^Argument "type": got invalid value "pending"; Value "pending" does not exist/,
    );
    expect(await refused('month_budget', { month: 'June' })).toMatch(/^Argument "month": /);
  });

  it('an argument the tool does not take, naming it', async () => {
    expect(await refused('plan_overview', { planID: 'x' })).toBe(
      'Argument "planID": this tool takes no such argument (it takes: planId).',
    );
  });

  it('a value of 900 KB, quoting at most a short prefix of it, as GraphQL errors are cut', async () => {
    // Before: the whole value, twice (a 900 KB argument gave a 1.8 MB error).
    const big = 'x'.repeat(900_000);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [
        'search_transactions',
        { sinceDate: big },
        /^Argument "sinceDate": got invalid value "x{40}…" \(900000 characters\); /,
      ],
      [
        'plan_overview',
        { [big]: 1 },
        /^Argument "x{40}…" \(900000 characters\): this tool takes no such argument/,
      ],
      [`drop_${big}`, {}, /^Unknown tool "drop_x{35}…" \(900005 characters\)\. The tools are/],
    ];
    for (const [name, args, expected] of cases) {
      const text = await refused(name, args);
      expect(text).toMatch(expected);
      expect(text.length).toBeLessThan(1_000);
    }
    const uri = await client.subscribeResource({ uri: `plans://${big}` }).then(
      () => 'subscribed',
      (error: unknown) => String(error),
    );
    expect(uri).toMatch(/Unknown resource "plans:\/\/x{32}…" \(900008 characters\): the resources/);
    expect(uri.length).toBeLessThan(1_000);
  });

  it('a plan the token does not have, naming the argument', async () => {
    expect(
      await refused('plan_overview', { planId: '0f0e8c27-5d4c-4d8c-9d9a-0a6f5a3f1b11' }),
    ).toMatch(
      /^Argument "planId": this token has no plan "0f0e8c27-5d4c-4d8c-9d9a-0a6f5a3f1b11"; list_plans/,
    );
  });

  it('a write tool: read-only by default, nothing sent upstream', async () => {
    const text = await refused('create_transaction', {
      accountId: '0f0e8c27-5d4c-4d8c-9d9a-0a6f5a3f1b11',
      date: '2025-06-01',
      amount: '-1.00',
    });
    expect(text).toMatch(
      /^create_transaction writes to the plan, and this server is read-only: .*MCP_WRITES=on\. Nothing was changed\.$/,
    );
    // move_money, made of two writes, is unlisted and refused the same way.
    expect(tools.map((tool) => tool.name)).not.toContain('move_money');
    expect(
      await refused('move_money', { fromCategoryId: 'a', toCategoryId: 'b', amount: 1 }),
    ).toMatch(/^move_money writes to the plan, and this server is read-only/);
  });
});

/** The three forms of one amount say the same (USD: two decimals). */
function expectAgree(amount: AmountForms): void {
  expect(amount.decimal).toMatch(/^-?\d+\.\d\d$/);
  expect(Math.round(Number(amount.decimal) * 1000)).toBe(Math.round(amount.milliunits / 10) * 10);
  const sign = amount.milliunits < 0 ? '-' : '';
  const [whole, cents] = amount.decimal.replace('-', '').split('.');
  expect(amount.formatted).toBe(`${sign}$${Number(whole).toLocaleString('en-US')}.${cents}`);
}
