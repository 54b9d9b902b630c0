/**
 * Category targets as the description 1.86.0 states them, over real HTTP: recurring targets
 * (`goal_frequency`) with each refusal it names, target removal (`goal_target: null`, through the
 * official SDK too), and the cadence left alone when the field is omitted.
 */
import type {
  Category,
  CategoryBase,
  CategoryGroup,
  CurrencyFormat,
} from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoDate, TEST_NOW } from './support/dates.js';
import { expectConforms, expectError } from './support/expect-response.js';
import { dataOf, type RestResponse } from './support/rest.js';
import { exportPlan, type TestSandbox } from './support/sandbox.js';
import { type RecordingApi, startSdkSuite } from './support/sdk.js';
import { expectPlanUnchanged } from './support/unchanged.js';

const TODAY = isoDate(TEST_NOW); // 2025-06-15, a Sunday
const CURRENT_MONTH = '2025-06-01';

let box: TestSandbox;
let api: RecordingApi;
let currency: CurrencyFormat | null;
let group: CategoryGroup;
let creditCardPayment: CategoryBase;
/** A category with a TBD goal (a target balance by a date), from the seed. */
let dated: CategoryBase;

beforeAll(async () => {
  ({ box, api, currency } = await startSdkSuite({ transactions: 60 }));
  const plan = (await exportPlan(box.rest, box.planId)).plan;
  const user = plan.category_groups.find(
    (g) => !g.internal && !g.deleted && !/credit card/i.test(g.name),
  );
  const cardGroup = plan.category_groups.find((g) => /credit card payments/i.test(g.name));
  const card = plan.categories.find((c) => c.category_group_id === cardGroup?.id && !c.deleted);
  const tbd = plan.categories.find((c) => c.goal_type === 'TBD' && !c.deleted);
  if (!user || !card || !tbd) throw new Error('the seed lacks an entity these tests need');
  group = user;
  creditCardPayment = card;
  dated = tbd;
});

afterAll(() => box.close());

const path = (suffix: string) => `/plans/${box.planId}${suffix}`;
const save = (id: string, category: Record<string, unknown>) =>
  box.rest.patch(path(`/categories/${id}`), { category });

async function newCategory(name: string): Promise<Category> {
  return dataOf(
    await box.rest.post(path('/categories'), { category: { name, category_group_id: group.id } }),
    'createCategory',
    201,
  ).category;
}

function saved(response: RestResponse): Category {
  expectConforms(response, 'updateCategory', 200, currency);
  return dataOf(response, 'updateCategory').category;
}

const NO_TARGET = {
  goal_type: null,
  goal_needs_whole_amount: null,
  goal_day: null,
  goal_cadence: null,
  goal_cadence_frequency: null,
  goal_creation_month: null,
  goal_target: null,
  goal_target_date: null,
  goal_percentage_complete: null,
  goal_months_to_budget: null,
  goal_under_funded: null,
  goal_overall_funded: null,
  goal_overall_left: null,
  goal_snoozed_at: null,
};

