/**
 * The authorization server's two stores keep one contract: SQLite embedded and Redis (a real
 * `redis-server`, through the cluster's link). Single use (`take`), reuse detection (`claim`),
 * families and grants revoked whole, the newest of a family kept, counts and eviction of the
 * oldest, and the sweep that hands back codes nobody exchanged; all on the caller's clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisAuthorizationStore } from '../../src/authorization/redis-store.js';
import { createSqliteAuthorizationStore } from '../../src/authorization/sqlite-store.js';
import type { AuthorizationStore, RowKind, StoredRow } from '../../src/authorization/store.js';
import { createRedisLink, type RedisLink } from '../../src/cluster/redis.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';

const T = 1_750_000_000_000;

let redis: TestRedis;
let link: RedisLink;

beforeAll(async () => {
  redis = await startTestRedis();
  link = createRedisLink({ url: redis.url, prefix: redis.prefix });
  await link.ready(5_000);
});
afterAll(async () => {
  await link.close();
  await redis.close();
});

let serial = 0;
const row = (kind: RowKind, extra: Partial<StoredRow> = {}): StoredRow => {
  serial += 1;
  return {
    kind,
    key: `${kind}-${serial}`,
    sealed: `sealed-${serial}`,
    createdAt: T + serial,
    expiresAt: T + 60_000,
    ...extra,
  };
};

describe.each([
  ['SQLite', () => createSqliteAuthorizationStore(':memory:')],
  ['Redis', () => createRedisAuthorizationStore(link)],
])('the %s store', (_name, make: () => AuthorizationStore) => {
  let store: AuthorizationStore;
  beforeAll(() => {
    store = make();
  });
  afterAll(() => store.close());

  it('reads a live row, and nothing once it expired on the given clock', async () => {
    const one = row('access', { family: 'fam-a', grant: 'grant-a' });
    await store.put(one);
    expect(await store.get('access', one.key, T)).toMatchObject({
      sealed: one.sealed,
      family: 'fam-a',
      grant: 'grant-a',
      used: false,
    });
    expect(await store.get('access', one.key, T + 60_000)).toBeUndefined();
  });

  it('takes a row once', async () => {
    const one = row('code');
    await store.put(one);
    const [first, second] = await Promise.all([
      store.take('code', one.key, T),
      store.take('code', one.key, T),
    ]);
    expect([first?.sealed, second?.sealed].filter(Boolean)).toEqual([one.sealed]);
  });

  it('claims a row: the first sees it unused, the next sees it used', async () => {
    const one = row('refresh', { family: 'fam-c', grant: 'grant-c' });
    await store.put(one);
    const claims = await Promise.all([
      store.claim('refresh', one.key, T),
      store.claim('refresh', one.key, T),
    ]);
    expect(claims.map((c) => c?.used).sort()).toEqual([false, true]);
  });

  it('deletes a family whole, and a grant whole', async () => {
    const a = row('access', { family: 'fam-d', grant: 'grant-d' });
    const r = row('refresh', { family: 'fam-d', grant: 'grant-d' });
    const other = row('refresh', { family: 'fam-e', grant: 'grant-d' });
    for (const one of [a, r, other]) await store.put(one);
    expect(await store.deleteFamily('fam-d')).toBe(2);
    expect(await store.get('access', a.key, T)).toBeUndefined();
    expect(await store.get('refresh', other.key, T)).toBeDefined();
    expect(await store.deleteGrant('grant-d')).toBe(1);
    expect(await store.get('refresh', other.key, T)).toBeUndefined();
  });

  it("keeps a family's newest rows of a kind, and lists a grant's families oldest first", async () => {
    const rows = [1, 2, 3, 4].map(() => row('refresh', { family: 'fam-f', grant: 'grant-f' }));
    const later = row('refresh', { family: 'fam-g', grant: 'grant-f' });
    for (const one of [...rows, later]) await store.put(one);
    expect(await store.familiesOf('grant-f', T)).toEqual(['fam-f', 'fam-g']);
    await store.trimFamily('fam-f', 'refresh', 2);
    const left = await Promise.all(rows.map((one) => store.get('refresh', one.key, T)));
    expect(left.map(Boolean)).toEqual([false, false, true, true]);
  });

  it('counts live rows and evicts the oldest, unused ones first when asked', async () => {
    const clients = [1, 2, 3].map(() => row('client'));
    for (const one of clients) await store.put(one);
    const first = clients[0] as StoredRow;
    await store.touch('client', first.key, T + 120_000, T);
    expect(await store.count('client', T)).toBe(3);
    expect(await store.evict('client', 1, T, true)).toBe(1);
    expect(await store.get('client', first.key, T)).toBeDefined();
    expect(await store.get('client', (clients[1] as StoredRow).key, T)).toBeUndefined();
    expect(await store.count('client', T + 60_000)).toBe(1);
  });

  it('sweeps expired rows, answering the codes never exchanged', async () => {
    const unexchanged = row('code', { expiresAt: T + 1_000 });
    const exchanged = row('code', { expiresAt: T + 1_000 });
    await store.put(unexchanged);
    await store.put(exchanged);
    await store.claim('code', exchanged.key, T);
    const swept = await store.sweep(T + 100_000);
    expect(swept.map((one) => one.key)).toEqual([unexchanged.key]);
    expect(swept[0]?.sealed).toBe(unexchanged.sealed);
    expect(await store.count('code', T)).toBe(0);
  });
});
