/**
 * Writes in one trip: when a write's answer is exactly one knowledge step past the replica, the
 * gateway applies its derived effects (balances, activity, Ready to Assign, a transfer's other
 * side, card spending's payment category, a payee created by name, a target's progress) from its
 * own arithmetic and answers without a delta; the next delta checks them. Another change in
 * between (two steps), or a write the arithmetic does not follow, runs the delta as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack } from '../support/stack.js';
import {
  MUTATIONS,
  type MutationStack,
  resultOf,
  TODAY,
  withLookups,
} from './support/plan-lookups.js';

const CREATE_BALANCE = `mutation($p: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $p, input: $input) {
    __typename
    ... on CreateTransactionPayload { transaction { id account { balance clearedBalance unclearedBalance } } }
  }
}`;

type Created = {
  transaction: {
    id: string;
    account: { balance: number; clearedBalance: number; unclearedBalance: number };
  };
};

let stack: MutationStack;

beforeAll(async () => {
  stack = withLookups(await startStack(MUTATIONS));
});
afterAll(() => stack.close());

const upstreamCalls = () => stack.upstreamCalls();

/** The replica is read (so current) and the upstream calls counted from here. */
async function replicaCurrent(): Promise<void> {
  await stack.gql('{ plan(id: "last-used") { id } }');
  stack.resetUpstreamCalls();
}

describe('a write selecting its account balance', () => {
  it('costs one upstream call when its answer is one step past the replica', async () => {
    const checking = await stack.accountOfType('checking');
    const category = await plainCategory(Number.MIN_SAFE_INTEGER, { budgeted: true });
    await replicaCurrent();

    const response = await stack.gql(CREATE_BALANCE, {
      p: stack.planId,
      input: {
        accountId: checking.id,
        date: TODAY,
        amount: -4_321,
        categoryId: category.id,
        cleared: 'uncleared',
      },
    });
    const created = resultOf<Created>(response, 'createTransaction', 'CreateTransactionPayload');
    expect(upstreamCalls()).toEqual(['createTransaction']);
    const account = await stack.account(checking.id);
    expect(created.transaction.account).toEqual({
      balance: account.balance,
      clearedBalance: account.cleared_balance,
      unclearedBalance: account.uncleared_balance,
    });
  });

  it("moves next month's Ready to Assign by what it overspends, without a delta", async () => {
    const checking = await stack.accountOfType('checking');
    const category = await plainCategory(Number.MIN_SAFE_INTEGER, { budgeted: true });
    const lastMonth = `${new Date(Date.parse(`${TODAY.slice(0, 7)}-01T00:00:00Z`) - 86_400_000)
      .toISOString()
      .slice(0, 7)}-01`;
    const before = await stack.monthCategory(lastMonth, category.id);
    await replicaCurrent();

    const response = await stack.gql(
      `mutation($p: PlanId!, $input: CreateTransactionInput!) {
        createTransaction(planId: $p, input: $input) {
          __typename
          ... on CreateTransactionPayload { plan { months { month income budgeted activity toBeBudgeted } } }
        }
      }`,
      {
        p: stack.planId,
        input: {
          accountId: checking.id,
          date: `${lastMonth.slice(0, 7)}-10`,
          amount: -(Math.max(0, before.balance) + 77_000),
          categoryId: category.id,
        },
      },
    );
    const payload = resultOf<{
      plan: {
        months: {
          month: string;
          income: number;
          budgeted: number;
          activity: number;
          toBeBudgeted: number;
        }[];
      };
    }>(response, 'createTransaction', 'CreateTransactionPayload');
    expect(upstreamCalls()).toEqual(['createTransaction']);
    const rest = await stack.restData<{
      months: {
        month: string;
        income: number;
        budgeted: number;
        activity: number;
        to_be_budgeted: number;
        deleted: boolean;
      }[];
    }>(`/plans/${stack.planId}/months`);
    const expected = rest.months
      .filter((m) => !m.deleted)
      .map((m) => ({
        month: m.month,
        income: m.income,
        budgeted: m.budgeted,
        activity: m.activity,
        toBeBudgeted: m.to_be_budgeted,
      }));
    const byMonth = (a: { month: string }, b: { month: string }) => a.month.localeCompare(b.month);
    expect([...payload.plan.months].sort(byMonth)).toEqual(expected.sort(byMonth));
    expect(await stack.monthCategory(lastMonth, category.id)).toMatchObject({ balance: -77_000 });
  });

  it('costs the write and a delta when another change happened in between', async () => {
    const checking = await stack.accountOfType('checking');
    const savings = await stack.accountOfType('savings');
    await stack.gql('{ plan(id: "last-used") { id } }');
    // A change the replica does not know of: the write's answer is two steps past it.
    const other = await fetch(`${stack.sandbox.url}/plans/${stack.planId}/transactions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stack.token}`,
        'content-type': 'application/json',
        connection: 'close',
      },
      body: JSON.stringify({
        transaction: { account_id: savings.id, date: TODAY, amount: -1_000 },
      }),
    });
    expect(other.status).toBe(201);
    stack.resetUpstreamCalls();

    const response = await stack.gql(CREATE_BALANCE, {
      p: stack.planId,
      input: { accountId: checking.id, date: TODAY, amount: -2_000 },
    });
    const created = resultOf<Created>(response, 'createTransaction', 'CreateTransactionPayload');
    expect(upstreamCalls()).toEqual(['createTransaction', 'getPlanById']);
    const account = await stack.account(checking.id);
    expect(created.transaction.account.balance).toBe(account.balance);
  });
});

