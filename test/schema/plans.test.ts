/**
 * The user, the plan list and a plan's own fields against REST (`getUser`, `getPlans`,
 * `getPlanById`, `getPlanSettingsById`): every mirrored field holds REST's value, and the plan's
 * collections are the export's.
 */
import { describe, expect, it } from 'vitest';
import { expectListMirrors, expectMirrors } from '../support/mirror.js';
import { allFields } from '../support/selection.js';
import { paritySuite } from './support/parity.js';

const parity = paritySuite();

type Rows = Record<string, unknown>[];

describe('user and plans', () => {
  it('getUser', async () => {
    const restUser = await parity.rest('getUser', '/user');
    const data = await parity.graph<{ user: unknown }>(`{ user ${allFields('User')} }`);
    expectMirrors(restUser.user, data.user, 'user');
  });

  it('getPlans', async () => {
    const restPlans = await parity.rest('getPlans', '/plans');
    const data = await parity.graph<{ plans: Rows }>(`{ plans ${allFields('Plan')} }`);
    expectListMirrors(restPlans.plans as never, data.plans, 'plans');
  });
});

describe('one plan', () => {
  it('getPlanById: plan-level fields and every collection of the export', async () => {
    const exported = await parity.rest('getPlanById', `/plans/${parity.planId}`);
    const { plan } = exported;
    const data = await parity.graph<{ plan: Record<string, Rows> }>(
      `query($planId: PlanId!) { plan(id: $planId) ${allFields('Plan', {
        accounts: allFields('Account'),
        payees: allFields('Payee'),
        payeeLocations: allFields('PayeeLocation'),
        categoryGroups: allFields('CategoryGroup'),
        months: allFields('Month'),
      })} }`,
    );
    const { accounts, payees, payee_locations, category_groups, months, ...planFields } = plan;
    expectMirrors(
      { ...planFields, server_knowledge: exported.server_knowledge },
      data.plan,
      'plan',
      {
        skip: [
          'categories',
          'transactions',
          'subtransactions',
          'scheduled_transactions',
          'scheduled_subtransactions',
        ],
      },
    );
    expectListMirrors(accounts as never, data.plan.accounts!, 'plan.accounts');
    expectListMirrors(payees as never, data.plan.payees!, 'plan.payees');
    expectListMirrors(payee_locations as never, data.plan.payeeLocations!, 'plan.payeeLocations');
    expectListMirrors(category_groups as never, data.plan.categoryGroups!, 'plan.categoryGroups');
    expectListMirrors(
      months.map(({ categories: _c, ...m }) => m) as never,
      data.plan.months!,
      'plan.months',
      { idKey: 'month' },
    );
  });

  it('the last-used alias answers the same plan as its id', async () => {
    const data = await parity.graph<{ plan: { id: string } }>(`{ plan(id: "last-used") { id } }`);
    expect(data.plan.id).toBe(parity.planId);
  });

  it('getPlanSettingsById', async () => {
    const restSettings = await parity.rest(
      'getPlanSettingsById',
      `/plans/${parity.planId}/settings`,
    );
    const data = await parity.graph<{ plan: { settings: unknown } }>(
      `query($planId: PlanId!) { plan(id: $planId) { settings ${allFields('PlanSettings')} } }`,
    );
    expectMirrors(restSettings.settings, data.plan.settings, 'settings');
  });
});
