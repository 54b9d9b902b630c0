/**
 * Account, category, month category, category group, payee and scheduled transaction mutations:
 * each write checked at the sandbox through REST, and the payload's linked objects current.
 */
import type { MonthDetail } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack } from '../support/stack.js';
import { MUTATIONS, type MutationStack, resultOf, withLookups } from './support/plan-lookups.js';

let stack: MutationStack;

beforeAll(async () => {
  stack = withLookups(await startStack(MUTATIONS));
  await stack.gql('{ plan(id: "last-used") { id } }');
});

afterAll(() => stack.close());

describe('createAccount', () => {
  it('creates an account with its transfer payee and starting balance', async () => {
    stack.resetUpstreamCalls();
    const response = await stack.gql(
      `mutation($planId: PlanId!, $input: CreateAccountInput!) {
        createAccount(planId: $planId, input: $input) {
          __typename
          ... on CreateAccountPayload {
            account { id name type onBudget balance clearedBalance transferPayee { id name transferAccount { id } }
              transactions(first: 5) { totalCount nodes { amount payee { name } } } }
            plan { accounts { id } }
          }
        }
      }`,
      {
        planId: stack.planId,
        input: { name: 'Holiday Fund', type: 'savings', balance: 1_234_560 },
      },
    );
    const payload = resultOf<{
      account: {
        id: string;
        name: string;
        type: string;
        onBudget: boolean;
        balance: number;
        clearedBalance: number;
        transferPayee: { id: string; name: string; transferAccount: { id: string } };
        transactions: { totalCount: number; nodes: { amount: number; payee: { name: string } }[] };
      };
      plan: { accounts: { id: string }[] };
    }>(response, 'createAccount', 'CreateAccountPayload');
    expect(stack.upstreamCalls()).toEqual(['createAccount', 'getPlanById']);
    const account = payload.account;
    expect(account).toMatchObject({
      name: 'Holiday Fund',
      type: 'savings',
      onBudget: true,
      balance: 1_234_560,
      clearedBalance: 1_234_560,
    });
    expect(account.transferPayee.transferAccount.id).toBe(account.id);
    expect(account.transactions.totalCount).toBe(1);
    expect(account.transactions.nodes[0]?.amount).toBe(1_234_560);
    expect(payload.plan.accounts.map((a) => a.id)).toContain(account.id);
    const rest = await stack.account(account.id);
    expect(rest).toMatchObject({
      name: 'Holiday Fund',
      type: 'savings',
      balance: 1_234_560,
      transfer_payee_id: account.transferPayee.id,
    });
  });
});

