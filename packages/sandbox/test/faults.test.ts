/**
 * Fault injection and latency knobs: each fault kind, per operation, per method, by a seeded
 * rate, limited by `times`; latency seen as ordering (never measured); `calls()` as a ledger;
 * `close()` with a hung request still open.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultRule, Sandbox, SandboxCall, SandboxOptions } from '../src/core/api.js';
import { createManualClock, createSandbox } from '../src/index.js';
import { TEST_NOW } from './support/dates.js';
import { expectError } from './support/expect-response.js';
import { createRest } from './support/rest.js';

const TOKEN = 'faults-token';

const open: Sandbox[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

async function start(options: Partial<SandboxOptions> = {}) {
  const sandbox = await createSandbox({
    port: 0,
    clock: createManualClock(TEST_NOW),
    rateLimit: false,
    users: [{ token: TOKEN, plans: [{ seed: 9, transactions: 20 }] }],
    ...options,
  });
  open.push(sandbox);
  const planId = sandbox.users[0]?.planIds[0] ?? '';
  return { sandbox, planId, rest: createRest(sandbox.url, TOKEN) };
}

/** Waits until the sandbox has recorded a call that matches. */
async function waitForCall(
  sandbox: Sandbox,
  match: (call: SandboxCall) => boolean,
): Promise<SandboxCall> {
  await expect
    .poll(() => sandbox.calls().find(match), { timeout: 45_000, interval: 5 })
    .toBeDefined();
  return sandbox.calls().find(match)!;
}

describe('fault kinds', () => {
  it('answers 500 internal_server_error for the chosen operation only', async () => {
    const { sandbox, planId, rest } = await start();
    sandbox.setFaults([{ kind: 'status500', operationId: 'getAccounts' }]);
    expectError(await rest.get(`/plans/${planId}/accounts`), 500, '500', 'internal_server_error');
    expect((await rest.get('/user')).status).toBe(200);
    expect((await rest.get(`/plans/${planId}/payees`)).status).toBe(200);
  });

  it('answers 503 service_unavailable', async () => {
    const { sandbox, rest } = await start();
    sandbox.setFaults([{ kind: 'status503', operationId: 'getUser' }]);
    expectError(await rest.get('/user'), 503, '503', 'service_unavailable');
  });

  it('answers 200 with a body that is not JSON', async () => {
    const { sandbox, planId, rest } = await start();
    sandbox.setFaults([{ kind: 'malformed', operationId: 'getPayees' }]);
    const response = await rest.get(`/plans/${planId}/payees`);
    expect(response.status).toBe(200);
    expect(response.text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(response.text) as unknown).toThrow();
  });

  it('drops the connection without an answer', async () => {
    const { sandbox, rest } = await start();
    sandbox.setFaults([{ kind: 'drop', operationId: 'getUser' }]);
    await expect(rest.get('/user')).rejects.toThrow();
    const call = await waitForCall(sandbox, (c) => c.operationId === 'getUser');
    expect(call.status).toBeNull();
    sandbox.setFaults([]);
    expect((await rest.get('/user')).status).toBe(200);
  });

  it('holds a request without answering until the client gives up', async () => {
    const { sandbox, rest } = await start();
    sandbox.setFaults([{ kind: 'hang', operationId: 'getUser' }]);
    const controller = new AbortController();
    const hung = fetch(`${sandbox.url}/user`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
      signal: controller.signal,
    });
    const settled = hung.then(
      () => 'answered',
      () => 'failed',
    );
    const call = await waitForCall(sandbox, (c) => c.operationId === 'getUser');
    expect(call.status).toBeNull();
    // Other operations are still served while the request hangs.
    expect((await rest.get('/plans')).status).toBe(200);
    controller.abort();
    expect(await settled).toBe('failed');
  });

  it('applies faults given at start', async () => {
    const { planId, rest } = await start({
      faults: [{ kind: 'status503', operationId: 'getPlanById' }],
    });
    expectError(await rest.get(`/plans/${planId}`), 503, '503', 'service_unavailable');
  });

  it('matches rules by method', async () => {
    const { sandbox, planId, rest } = await start();
    sandbox.setFaults([{ kind: 'status500', method: 'POST' }]);
    expect((await rest.get(`/plans/${planId}/payees`)).status).toBe(200);
    const before = (await rest.get(`/plans/${planId}/payees`)).body;
    expectError(
      await rest.post(`/plans/${planId}/payees`, { payee: { name: 'Faulted' } }),
      500,
      '500',
      'internal_server_error',
    );
    expect((await rest.get(`/plans/${planId}/payees`)).body).toEqual(before);
  });

  it('retires a rule after `times` matching requests', async () => {
    const { sandbox, rest } = await start();
    sandbox.setFaults([{ kind: 'status503', operationId: 'getUser', times: 2 }]);
    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await rest.get('/user')).status);
    expect(statuses).toEqual([503, 503, 200, 200]);
  });

  it('replaces the rules on setFaults', async () => {
    const { sandbox, rest } = await start();
    sandbox.setFaults([{ kind: 'status500' }]);
    expect((await rest.get('/user')).status).toBe(500);
    sandbox.setFaults([]);
    expect((await rest.get('/user')).status).toBe(200);
  });
});

