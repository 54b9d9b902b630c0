/**
 * A budgeting conversation as an agent has it, with the SDK's own client over Streamable HTTP
 * (writes on, elicitation declared): the overview, spending on groceries this month counted by
 * split lines (equal to the month's category activity), a split, a transfer, a target, a delete
 * confirmed (and one declined) through elicitation, the prompts, and resource links. Every amount
 * checked against the REST sandbox.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClockedStack, startStack } from '../support/stack.js';
import { conversationClient, runBudgetingConversation } from './support/budgeting-conversation.js';
import { type AmountForms, call, textOf } from './support/mcp-clients.js';

const TODAY = '2025-06-15';

let stack: ClockedStack;
let client: Client;
/** What the user answers the next elicitation, and the messages they were asked. */
let answer: 'yes' | 'no' = 'yes';
const asked: string[] = [];
let checking: { id: string; transferPayeeId: string };
let savings: { id: string };
let groceries: string;
let other: string;

beforeAll(async () => {
  stack = await startStack({
    clock: 'ticking',
    sandbox: { rateLimit: false },
    mcp: { writes: true },
  });
  client = new Client(
    { name: 'conversation', version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return answer === 'yes'
      ? { action: 'accept', content: { confirm: true } }
      : { action: 'decline' };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(stack.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${stack.token}` } },
    }),
  );
  const { accounts } = await stack.writer.getAccounts(
    { token: stack.token },
    { planId: stack.planId },
  );
  const open = accounts.filter((a) => a.on_budget && !a.closed && !a.deleted);
  const found = open.find((a) => a.type === 'checking')!;
  checking = { id: found.id, transferPayeeId: found.transfer_payee_id! };
  savings = open.find((a) => a.id !== found.id)!;
  const { category_groups } = await stack.writer.getCategories(
    { token: stack.token },
    { planId: stack.planId },
  );
  const categories = category_groups
    .filter((g) => !g.hidden && !g.deleted && g.name !== 'Internal Master Category')
    .flatMap((g) => g.categories)
    .filter((c) => !c.hidden && !c.deleted);
  groceries = categories.find((c) => c.name === 'Groceries')!.id;
  other = categories.find((c) => c.name === 'Dining Out')!.id;
});
afterAll(async () => {
  await client.close();
  await stack.close();
});

const ok = async (name: string, args: Record<string, unknown> = {}) => {
  const result = await call(client, name, args);
  expect(result.isError, textOf(result)).toBeFalsy();
  return result;
};

const restTransaction = async (id: string) =>
  (
    await stack.writer.getTransactionById(
      { token: stack.token },
      { planId: stack.planId, transactionId: id },
    )
  ).transaction;

describe('the scripted budgeting conversation (any transport: here Streamable HTTP)', () => {
  it('lists, reviews, counts groceries, categorizes, splits, transfers, moves money and deletes', async () => {
    const { client: scripted, user } = conversationClient();
    await scripted.connect(
      new StreamableHTTPClientTransport(new URL(stack.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${stack.token}` } },
      }),
    );
    try {
      const steps = await runBudgetingConversation(scripted, user, {
        writer: stack.writer,
        token: stack.token,
        planId: stack.planId,
        today: TODAY,
      });
      expect(steps.map((step) => step.tool)).toContain('move_money');
    } finally {
      await scripted.close();
    }
  });
});