describe('categories and category groups', () => {
  it('createCategoryGroup and createCategory: the new category sits in its group', async () => {
    const group = resultOf<{
      categoryGroup: { id: string; name: string; hidden: boolean };
      serverKnowledge: number;
    }>(
      await stack.gql(
        `mutation($planId: PlanId!) { createCategoryGroup(planId: $planId, input: { name: "Pets" }) {
          __typename ... on CreateCategoryGroupPayload { serverKnowledge categoryGroup { id name hidden } } } }`,
        { planId: stack.planId },
      ),
      'createCategoryGroup',
      'CreateCategoryGroupPayload',
    );
    expect(group.categoryGroup).toMatchObject({ name: 'Pets', hidden: false });
    const groups = await stack.restData<{ category_groups: { id: string; name: string }[] }>(
      `/plans/${stack.planId}/categories`,
    );
    expect(groups.category_groups.find((g) => g.id === group.categoryGroup.id)?.name).toBe('Pets');

    stack.resetUpstreamCalls();
    const response = await stack.gql(
      `mutation($planId: PlanId!, $input: CreateCategoryInput!) {
        createCategory(planId: $planId, input: $input) {
          __typename ... on CreateCategoryPayload { category {
            id name note budgeted balance goalType goalTarget categoryGroupName group { id name categories { id } }
          } }
        }
      }`,
      {
        planId: stack.planId,
        input: {
          name: 'Vet',
          categoryGroupId: group.categoryGroup.id,
          note: 'annual check-up',
          goalTarget: 600_000,
        },
      },
    );
    const category = resultOf<{
      category: {
        id: string;
        name: string;
        note: string;
        budgeted: number;
        balance: number;
        goalType: string;
        goalTarget: number;
        categoryGroupName: string;
        group: { id: string; name: string; categories: { id: string }[] };
      };
    }>(response, 'createCategory', 'CreateCategoryPayload').category;
    expect(stack.upstreamCalls()).toEqual(['createCategory', 'getPlanById']);
    expect(category).toMatchObject({
      name: 'Vet',
      note: 'annual check-up',
      budgeted: 0,
      balance: 0,
      goalType: 'NEED',
      goalTarget: 600_000,
      categoryGroupName: 'Pets',
    });
    expect(category.group.categories.map((c) => c.id)).toEqual([category.id]);
    expect(await stack.category(category.id)).toMatchObject({
      name: 'Vet',
      category_group_id: group.categoryGroup.id,
      goal_target: 600_000,
    });
  });

  it('updateCategory renames and changes the goal', async () => {
    const target = await stack.spendingCategory(1);
    const response = await stack.gql(
      `mutation($planId: PlanId!, $id: UUID!, $input: UpdateCategoryInput!) {
        updateCategory(planId: $planId, categoryId: $id, input: $input) {
          __typename ... on UpdateCategoryPayload { serverKnowledge category { id name goalTarget balance } }
        }
      }`,
      {
        planId: stack.planId,
        id: target.id,
        input: { name: `${target.name} (renamed)`, goalTarget: 987_000 },
      },
    );
    const payload = resultOf<{ category: { name: string; goalTarget: number; balance: number } }>(
      response,
      'updateCategory',
      'UpdateCategoryPayload',
    );
    const rest = await stack.category(target.id);
    expect(rest).toMatchObject({ name: `${target.name} (renamed)`, goal_target: 987_000 });
    expect(payload.category).toEqual({
      id: target.id,
      name: rest.name,
      goalTarget: 987_000,
      balance: rest.balance,
    });
  });

  it('updateMonthCategory assigns money; the category, the month totals and money movements follow', async () => {
    const target = await stack.spendingCategory(2);
    const before = await stack.monthCategory('2025-06-01', target.id);
    // Read money movements first so the REST cache holds them; the write must make it forget them.
    const moved = await stack.gql<{ plan: { moneyMovements: { totalCount: number } } }>(
      '{ plan(id: "last-used") { moneyMovements { totalCount } } }',
    );
    const movementsBefore = moved.body.data!.plan.moneyMovements.totalCount;
    stack.resetUpstreamCalls();
    const response = await stack.gql(
      `mutation($planId: PlanId!, $id: UUID!) {
        updateMonthCategory(planId: $planId, month: "current", categoryId: $id, input: { budgeted: ${before.budgeted + 55_000} }) {
          __typename ... on UpdateMonthCategoryPayload {
            serverKnowledge
            category { id month budgeted balance }
            month { month budgeted toBeBudgeted }
          }
        }
      }`,
      { planId: stack.planId, id: target.id },
    );
    const payload = resultOf<{
      category: { month: string; budgeted: number; balance: number };
      month: { month: string; budgeted: number; toBeBudgeted: number };
    }>(response, 'updateMonthCategory', 'UpdateMonthCategoryPayload');
    // One step past the replica: the month totals come from the gateway's arithmetic, no delta.
    expect(stack.upstreamCalls()).toEqual(['updateMonthCategory']);
    const rest = await stack.monthCategory('2025-06-01', target.id);
    expect(rest.budgeted).toBe(before.budgeted + 55_000);
    expect(payload.category).toMatchObject({
      month: '2025-06-01',
      budgeted: rest.budgeted,
      balance: rest.balance,
    });
    const month = (
      await stack.restData<{ month: MonthDetail }>(`/plans/${stack.planId}/months/2025-06-01`)
    ).month;
    expect(payload.month).toEqual({
      month: '2025-06-01',
      budgeted: month.budgeted,
      toBeBudgeted: month.to_be_budgeted,
    });

    stack.resetUpstreamCalls();
    const after = await stack.gql<{ plan: { moneyMovements: { totalCount: number } } }>(
      '{ plan(id: "last-used") { moneyMovements { totalCount } } }',
    );
    expect(after.body.data!.plan.moneyMovements.totalCount).toBe(movementsBefore + 1);
    expect(stack.upstreamCalls()).toEqual(['getMoneyMovements']);
  });

  it('updateCategoryGroup renames a group; its categories show the new group name at once', async () => {
    const groups = await stack.restData<{
      category_groups: {
        id: string;
        name: string;
        internal: boolean;
        categories: { id: string }[];
      }[];
    }>(`/plans/${stack.planId}/categories`);
    const group = groups.category_groups.find(
      (g) => !g.internal && g.name !== 'Credit Card Payments' && g.categories.length > 1,
    )!;
    stack.resetUpstreamCalls();
    const response = await stack.gql(
      `mutation($planId: PlanId!, $id: UUID!) {
        updateCategoryGroup(planId: $planId, categoryGroupId: $id, input: { name: "Renamed group" }) {
          __typename ... on UpdateCategoryGroupPayload { categoryGroup { id name categories { categoryGroupName } } }
        }
      }`,
      { planId: stack.planId, id: group.id },
    );
    const payload = resultOf<{
      categoryGroup: { name: string; categories: { categoryGroupName: string }[] };
    }>(response, 'updateCategoryGroup', 'UpdateCategoryGroupPayload');
    // The answer is the whole effect: no delta sync.
    expect(stack.upstreamCalls()).toEqual(['updateCategoryGroup']);
    expect(payload.categoryGroup.name).toBe('Renamed group');
    expect(payload.categoryGroup.categories.map((c) => c.categoryGroupName)).toEqual(
      group.categories.map(() => 'Renamed group'),
    );
    const rest = await stack.restData<{
      category_groups: {
        id: string;
        name: string;
        categories: { category_group_name: string }[];
      }[];
    }>(`/plans/${stack.planId}/categories`);
    const renamed = rest.category_groups.find((g) => g.id === group.id)!;
    expect(renamed.name).toBe('Renamed group');
    expect(renamed.categories.every((c) => c.category_group_name === 'Renamed group')).toBe(true);
  });
});

