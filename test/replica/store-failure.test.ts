/** Stale answers when the upstream fails, and errors when it may not answer stale. */

import { describe, expect, it } from 'vitest';
import { ReplicaDataError } from '../../src/replica/validate.js';
import { FakeUpstreamError, settle } from './support/fake-upstream.js';
import { storeOverRandomPlan } from './support/store-over-plan.js';

const MINUTE = 60_000;

function setup() {
  const { fake, upstream, clock, store } = storeOverRandomPlan(21, {
    accounts: 2,
    payees: 3,
    groups: 1,
    categories: 3,
    transactions: 10,
  });
  const read = (planId = fake.id) =>
    store.read({ token: 'token-a', tokenKey: 'key-a', planId, freshness: { maxAgeMs: MINUTE } });
  return { fake, upstream, clock, store, read };
}

describe('upstream failures', () => {
  it.each([
    [429, 'RATE_LIMITED'],
    [500, 'UPSTREAM_ERROR'],
    [503, 'UPSTREAM_ERROR'],
    ['network', 'UPSTREAM_UNAVAILABLE'],
  ] as const)(
    'answers from the held replica when the upstream answers %s',
    async (status, reason) => {
      const { upstream, clock, read } = setup();
      const fresh = await read();
      clock.advance(5 * MINUTE);
      const error = new FakeUpstreamError(status);
      upstream.failNext(error);
      const stale = await read();
      expect(stale.snapshot).toBe(fresh.snapshot);
      expect(stale.ageMs).toBe(5 * MINUTE);
      expect(stale.stale).toEqual({ reason, error });
      expect(stale.stale?.error).toBe(error);
      // The next read tries again and recovers.
      const recovered = await read();
      expect(recovered).toMatchObject({ sync: 'delta', ageMs: 0 });
      expect(recovered.stale).toBeUndefined();
    },
  );

  it('answers an alias from the replica it last resolved to', async () => {
    const { fake, upstream, clock, read } = setup();
    await read('last-used');
    clock.advance(5 * MINUTE);
    upstream.failNext(new FakeUpstreamError(429));
    const stale = await read('last-used');
    expect(stale.snapshot.planId).toBe(fake.id);
    expect(stale.stale?.reason).toBe('RATE_LIMITED');
  });

  it('rethrows the error untouched when no replica is held', async () => {
    const { upstream, read } = setup();
    const error = new FakeUpstreamError(429);
    upstream.failNext(error);
    await expect(read()).rejects.toBe(error);
  });

  it.each([401, 403, 404])(
    'rethrows %s even with a replica, and drops that replica',
    async (status) => {
      const { fake, upstream, clock, store, read } = setup();
      await read();
      clock.advance(5 * MINUTE);
      const error = new FakeUpstreamError(status);
      upstream.failNext(error);
      await expect(read()).rejects.toBe(error);
      expect(store.peek('key-a', fake.id)).toBeUndefined();
      expect((await read()).sync).toBe('full');
    },
  );

  it('rethrows a malformed answer as a data error naming the field, never as stale', async () => {
    const { upstream, clock, read } = setup();
    await read();
    clock.advance(5 * MINUTE);
    upstream.setTamper((data) => ({ ...data, server_knowledge: 'many' }));
    const failure = read();
    await expect(failure).rejects.toBeInstanceOf(ReplicaDataError);
    await expect(failure).rejects.toThrow(
      'data.server_knowledge must be a non-negative integer, got "many"',
    );
  });
});

describe('forgetToken (the upstream refused the token)', () => {
  it('drops the replicas and aliases of that token only', async () => {
    const { fake, upstream, store, read } = setup();
    upstream.addToken('token-b', [fake]);
    await read('last-used');
    await store.read({
      token: 'token-b',
      tokenKey: 'key-b',
      planId: fake.id,
      freshness: { maxAgeMs: MINUTE },
    });
    store.forgetToken('key-a');
    expect(store.peek('key-a', fake.id)).toBeUndefined();
    expect(store.peek('key-a', 'last-used')).toBeUndefined();
    expect(store.peek('key-b', fake.id)).toBeDefined();
  });

  it('keeps a sync already in flight from storing its answer, which still answers its reader', async () => {
    const { fake, upstream, store, read } = setup();
    const release = upstream.hold();
    const pending = read();
    await settle();
    store.forgetToken('key-a');
    release();
    expect((await pending).snapshot.planId).toBe(fake.id);
    expect(store.peek('key-a', fake.id)).toBeUndefined();
    // A sync that starts after it stores again.
    await read();
    expect(store.peek('key-a', fake.id)).toBeDefined();
  });
});
