/**
 * The official SDK against the sandbox: user, plans, the plan export and plan settings,
 * including the `last-used` / `default` aliases and the plan-level delta request.
 */
import type { CurrencyFormat } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectConforms, expectError } from './support/expect-response.js';
import { dataOf } from './support/rest.js';
import { startTestSandbox, type TestSandbox } from './support/sandbox.js';
import { RecordingApi, sdkError } from './support/sdk.js';

const OTHER_TOKEN = 'sdk-plans-other-user';

let box: TestSandbox;
let api: RecordingApi;
let other: RecordingApi;
let currency: CurrencyFormat | null;

beforeAll(async () => {
  box = await startTestSandbox({
    users: [
      {
        token: 'suite-token',
        readOnlyToken: 'suite-read-only-token',
        plans: [{ seed: 3, transactions: 150 }],
      },
      {
        token: OTHER_TOKEN,
        plans: [
          { name: 'First of two', seed: 11, transactions: 40 },
          { name: 'Second of two', seed: 12, transactions: 40 },
        ],
        defaultPlan: 1,
      },
    ],
  });
  api = new RecordingApi('suite-token', box.sandbox.url);
  other = new RecordingApi(OTHER_TOKEN, box.sandbox.url);
  currency = dataOf(await box.rest.get(`/plans/${box.planId}/settings`), 'getPlanSettingsById')
    .settings.currency_format;
});

afterAll(async () => {
  await box.close();
});

describe('user', () => {
  it('returns the token owner', async () => {
    const response = await api.user.getUser();
    expectConforms(api.last(), 'getUser', 200, currency);
    expect(response.data.user.id).toBe(box.sandbox.users[0]?.userId);
    await other.user.getUser();
    expect(other.last().body).toEqual({ data: { user: { id: box.sandbox.users[1]?.userId } } });
  });
});

describe('plans', () => {
  it('lists the plans of the token owner only, without accounts unless asked', async () => {
    const response = await api.plans.getPlans();
    expectConforms(api.last(), 'getPlans', 200, currency);
    expect(response.data.plans.map((plan) => plan.id)).toEqual([box.planId]);
    const otherPlans = await other.plans.getPlans();
    expect(otherPlans.data.plans.map((plan) => plan.id).sort()).toEqual(
      [...(box.sandbox.users[1]?.planIds ?? [])].sort(),
    );
    expect(otherPlans.data.plans.map((plan) => plan.name).sort()).toEqual([
      'First of two',
      'Second of two',
    ]);
  });

  it("includes each plan's accounts with include_accounts=true", async () => {
    const response = await api.plans.getPlans(true);
    expectConforms(api.last(), 'getPlansWithAccounts', 200, currency);
    const accounts = await api.accounts.getAccounts(box.planId);
    expect(response.data.plans[0]?.accounts?.map((a) => a.id).sort()).toEqual(
      accounts.data.accounts.map((a) => a.id).sort(),
    );
  });

  it('names the default plan when one is selected, and null otherwise', async () => {
    await api.plans.getPlans();
    const body = api.last().body as { data: { default_plan: unknown } };
    expect(body.data.default_plan).toBeNull();
    const response = await other.plans.getPlans();
    expect(response.data.default_plan?.id).toBe(box.sandbox.users[1]?.planIds[1]);
  });

  it("reports first_month and last_month that bound the plan's months", async () => {
    const plans = await api.plans.getPlans();
    const months = (await api.months.getPlanMonths(box.planId)).data.months
      .map((m) => m.month)
      .sort();
    expect(plans.data.plans[0]?.first_month).toBe(months[0]);
    expect(plans.data.plans[0]?.last_month).toBe(months.at(-1));
  });
});