describe('payees', () => {
  it('createPayee and updatePayee; transactions show the new name', async () => {
    stack.resetUpstreamCalls();
    const created = resultOf<{
      payee: { id: string; name: string; transferAccount: null };
      serverKnowledge: number;
    }>(
      await stack.gql(
        `mutation($planId: PlanId!) { createPayee(planId: $planId, input: { name: "Dog Groomer" }) {
          __typename ... on CreatePayeePayload { serverKnowledge payee { id name transferAccount { id } } } } }`,
        { planId: stack.planId },
      ),
      'createPayee',
      'CreatePayeePayload',
    );
    expect(stack.upstreamCalls()).toEqual(['createPayee']);
    expect(created.payee).toMatchObject({ name: 'Dog Groomer', transferAccount: null });
    expect((await stack.payees()).find((p) => p.id === created.payee.id)?.name).toBe('Dog Groomer');

    // A transaction to that payee, then a rename: the transaction shows the new name.
    const checking = await stack.accountOfType('checking');
    const tx = await stack.gql<{ createTransaction: { transaction: { id: string } } }>(
      `mutation($planId: PlanId!, $input: CreateTransactionInput!) { createTransaction(planId: $planId, input: $input) {
        ... on CreateTransactionPayload { transaction { id } } } }`,
      {
        planId: stack.planId,
        input: {
          accountId: checking.id,
          date: '2025-06-15',
          amount: -45_000,
          payeeId: created.payee.id,
        },
      },
    );
    const txId = tx.body.data!.createTransaction.transaction.id;

    stack.resetUpstreamCalls();
    const response = await stack.gql(
      `mutation($planId: PlanId!, $id: UUID!, $txId: ID!) {
        updatePayee(planId: $planId, payeeId: $id, input: { name: "Pet Spa" }) {
          __typename ... on UpdatePayeePayload { payee { id name } plan { transaction(id: $txId) { payeeName payee { name } } } }
        }
      }`,
      { planId: stack.planId, id: created.payee.id, txId },
    );
    const updated = resultOf<{
      payee: { name: string };
      plan: { transaction: { payeeName: string; payee: { name: string } } };
    }>(response, 'updatePayee', 'UpdatePayeePayload');
    expect(stack.upstreamCalls()).toEqual(['updatePayee']);
    expect(updated.payee.name).toBe('Pet Spa');
    expect(updated.plan.transaction).toEqual({ payeeName: 'Pet Spa', payee: { name: 'Pet Spa' } });
    expect((await stack.payees()).find((p) => p.id === created.payee.id)?.name).toBe('Pet Spa');
    expect((await stack.transaction(txId)).payee_name).toBe('Pet Spa');
  });
});

