/**
 * Specification 1.86.0 through the graph: a category's target cadence (`goalFrequency`), the
 * recurring target `setCategoryTarget` sets or removes, each refusal of the specification as a
 * typed error or a named input error, and the version in `/health` and `extensions.upstream`.
 */
import { SPECIFICATION_VERSION } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack } from '../support/stack.js';
import { MUTATIONS, type MutationStack, resultOf, withLookups } from './support/plan-lookups.js';

let stack: MutationStack;

beforeAll(async () => {
  stack = withLookups(await startStack(MUTATIONS));
  await stack.gql('{ plan(id: "last-used") { id } }');
});

afterAll(() => stack.close());

const SET_TARGET = `mutation($planId: PlanId!, $id: UUID!, $target: RecurringTargetInput) {
  setCategoryTarget(planId: $planId, categoryId: $id, target: $target) {
    __typename
    ... on SetCategoryTargetPayload {
      category { id goalType goalTarget goalFrequency goalCadence goalCadenceFrequency goalTargetDate }
    }
    ... on Error { message }
    ... on ValidationError { restError { detail } }
  }
}`;

interface TargetFields {
  id: string;
  goalType: string | null;
  goalTarget: number | null;
  goalFrequency: string | null;
  goalCadence: number | null;
  goalCadenceFrequency: number | null;
  goalTargetDate: string | null;
}

async function creditCardPaymentCategory() {
  const groups = await stack.restData<{
    category_groups: { name: string; categories: { id: string }[] }[];
  }>(`/plans/${stack.planId}/categories`);
  const category = groups.category_groups.find((g) => g.name === 'Credit Card Payments')
    ?.categories[0];
  if (!category) throw new Error('the seed has no credit card payment category');
  return category;
}

describe('setCategoryTarget', () => {
  it.each([
    ['weekly', 2],
    ['monthly', 1],
    ['yearly', 13],
  ])('sets a %s NEED target, which the category and REST show', async (frequency, cadence) => {
    const category = await stack.spendingCategory(1);
    stack.resetUpstreamCalls();
    const response = await stack.gql(SET_TARGET, {
      planId: stack.planId,
      id: category.id,
      target: { amount: 250_000, frequency },
    });
    const payload = resultOf<{ category: TargetFields }>(
      response,
      'setCategoryTarget',
      'SetCategoryTargetPayload',
    );
    expect(payload.category).toMatchObject({
      goalType: 'NEED',
      goalTarget: 250_000,
      goalFrequency: frequency,
      goalCadence: cadence,
      goalCadenceFrequency: 1,
      goalTargetDate: null,
    });
    expect(stack.upstreamCalls()).toEqual(['updateCategory', 'getPlanById']);
    expect(await stack.category(category.id)).toMatchObject({
      goal_type: 'NEED',
      goal_target: 250_000,
      goal_cadence: cadence,
    });
    const read = await stack.gql<{ plan: { category: TargetFields } }>(
      `query($planId: PlanId!, $id: UUID!) { plan(id: $planId) { category(id: $id) { goalFrequency goalTarget } } }`,
      { planId: stack.planId, id: category.id },
    );
    expect(read.body.data?.plan.category).toEqual({
      goalFrequency: frequency,
      goalTarget: 250_000,
    });
  });

  it('removes the target with target: null', async () => {
    const category = await stack.spendingCategory(2);
    await stack.gql(SET_TARGET, {
      planId: stack.planId,
      id: category.id,
      target: { amount: 10_000, frequency: 'monthly' },
    });
    const response = await stack.gql(SET_TARGET, {
      planId: stack.planId,
      id: category.id,
      target: null,
    });
    const payload = resultOf<{ category: TargetFields }>(
      response,
      'setCategoryTarget',
      'SetCategoryTargetPayload',
    );
    expect(payload.category).toMatchObject({
      goalType: null,
      goalTarget: null,
      goalFrequency: null,
    });
    expect(await stack.category(category.id)).toMatchObject({ goal_type: null, goal_target: null });
  });

  it('answers a credit card payment category with the upstream 400 as a ValidationError', async () => {
    const card = await creditCardPaymentCategory();
    stack.resetUpstreamCalls();
    const response = await stack.gql(SET_TARGET, {
      planId: stack.planId,
      id: card.id,
      target: { amount: 10_000, frequency: 'weekly' },
    });
    const result = response.body.data?.setCategoryTarget as {
      __typename: string;
      restError: { detail: string };
    };
    expect(result.__typename).toBe('ValidationError');
    expect(result.restError.detail).toContain('not supported for credit card payment categories');
    expect(stack.upstreamCalls()).toEqual(['updateCategory']);
  });

  it('refuses a missing target argument and a negative amount before any call', async () => {
    const category = await stack.spendingCategory(1);
    stack.resetUpstreamCalls();
    const missing = await stack.gql(
      SET_TARGET.replace(', $target: RecurringTargetInput', '').replace(', target: $target', ''),
      {
        planId: stack.planId,
        id: category.id,
      },
    );
    expect(missing.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining('target: must be given'),
      extensions: { code: 'BAD_USER_INPUT', field: 'target' },
    });
    const negative = await stack.gql(SET_TARGET, {
      planId: stack.planId,
      id: category.id,
      target: { amount: -1, frequency: 'weekly' },
    });
    expect(negative.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'target.amount',
    });
    expect(stack.upstreamCalls()).toEqual([]);
  });
});