describe('recurring targets: goal_frequency', () => {
  it('sets a monthly, weekly or yearly NEED target of goal_target, with its cadence', async () => {
    const category = await newCategory('Recurring');
    expect(
      saved(await save(category.id, { goal_target: 120_000, goal_frequency: 'monthly' })),
    ).toMatchObject({
      goal_type: 'NEED',
      goal_target: 120_000,
      goal_cadence: 1,
      goal_cadence_frequency: 1,
      goal_day: null,
      goal_needs_whole_amount: true,
      goal_creation_month: CURRENT_MONTH,
      goal_target_date: null,
      // Nothing assigned yet: the month asks for the whole target.
      goal_under_funded: 120_000,
      goal_overall_left: 120_000,
    });
    // Weekly falls due on the weekday it was set (a Sunday): five Sundays in June 2025.
    expect(
      saved(await save(category.id, { goal_target: 25_000, goal_frequency: 'weekly' })),
    ).toMatchObject({
      goal_type: 'NEED',
      goal_target: 25_000,
      goal_cadence: 2,
      goal_cadence_frequency: 1,
      goal_day: 0,
      goal_under_funded: 125_000,
    });
    // Yearly: the target spread over twelve months, rounded up.
    expect(
      saved(await save(category.id, { goal_target: 1_000_000, goal_frequency: 'yearly' })),
    ).toMatchObject({
      goal_type: 'NEED',
      goal_target: 1_000_000,
      goal_cadence: 13,
      goal_cadence_frequency: 1,
      goal_day: null,
      goal_under_funded: 83_334,
    });
    const assigned = dataOf(
      await box.rest.patch(path(`/months/${CURRENT_MONTH}/categories/${category.id}`), {
        category: { budgeted: 50_000 },
      }),
      'updateMonthCategory',
    ).category;
    expect(assigned).toMatchObject({
      goal_overall_funded: 50_000,
      goal_overall_left: 33_334,
      goal_under_funded: 33_334,
      goal_percentage_complete: 59,
    });
  });

  it('replaces an existing target, its date and type included', async () => {
    expect(dated.goal_target_date).not.toBeNull();
    expect(
      saved(await save(dated.id, { goal_target: 40_000, goal_frequency: 'weekly' })),
    ).toMatchObject({
      goal_type: 'NEED',
      goal_target: 40_000,
      goal_target_date: null,
      goal_cadence: 2,
      goal_creation_month: CURRENT_MONTH,
    });
  });

  it('creates a category with a recurring target, and takes goal_needs_whole_amount beside it', async () => {
    const response = await box.rest.post(path('/categories'), {
      category: {
        name: 'Born recurring',
        category_group_id: group.id,
        goal_target: 9_000,
        goal_frequency: 'yearly',
        goal_needs_whole_amount: false,
        goal_target_date: null,
      },
    });
    expectConforms(response, 'createCategory', 201, currency);
    expect(dataOf(response, 'createCategory', 201).category).toMatchObject({
      goal_type: 'NEED',
      goal_cadence: 13,
      goal_target: 9_000,
      goal_needs_whole_amount: false,
    });
  });

  it('leaves the cadence as it is when omitted', async () => {
    const category = await newCategory('Keeps its cadence');
    saved(await save(category.id, { goal_target: 10_000, goal_frequency: 'weekly' }));
    const target = saved(await save(category.id, { goal_target: 15_000 }));
    expect(target).toMatchObject({ goal_target: 15_000, goal_cadence: 2, goal_day: 0 });
    const refill = saved(await save(category.id, { goal_needs_whole_amount: false }));
    expect(refill).toMatchObject({
      goal_target: 15_000,
      goal_cadence: 2,
      goal_needs_whole_amount: false,
    });
    const renamed = saved(await save(category.id, { name: 'Still weekly' }));
    expect(renamed).toMatchObject({ goal_cadence: 2, goal_cadence_frequency: 1, goal_day: 0 });
  });

  it('is in the next delta, with a new server knowledge', async () => {
    const category = await newCategory('Delta target');
    const before = dataOf(await box.rest.get(path('/categories')), 'getCategories');
    const after = dataOf(
      await save(category.id, { goal_target: 5_000, goal_frequency: 'monthly' }),
      'updateCategory',
    );
    expect(after.server_knowledge).toBe(before.server_knowledge + 1);
    const delta = dataOf(
      await box.rest.get(path('/categories'), {
        last_knowledge_of_server: before.server_knowledge,
      }),
      'getCategories',
    );
    const changed = delta.category_groups.flatMap((g) => g.categories);
    expect(changed.find((c) => c.id === category.id)).toMatchObject({
      goal_type: 'NEED',
      goal_cadence: 1,
    });
  });
});

