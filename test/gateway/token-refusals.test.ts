/**
 * Made-up and revoked tokens (issue 8, items 4 and 6), over real HTTP: a junk token costs the
 * upstream one call however many operations and aliases it sends, and none while remembered;
 * `/ready` is probed once for many clients; `Cache-Control: max-age` cannot ask for data older
 * than the gateway's max-age; a 401 drops the replicas and cached answers of the token.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { type HostileStack, startStack } from '../support/stack.js';
import { dataOf } from './support/responses.js';

const ALICE = 'refusals-alice-token-01';
const BOB = 'refusals-bob-token-0002';
let stack: HostileStack | undefined;
let now = Date.parse('2025-06-15T12:00:00Z');

afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function started(): Promise<HostileStack> {
  stack = await startStack({
    serve: 'fetch',
    hostile: true,
    sandbox: {
      rateLimit: false,
      users: [
        { token: ALICE, plans: [{ seed: 1, transactions: 40 }] },
        { token: BOB, plans: [{ seed: 2, transactions: 40 }] },
      ],
    },
    deps: { now: () => now },
  });
  return stack;
}

const aliases = (n: number) =>
  `{ ${Array.from({ length: n }, (_, i) => `p${i}: plan(id: "${randomUUID()}") { name }`).join(' ')} }`;

function codes(body: unknown): unknown[] {
  const list = Array.isArray(body) ? body : [body];
  return [
    ...new Set(
      list.flatMap((b: { errors?: { extensions?: { code?: unknown } }[] }) =>
        (b.errors ?? []).map((e) => e.extensions?.code),
      ),
    ),
  ];
}

describe('junk tokens', () => {
  it('cost one upstream call for 5 operations of 30 aliases, and none while remembered', async () => {
    const s = await started();
    const junk = `junk-${randomUUID()}`;
    const response = await s.fetch(s.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${junk}` },
      body: JSON.stringify(Array.from({ length: 5 }, () => ({ query: aliases(30) }))),
    });
    expect(codes(await response.json())).toEqual(['UNAUTHENTICATED']);
    expect(s.callsOf(junk)).toEqual(['getPlanById']);

    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          s.gql('{ user { id } plans { id } plan(id: "last-used") { name } }', {}, { token: junk }),
        ),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(401);
        expect(codes(answer.body)).toEqual(['UNAUTHENTICATED']);
      }
    }
    expect(s.callsOf(junk)).toHaveLength(1);

    // After a minute it may have become valid (it never does here): asked once more.
    now += 61_000;
    await s.gql('{ user { id } plans { id } }', {}, { token: junk });
    expect(s.callsOf(junk)).toHaveLength(2);
  });

  it('leave a real token, new or known, unaffected', async () => {
    const s = await started();
    await Promise.all(
      Array.from({ length: 5 }, () => s.gql(aliases(30), {}, { token: `junk-${randomUUID()}` })),
    );
    const first = await s.gql<{ user: { id: string }; plan: { name: string } }>(
      '{ user { id } plans { id } plan(id: "last-used") { name } }',
      {},
      { token: ALICE },
    );
    expect(dataOf(first).plan.name).toBeTruthy();
    expect([...s.callsOf(ALICE)].sort()).toEqual(['getPlanById', 'getPlans', 'getUser']);
  });
});

describe('/ready', () => {
  it('asks the upstream once for 50 concurrent probes', async () => {
    const s = await started();
    const ready = s.url.replace('/graphql', '/ready');
    s.hostile.resetCalls();
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () => s.fetch(ready).then((r) => r.status)),
    );
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(s.hostile.calls()).toHaveLength(1);
  });
});

describe('revoked tokens', () => {
  const READ = '{ user { id } plan(id: "last-used") { name accounts { balance } } }';

  it('cannot ask for data older than the gateway max-age', async () => {
    const s = await started();
    dataOf(await s.gql(READ, {}, { token: ALICE }));
    now += 31_000;
    s.hostile.resetCalls();
    const answer = await s.gql(
      READ,
      {},
      { token: ALICE, headers: { 'cache-control': 'max-age=86400' } },
    );
    dataOf(answer);
    expect(s.callsOf(ALICE).sort()).toEqual(['getPlanById', 'getUser']);
    // Fresher than the default is still up to the client.
    now += 5_000;
    s.hostile.resetCalls();
    await s.gql(READ, {}, { token: ALICE, headers: { 'cache-control': 'max-age=2' } });
    expect(s.callsOf(ALICE).sort()).toEqual(['getPlanById', 'getUser']);
  });

  it('are not served from anything held once the upstream refuses them', async () => {
    const s = await started();
    dataOf(await s.gql(READ, {}, { token: ALICE }));
    dataOf(await s.gql(READ, {}, { token: BOB }));
    expect(s.gateway.replicas.stats().replicas).toBe(2);
    s.hostile.setRule((r) =>
      r.token === ALICE
        ? {
            kind: 'reply',
            status: 401,
            body: { error: { id: '401', name: 'not_authorized', detail: 'revoked' } },
          }
        : { kind: 'pass' },
    );
    now += 31_000;
    const refused = await s.gql(
      READ,
      {},
      { token: ALICE, headers: { 'cache-control': 'max-age=86400' } },
    );
    expect(refused.status).toBe(401);
    expect(refused.body.data ?? null).toBeNull();
    // Bob keeps his replica; Alice has nothing left to be served from, even within max-age.
    expect(s.gateway.replicas.stats().replicas).toBe(1);
    s.hostile.setRule(() => ({ kind: 'pass' }));
    s.hostile.resetCalls();
    const user = await s.gql<{ user: { id: string } }>('{ user { id } }', {}, { token: ALICE });
    expect(codes(user.body)).toEqual(['UNAUTHENTICATED']);
    expect(s.callsOf(ALICE)).toEqual([]);
    expect(dataOf(await s.gql(READ, {}, { token: BOB })).user).toBeTruthy();
  });
});