const MONTHS = `query($p: PlanId!) { plan(id: $p) {
  months { month toBeBudgeted categories { categoryId budgeted activity balance } }
} }`;

type MonthsView = {
  plan: {
    months: {
      month: string;
      toBeBudgeted: number;
      categories: { categoryId: string; budgeted: number; activity: number; balance: number }[];
    }[];
  };
};

const CURRENT_MONTH = `${TODAY.slice(0, 7)}-01`;

/** The gateway's figures of a category in the current month, and the month's Ready to Assign. */
async function gatewayFigures(categoryId: string) {
  const response = await stack.gql<MonthsView>(MONTHS, { p: stack.planId });
  expect(response.body.errors).toBeUndefined();
  const month = response.body.data!.plan.months.find((m) => m.month === CURRENT_MONTH)!;
  const { budgeted, activity, balance } = month.categories.find(
    (c) => c.categoryId === categoryId,
  )!;
  return { budgeted, activity, balance, toBeBudgeted: month.toBeBudgeted };
}

/** The sandbox's figures of the same. */
async function sandboxFigures(categoryId: string) {
  const { budgeted, activity, balance } = await stack.monthCategory(CURRENT_MONTH, categoryId);
  const month = await stack.restData<{ month: { to_be_budgeted: number } }>(
    `/plans/${stack.planId}/months/${CURRENT_MONTH}`,
  );
  return { budgeted, activity, balance, toBeBudgeted: month.month.to_be_budgeted };
}

/** The gateway answers the sandbox's figures for the category, from its replica alone. */
async function expectSameFigures(categoryId: string) {
  stack.resetUpstreamCalls();
  const seen = await gatewayFigures(categoryId);
  expect(upstreamCalls()).toEqual([]);
  expect(seen).toEqual(await sandboxFigures(categoryId));
}

/**
 * A category the arithmetic follows (no target, visible, not internal) holding `atLeast`, with
 * money assigned this month when `budgeted`.
 */
async function plainCategory(atLeast = Number.MIN_SAFE_INTEGER, { budgeted = false } = {}) {
  const category = (await stack.categories()).find(
    (c) =>
      c.goal_type === null &&
      c.balance >= atLeast &&
      (!budgeted || c.budgeted > 0) &&
      !c.hidden &&
      !c.internal &&
      !c.deleted &&
      c.category_group_name !== 'Credit Card Payments' &&
      c.name !== 'Inflow: Ready to Assign',
  );
  if (!category) throw new Error('the seed has no category without a target');
  return category;
}

const TRANSFER = `mutation($p: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $p, input: $input) {
    __typename
    ... on CreateTransactionPayload { transaction {
      id
      account { balance clearedBalance unclearedBalance }
      transferAccount { id balance clearedBalance unclearedBalance }
      transferTransaction { id amount date cleared accountId payeeId categoryId transferAccountId transferTransactionId }
    } }
  }
}`;