describe('recurring targets: the refusals the description states, each a 400 changing nothing', () => {
  const refused = async (id: string, category: Record<string, unknown>, detail: RegExp) => {
    const response = await expectPlanUnchanged(box.rest, box.planId, () => save(id, category));
    expectError(response, 400, '400', 'bad_request', detail);
    return (response.body as { error: { detail: string } }).error.detail;
  };

  it('requires goal_target', async () => {
    const category = await newCategory('No amount');
    expect(await refused(category.id, { goal_frequency: 'monthly' }, /goal_target/)).toBe(
      'category.goal_frequency requires category.goal_target, the amount that repeats',
    );
    await refused(
      category.id,
      { goal_frequency: 'weekly', goal_target: null },
      /^category\.goal_frequency requires category\.goal_target/,
    );
    const created = await expectPlanUnchanged(box.rest, box.planId, () =>
      box.rest.post(path('/categories'), {
        category: { name: 'Never made', category_group_id: group.id, goal_frequency: 'yearly' },
      }),
    );
    expectError(created, 400, '400', 'bad_request', /requires category\.goal_target/);
  });

  it('cannot be combined with goal_target_date', async () => {
    expect(
      await refused(
        dated.id,
        { goal_frequency: 'yearly', goal_target: 100_000, goal_target_date: '2025-12-01' },
        /goal_target_date/,
      ),
    ).toBe('category.goal_frequency cannot be combined with category.goal_target_date');
  });

  it('is not supported for credit card payment categories', async () => {
    expect(
      await refused(
        creditCardPayment.id,
        { goal_frequency: 'monthly', goal_target: 100_000 },
        /credit card/,
      ),
    ).toBe('category.goal_frequency is not supported for credit card payment categories');
  });

  it('takes only monthly, weekly or yearly', async () => {
    const category = await newCategory('Odd frequency');
    for (const value of ['daily', 'Monthly', null, 1]) {
      expect(
        await refused(category.id, { goal_frequency: value, goal_target: 1_000 }, /frequency/),
      ).toBe('category.goal_frequency must be one of: monthly, weekly, yearly');
    }
  });

  it('and still checks the amount', async () => {
    const category = await newCategory('Bad amount');
    await refused(
      category.id,
      { goal_frequency: 'monthly', goal_target: -5 },
      /^category\.goal_target must not be negative$/,
    );
    await refused(
      category.id,
      { goal_frequency: 'monthly', goal_target: 1.5 },
      /^category\.goal_target must be an integer amount in milliunits$/,
    );
  });
});

describe('goal_target: null removes the target', () => {
  it('through the official SDK: every goal field is null again, and again without a target', async () => {
    const category = await newCategory('Remove me');
    await api.categories.updateCategory(box.planId, category.id, {
      category: { goal_target: 70_000 },
    });
    const removed = await api.categories.updateCategory(box.planId, category.id, {
      // The SDK (4.1) types this field as a number, but sends what it is given: null here, as
      // the description allows.
      category: { goal_target: null as unknown as number },
    });
    expectConforms(api.last(), 'updateCategory', 200, currency);
    const raw = dataOf(api.last(), 'updateCategory').category;
    expect(raw).toMatchObject(NO_TARGET);
    expect(raw.goal_target_formatted).toBeNull();
    expect(removed.data.category.goal_type).toBeUndefined(); // the SDK turns null into undefined
    const again = await box.rest.patch(path(`/categories/${category.id}`), {
      category: { goal_target: null },
    });
    expect(saved(again)).toMatchObject(NO_TARGET);
  });

  it('removes a recurring target, and a seeded dated one', async () => {
    const category = await newCategory('Recurring, then none');
    saved(await save(category.id, { goal_target: 3_000, goal_frequency: 'weekly' }));
    expect(saved(await save(category.id, { goal_target: null }))).toMatchObject(NO_TARGET);
    const plan = (await exportPlan(box.rest, box.planId)).plan;
    const seeded = plan.categories.find(
      (c) => c.goal_type !== null && c.id !== dated.id && !c.deleted && !c.internal,
    );
    if (!seeded) throw new Error('the seed has no other goal');
    expect(saved(await save(seeded.id, { goal_target: null }))).toMatchObject(NO_TARGET);
    // The month read agrees.
    const inMonth = dataOf(
      await box.rest.get(path(`/months/${CURRENT_MONTH}/categories/${seeded.id}`)),
      'getMonthCategoryById',
    ).category;
    expect(inMonth).toMatchObject(NO_TARGET);
  });

  it('leaves a category without a target, so a date alone is still refused', async () => {
    const category = await newCategory('No target, no date');
    const response = await expectPlanUnchanged(box.rest, box.planId, () =>
      save(category.id, { goal_target_date: TODAY }),
    );
    expectError(response, 400, '400', 'bad_request', /goal_target_date needs a goal/);
  });
});