describe('updateCategory with goalFrequency', () => {
  const UPDATE = `mutation($planId: PlanId!, $id: UUID!, $input: UpdateCategoryInput!) {
    updateCategory(planId: $planId, categoryId: $id, input: $input) {
      __typename ... on UpdateCategoryPayload { category { goalFrequency goalTarget } }
    }
  }`;

  it('refuses goalFrequency without goalTarget, or with goalTargetDate, naming the field', async () => {
    const category = await stack.spendingCategory(3);
    stack.resetUpstreamCalls();
    const alone = await stack.gql(UPDATE, {
      planId: stack.planId,
      id: category.id,
      input: { goalFrequency: 'weekly' },
    });
    expect(alone.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining('needs input.goalTarget'),
      extensions: { code: 'BAD_USER_INPUT', field: 'input.goalFrequency' },
    });
    const dated = await stack.gql(UPDATE, {
      planId: stack.planId,
      id: category.id,
      input: { goalFrequency: 'weekly', goalTarget: 5_000, goalTargetDate: '2025-12-01' },
    });
    expect(dated.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining('cannot be combined with input.goalTargetDate'),
      extensions: { code: 'BAD_USER_INPUT', field: 'input.goalFrequency' },
    });
    expect(stack.upstreamCalls()).toEqual([]);
  });

  it('sets a recurring target, and a later goalTarget alone keeps its cadence', async () => {
    const category = await stack.spendingCategory(3);
    const set = await stack.gql(UPDATE, {
      planId: stack.planId,
      id: category.id,
      input: { goalFrequency: 'yearly', goalTarget: 1_200_000 },
    });
    expect(
      resultOf<{ category: unknown }>(set, 'updateCategory', 'UpdateCategoryPayload').category,
    ).toEqual({ goalFrequency: 'yearly', goalTarget: 1_200_000 });
    const changed = await stack.gql(UPDATE, {
      planId: stack.planId,
      id: category.id,
      input: { goalTarget: 1_500_000 },
    });
    expect(
      resultOf<{ category: unknown }>(changed, 'updateCategory', 'UpdateCategoryPayload').category,
    ).toEqual({ goalFrequency: 'yearly', goalTarget: 1_500_000 });
  });
});

describe('the specification version', () => {
  it('is in /health and in extensions.upstream', async () => {
    const health = await stack.fetch(stack.url.replace(/\/graphql$/, '/health'));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      status: 'alive',
      upstream: { specification: SPECIFICATION_VERSION },
    });
    expect(SPECIFICATION_VERSION).toBe('1.86.0');
    const answer = await stack.gql('{ user { id } }', undefined, {
      headers: { 'x-upstream-metrics': '1' },
    });
    expect(answer.body.extensions?.upstream).toMatchObject({ specification: '1.86.0' });
  });
});