type Transferred = {
  transaction: {
    id: string;
    account: { balance: number; clearedBalance: number; unclearedBalance: number };
    transferAccount: {
      id: string;
      balance: number;
      clearedBalance: number;
      unclearedBalance: number;
    };
    transferTransaction: Record<string, unknown>;
  };
};

const balancesOf = (account: {
  balance: number;
  cleared_balance: number;
  uncleared_balance: number;
}) => ({
  balance: account.balance,
  clearedBalance: account.cleared_balance,
  unclearedBalance: account.uncleared_balance,
});

describe('a transfer', () => {
  it("between two budget accounts: one upstream call, both balances and the other side as the sandbox's", async () => {
    const checking = await stack.accountOfType('checking');
    const savings = await stack.accountOfType('savings');
    await replicaCurrent();

    const response = await stack.gql(TRANSFER, {
      p: stack.planId,
      input: {
        accountId: checking.id,
        date: TODAY,
        amount: -25_000,
        payeeId: savings.transfer_payee_id,
        memo: 'to savings',
        cleared: 'cleared',
      },
    });
    const { transaction } = resultOf<Transferred>(
      response,
      'createTransaction',
      'CreateTransactionPayload',
    );
    expect(upstreamCalls()).toEqual(['createTransaction']);
    expect(transaction.account).toEqual(balancesOf(await stack.account(checking.id)));
    expect(transaction.transferAccount).toEqual({
      id: savings.id,
      ...balancesOf(await stack.account(savings.id)),
    });
    const side = await stack.transaction(transaction.transferTransaction.id as string);
    expect(transaction.transferTransaction).toEqual({
      id: side.id,
      amount: 25_000,
      date: side.date,
      cleared: side.cleared,
      accountId: savings.id,
      payeeId: side.payee_id,
      categoryId: null,
      transferAccountId: checking.id,
      transferTransactionId: transaction.id,
    });
  });

  it('from the budget to a tracking account keeps its category: its activity moves, one call', async () => {
    const checking = await stack.accountOfType('checking');
    const brokerage = await stack.accountOfType('otherAsset');
    const category = await plainCategory();
    await replicaCurrent();

    const response = await stack.gql(TRANSFER, {
      p: stack.planId,
      input: {
        accountId: checking.id,
        date: TODAY,
        amount: -31_000,
        payeeId: brokerage.transfer_payee_id,
        categoryId: category.id,
      },
    });
    const { transaction } = resultOf<Transferred>(
      response,
      'createTransaction',
      'CreateTransactionPayload',
    );
    expect(upstreamCalls()).toEqual(['createTransaction']);
    expect(transaction.transferAccount).toEqual({
      id: brokerage.id,
      ...balancesOf(await stack.account(brokerage.id)),
    });
    await expectSameFigures(category.id);
  });

  it("paying a credit card moves its payment category's activity, one call", async () => {
    const checking = await stack.accountOfType('checking');
    const card = await stack.accountOfType('creditCard');
    const payment = (await stack.categories()).find(
      (c) => c.category_group_name === 'Credit Card Payments' && c.name === card.name,
    )!;
    const before = await sandboxFigures(payment.id);
    await replicaCurrent();

    resultOf(
      await stack.gql(TRANSFER, {
        p: stack.planId,
        input: {
          accountId: checking.id,
          date: TODAY,
          amount: -12_000,
          payeeId: card.transfer_payee_id,
        },
      }),
      'createTransaction',
      'CreateTransactionPayload',
    );
    expect(upstreamCalls()).toEqual(['createTransaction']);
    expect((await sandboxFigures(payment.id)).activity).toBe(before.activity - 12_000);
    await expectSameFigures(payment.id);
  });
});