describe('a budgeting conversation', () => {
  it('records a split whose lines go to two categories, each amount in three forms', async () => {
    const result = await ok('create_transaction', {
      accountId: checking.id,
      date: TODAY,
      amount: '-100.00',
      payeeName: 'Hypermarket',
      subtransactions: [
        { amount: -60.25, categoryId: groceries },
        { amountMilliunits: -39_750, categoryId: other },
      ],
    });
    const transaction = (
      result.structuredContent as {
        createTransaction: {
          transaction: {
            id: string;
            amount: AmountForms;
            subtransactions: { amount: AmountForms }[];
          };
        };
      }
    ).createTransaction.transaction;
    expect(transaction.amount).toEqual({
      milliunits: -100_000,
      decimal: '-100.00',
      formatted: '-$100.00',
    });
    expect(transaction.subtransactions.map((line) => line.amount)).toEqual([
      { milliunits: -60_250, decimal: '-60.25', formatted: '-$60.25' },
      { milliunits: -39_750, decimal: '-39.75', formatted: '-$39.75' },
    ]);
    const saved = await restTransaction(transaction.id);
    expect(saved.subtransactions.map((s) => [s.amount, s.category_id])).toEqual([
      [-60_250, groceries],
      [-39_750, other],
    ]);
  });

  it('counts groceries this month by split lines: the report and the search equal the activity', async () => {
    const budget = await ok('month_budget', { month: '2025-06' });
    const activity = (
      budget.structuredContent as {
        plan: { month: { categories: { categoryId: string; activity: AmountForms }[] } };
      }
    ).plan.month.categories.find((c) => c.categoryId === groceries)!.activity;
    const rest = await stack.writer.getMonthCategoryById(
      { token: stack.token },
      { planId: stack.planId, month: '2025-06-01', categoryId: groceries },
    );
    expect(activity.milliunits).toBe(rest.category.activity);

    const report = await ok('spending_report', { month: '2025-06' });
    const data = report.structuredContent as {
      groups: { id: string; net: AmountForms; outflows: AmountForms }[];
      totals: { net: AmountForms };
      transfersLeftOut: number;
    };
    const line = data.groups.find((g) => g.id === groceries)!;
    expect(line.net).toEqual(activity);

    // The search: a split lists only its groceries lines, and categoryAmount is what counts.
    const search = await ok('search_transactions', {
      categoryId: groceries,
      sinceDate: '2025-06-01',
      untilDate: '2025-06-30',
      first: 500,
    });
    const nodes = (
      search.structuredContent as {
        plan: {
          transactions: {
            nodes: {
              amount: AmountForms;
              categoryAmount: AmountForms;
              subtransactions: { categoryId: string }[];
            }[];
          };
        };
      }
    ).plan.transactions.nodes;
    const split = nodes.find((n) => n.amount.milliunits === -100_000)!;
    expect(split.categoryAmount).toEqual({
      milliunits: -60_250,
      decimal: '-60.25',
      formatted: '-$60.25',
    });
    expect(split.subtransactions.every((s) => s.categoryId === groceries)).toBe(true);
    const counted = nodes.reduce((sum, n) => sum + n.categoryAmount.milliunits, 0);
    expect(counted).toBe(activity.milliunits);
    // Summing whole amounts would overcount: the trap the issue measured.
    expect(nodes.reduce((sum, n) => sum + n.amount.milliunits, 0)).toBeLessThan(counted);
  });

  it('makes a transfer with the other account as payee, left out of spending', async () => {
    const before = await ok('spending_report', { month: 'current' });
    const left = (before.structuredContent as { transfersLeftOut: number }).transfersLeftOut;
    const result = await ok('create_transaction', {
      accountId: savings.id,
      date: TODAY,
      amount: -25,
      payeeId: checking.transferPayeeId,
    });
    const id = (result.structuredContent as { createTransaction: { transaction: { id: string } } })
      .createTransaction.transaction.id;
    expect((await restTransaction(id)).transfer_account_id).toBe(checking.id);
    const after = await ok('spending_report', { month: 'current' });
    expect((after.structuredContent as { transfersLeftOut: number }).transfersLeftOut).toBe(
      left + 2,
    );
    // Cash flow per account counts the transfer on both sides.
    const flow = await ok('spending_report', { month: 'current', groupBy: 'account' });
    const groups = (flow.structuredContent as { groups: { id: string; lines: number }[] }).groups;
    expect(groups.map((g) => g.id)).toEqual(expect.arrayContaining([checking.id, savings.id]));
  });

  it('deletes a transaction only once the user confirms, answering what it removed', async () => {
    const created = await ok('create_transaction', {
      accountId: checking.id,
      date: TODAY,
      amount: '-9.99',
      payeeName: 'Mistake',
    });
    const id = (created.structuredContent as { createTransaction: { transaction: { id: string } } })
      .createTransaction.transaction.id;
    answer = 'no';
    const declined = await call(client, 'delete_transaction', { transactionId: id });
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toMatch(/did not confirm delete_transaction: nothing was changed/);
    expect((await restTransaction(id)).deleted).toBe(false);
    expect(asked.at(-1)).toMatch(/^Delete transaction .*It replaces: .*-\$9\.99/);
    answer = 'yes';
    const deleted = await ok('delete_transaction', { transactionId: id });
    const replaced = (
      deleted.structuredContent as { replaced: { plan: { transaction: { amount: AmountForms } } } }
    ).replaced.plan.transaction.amount;
    expect(replaced).toEqual({ milliunits: -9_990, decimal: '-9.99', formatted: '-$9.99' });
    await expect(restTransaction(id)).rejects.toThrow();
  });

  it('sets a category target, in units, answering the target it replaced', async () => {
    answer = 'yes';
    const first = await ok('update_category_target', { categoryId: other, goalTarget: 300 });
    const second = await ok('update_category_target', { categoryId: other, goalTarget: '450.5' });
    const data = second.structuredContent as {
      updateCategory: { category: { goalTarget: AmountForms } };
      replaced: { plan: { category: { goalTarget: AmountForms } } };
    };
    expect(first.isError).toBeFalsy();
    expect(data.updateCategory.category.goalTarget.milliunits).toBe(450_500);
    expect(data.replaced.plan.category.goalTarget).toEqual({
      milliunits: 300_000,
      decimal: '300.00',
      formatted: '$300.00',
    });
  });

  it('links results to the plan and month resources, and offers the prompts', async () => {
    const overview = await ok('plan_overview');
    const links = overview.content.filter((c) => c.type === 'resource_link');
    expect(links.map((l) => (l as { uri: string }).uri)).toEqual([
      `plans://${stack.planId}/overview`,
      `plans://${stack.planId}/months/2025-06-01/budget`,
    ]);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual([
      'categorize_uncategorized',
      'cover_overspending',
      'monthly_review',
    ]);
    const review = await client.getPrompt({
      name: 'monthly_review',
      arguments: { month: '2025-06' },
    });
    expect(JSON.stringify(review.messages)).toMatch(/2025-06.*spending_report/);
  });
});
