/** The official SDK against the sandbox: payees and payee locations. */

import type { CurrencyFormat } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectConforms, expectError } from './support/expect-response.js';
import type { TestSandbox } from './support/sandbox.js';
import { type RecordingApi, sdkError, startSdkSuite } from './support/sdk.js';

let box: TestSandbox;
let api: RecordingApi;
let currency: CurrencyFormat | null;

beforeAll(async () => {
  ({ box, api, currency } = await startSdkSuite({ transactions: 150 }));
});

afterAll(async () => {
  await box.close();
});

describe('payees', () => {
  it('lists payees with the server knowledge, including one transfer payee per account', async () => {
    const response = await api.payees.getPayees(box.planId);
    expectConforms(api.last(), 'getPayees', 200, currency);
    expect(response.data.server_knowledge).toBeGreaterThan(0);
    const accounts = (await api.accounts.getAccounts(box.planId)).data.accounts;
    const transferPayees = response.data.payees.filter((p) => p.transfer_account_id !== undefined);
    expect(transferPayees.map((p) => p.transfer_account_id).sort()).toEqual(
      accounts.map((a) => a.id).sort(),
    );
    expect(response.data.payees.length).toBeGreaterThan(transferPayees.length);
  });

  it('reads one payee as the list shows it', async () => {
    await api.payees.getPayees(box.planId);
    const listed = (api.last().body as { data: { payees: { id: string }[] } }).data.payees;
    for (const payee of listed.slice(0, 4)) {
      await api.payees.getPayeeById(box.planId, payee.id);
      expectConforms(api.last(), 'getPayeeById', 200, currency);
      expect(api.last().body).toEqual({ data: { payee } });
    }
  });

  it('creates a payee (201) that later reads show', async () => {
    const response = await api.payees.createPayee(box.planId, { payee: { name: 'Corner bakery' } });
    expectConforms(api.last(), 'createPayee', 201, currency);
    const body = api.last().body as { data: { payee: unknown } };
    expect(body.data.payee).toEqual({
      id: response.data.payee.id,
      name: 'Corner bakery',
      transfer_account_id: null,
      deleted: false,
    });
    expect(
      (await api.payees.getPayeeById(box.planId, response.data.payee.id)).data.payee.name,
    ).toBe('Corner bakery');
    expect((await api.payees.getPayees(box.planId)).data.payees.map((p) => p.id)).toContain(
      response.data.payee.id,
    );
  });

  it('renames a payee (200), and its transactions carry the new name', async () => {
    const transactions = (await api.transactions.getTransactions(box.planId)).data.transactions;
    const withPayee = transactions.find(
      (t) => t.payee_id !== undefined && t.transfer_account_id === undefined,
    );
    if (withPayee?.payee_id === undefined)
      throw new Error('the seed has no transaction with a regular payee');
    const response = await api.payees.updatePayee(box.planId, withPayee.payee_id, {
      payee: { name: 'Renamed grocer' },
    });
    expectConforms(api.last(), 'updatePayee', 200, currency);
    expect(response.data.payee).toMatchObject({ id: withPayee.payee_id, name: 'Renamed grocer' });
    expect(response.data.server_knowledge).toBeGreaterThan(0);
    expect((await api.payees.getPayeeById(box.planId, withPayee.payee_id)).data.payee.name).toBe(
      'Renamed grocer',
    );
    expect(
      (await api.transactions.getTransactionById(box.planId, withPayee.id)).data.transaction
        .payee_name,
    ).toBe('Renamed grocer');
  });

  it('answers a delta request with the payees changed since the knowledge', async () => {
    const knowledge = (await api.payees.getPayees(box.planId)).data.server_knowledge;
    expect((await api.payees.getPayees(box.planId, knowledge)).data).toEqual({
      payees: [],
      server_knowledge: knowledge,
    });
    const created = await api.payees.createPayee(box.planId, { payee: { name: 'Delta payee' } });
    const delta = await api.payees.getPayees(box.planId, knowledge);
    expectConforms(api.last(), 'getPayees', 200, currency);
    expect(delta.data.payees.map((p) => p.id)).toEqual([created.data.payee.id]);
    expect(delta.data.server_knowledge).toBe(created.data.server_knowledge);
  });

  it('refuses an unknown payee with 404.2', async () => {
    await sdkError(api.payees.getPayeeById(box.planId, '6e1c6c4e-0000-4000-8000-000000000003'));
    expectError(api.last(), 404, '404.2', 'resource_not_found');
  });
});

describe('payee locations', () => {
  it('lists locations of existing payees with coordinates as decimal strings', async () => {
    const response = await api.payeeLocations.getPayeeLocations(box.planId);
    expectConforms(api.last(), 'getPayeeLocations', 200, currency);
    expect(response.data.payee_locations.length).toBeGreaterThan(0);
    const payeeIds = new Set((await api.payees.getPayees(box.planId)).data.payees.map((p) => p.id));
    for (const location of response.data.payee_locations) {
      expect(payeeIds.has(location.payee_id)).toBe(true);
      const latitude = Number(location.latitude);
      const longitude = Number(location.longitude);
      expect(latitude >= -90 && latitude <= 90, location.latitude).toBe(true);
      expect(longitude >= -180 && longitude <= 180, location.longitude).toBe(true);
    }
  });

  it('reads one location by id', async () => {
    await api.payeeLocations.getPayeeLocations(box.planId);
    const listed = (api.last().body as { data: { payee_locations: { id: string }[] } }).data
      .payee_locations;
    const location = listed[0];
    if (location === undefined) throw new Error('no payee location');
    await api.payeeLocations.getPayeeLocationById(box.planId, location.id);
    expectConforms(api.last(), 'getPayeeLocationById', 200, currency);
    expect(api.last().body).toEqual({ data: { payee_location: location } });
  });

  it('lists the locations of one payee', async () => {
    const all = (await api.payeeLocations.getPayeeLocations(box.planId)).data.payee_locations;
    const payeeId = all[0]?.payee_id;
    if (payeeId === undefined) throw new Error('no payee location');
    const response = await api.payeeLocations.getPayeeLocationsByPayee(box.planId, payeeId);
    expectConforms(api.last(), 'getPayeeLocationsByPayee', 200, currency);
    expect(response.data.payee_locations.map((l) => l.id).sort()).toEqual(
      all
        .filter((l) => l.payee_id === payeeId)
        .map((l) => l.id)
        .sort(),
    );
  });

  it('refuses an unknown location with 404.2', async () => {
    await sdkError(
      api.payeeLocations.getPayeeLocationById(box.planId, '7f1c6c4e-0000-4000-8000-000000000004'),
    );
    expectError(api.last(), 404, '404.2', 'resource_not_found');
  });
});