describe('plan export', () => {
  it('stamps last_modified_on with the sandbox clock at each change', async () => {
    const start = box.clock.now();
    try {
      box.clock.advance(3_600_000);
      await api.payees.createPayee(box.planId, { payee: { name: 'Stamp probe' } });
      const summary = (await api.plans.getPlans()).data.plans[0];
      expect(Date.parse(summary?.last_modified_on ?? '')).toBe(box.clock.now());
      expect(
        Date.parse((await api.plans.getPlanById(box.planId)).data.plan.last_modified_on ?? ''),
      ).toBe(box.clock.now());
      box.clock.advance(60_000);
      await api.accounts.getAccounts(box.planId);
      expect(Date.parse((await api.plans.getPlans()).data.plans[0]?.last_modified_on ?? '')).toBe(
        start + 3_600_000,
      );
    } finally {
      box.clock.set(start);
    }
  });

  it('returns every collection with its documented fields and the server knowledge', async () => {
    const response = await api.plans.getPlanById(box.planId);
    expectConforms(api.last(), 'getPlanById', 200, currency);
    expect(response.data.plan.id).toBe(box.planId);
    expect(response.data.server_knowledge).toBeGreaterThan(0);
    const plan = response.data.plan;
    expect(plan.accounts?.length).toBeGreaterThan(0);
    expect(plan.transactions?.length).toBeGreaterThan(0);
    expect(plan.months?.length).toBeGreaterThan(0);
  });

  it('serves the same plan for the last-used alias', async () => {
    const byId = await api.plans.getPlanById(box.planId);
    const byAlias = await api.plans.getPlanById('last-used');
    expectConforms(api.last(), 'getPlanById', 200, currency);
    expect(byAlias.data).toEqual(byId.data);
  });

  it('resolves last-used to the plan used most recently', async () => {
    const [first, second] = box.sandbox.users[1]?.planIds ?? [];
    await other.plans.getPlanById(second ?? '');
    expect((await other.plans.getPlanById('last-used')).data.plan.id).toBe(second);
    await other.accounts.getAccounts(first ?? '');
    expect((await other.plans.getPlanById('last-used')).data.plan.id).toBe(first);
  });

  it('serves the default plan for the default alias, and 404.2 when none is selected', async () => {
    const response = await other.plans.getPlanById('default');
    expect(response.data.plan.id).toBe(box.sandbox.users[1]?.planIds[1]);
    await sdkError(api.plans.getPlanById('default'));
    expectError(api.last(), 404, '404.2', 'resource_not_found');
  });

  it('answers a delta request with only what changed since the given knowledge', async () => {
    const full = await api.plans.getPlanById(box.planId);
    const knowledge = full.data.server_knowledge;
    const unchanged = await api.plans.getPlanById(box.planId, knowledge);
    expectConforms(api.last(), 'getPlanById', 200, currency);
    expect(unchanged.data.server_knowledge).toBe(knowledge);
    const plan = unchanged.data.plan;
    for (const collection of [
      plan.accounts,
      plan.payees,
      plan.categories,
      plan.transactions,
      plan.scheduled_transactions,
      plan.months,
    ]) {
      expect(collection).toEqual([]);
    }

    const created = await api.payees.createPayee(box.planId, { payee: { name: 'Delta probe' } });
    const delta = await api.plans.getPlanById(box.planId, knowledge);
    expect(delta.data.server_knowledge).toBeGreaterThan(knowledge);
    expect(delta.data.server_knowledge).toBe(created.data.server_knowledge);
    expect(delta.data.plan.payees?.map((p) => p.id)).toEqual([created.data.payee.id]);
    expect(delta.data.plan.transactions).toEqual([]);
  });

  it('refuses an unknown plan with 404.2', async () => {
    await sdkError(api.plans.getPlanById('8f1c6c4e-0000-4000-8000-000000000000'));
    expectError(api.last(), 404, '404.2', 'resource_not_found');
  });
});

describe('settings', () => {
  it('returns the date and currency formats the export carries', async () => {
    const settings = await api.plans.getPlanSettingsById(box.planId);
    expectConforms(api.last(), 'getPlanSettingsById', 200, currency);
    const raw = api.last().body as { data: { settings: unknown } };
    await api.plans.getPlanById(box.planId);
    const exported = api.last().body as {
      data: { plan: { date_format: unknown; currency_format: unknown } };
    };
    expect(raw.data.settings).toEqual({
      date_format: exported.data.plan.date_format,
      currency_format: exported.data.plan.currency_format,
    });
    expect(settings.data.settings.currency_format?.iso_code).toMatch(/^[A-Z]{3}$/);
    await api.plans.getPlanSettingsById('last-used');
    expect(api.last().body).toEqual({ data: raw.data });
  });
});