describe('fault rates', () => {
  async function outcomes(randomSeed: number, rule: FaultRule, count = 40): Promise<number[]> {
    const { rest } = await start({ randomSeed, faults: [rule] });
    const statuses: number[] = [];
    for (let index = 0; index < count; index += 1) statuses.push((await rest.get('/user')).status);
    return statuses;
  }

  it('draws faults from the seeded generator: same seed, same requests fail', async () => {
    const rule: FaultRule = { kind: 'status500', operationId: 'getUser', rate: 0.5 };
    const first = await outcomes(42, rule);
    const second = await outcomes(42, rule);
    expect(first).toEqual(second);
    expect(first).toContain(500);
    expect(first).toContain(200);
    expect(await outcomes(43, rule)).not.toEqual(first);
  });

  it('never faults at rate 0 and always at rate 1', async () => {
    expect(new Set(await outcomes(1, { kind: 'status500', rate: 0 }, 10))).toEqual(new Set([200]));
    expect(new Set(await outcomes(1, { kind: 'status500', rate: 1 }, 10))).toEqual(new Set([500]));
  });
});

describe('latency', () => {
  it('delays answers: a slow sandbox answers after a later request to a fast one', async () => {
    const slow = await start({ latency: { fixedMs: 1_500 } });
    const fast = await start();
    const order: string[] = [];
    const slowDone = slow.rest
      .get('/user')
      .then((response) => order.push(`slow ${response.status}`));
    const fastDone = fast.rest
      .get('/user')
      .then((response) => order.push(`fast ${response.status}`));
    await Promise.all([slowDone, fastDone]);
    expect(order).toEqual(['fast 200', 'slow 200']);
  });

  it('changes latency at run time and keeps answers intact under jitter', async () => {
    const { sandbox, planId, rest } = await start();
    const plain = (await rest.get(`/plans/${planId}/accounts`)).body;
    sandbox.setLatency({ fixedMs: 5, jitterMs: 20 });
    expect((await rest.get(`/plans/${planId}/accounts`)).body).toEqual(plain);
    const fast = await start();
    sandbox.setLatency({ fixedMs: 1_500 });
    const order: string[] = [];
    await Promise.all([
      rest.get('/user').then(() => order.push('slowed')),
      fast.rest.get('/user').then(() => order.push('fast')),
    ]);
    expect(order).toEqual(['fast', 'slowed']);
  });
});

describe('calls()', () => {
  it('records each request in order with operation, method, path, query, status, token and time', async () => {
    const { sandbox, planId, rest } = await start();
    sandbox.resetCalls();
    expect(sandbox.calls()).toEqual([]);
    await rest.get('/user');
    await rest.get(`/plans/${planId}/transactions`, {
      since_date: '2025-01-01',
      type: 'unapproved',
    });
    await rest.request('GET', `/plans/${planId}/accounts`, { token: 'wrong' });
    await rest.get('/no-such-path');
    await rest.post(`/plans/${planId}/payees`, { payee: { name: 'Recorded' } });
    sandbox.setFaults([{ kind: 'status503', operationId: 'getPayees' }]);
    await rest.get(`/plans/${planId}/payees`);

    expect(sandbox.calls()).toEqual([
      {
        operationId: 'getUser',
        endpoint: 'getUser',
        method: 'GET',
        path: '/v1/user',
        query: {},
        status: 200,
        token: TOKEN,
        at: TEST_NOW,
      },
      {
        operationId: 'getTransactions',
        endpoint: 'getTransactions',
        method: 'GET',
        path: `/v1/plans/${planId}/transactions`,
        query: { since_date: '2025-01-01', type: 'unapproved' },
        status: 200,
        token: TOKEN,
        at: TEST_NOW,
      },
      {
        operationId: 'getAccounts',
        endpoint: 'getAccounts',
        method: 'GET',
        path: `/v1/plans/${planId}/accounts`,
        query: {},
        status: 401,
        token: 'wrong',
        at: TEST_NOW,
      },
      {
        operationId: null,
        endpoint: null,
        method: 'GET',
        path: '/v1/no-such-path',
        query: {},
        status: 404,
        token: TOKEN,
        at: TEST_NOW,
      },
      {
        operationId: 'createPayee',
        endpoint: 'createPayee',
        method: 'POST',
        path: `/v1/plans/${planId}/payees`,
        query: {},
        status: 201,
        token: TOKEN,
        at: TEST_NOW,
      },
      {
        operationId: 'getPayees',
        endpoint: 'getPayees',
        method: 'GET',
        path: `/v1/plans/${planId}/payees`,
        query: {},
        status: 503,
        token: TOKEN,
        at: TEST_NOW,
      },
    ]);
    sandbox.resetCalls();
    expect(sandbox.calls()).toEqual([]);
  });

  it('records the token given in the query and no token when none was given', async () => {
    const { sandbox, rest } = await start();
    sandbox.resetCalls();
    await rest.request('GET', '/user', { tokenIn: 'query' });
    await rest.request('GET', '/user', { token: null });
    const [viaQuery, without] = sandbox.calls();
    expect(viaQuery?.token).toBe(TOKEN);
    expect(viaQuery?.status).toBe(200);
    expect(without?.token).toBeNull();
    expect(without?.status).toBe(401);
  });
});

describe('close()', () => {
  it('resolves with a hung request open and ends that request', async () => {
    const { sandbox } = await start({ faults: [{ kind: 'hang', operationId: 'getUser' }] });
    open.splice(open.indexOf(sandbox), 1);
    const hung = fetch(`${sandbox.url}/user`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    }).then(
      () => 'answered',
      () => 'failed',
    );
    await waitForCall(sandbox, (c) => c.operationId === 'getUser');
    await sandbox.close();
    expect(await hung).toBe('failed');
    await expect(fetch(`${sandbox.url}/user`)).rejects.toThrow();
  });
});
