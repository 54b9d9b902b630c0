/**
 * A budgeting conversation as an agent has it, written once for any transport: give it a Client
 * made by `conversationClient` (elicitation declared, answered by the script), connected over
 * Streamable HTTP or stdio to a gateway with writes on over the sandbox's seeded plan, and the
 * REST access to check each write against. Every amount in and out is checked in its three forms;
 * accounts, categories and payees are named, not given by id. The steps it takes are returned
 * (tool, arguments, what the answer said), as docs/mcp.md shows them.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { UpstreamClient } from '../../../src/upstream/client.js';
import { type AmountForms, amountsIn, call, textOf } from './mcp-clients.js';

/** The user, as the elicitation handler answers for them. */
export interface User {
  /** What the next confirmation is answered. */
  answer: 'yes' | 'no';
  /** The questions asked, in order. */
  readonly asked: string[];
}

/** A client that declares elicitation, and the user answering it. Connect it, then run. */
export function conversationClient(): { client: Client; user: User } {
  const user: User = { answer: 'yes', asked: [] };
  const client = new SdkClient(
    { name: 'budgeting-conversation', version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    user.asked.push(request.params.message);
    return user.answer === 'yes'
      ? { action: 'accept', content: { confirm: true } }
      : { action: 'decline' };
  });
  return { client, user };
}

/** What the script checks writes against: the REST interface with the same token and plan. */
export interface RestSide {
  readonly writer: UpstreamClient;
  readonly token: string;
  readonly planId: string;
  /** Today, as the gateway's clock has it (`YYYY-MM-DD`). */
  readonly today: string;
}

export interface Step {
  readonly say: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly answer: string;
}