describe('spending on a credit card in a category', () => {
  it("moves the money to the card's payment category without a delta", async () => {
    const card = await stack.accountOfType('creditCard');
    const category = await plainCategory(9_500);
    const payment = (await stack.categories()).find(
      (c) => c.category_group_name === 'Credit Card Payments' && c.name === card.name,
    )!;
    const before = await sandboxFigures(payment.id);
    await replicaCurrent();

    const response = await stack.gql(CREATE_BALANCE, {
      p: stack.planId,
      input: { accountId: card.id, date: TODAY, amount: -9_500, categoryId: category.id },
    });
    const created = resultOf<Created>(response, 'createTransaction', 'CreateTransactionPayload');
    expect(upstreamCalls()).toEqual(['createTransaction']);
    expect(created.transaction.account).toEqual(balancesOf(await stack.account(card.id)));
    // The category had the money: its payment category received it.
    expect((await sandboxFigures(payment.id)).activity).toBe(before.activity + 9_500);
    await expectSameFigures(payment.id);
    await expectSameFigures(category.id);
  });
});

describe('a payee created by name', () => {
  it('is held from the write on: one upstream call', async () => {
    const checking = await stack.accountOfType('checking');
    await replicaCurrent();

    const response = await stack.gql(
      `mutation($p: PlanId!, $input: CreateTransactionInput!) {
        createTransaction(planId: $p, input: $input) {
          __typename
          ... on CreateTransactionPayload { transaction { id payee { id name } account { balance } } }
        }
      }`,
      {
        p: stack.planId,
        input: { accountId: checking.id, date: TODAY, amount: -600, payeeName: 'One-trip Bakery' },
      },
    );
    const created = resultOf<{
      transaction: { payee: { id: string; name: string }; account: { balance: number } };
    }>(response, 'createTransaction', 'CreateTransactionPayload');
    expect(upstreamCalls()).toEqual(['createTransaction']);
    const payee = (await stack.payees()).find((p) => p.name === 'One-trip Bakery')!;
    expect(created.transaction.payee).toEqual({ id: payee.id, name: payee.name });
    expect(created.transaction.account.balance).toBe((await stack.account(checking.id)).balance);
  });
});

describe('what the arithmetic does not follow', () => {
  it('a transfer from a split line: the write and its delta', async () => {
    const checking = await stack.accountOfType('checking');
    const savings = await stack.accountOfType('savings');
    const category = await plainCategory();
    await replicaCurrent();

    const response = await stack.gql(TRANSFER, {
      p: stack.planId,
      input: {
        accountId: checking.id,
        date: TODAY,
        amount: -30_000,
        subtransactions: [
          { amount: -10_000, categoryId: category.id },
          { amount: -20_000, payeeId: savings.transfer_payee_id },
        ],
      },
    });
    resultOf(response, 'createTransaction', 'CreateTransactionPayload');
    expect(upstreamCalls()).toEqual(['createTransaction', 'getPlanById']);
    const balances = await stack.gql<{ plan: { account: { balance: number } } }>(
      'query($p: PlanId!, $id: UUID!) { plan(id: $p) { account(id: $id) { balance } } }',
      { p: stack.planId, id: savings.id },
    );
    expect(balances.body.data?.plan.account.balance).toBe(
      (await stack.account(savings.id)).balance,
    );
  });
});

const PROGRESS = `query($p: PlanId!) { plan(id: $p) { months { month categories {
  categoryId budgeted activity balance
  goalPercentageComplete goalMonthsToBudget goalUnderFunded goalOverallFunded goalOverallLeft
} } } }`;

type Progress = {
  month: string;
  budgeted: number;
  activity: number;
  balance: number;
  goalPercentageComplete: number | null;
  goalMonthsToBudget: number | null;
  goalUnderFunded: number | null;
  goalOverallFunded: number | null;
  goalOverallLeft: number | null;
};

/** The category's amounts and target progress in every month, as the gateway answers them. */
async function gatewayProgress(categoryId: string): Promise<Progress[]> {
  const response = await stack.gql<{
    plan: { months: { month: string; categories: ({ categoryId: string } & Progress)[] }[] };
  }>(PROGRESS, { p: stack.planId });
  expect(response.body.errors).toBeUndefined();
  return response.body.data!.plan.months.flatMap((m) =>
    m.categories
      .filter((c) => c.categoryId === categoryId)
      .map(({ categoryId: _id, ...c }) => ({ ...c, month: m.month })),
  );
}

