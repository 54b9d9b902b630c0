import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/api.js';
import { createSandbox } from '../../src/index.js';

let sandbox: Sandbox;
let planId: string;

interface Answer {
  data?: {
    account: { id: string; balance: number };
    server_knowledge: number;
  };
  error?: { id: string; detail: string };
}

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${sandbox.url}/plans/${planId}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${sandbox.users[0]!.token}`,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

beforeAll(async () => {
  sandbox = await createSandbox();
  planId = sandbox.users[0]!.planIds[0]!;
});

afterAll(() => sandbox.close());

describe('balances stay exact', () => {
  it('refuses a write that would take a balance beyond 2^53 - 1, and changes nothing', async () => {
    const account = (
      await call('POST', '/accounts', {
        account: { name: 'Vault', type: 'otherAsset', balance: 0 },
      })
    ).body.data!.account;
    const today = new Date().toISOString().slice(0, 10);
    const big = 9_007_199_254_740_000;
    const first = await call('POST', '/transactions', {
      transaction: { account_id: account.id, date: today, amount: big },
    });
    expect(first.status).toBe(201);
    const knowledge = (await call('GET', '')).body.data!.server_knowledge;

    const second = await call('POST', '/transactions', {
      transaction: { account_id: account.id, date: today, amount: big },
    });
    expect(second.status).toBe(400);
    expect(second.body.error).toMatchObject({ id: '400' });
    expect(second.body.error?.detail).toMatch(
      /^transaction\.amount would take the balance of account 'Vault' beyond/,
    );

    const batch = await call('POST', '/transactions', {
      transactions: [
        { account_id: account.id, date: today, amount: 5 },
        { account_id: account.id, date: today, amount: 1_000 },
      ],
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error?.detail).toMatch(/^transactions\[\d\]\.amount/);

    const after = (await call('GET', `/accounts/${account.id}`)).body.data!.account;
    expect(after.balance).toBe(big);
    expect((await call('GET', '')).body.data!.server_knowledge).toBe(knowledge);
  });
});
