/**
 * The MCP write tools (with `writes` on) over Streamable HTTP: annotations, amounts given as
 * decimal strings or milliunits and written exactly, typed refusals, and a write whose outcome
 * is unknown: one request upstream, never retried, and a tool error that says what to check.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClockedStack, startStack } from '../support/stack.js';
import { call, connectHttp, textOf } from './support/mcp-clients.js';

const TODAY = '2025-06-15';

let stack: ClockedStack;
let client: Client;
let accountId: string;
let categoryId: string;

beforeAll(async () => {
  stack = await startStack({
    clock: 'ticking',
    sandbox: { rateLimit: false },
    mcp: { writes: true },
    // A hung write fails fast: its outcome is unknown.
    deps: { upstreamTimeouts: { headersTimeoutMs: 1_000 } },
  });
  client = await connectHttp(stack.mcpUrl, stack.token);
  const { accounts } = await stack.writer.getAccounts(
    { token: stack.token },
    { planId: stack.planId },
  );
  accountId = accounts.find((a) => a.type === 'checking' && !a.closed && !a.deleted)!.id;
  const { category_groups } = await stack.writer.getCategories(
    { token: stack.token },
    { planId: stack.planId },
  );
  categoryId = category_groups.flatMap((g) => g.categories).find((c) => c.name === 'Groceries')!.id;
});
afterAll(async () => {
  await client.close();
  await stack.close();
});

const restTransaction = async (id: string) =>
  (
    await stack.writer.getTransactionById(
      { token: stack.token },
      { planId: stack.planId, transactionId: id },
    )
  ).transaction;

describe('tools/list with writes on', () => {
  it('lists the write tools with truthful annotations', async () => {
    const { tools } = await client.listTools();
    const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    expect(hints.create_transaction).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(hints.update_transactions).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(hints.assign_to_category).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    const create = tools.find((tool) => tool.name === 'create_transaction')!;
    const amount = (create.inputSchema.properties as Record<string, Record<string, unknown>>)
      .amount!;
    expect(amount.anyOf).toEqual([
      expect.objectContaining({ type: 'string' }),
      expect.objectContaining({ type: 'integer' }),
    ]);
  });
});

describe('create_transaction', () => {
  it('takes a decimal amount exactly and answers the saved transaction', async () => {
    const result = await call(client, 'create_transaction', {
      accountId,
      date: TODAY,
      amount: '-12.34',
      payeeName: 'Corner Shop',
      categoryId,
      memo: 'mcp decimal',
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    const created = (
      result.structuredContent as {
        createTransaction: { __typename: string; transaction: { id: string; amount: unknown } };
      }
    ).createTransaction;
    expect(created.__typename).toBe('CreateTransactionPayload');
    expect(created.transaction.amount).toEqual({
      milliunits: -12_340,
      decimal: '-12.34',
      formatted: '-$12.34',
    });
    const saved = await restTransaction(created.transaction.id);
    expect([saved.amount, saved.memo, saved.category_id]).toEqual([
      -12_340,
      'mcp decimal',
      categoryId,
    ]);
  });

  it('takes milliunits as an integer', async () => {
    const result = await call(client, 'create_transaction', {
      accountId,
      date: TODAY,
      amount: -5_005,
      payeeName: 'Corner Shop',
    });
    const id = (result.structuredContent as { createTransaction: { transaction: { id: string } } })
      .createTransaction.transaction.id;
    expect((await restTransaction(id)).amount).toBe(-5_005);
  });

  it('refuses an amount that is not exact, naming it, with no upstream call', async () => {
    stack.resetUpstreamCalls();
    for (const [amount, reason] of [
      [
        '12.3456',
        /^Argument "amount": "12\.3456" has 4 decimals; amounts are exact to the thousandth/,
      ],
      [
        12.34,
        /^Argument "amount": 12\.34 is not a whole number of milliunits; send a decimal amount as a string \("12\.34"\)/,
      ],
      ['1,234.00', /^Argument "amount": "1,234\.00" is not a decimal amount/],
      // 900 KB of it: a short prefix is quoted, not the whole (before: a 900 KB error).
      [
        'x'.repeat(900_000),
        /^Argument "amount": "x{40}…" \(900000 characters\) is not a decimal amount.{0,200}$/,
      ],
    ] as const) {
      const result = await call(client, 'create_transaction', {
        accountId,
        date: TODAY,
        amount,
        payeeName: 'x',
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(reason);
    }
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('answers a refused write as a tool error that keeps the reason', async () => {
    const args = {
      accountId,
      date: TODAY,
      amount: '-1',
      payeeName: 'Twice',
      importId: 'mcp:dup:1',
    };
    expect((await call(client, 'create_transaction', args)).isError).toBeFalsy();
    const again = await call(client, 'create_transaction', args);
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/^DuplicateImportIdError: .* Nothing was changed\.$/);
  });

  it('sends a write whose outcome is unknown once, and says what to check', async () => {
    stack.sandbox.setFaults([{ kind: 'hang', operationId: 'createTransaction' }]);
    try {
      stack.resetUpstreamCalls();
      const result = await call(client, 'create_transaction', {
        accountId,
        date: TODAY,
        amount: '-3.00',
        payeeName: 'Slow',
        importId: 'mcp:hang:1',
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(
        /\(UPSTREAM_UNAVAILABLE\) The write may or may not have been applied: it was not retried\. Before trying again, look for it with search_transactions .* Sending it again with the same importId is safe/,
      );
      expect(stack.upstreamCalls().filter((c) => c === 'createTransaction')).toEqual([
        'createTransaction',
      ]);
    } finally {
      stack.sandbox.setFaults([]);
    }
  });
});

describe('update_transactions and assign_to_category', () => {
  it('categorizes, approves and flags transactions by id', async () => {
    const created = await call(client, 'create_transaction', {
      accountId,
      date: TODAY,
      amount: '-7.5',
      payeeName: 'To sort',
      approved: false,
    });
    const id = (created.structuredContent as { createTransaction: { transaction: { id: string } } })
      .createTransaction.transaction.id;
    const result = await call(client, 'update_transactions', {
      transactions: [{ id, categoryId, approved: true, flagColor: 'purple' }],
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    const saved = await restTransaction(id);
    expect([saved.category_id, saved.approved, saved.flag_color, saved.amount]).toEqual([
      categoryId,
      true,
      'purple',
      -7_500,
    ]);
  });

  it('sets what is assigned to a category in a month, from a decimal amount', async () => {
    const result = await call(client, 'assign_to_category', {
      month: '2025-06-01',
      categoryId,
      budgeted: '250.10',
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    const answered = (
      result.structuredContent as {
        updateMonthCategory: { category: { budgeted: unknown } };
      }
    ).updateMonthCategory.category.budgeted;
    expect(answered).toEqual({ milliunits: 250_100, decimal: '250.10', formatted: '$250.10' });
    const rest = await stack.writer.getMonthCategoryById(
      { token: stack.token },
      { planId: stack.planId, month: '2025-06-01', categoryId },
    );
    expect(rest.category.budgeted).toBe(250_100);
  });
});