describe('scheduled transactions', () => {
  const SELECTION = `id dateFirst dateNext frequency amount memo flagColor deleted
    account { id name } payee { name } category { id name }`;

  it('creates, updates and deletes a scheduled transaction', async () => {
    const checking = await stack.accountOfType('checking');
    const category = await stack.spendingCategory(3);
    stack.resetUpstreamCalls();
    const created = resultOf<{
      scheduledTransaction: {
        id: string;
        dateNext: string;
        account: { id: string };
        payee: { name: string };
        category: { id: string };
      };
    }>(
      await stack.gql(
        `mutation($planId: PlanId!, $input: CreateScheduledTransactionInput!) {
          createScheduledTransaction(planId: $planId, input: $input) {
            __typename ... on CreateScheduledTransactionPayload { scheduledTransaction { ${SELECTION} } }
          }
        }`,
        {
          planId: stack.planId,
          input: {
            accountId: checking.id,
            date: '2025-07-01',
            amount: -15_990,
            frequency: 'monthly',
            payeeName: 'Music Service',
            categoryId: category.id,
            memo: 'family plan',
            flagColor: 'blue',
          },
        },
      ),
      'createScheduledTransaction',
      'CreateScheduledTransactionPayload',
    );
    expect(stack.upstreamCalls()).toEqual(['createScheduledTransaction', 'getPlanById']);
    const scheduled = created.scheduledTransaction;
    expect(scheduled).toMatchObject({
      dateFirst: '2025-07-01',
      dateNext: '2025-07-01',
      frequency: 'monthly',
      amount: -15_990,
      memo: 'family plan',
      flagColor: 'blue',
      deleted: false,
      account: { id: checking.id },
      payee: { name: 'Music Service' },
      category: { id: category.id },
    });
    expect(await stack.scheduledTransaction(scheduled.id)).toMatchObject({
      date_next: '2025-07-01',
      frequency: 'monthly',
      amount: -15_990,
      payee_name: 'Music Service',
      category_id: category.id,
    });

    const updated = resultOf<{
      scheduledTransaction: {
        dateNext: string;
        amount: number;
        frequency: string;
        memo: string | null;
      };
    }>(
      await stack.gql(
        `mutation($planId: PlanId!, $id: UUID!, $input: UpdateScheduledTransactionInput!) {
          updateScheduledTransaction(planId: $planId, scheduledTransactionId: $id, input: $input) {
            __typename ... on UpdateScheduledTransactionPayload { scheduledTransaction { ${SELECTION} } }
          }
        }`,
        {
          planId: stack.planId,
          id: scheduled.id,
          input: {
            accountId: checking.id,
            date: '2025-07-15',
            amount: -17_990,
            frequency: 'yearly',
            memo: null,
          },
        },
      ),
      'updateScheduledTransaction',
      'UpdateScheduledTransactionPayload',
    );
    expect(updated.scheduledTransaction).toMatchObject({
      dateNext: '2025-07-15',
      amount: -17_990,
      frequency: 'yearly',
      memo: null,
    });
    expect(await stack.scheduledTransaction(scheduled.id)).toMatchObject({
      date_next: '2025-07-15',
      amount: -17_990,
      frequency: 'yearly',
      memo: null,
    });

    const deleted = resultOf<{
      scheduledTransaction: { id: string; deleted: boolean };
      plan: { scheduledTransactions: { nodes: { id: string }[] } };
    }>(
      await stack.gql(
        `mutation($planId: PlanId!, $id: UUID!) {
          deleteScheduledTransaction(planId: $planId, scheduledTransactionId: $id) {
            __typename ... on DeleteScheduledTransactionPayload { scheduledTransaction { id deleted } plan { scheduledTransactions { nodes { id } } } }
          }
        }`,
        { planId: stack.planId, id: scheduled.id },
      ),
      'deleteScheduledTransaction',
      'DeleteScheduledTransactionPayload',
    );
    expect(deleted.scheduledTransaction).toEqual({ id: scheduled.id, deleted: true });
    const listed = deleted.plan.scheduledTransactions.nodes.map((n) => n.id);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed).not.toContain(scheduled.id);
    expect(
      (await stack.rest(`/plans/${stack.planId}/scheduled_transactions/${scheduled.id}`)).status,
    ).toBe(404);
  });
});
