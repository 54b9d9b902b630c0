/**
 * The seed generator: the demo plan has the shape the issue asks for and consistent arithmetic,
 * the same seed and clock give the same plan, and users never see each other's plans.
 */
import type { CurrencyFormat } from '@plans-gateway/rest-contract';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox, SandboxOptions } from '../src/core/api.js';
import { createManualClock, createSandbox } from '../src/index.js';
import { budgetProblems } from './support/budget.js';
import { moneyProblems } from './support/check-money.js';
import { TEST_NOW } from './support/dates.js';
import { expectConforms, expectError } from './support/expect-response.js';
import { createRest, dataOf } from './support/rest.js';
import { expectPlanUnchanged } from './support/unchanged.js';

const DEMO_TOKEN = 'sandbox-demo-token';
const DEMO_READ_ONLY_TOKEN = 'sandbox-demo-read-only-token';

const open: Sandbox[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

async function start(options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  const sandbox = await createSandbox({
    port: 0,
    clock: createManualClock(TEST_NOW),
    rateLimit: false,
    ...options,
  });
  open.push(sandbox);
  return sandbox;
}

describe('the demo plan', () => {
  it('has the shape of a realistic household plan', async () => {
    const sandbox = await start();
    expect(sandbox.users.map((u) => [u.token, u.readOnlyToken])).toEqual([
      [DEMO_TOKEN, DEMO_READ_ONLY_TOKEN],
    ]);
    const rest = createRest(sandbox.url, DEMO_TOKEN);
    const plans = dataOf(await rest.get('/plans'), 'getPlans').plans;
    expect(plans.map((p) => p.name)).toEqual(['Demo Household']);
    const response = await rest.get(`/plans/${plans[0]?.id ?? ''}`);
    expectConforms(response, 'getPlanById', 200, null);
    const plan = dataOf(response, 'getPlanById').plan;
    const live = <T extends { deleted: boolean }>(items: T[]): T[] =>
      items.filter((i) => !i.deleted);

    const accounts = live(plan.accounts);
    expect(accounts.length).toBeGreaterThanOrEqual(6);
    expect(new Set(accounts.map((a) => a.type)).size).toBeGreaterThanOrEqual(4);
    expect(accounts.some((a) => a.type === 'creditCard')).toBe(true);
    expect(accounts.some((a) => !a.on_budget)).toBe(true);
    expect(accounts.some((a) => a.closed)).toBe(true);

    const transferPayees = live(plan.payees).filter((p) => p.transfer_account_id !== null);
    expect(transferPayees.map((p) => p.transfer_account_id).sort()).toEqual(
      accounts.map((a) => a.id).sort(),
    );
    const payeeIds = new Set(plan.payees.map((p) => p.id));
    expect(live(plan.payee_locations).length).toBeGreaterThan(0);
    for (const location of plan.payee_locations) expect(payeeIds.has(location.payee_id)).toBe(true);

    expect(live(plan.months).filter((m) => m.budgeted !== 0).length).toBeGreaterThanOrEqual(12);
    const transactions = live(plan.transactions);
    expect(transactions.length).toBeGreaterThanOrEqual(1_000);
    expect(live(plan.subtransactions).length).toBeGreaterThan(0);
    expect(transactions.filter((t) => t.transfer_account_id !== null).length).toBeGreaterThan(0);
    expect(live(plan.scheduled_transactions).length).toBeGreaterThan(0);

    const groupsWithGoals = new Set(
      live(plan.categories)
        .filter((c) => c.goal_type !== null)
        .map((c) => c.category_group_id),
    );
    expect(groupsWithGoals.size).toBeGreaterThan(0);
    expect(live(plan.category_groups).filter((g) => !g.internal).length).toBeGreaterThanOrEqual(3);

    const movements = dataOf(
      await rest.get(`/plans/${plan.id}/money_movements`),
      'getMoneyMovements',
    ).money_movements;
    const groups = dataOf(
      await rest.get(`/plans/${plan.id}/money_movement_groups`),
      'getMoneyMovementGroups',
    ).money_movement_groups;
    expect(movements.length).toBeGreaterThan(0);
    expect(groups.length).toBeGreaterThan(0);
  });

  it('is consistent: balances, activity, month totals and transfers add up', async () => {
    const sandbox = await start();
    const rest = createRest(sandbox.url, DEMO_TOKEN);
    const plan = dataOf(await rest.get('/plans/last-used'), 'getPlanById').plan;
    expect(budgetProblems(plan)).toEqual([]);
  });

  it('answers the read-only demo token, which cannot write', async () => {
    const sandbox = await start();
    const readOnly = createRest(sandbox.url, DEMO_READ_ONLY_TOKEN);
    const planId = sandbox.users[0]?.planIds[0] ?? '';
    expect((await readOnly.get(`/plans/${planId}/accounts`)).status).toBe(200);
    expectError(
      await readOnly.post(`/plans/${planId}/payees`, { payee: { name: 'x' } }),
      403,
      '403.3',
      'unauthorized_scope',
    );
  });

  it('generates the requested number of transactions', async () => {
    const small = await start({ users: [{ token: 'small', plans: [{ transactions: 50 }] }] });
    const large = await start({ users: [{ token: 'large', plans: [{ transactions: 500 }] }] });
    const count = async (sandbox: Sandbox, token: string): Promise<number> => {
      const plan = dataOf(
        await createRest(sandbox.url, token).get('/plans/last-used'),
        'getPlanById',
      ).plan;
      return plan.transactions.filter((t) => !t.deleted).length;
    };
    const smallCount = await count(small, 'small');
    const largeCount = await count(large, 'large');
    expect(smallCount).toBeGreaterThanOrEqual(50);
    expect(largeCount).toBeGreaterThanOrEqual(500);
    expect(largeCount).toBeGreaterThan(smallCount * 5);
  });
});

describe('determinism', () => {
  const plansOf = (seed: number): SandboxOptions['users'] => [
    { token: 'same', plans: [{ seed, transactions: 300 }] },
  ];

  async function everything(sandbox: Sandbox): Promise<unknown[]> {
    const rest = createRest(sandbox.url, 'same');
    const planId = sandbox.users[0]?.planIds[0] ?? '';
    return Promise.all(
      [
        '/user',
        '/plans',
        `/plans/${planId}`,
        `/plans/${planId}/money_movements`,
        `/plans/${planId}/money_movement_groups`,
        `/plans/${planId}/scheduled_transactions`,
      ].map(async (path) => (await rest.get(path)).body),
    );
  }

  it('produces equal plans for the same seed and clock', async () => {
    const first = await start({ users: plansOf(17) });
    const second = await start({ users: plansOf(17) });
    expect(await everything(second)).toEqual(await everything(first));
  });

  it('produces different plans for different seeds', async () => {
    const first = await start({ users: plansOf(17) });
    const other = await start({ users: plansOf(18) });
    const [, , planA] = await everything(first);
    const [, , planB] = await everything(other);
    expect(planB).not.toEqual(planA);
  });
});

describe('several users', () => {
  it("keeps each user's plans to that user", async () => {
    const sandbox = await start({
      users: [
        { token: 'alice', readOnlyToken: 'alice-read', plans: [{ seed: 1, transactions: 30 }] },
        {
          token: 'bob',
          readOnlyToken: 'bob-read',
          plans: [
            { seed: 2, transactions: 30 },
            { seed: 3, transactions: 30 },
          ],
        },
      ],
    });
    const [alice, bob] = sandbox.users;
    if (alice === undefined || bob === undefined) throw new Error('two users expected');
    expect(alice.userId).not.toBe(bob.userId);
    expect(bob.planIds).toHaveLength(2);
    expect(new Set([...alice.planIds, ...bob.planIds]).size).toBe(3);

    const asAlice = createRest(sandbox.url, 'alice');
    const asBob = createRest(sandbox.url, 'bob');
    expect(dataOf(await asAlice.get('/user'), 'getUser').user.id).toBe(alice.userId);
    expect(dataOf(await asBob.get('/user'), 'getUser').user.id).toBe(bob.userId);
    expect(dataOf(await asAlice.get('/plans'), 'getPlans').plans.map((p) => p.id)).toEqual(
      alice.planIds,
    );
    expect(
      dataOf(await asBob.get('/plans'), 'getPlans')
        .plans.map((p) => p.id)
        .sort(),
    ).toEqual([...bob.planIds].sort());

    const alicePlan = alice.planIds[0] ?? '';
    for (const rest of [asBob, createRest(sandbox.url, 'bob-read')]) {
      for (const path of [
        '',
        '/accounts',
        '/transactions',
        '/categories',
        '/payees',
        '/months',
        '/settings',
        '/scheduled_transactions',
      ]) {
        expectError(
          await rest.get(`/plans/${alicePlan}${path}`),
          404,
          '404.2',
          'resource_not_found',
        );
      }
    }
    const response = await expectPlanUnchanged(asAlice, alicePlan, () =>
      asBob.post(`/plans/${alicePlan}/payees`, { payee: { name: 'Intruder' } }),
    );
    expectError(response, 404, '404.2', 'resource_not_found');
  });

  it('does not know the tokens of another sandbox', async () => {
    const first = await start({ users: [{ token: 'first-only', plans: [{ transactions: 10 }] }] });
    const second = await start({
      users: [{ token: 'second-only', plans: [{ transactions: 10 }] }],
    });
    expectError(
      await createRest(first.url, 'second-only').get('/user'),
      401,
      '401',
      'not_authorized',
    );
    expectError(
      await createRest(second.url, 'first-only').get('/plans'),
      401,
      '401',
      'not_authorized',
    );
  });
});

describe('currency formats', () => {
  const EUR: CurrencyFormat = {
    iso_code: 'EUR',
    example_format: '123.456,78',
    decimal_digits: 2,
    decimal_separator: ',',
    symbol_first: false,
    group_separator: '.',
    currency_symbol: '€',
    display_symbol: true,
  };
  const JPY: CurrencyFormat = {
    iso_code: 'JPY',
    example_format: '123,456',
    decimal_digits: 0,
    decimal_separator: '.',
    symbol_first: true,
    group_separator: ',',
    currency_symbol: '¥',
    display_symbol: true,
  };
  const HIDDEN: CurrencyFormat = {
    ...EUR,
    iso_code: 'CHF',
    currency_symbol: 'CHF',
    display_symbol: false,
    group_separator: "'",
    decimal_separator: '.',
  };
  /** What the README promises for a plan without a currency format. */
  const NONE: CurrencyFormat = {
    ...JPY,
    iso_code: '',
    decimal_digits: 2,
    currency_symbol: '',
    display_symbol: false,
  };

  it("formats every amount companion in the plan's own currency format", async () => {
    for (const [label, format, expected] of [
      ['EUR', EUR, EUR],
      ['JPY', JPY, JPY],
      ['hidden symbol', HIDDEN, HIDDEN],
      ['no format', null, NONE],
    ] as const) {
      const sandbox = await start({
        users: [{ token: 'fmt', plans: [{ seed: 8, transactions: 60, currencyFormat: format }] }],
      });
      const rest = createRest(sandbox.url, 'fmt');
      const planId = sandbox.users[0]?.planIds[0] ?? '';
      const settings = dataOf(
        await rest.get(`/plans/${planId}/settings`),
        'getPlanSettingsById',
      ).settings;
      expect(settings.currency_format, label).toEqual(format);
      for (const path of [
        '/accounts',
        '/transactions',
        '/categories',
        '/months',
        '/months/current',
        '/scheduled_transactions',
        '/money_movements',
      ]) {
        const body = (await rest.get(`/plans/${planId}${path}`)).body;
        expect(moneyProblems(body, expected), `${label} ${path}`).toEqual([]);
      }
    }
  });
});
