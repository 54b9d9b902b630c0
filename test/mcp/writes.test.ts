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
    // Currency units as a number or a string; milliunits only by name.
    expect(amount.anyOf).toEqual([
      expect.objectContaining({ type: 'number' }),
      expect.objectContaining({ type: 'string' }),
    ]);
    expect(amount.description).toMatch(/currency units.*Never milliunits/);
    const properties = create.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(properties.amountMilliunits).toMatchObject({ type: 'integer' });
    expect(create.inputSchema.required).toEqual(['accountId', 'date']);
    expect(hints.delete_transaction).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    for (const name of ['categorize_transactions', 'approve_transactions'])
      expect(hints[name]).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
      });
    const approve = tools.find((tool) => tool.name === 'approve_transactions')!;
    expect(approve.inputSchema.properties?.transactions).toMatchObject({
      type: 'array',
      items: { properties: { id: expect.anything() }, required: ['id'] },
    });
    const approveProperties = approve.inputSchema.properties as Record<string, unknown>;
    const items = approveProperties.transactions as { items: { properties: object } };
    expect(Object.keys(items.items.properties)).toEqual(['id']);
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

  it('takes milliunits only through amountMilliunits, and units as a number or a string', async () => {
    const created = async (args: Record<string, unknown>) => {
      const result = await call(client, 'create_transaction', {
        accountId,
        date: TODAY,
        payeeName: 'Corner Shop',
        ...args,
      });
      expect(result.isError, textOf(result)).toBeFalsy();
      const id = (
        result.structuredContent as { createTransaction: { transaction: { id: string } } }
      ).createTransaction.transaction.id;
      return (await restTransaction(id)).amount;
    };
    expect(await created({ amountMilliunits: -5_005 })).toBe(-5_005);
    expect(await created({ amount: -5 })).toBe(-5_000);
    expect(await created({ amount: '-5' })).toBe(-5_000);
    expect(await created({ amount: -12.5 })).toBe(-12_500);
  });

  it('refuses an amount that is not exact, naming it, with no upstream call', async () => {
    stack.resetUpstreamCalls();
    for (const [amount, reason] of [
      [
        '12.3456',
        /^Argument "amount": "12\.3456" has 4 decimals; amounts are exact to the thousandth/,
      ],
      [12.3456, /^Argument "amount": 12\.3456 has 4 decimals/],
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

  it('refuses what could be read either way, and reports every invalid argument at once', async () => {
    stack.resetUpstreamCalls();
    const both = await call(client, 'create_transaction', {
      accountId,
      date: TODAY,
      amount: -5,
      amountMilliunits: -5_000,
    });
    expect(both.isError).toBe(true);
    expect(textOf(both)).toMatch(
      /^Argument "amountMilliunits": give the amount once: either "amount" in currency units or "amountMilliunits" in milliunits, not both\.$/,
    );
    const fraction = await call(client, 'create_transaction', {
      accountId,
      date: TODAY,
      amountMilliunits: 12.5,
    });
    expect(textOf(fraction)).toMatch(/milliunits are an integer.*use "amount"/);
    const many = await call(client, 'create_transaction', {
      accountId: 'not-a-uuid',
      date: 'tomorrow',
      amount: '1,00',
      colour: 'red',
    });
    expect(many.isError).toBe(true);
    const text = textOf(many);
    expect(text).toMatch(/^4 arguments are invalid/);
    for (const name of ['amount', 'colour', 'accountId', 'date'])
      expect(text).toContain(`Argument "${name}"`);
    const missing = await call(client, 'create_transaction', { accountId, date: TODAY });
    expect(textOf(missing)).toMatch(
      /^Argument "amount": required: the amount in currency units, or "amountMilliunits" in milliunits\.$/,
    );
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

  it('answers, per transaction, the values each write replaced, read from the replica', async () => {
    type Row = Record<string, unknown> & { id: string; amount: unknown };
    const created = await call(client, 'create_transaction', {
      accountId,
      date: TODAY,
      amount: '-4.25',
      payeeName: 'Before and after',
      memo: 'old memo',
      approved: false,
    });
    const id = (created.structuredContent as { createTransaction: { transaction: { id: string } } })
      .createTransaction.transaction.id;
    // The replica has the new transaction: what it replaces is read without an upstream call.
    await call(client, 'get_transaction', { transactionId: id });
    stack.resetUpstreamCalls();
    const result = await call(client, 'update_transactions', {
      transactions: [{ id, amount: '-5.75', memo: 'new memo', categoryId, date: '2025-06-14' }],
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    // Nothing read upstream before the write (what follows it is the write's own refresh).
    expect(stack.upstreamCalls()[0]).toBe('updateTransactions');
    expect(stack.upstreamCalls()).not.toContain('getTransactionById');
    const answer = result.structuredContent as {
      updateTransactions: { transactions: Row[] };
      replaced: Row[];
    };
    expect(answer.updateTransactions.transactions[0]).toMatchObject({
      id,
      amount: { milliunits: -5_750, decimal: '-5.75', formatted: '-$5.75' },
      memo: 'new memo',
      categoryId,
      date: '2025-06-14',
    });
    expect(answer.replaced).toEqual([
      expect.objectContaining({
        id,
        amount: { milliunits: -4_250, decimal: '-4.25', formatted: '-$4.25' },
        memo: 'old memo',
        categoryId: null,
        payeeName: 'Before and after',
        approved: false,
        date: TODAY,
      }),
    ]);

    // The dedicated tools: names for categories, the old values, nothing else changed.
    const categorized = await call(client, 'categorize_transactions', {
      transactions: [{ id, categoryId: 'Dining Out' }],
    });
    expect(categorized.isError, textOf(categorized)).toBeFalsy();
    const sorted = categorized.structuredContent as {
      categorizeTransactions?: unknown;
      updateTransactions: { transactions: Row[] };
      replaced: Row[];
      matched: { name: string }[];
    };
    expect(sorted.updateTransactions.transactions[0]).toMatchObject({
      categoryName: 'Dining Out',
      approved: false,
    });
    expect(sorted.replaced[0]).toMatchObject({ categoryId, memo: 'new memo' });
    expect(sorted.matched[0]?.name).toBe('Dining Out');
    const approved = await call(client, 'approve_transactions', { transactions: [{ id }] });
    expect(approved.isError, textOf(approved)).toBeFalsy();
    const after = approved.structuredContent as {
      updateTransactions: { transactions: Row[] };
      replaced: Row[];
    };
    expect(after.updateTransactions.transactions[0]).toMatchObject({ approved: true });
    expect(after.replaced[0]).toMatchObject({
      approved: false,
      amount: { milliunits: -5_750, decimal: '-5.75', formatted: '-$5.75' },
    });
    const saved = await restTransaction(id);
    expect([saved.approved, saved.memo, saved.amount, saved.category_name]).toEqual([
      true,
      'new memo',
      -5_750,
      'Dining Out',
    ]);
  });

  it('refuses what the dedicated tools do not change, and a transaction that is not there', async () => {
    stack.resetUpstreamCalls();
    const extra = await call(client, 'approve_transactions', {
      transactions: [{ id: 'x', memo: 'no' }, {}],
    });
    expect(extra.isError).toBe(true);
    expect(textOf(extra)).toMatch(
      /Argument "transactions\[0\]\.memo": this tool takes no such field \(it takes: id\)/,
    );
    expect(textOf(extra)).toMatch(/Argument "transactions\[1\]\.id": required/);
    const missing = await call(client, 'categorize_transactions', {
      transactions: [{ id: 'no-such-transaction', categoryId }],
    });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe(
      'Argument "transactions[0].id": this plan has no transaction "no-such-transaction" (search_transactions gives the ids). Nothing was written.',
    );
    expect(stack.upstreamCalls().filter((c) => c === 'updateTransactions')).toEqual([]);
  });

  it('sets what is assigned to a category in a month, answering the value it replaced', async () => {
    type Assigned = {
      updateMonthCategory: { category: { budgeted: unknown } };
      replaced: { plan: { month: { category: { budgeted: unknown } } } };
    };
    const assign = async (args: Record<string, unknown>) => {
      const result = await call(client, 'assign_to_category', {
        month: '2025-06',
        categoryId,
        ...args,
      });
      expect(result.isError, textOf(result)).toBeFalsy();
      const answer = result.structuredContent as Assigned;
      return [
        answer.updateMonthCategory.category.budgeted,
        answer.replaced.plan.month.category.budgeted,
      ];
    };
    expect(await assign({ budgeted: '250.10' })).toEqual([
      { milliunits: 250_100, decimal: '250.10', formatted: '$250.10' },
      expect.objectContaining({ milliunits: expect.any(Number) }),
    ]);
    // The trap: 800 as a number is 800.00, as "800" is; never 0.80.
    expect(await assign({ budgeted: 800 })).toEqual([
      { milliunits: 800_000, decimal: '800.00', formatted: '$800.00' },
      { milliunits: 250_100, decimal: '250.10', formatted: '$250.10' },
    ]);
    expect(await assign({ budgeted: '800' })).toEqual([
      { milliunits: 800_000, decimal: '800.00', formatted: '$800.00' },
      { milliunits: 800_000, decimal: '800.00', formatted: '$800.00' },
    ]);
    expect(await assign({ budgetedMilliunits: 250_100 })).toEqual([
      { milliunits: 250_100, decimal: '250.10', formatted: '$250.10' },
      { milliunits: 800_000, decimal: '800.00', formatted: '$800.00' },
    ]);
    const rest = await stack.writer.getMonthCategoryById(
      { token: stack.token },
      { planId: stack.planId, month: '2025-06-01', categoryId },
    );
    expect(rest.category.budgeted).toBe(250_100);
  });
});
