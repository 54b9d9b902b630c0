/**
 * 403.1 / 403.2 / 403.4: a user can be put in each state the product refuses (as a user option of
 * `createSandbox` and at run time), and gets the interface's error body on the requests refused in
 * that state, with the plan left as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './support/expect-response.js';
import { dataOf } from './support/rest.js';
import { exportPlan, startTestSandbox, type TestSandbox } from './support/sandbox.js';
import { expectPlanUnchanged } from './support/unchanged.js';

let box: TestSandbox;
let userId: string;

beforeAll(async () => {
  box = await startTestSandbox({ transactions: 30 });
  userId = box.sandbox.users[0]?.userId ?? '';
});

afterAll(() => box.close());

describe('account states', () => {
  it('subscription_lapsed: every request of the user gets 403.1, writes change nothing', async () => {
    await expectPlanUnchanged(box.rest, box.planId, async () => {
      box.sandbox.setAccountState(userId, 'subscription_lapsed');
      try {
        for (const response of [
          await box.rest.get('/user'),
          await box.rest.get(`/plans/${box.planId}/accounts`),
          await box.readOnly.get('/plans'),
          await box.rest.post(`/plans/${box.planId}/payees`, { payee: { name: 'Lapsed' } }),
        ]) {
          expectError(response, 403, '403.1', 'subscription_lapsed', /subscription/);
        }
      } finally {
        box.sandbox.setAccountState(userId, 'active');
      }
    });
  });

  it('trial_expired: every request of the user gets 403.2', async () => {
    box.sandbox.setAccountState(userId, 'trial_expired');
    try {
      expectError(await box.rest.get('/plans'), 403, '403.2', 'trial_expired', /trial/);
      expectError(
        await box.rest.patch(`/plans/${box.planId}/months/current/categories/${userId}`, {}),
        403,
        '403.2',
        'trial_expired',
      );
    } finally {
      box.sandbox.setAccountState(userId, 'active');
    }
    expect((await box.rest.get('/plans')).status).toBe(200);
  });

  it('data_limit_reached: reads and updates work, requests that add data get 403.4', async () => {
    const plan = (await exportPlan(box.rest, box.planId)).plan;
    const payee = plan.payees.find((p) => p.transfer_account_id === null && !p.deleted);
    const account = plan.accounts.find((a) => a.on_budget && !a.closed);
    if (payee === undefined || account === undefined) throw new Error('the seeded plan changed');
    box.sandbox.setAccountState(userId, 'data_limit_reached');
    try {
      expect((await box.rest.get(`/plans/${box.planId}/transactions`)).status).toBe(200);
      const renamed = await box.rest.patch(`/plans/${box.planId}/payees/${payee.id}`, {
        payee: { name: 'Still renamable' },
      });
      expect(dataOf(renamed, 'updatePayee').payee.name).toBe('Still renamable');
      await expectPlanUnchanged(box.rest, box.planId, async () => {
        for (const [path, body] of [
          [
            '/transactions',
            { transaction: { account_id: account.id, date: '2025-06-01', amount: -1000 } },
          ],
          ['/transactions/import', undefined],
          ['/payees', { payee: { name: 'One too many' } }],
          ['/accounts', { account: { name: 'Extra', type: 'cash', balance: 0 } }],
          ['/category_groups', { category_group: { name: 'Extra' } }],
        ] as const) {
          expectError(
            await box.rest.post(`/plans/${box.planId}${path}`, body),
            403,
            '403.4',
            'data_limit_reached',
            /data limit/,
          );
        }
      });
      // A read-only token is told about its scope first: it could not write anyway.
      expectError(
        await box.readOnly.post(`/plans/${box.planId}/payees`, { payee: { name: 'x' } }),
        403,
        '403.3',
        'unauthorized_scope',
      );
    } finally {
      box.sandbox.setAccountState(userId, 'active');
    }
  });

  it('is a user option of createSandbox, per user', async () => {
    const states = ['subscription_lapsed', 'trial_expired', 'data_limit_reached'] as const;
    const other = await startTestSandbox({
      users: [
        { token: 'fine', plans: [{ transactions: 10 }] },
        ...states.map((accountState) => ({
          token: accountState,
          plans: [{ transactions: 10 }],
          accountState,
        })),
      ],
    });
    try {
      expect((await other.rest.withToken('fine').get('/user')).status).toBe(200);
      expectError(await other.rest.withToken(states[0]).get('/user'), 403, '403.1', states[0]);
      expectError(await other.rest.withToken(states[1]).get('/user'), 403, '403.2', states[1]);
      expect((await other.rest.withToken(states[2]).get('/user')).status).toBe(200);
      await expect(
        startTestSandbox({
          users: [{ token: 't', accountState: 'closed' as 'active' }],
        }),
      ).rejects.toThrow(/accountState must be one of/);
      expect(() => other.sandbox.setAccountState('nobody', 'active')).toThrow(/no sandbox user/);
    } finally {
      await other.close();
    }
  });
});