/** The three forms of `milliunits` in the seeded plan's currency (US dollars). */
export function dollars(milliunits: number): AmountForms {
  const sign = milliunits < 0 ? '-' : '';
  const cents = Math.round(Math.abs(milliunits) / 10);
  const whole = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const decimal = `${sign}${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  return {
    milliunits,
    decimal,
    formatted: `${sign}$${whole}.${String(cents % 100).padStart(2, '0')}`,
  };
}

/** Every amount of a result agrees with itself in its three forms. */
function expectAmountsAgree(value: unknown): void {
  for (const amount of amountsIn(value)) expect(amount).toEqual(dollars(amount.milliunits));
}

type Json = Record<string, unknown>;

/** Runs the conversation; throws (vitest's expect) at the first answer that is wrong. */
export async function runBudgetingConversation(
  client: Client,
  user: User,
  rest: RestSide,
): Promise<Step[]> {
  const steps: Step[] = [];
  const month = rest.today.slice(0, 7);
  const auth = { token: rest.token };
  const plan = { planId: rest.planId };
  const ask = async (
    say: string,
    tool: string,
    args: Json = {},
    answer?: (data: Json) => string,
  ) => {
    const result = await call(client, tool, args);
    expect(result.isError, textOf(result)).toBeFalsy();
    const data = result.structuredContent as Json;
    expectAmountsAgree(data);
    steps.push({ say, tool, args, answer: answer ? answer(data) : '' });
    return data;
  };
  const refused = async (tool: string, args: Json) => {
    const result = await call(client, tool, args);
    expect(result.isError).toBe(true);
    return textOf(result);
  };
  const restTransaction = async (id: string) =>
    (await rest.writer.getTransactionById(auth, { ...plan, transactionId: id })).transaction;
  const restBudgeted = async (categoryId: string) =>
    (
      await rest.writer.getMonthCategoryById(auth, {
        ...plan,
        month: `${month}-01`,
        categoryId,
      })
    ).category;

  // 1. Which plans, and how is this one doing.
  const plans = await ask('Which budgets do I have?', 'list_plans', {}, (d) =>
    (d.plans as { name: string }[]).map((p) => p.name).join(', '),
  );
  expect((plans.plans as { id: string }[]).map((p) => p.id)).toContain(rest.planId);
  const overview = await ask('How am I doing?', 'plan_overview', { planId: rest.planId }, (d) => {
    const m = (d.plan as { month: { toBeBudgeted: AmountForms } }).month;
    return `Ready to Assign ${m.toBeBudgeted.formatted}`;
  });
  const accounts = (
    overview.plan as { accounts: { id: string; name: string; balance: AmountForms }[] }
  ).accounts;
  const restAccounts = (await rest.writer.getAccounts(auth, plan)).accounts;
  for (const account of accounts)
    expect(account.balance.milliunits).toBe(restAccounts.find((a) => a.id === account.id)?.balance);
  const checking = restAccounts.find((a) => a.name === 'Everyday Checking')!;
  const savings = restAccounts.find((a) => a.name === 'Rainy Day Savings')!;
  const { category_groups } = await rest.writer.getCategories(auth, plan);
  const categories = category_groups.flatMap((g) => g.categories).filter((c) => !c.deleted);
  const groceries = categories.find((c) => c.name === 'Groceries')!.id;
  const dining = categories.find((c) => c.name === 'Dining Out')!.id;

  // 2. Spending on groceries this month: the report counts splits by their lines, and equals
  // the month's category activity.
  const groceriesSpent = async (say: string) => {
    const report = await ask(
      say,
      'spending_report',
      { planId: rest.planId, month: 'current' },
      (d) => {
        const g = (d.groups as { name: string; net: AmountForms }[]).find(
          (x) => x.name === 'Groceries',
        );
        return `Groceries ${g?.net.formatted ?? '$0.00'}`;
      },
    );
    const line = (report.groups as { id: string; net: AmountForms }[]).find(
      (g) => g.id === groceries,
    );
    const activity = (await restBudgeted(groceries)).activity;
    expect(line?.net.milliunits ?? 0).toBe(activity);
    return activity;
  };
  const spentBefore = await groceriesSpent('How much did I spend on groceries this month?');
  const history = await ask(
    'And groceries month by month, since the start of the year?',
    'spending_report',
    {
      categoryId: 'Groceries',
      groupBy: 'month',
      sinceDate: `${month.slice(0, 4)}-01-01`,
      untilDate: rest.today,
    },
    (d) =>
      (d.groups as { name: string; net: AmountForms }[])
        .map((g) => `${g.name} ${g.net.formatted}`)
        .join(', '),
  );
  const months = history.groups as { id: string; net: AmountForms }[];
  expect(months.map((g) => g.id)).toEqual([...months.map((g) => g.id)].sort());
  expect(months.at(-1)).toMatchObject({ id: `${month}-01`, net: dollars(spentBefore) });
  expect((history.matched as { name: string }[])[0]?.name).toBe('Groceries');

  // 3. Categorize and approve what is uncategorized: two new imports, found, named, fixed.
  const created: string[] = [];
  for (const [payeeName, amount] of [
    ['Corner Grocer', '-23.40'],
    ['Farmers Market', -16.6],
  ] as const) {
    const made = await ask('(an import arrives)', 'create_transaction', {
      accountId: 'everyday',
      date: rest.today,
      amount,
      payeeName,
      approved: false,
    });
    created.push((made.createTransaction as { transaction: { id: string } }).transaction.id);
  }
  const uncategorized = await ask(
    'What is uncategorized?',
    'search_transactions',
    { type: 'uncategorized', sinceDate: `${month}-01`, first: 100 },
    (d) =>
      `${(d.plan as { transactions: { nodes: unknown[] } }).transactions.nodes.length} transactions`,
  );
  const found = (
    uncategorized.plan as { transactions: { nodes: { id: string }[] } }
  ).transactions.nodes.map((n) => n.id);
  expect(found).toEqual(expect.arrayContaining(created));
  const categorized = await ask(
    'Those two are groceries.',
    'categorize_transactions',
    { transactions: created.map((id) => ({ id, categoryId: 'groceries' })) },
    (d) =>
      `matched ${(d.matched as { name: string }[]).map((m) => m.name).join(', ')}; replaced ${(
        d.replaced as { categoryName: string | null; amount: AmountForms }[]
      )
        .map((r) => `${r.amount.formatted} ${r.categoryName ?? 'uncategorized'}`)
        .join(', ')}`,
  );
  // It overwrites categories: the user was asked first (and said yes).
  expect(user.asked.at(-1)).toMatch(/^Categorize transactions with .*groceries/);
  expect(categorized.matched).toEqual(
    created.map((_, i) => ({
      argument: `transactions[${i}].categoryId`,
      given: 'groceries',
      kind: 'category',
      id: groceries,
      name: 'Groceries',
    })),
  );
  // What each had before, in all three forms: uncategorized, unapproved.
  expect(categorized.replaced).toEqual([
    expect.objectContaining({ id: created[0], amount: dollars(-23_400), categoryId: null }),
    expect.objectContaining({ id: created[1], amount: dollars(-16_600), categoryId: null }),
  ]);
  const approved = await ask(
    'And approve them.',
    'approve_transactions',
    { transactions: created.map((id) => ({ id })) },
    (d) =>
      (
        d.updateTransactions as { transactions: { amount: AmountForms; approved: boolean }[] }
      ).transactions
        .map((t) => `${t.amount.formatted} approved ${t.approved}`)
        .join(', '),
  );
  expect(
    (approved.replaced as { approved: boolean; categoryId: string }[]).map((r) => [
      r.approved,
      r.categoryId,
    ]),
  ).toEqual([
    [false, groceries],
    [false, groceries],
  ]);
  for (const id of created) {
    const saved = await restTransaction(id);
    expect([saved.category_id, saved.approved]).toEqual([groceries, true]);
  }
  expect(await groceriesSpent('And groceries now?')).toBe(spentBefore - 40_000);

  // 4. A split: 100.00 at the hypermarket, 60.25 groceries and 39.75 dining out.
  const split = await ask(
    'I spent 100 at the Hypermarket: 60.25 groceries, the rest dining out.',
    'create_transaction',
    {
      accountId: 'Everyday Checking',
      date: rest.today,
      amount: '-100.00',
      payeeName: 'Hypermarket',
      subtransactions: [
        { amount: -60.25, categoryId: 'Groceries' },
        { amountMilliunits: -39_750, categoryId: 'dining out' },
      ],
    },
    (d) =>
      (
        d.createTransaction as {
          transaction: { subtransactions: { amount: AmountForms; categoryName: string }[] };
        }
      ).transaction.subtransactions
        .map((s) => `${s.categoryName} ${s.amount.formatted}`)
        .join(', '),
  );
  const splitTransaction = (
    split.createTransaction as {
      transaction: { id: string; amount: AmountForms; subtransactions: { amount: AmountForms }[] };
    }
  ).transaction;
  expect(splitTransaction.amount).toEqual(dollars(-100_000));
  expect(splitTransaction.subtransactions.map((s) => s.amount)).toEqual([
    dollars(-60_250),
    dollars(-39_750),
  ]);
  const savedSplit = await restTransaction(splitTransaction.id);
  expect(savedSplit.subtransactions.map((s) => [s.amount, s.category_id])).toEqual([
    [-60_250, groceries],
    [-39_750, dining],
  ]);
  expect(await groceriesSpent('Groceries with the split?')).toBe(spentBefore - 100_250);

  // 5. A transfer: the payee is the other account, named; left out of spending.
  const transfer = await ask(
    'Move 250 from checking to rainy day savings.',
    'create_transaction',
    { accountId: 'everyday checking', date: rest.today, amount: -250, payeeId: 'Rainy Day' },
    (d) => `matched ${(d.matched as { name: string }[]).map((m) => m.name).join(', ')}`,
  );
  const transferId = (transfer.createTransaction as { transaction: { id: string } }).transaction.id;
  const savedTransfer = await restTransaction(transferId);
  expect([
    savedTransfer.account_id,
    savedTransfer.amount,
    savedTransfer.transfer_account_id,
  ]).toEqual([checking.id, -250_000, savings.id]);
  expect(await groceriesSpent('Did that change spending?')).toBe(spentBefore - 100_250);

  // 6. Move money between two categories; a whole number and a decimal string write the same.
  const diningBefore = (await restBudgeted(dining)).budgeted;
  const groceriesBefore = (await restBudgeted(groceries)).budgeted;
  const moved = await ask(
    'Cover groceries with 12 from dining out.',
    'move_money',
    { fromCategoryId: 'Dining Out', toCategoryId: 'groceries', amount: 12 },
    (d) => `moved ${(d.moved as AmountForms).formatted}`,
  );
  expect(moved.moved).toEqual(dollars(12_000));
  expect((moved.from as { replacedBudgeted: AmountForms }).replacedBudgeted).toEqual(
    dollars(diningBefore),
  );
  expect((moved.from as { budgeted: AmountForms }).budgeted).toEqual(
    dollars(diningBefore - 12_000),
  );
  expect((moved.to as { budgeted: AmountForms }).budgeted).toEqual(
    dollars(groceriesBefore + 12_000),
  );
  const again = await ask('And 12.00 more.', 'move_money', {
    fromCategoryId: dining,
    toCategoryId: groceries,
    amount: '12.00',
  });
  expect(again.moved).toEqual(dollars(12_000));
  expect((await restBudgeted(dining)).budgeted).toBe(diningBefore - 24_000);
  expect((await restBudgeted(groceries)).budgeted).toBe(groceriesBefore + 24_000);
  for (const budgeted of [800, '800.00']) {
    const assigned = await ask('Assign 800 to groceries.', 'assign_to_category', {
      categoryId: 'Groceries',
      budgeted,
    });
    expect(
      (assigned.updateMonthCategory as { category: { budgeted: AmountForms } }).category.budgeted,
    ).toEqual(dollars(800_000));
    expect((await restBudgeted(groceries)).budgeted).toBe(800_000);
  }

  // 7. Names that are not one thing are refused, each named, all at once; nothing is written.
  const names = categories.map((c) => c.name);
  const prefix = [...new Set(names.map((n) => n.charAt(0).toLowerCase()))].find(
    (p) => names.filter((n) => n.toLowerCase().startsWith(p)).length > 1,
  )!;
  const wrong = await refused('move_money', {
    fromCategoryId: prefix,
    toCategoryId: 'zzz-no-such-category',
    amount: '1.0001',
  });
  expect(wrong).toMatch(/^3 arguments are invalid/);
  expect(wrong).toMatch(/Argument "amount": "1.0001" has 4 decimals/);
  expect(wrong).toMatch(
    new RegExp(`Argument "fromCategoryId": "${prefix}" could be any of \\d+ categories`),
  );
  expect(wrong).toMatch(/Argument "toCategoryId": no category is named "zzz-no-such-category"/);
  expect((await restBudgeted(dining)).budgeted).toBe(diningBefore - 24_000);

  // 8. Delete, with confirmation: declined first (nothing changes), then confirmed.
  const mistake = created[1]!;
  user.answer = 'no';
  const declined = await refused('delete_transaction', { transactionId: mistake });
  expect(declined).toMatch(/did not confirm delete_transaction: nothing was changed/);
  expect(user.asked.at(-1)).toMatch(/^Delete transaction .*It replaces: .*-\$16\.60/);
  expect((await restTransaction(mistake)).deleted).toBe(false);
  user.answer = 'yes';
  const deleted = await ask(
    'Delete the farmers market one, it was a mistake.',
    'delete_transaction',
    { transactionId: mistake },
    (d) =>
      `deleted ${(d.replaced as { plan: { transaction: { amount: AmountForms } } }).plan.transaction.amount.formatted}`,
  );
  expect(
    (deleted.replaced as { plan: { transaction: { amount: AmountForms } } }).plan.transaction
      .amount,
  ).toEqual(dollars(-16_600));
  await expect(restTransaction(mistake)).rejects.toThrow();
  expect(await groceriesSpent('Groceries after the delete?')).toBe(spentBefore - 83_650);
  return steps;
}
