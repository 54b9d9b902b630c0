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
  it('past 2^53 on the wire, and refused past int64, changing nothing', async () => {
    const account = (
      await call('POST', '/accounts', {
        account: { name: 'Vault', type: 'otherAsset', balance: 0 },
      })
    ).body.data!.account;
    const today = new Date().toISOString().slice(0, 10);
    const big = 9_007_199_254_740_000;
    for (let i = 0; i < 2; i++) {
      const created = await call('POST', '/transactions', {
        transaction: { account_id: account.id, date: today, amount: big, cleared: 'cleared' },
      });
      expect(created.status).toBe(201);
    }
    // The answer's text carries every digit (a JSON number, not a string).
    const read = await fetch(`${sandbox.url}/plans/${planId}/accounts/${account.id}`, {
      headers: { authorization: `Bearer ${sandbox.users[0]!.token}` },
    });
    const text = await read.text();
    expect(text).toContain('"balance":18014398509480000,');
    expect(text).toContain('"cleared_balance":18014398509480000,');
    expect(text).toContain('"balance_formatted":"$18,014,398,509,480.00"');
    const knowledge = (await call('GET', '')).body.data!.server_knowledge;

    // int64 ends near 1,024 of the largest amounts a request can carry.
    const MAX = Number.MAX_SAFE_INTEGER;
    const batch = await call('POST', '/transactions', {
      transactions: Array.from({ length: 1_023 }, () => ({
        account_id: account.id,
        date: today,
        amount: MAX,
      })),
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error).toMatchObject({ id: '400' });
    expect(batch.body.error?.detail).toBe(
      "transactions[0].amount would take the balance of account 'Vault' beyond ±9223372036854775807 milliunits",
    );
    expect((await call('GET', '')).body.data!.server_knowledge).toBe(knowledge);
    expect(
      await (
        await fetch(`${sandbox.url}/plans/${planId}/accounts/${account.id}`, {
          headers: { authorization: `Bearer ${sandbox.users[0]!.token}` },
        })
      ).text(),
    ).toBe(text);
  });
});
