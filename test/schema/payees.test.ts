/**
 * Payees and payee locations against REST (`getPayees`, `getPayeeById`, `getPayeeLocations`,
 * `getPayeeLocationById`, `getPayeeLocationsByPayee`): every mirrored field holds REST's value,
 * a location names its payee, and a transfer payee names the account REST pairs it with.
 */
import { describe, expect, it } from 'vitest';
import { PayeeLinksDocument } from '../generated/operations.js';
import { expectListMirrors, expectMirrors } from '../support/mirror.js';
import { allFields } from '../support/selection.js';
import { byId, expectLink, paritySuite } from './support/parity.js';

const parity = paritySuite();

type Rows = Record<string, unknown>[];

describe('payees and payee locations', () => {
  it('getPayees, getPayeeById, getPayeeLocations, getPayeeLocationById, getPayeeLocationsByPayee', async () => {
    const { planId } = parity;
    const restPayees = await parity.rest('getPayees', `/plans/${planId}/payees`);
    const restLocations = await parity.rest(
      'getPayeeLocations',
      `/plans/${planId}/payee_locations`,
    );
    const location = restLocations.payee_locations[0]!;
    const payeeId = location.payee_id;
    const restPayee = await parity.rest('getPayeeById', `/plans/${planId}/payees/${payeeId}`);
    const restLocation = await parity.rest(
      'getPayeeLocationById',
      `/plans/${planId}/payee_locations/${location.id}`,
    );
    const restByPayee = await parity.rest(
      'getPayeeLocationsByPayee',
      `/plans/${planId}/payees/${payeeId}/payee_locations`,
    );
    const data = await parity.graph<{
      plan: {
        payees: Rows;
        payee: Record<string, unknown> & { locations: Rows };
        payeeLocations: Rows;
        payeeLocation: unknown;
      };
    }>(
      `query($planId: PlanId!, $payee: UUID!, $location: UUID!) { plan(id: $planId) {
        payees ${allFields('Payee')}
        payee(id: $payee) ${allFields('Payee', { locations: allFields('PayeeLocation') })}
        payeeLocations ${allFields('PayeeLocation')}
        payeeLocation(id: $location) ${allFields('PayeeLocation')} } }`,
      { payee: payeeId, location: location.id },
    );
    expectListMirrors(restPayees.payees as never, data.plan.payees, 'payees');
    expectMirrors(restPayee.payee, data.plan.payee, 'payee');
    expectListMirrors(
      restLocations.payee_locations as never,
      data.plan.payeeLocations,
      'payeeLocations',
    );
    expectMirrors(restLocation.payee_location, data.plan.payeeLocation, 'payeeLocation');
    expectListMirrors(
      restByPayee.payee_locations as never,
      data.plan.payee.locations,
      'payee.locations',
    );
  });

  it("a location's payee and a transfer payee's account are the rows REST names", async () => {
    const payees = byId((await parity.rest('getPayees', `/plans/${parity.planId}/payees`)).payees);
    const accounts = byId(
      (await parity.rest('getAccounts', `/plans/${parity.planId}/accounts`)).accounts,
    );
    const { plan } = await parity.graph(PayeeLinksDocument);
    for (const location of plan!.payeeLocations) {
      expectLink(location.payee, location.payeeId, payees, `payeeLocation ${location.id}.payee`);
    }
    const transferPayees = plan!.payees.filter((payee) => payee.transferAccountId !== null);
    expect(transferPayees.length).toBeGreaterThan(0);
    for (const payee of plan!.payees) {
      const where = `payee ${payee.name}`;
      expectLink(
        payee.transferAccount,
        payee.transferAccountId,
        accounts,
        `${where}.transferAccount`,
      );
      if (payee.transferAccount) {
        expect(payee.transferAccount.transferPayeeId, `${where}: the account's payee`).toBe(
          payee.id,
        );
      }
    }
  });
});
