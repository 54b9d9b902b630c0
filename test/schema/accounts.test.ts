/**
 * Accounts against REST (`getAccounts`, `getAccountById`): every mirrored field holds REST's
 * value, and the links the graph adds (the plan, the transfer payee) name the rows REST names.
 */
import { describe, expect, it } from 'vitest';
import { AccountLinksDocument } from '../generated/operations.js';
import { expectListMirrors, expectMirrors } from '../support/mirror.js';
import { allFields } from '../support/selection.js';
import { byId, expectLink, paritySuite } from './support/parity.js';

const parity = paritySuite();

describe('accounts', () => {
  it('getAccounts and getAccountById', async () => {
    const restAccounts = await parity.rest('getAccounts', `/plans/${parity.planId}/accounts`);
    const first = restAccounts.accounts[0]!;
    const restAccount = await parity.rest(
      'getAccountById',
      `/plans/${parity.planId}/accounts/${first.id}`,
    );
    const data = await parity.graph<{
      plan: { accounts: Record<string, unknown>[]; account: unknown };
    }>(
      `query($planId: PlanId!, $id: UUID!) { plan(id: $planId) {
        accounts ${allFields('Account')} account(id: $id) ${allFields('Account')} } }`,
      { id: first.id },
    );
    expectListMirrors(restAccounts.accounts as never, data.plan.accounts, 'accounts');
    expectMirrors(restAccount.account, data.plan.account, 'account');
  });

  it("each account's plan is the plan, and its transfer payee is REST's payee for transfers to it", async () => {
    const restAccounts = await parity.rest('getAccounts', `/plans/${parity.planId}/accounts`);
    const payees = byId((await parity.rest('getPayees', `/plans/${parity.planId}/payees`)).payees);
    const { plan } = await parity.graph(AccountLinksDocument);
    expect(plan!.accounts.map((a) => a.id).sort()).toEqual(
      restAccounts.accounts.map((a) => a.id).sort(),
    );
    for (const account of plan!.accounts) {
      const where = `account ${account.name}`;
      expect(account.planId, `${where}.planId`).toBe(parity.planId);
      expect(account.plan.id, `${where}.plan`).toBe(parity.planId);
      expectLink(account.transferPayee, account.transferPayeeId, payees, `${where}.transferPayee`);
      // The link goes both ways: the payee's transfer account is this account.
      expect(account.transferPayee?.transferAccountId, `${where}.transferPayee`).toBe(account.id);
    }
  });
});
