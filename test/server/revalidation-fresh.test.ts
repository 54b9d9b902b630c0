/**
 * The replay's validator is re-read from the replicas without a promise while each is within the
 * request's max-age (`readFresh`), and through `read` (a delta) from the first that is not: the
 * same ETag either way, a new one as soon as a replica's version moved, none when a read fails.
 */
import { describe, expect, it } from 'vitest';
import type { ReplicaRead, ReplicaReadRequest } from '../../src/replica/types.js';
import { createRevalidation } from '../../src/server/plugins/http-caching/etag.js';
import type { Named } from '../../src/server/plugins/http-caching/fingerprint.js';

const NAME = {
  fingerprint: 'fingerprint-1',
  get: false,
  credentials: { token: 'token-a', tokenKey: 'key-a' },
  params: { query: '{ plan { id } }' },
} as unknown as Named;
const REQUEST = { headers: new Headers() };

/** Two plans; `fresh` says which `readFresh` answers, `version` what each holds now. */
function replicasOf(state: { fresh: Set<string>; version: Record<string, string>; fail?: string }) {
  const calls = { read: [] as string[], readFresh: [] as string[] };
  const answer = (planId: string): ReplicaRead =>
    ({
      snapshot: { planId, currentMonth: () => '2026-11-01' },
      ageMs: 5,
      sync: 'none',
      version: state.version[planId]!,
    }) as unknown as ReplicaRead;
  return {
    calls,
    replicas: {
      async read({ planId }: ReplicaReadRequest) {
        calls.read.push(planId);
        if (state.fail === planId) throw new Error('upstream down');
        return answer(planId);
      },
      readFresh({ planId }: ReplicaReadRequest) {
        calls.readFresh.push(planId);
        return state.fresh.has(planId) ? answer(planId) : undefined;
      },
    },
  };
}

function setup(state: Parameters<typeof replicasOf>[0]) {
  const { calls, replicas } = replicasOf(state);
  const revalidation = createRevalidation({
    replicas,
    freshnessOf: () => ({ maxAgeMs: 60_000 }),
    maxEntries: 10,
  });
  const dependency = (planId: string) => ({
    requested: planId,
    planId,
    version: state.version[planId]!,
    currentMonth: '2026-11-01',
  });
  const { etag } = revalidation.remember(NAME.fingerprint, {
    replicas: [dependency('plan-a'), dependency('plan-b')],
    rest: [],
  });
  return { calls, revalidation, etag };
}

describe('revalidating a replay', () => {
  it('answers without a promise when every replica is fresh, with the ETag the answer had', () => {
    const state = {
      fresh: new Set(['plan-a', 'plan-b']),
      version: { 'plan-a': '1', 'plan-b': '7' },
    };
    const { calls, revalidation, etag } = setup(state);
    const current = revalidation.current(REQUEST, NAME);
    expect(current).not.toBeInstanceOf(Promise);
    expect(current).toEqual({ etag, ages: [5, 5] });
    expect(calls.read).toEqual([]);
  });

  it('reads through `read` from the first replica that is not fresh, to the same ETag', async () => {
    const state = { fresh: new Set(['plan-a']), version: { 'plan-a': '1', 'plan-b': '7' } };
    const { calls, revalidation, etag } = setup(state);
    const current = revalidation.current(REQUEST, NAME);
    expect(current).toBeInstanceOf(Promise);
    expect(await current).toEqual({ etag, ages: [5, 5] });
    expect(calls.readFresh).toEqual(['plan-a', 'plan-b']);
    expect(calls.read).toEqual(['plan-b']);
  });

  it('gives a new ETag once a version moved (a write), whichever path read it', async () => {
    const state = {
      fresh: new Set(['plan-a', 'plan-b']),
      version: { 'plan-a': '1', 'plan-b': '7' },
    };
    const { revalidation, etag } = setup(state);
    state.version['plan-b'] = '7+write.1';
    const moved = revalidation.current(REQUEST, NAME) as { etag: string };
    expect(moved.etag).not.toBe(etag);
    state.fresh.delete('plan-b');
    expect((await revalidation.current(REQUEST, NAME))?.etag).toBe(moved.etag);
    state.version['plan-b'] = '7';
    expect((await revalidation.current(REQUEST, NAME))?.etag).toBe(etag);
  });

  it('has no ETag when a replica cannot be read, nor for a caller without credentials', async () => {
    const state = {
      fresh: new Set(['plan-a']),
      version: { 'plan-a': '1', 'plan-b': '7' },
      fail: 'plan-b',
    };
    const { revalidation } = setup(state);
    expect(await revalidation.current(REQUEST, NAME)).toBeNull();
    expect(revalidation.current(REQUEST, { ...NAME, credentials: null })).toBeNull();
  });
});