/** The same, from the sandbox's export. */
async function sandboxProgress(categoryId: string): Promise<Progress[]> {
  const { plan } = await stack.restData<{
    plan: {
      months: {
        month: string;
        deleted: boolean;
        categories: (Record<string, number | null> & { id: string })[];
      }[];
    };
  }>(`/plans/${stack.planId}`);
  return plan.months
    .filter((m) => !m.deleted)
    .flatMap((m) =>
      m.categories
        .filter((c) => c.id === categoryId)
        .map((c) => ({
          month: m.month,
          budgeted: c.budgeted as number,
          activity: c.activity as number,
          balance: c.balance as number,
          goalPercentageComplete: c.goal_percentage_complete ?? null,
          goalMonthsToBudget: c.goal_months_to_budget ?? null,
          goalUnderFunded: c.goal_under_funded ?? null,
          goalOverallFunded: c.goal_overall_funded ?? null,
          goalOverallLeft: c.goal_overall_left ?? null,
        })),
    );
}

/** The gateway answers the sandbox's amounts and progress in every month, from its replica. */
async function expectSameProgress(categoryId: string, context: string) {
  stack.resetUpstreamCalls();
  const byMonth = (a: Progress, b: Progress) => a.month.localeCompare(b.month);
  const seen = (await gatewayProgress(categoryId)).sort(byMonth);
  expect(upstreamCalls()).toEqual([]);
  expect(seen, context).toEqual((await sandboxProgress(categoryId)).sort(byMonth));
}

describe('a category with a target', () => {
  it('spent in on a credit card: one upstream call, its progress as the sandbox reports it', async () => {
    const card = await stack.accountOfType('creditCard');
    const target = await stack.categoryWithTarget();
    await replicaCurrent();

    const response = await stack.gql(CREATE_BALANCE, {
      p: stack.planId,
      input: { accountId: card.id, date: TODAY, amount: -4_000, categoryId: target.id },
    });
    const created = resultOf<Created>(response, 'createTransaction', 'CreateTransactionPayload');
    expect(upstreamCalls()).toEqual(['createTransaction']);
    expect(created.transaction.account.balance).toBe((await stack.account(card.id)).balance);
    await expectSameProgress(target.id, target.goal_type ?? '');
  });

  it('assigned to, of every kind of target: one upstream call each, the progress moved as the sandbox moves it', async () => {
    const targets = (await stack.categories()).filter(
      (c) => c.goal_type !== null && !c.hidden && !c.deleted,
    );
    const kinds = new Set<string>();
    for (const target of targets) {
      const before = await stack.monthCategory(CURRENT_MONTH, target.id);
      // What brings the target to half funded: by the month's balance for a target balance, by
      // the carried balance and the assignment for a refill, by the assignment alone otherwise.
      const half = Math.floor(
        ((before.goal_overall_funded ?? 0) + (before.goal_overall_left ?? 0)) / 2,
      );
      const carried = before.balance - before.budgeted - before.activity;
      const budgeted =
        target.goal_type === 'TB' || target.goal_type === 'TBD'
          ? before.budgeted + half - before.balance
          : target.goal_type === 'NEED' && target.goal_needs_whole_amount === false
            ? half - carried
            : half;
      await replicaCurrent();
      const response = await stack.gql(
        `mutation($p: PlanId!, $c: UUID!, $b: Milliunits!) {
          updateMonthCategory(planId: $p, month: "current", categoryId: $c, input: { budgeted: $b }) { __typename }
        }`,
        { p: stack.planId, c: target.id, b: budgeted },
      );
      expect(response.body.errors).toBeUndefined();
      const context = `${target.name} (${target.goal_type})`;
      expect(upstreamCalls(), context).toEqual(['updateMonthCategory']);
      const after = await stack.monthCategory(CURRENT_MONTH, target.id);
      expect(before.goal_overall_funded, context).not.toBe(half);
      expect(after.goal_overall_funded, context).toBe(half);
      await expectSameProgress(target.id, context);
      kinds.add(target.goal_type!);
    }
    expect([...kinds].sort()).toEqual(['DEBT', 'MF', 'NEED', 'TB', 'TBD']);
  });
});
