/**
 * Parts of the replica tier that need no Redis: opening sealed relays and snapshots (and refusing
 * what is not theirs), the per-replica order relays apply in, and flights waiting for a relay.
 */
import type { ResponseData } from '@plans-gateway/rest-contract';
import { describe, expect, it } from 'vitest';
import { createTokenSeal, sealJson } from '../../src/cluster/seal.js';
import { openDelta, openSnapshot } from '../../src/cluster/tier-messages.js';
import { RelayWaiters, ReplicaQueues } from '../../src/cluster/tier-queues.js';
import { tokenKey } from '../../src/upstream/token-key.js';
import { until } from '../support/wait.js';

const TOKEN = 'tier-parts-token-0123456789';
const seal = createTokenSeal(TOKEN, tokenKey(TOKEN));
const data = {
  server_knowledge: 7,
  plan: { id: 'plan-1' },
} as unknown as ResponseData['getPlanById'];

describe('opening what the tier stores', () => {
  it('opens a relayed delta of its replica, and refuses one of another or of the wrong shape', async () => {
    const relay = { from: 5, to: 7, sentAt: 1_000, aliases: ['last-used', 3], data };
    const blob = await sealJson(seal, relay, 'delta:rid-1');
    const bytes = JSON.stringify(relay).length;
    expect(await openDelta(seal, 'rid-1', blob)).toEqual({
      from: 5,
      to: 7,
      sentAt: 1_000,
      aliases: ['last-used'],
      data,
      bytes,
    });
    await expect(openDelta(seal, 'rid-2', blob)).rejects.toThrow();
    const shapeless = await sealJson(seal, { from: -1, to: 7, sentAt: 1_000 }, 'delta:rid-1');
    await expect(openDelta(seal, 'rid-1', shapeless)).rejects.toThrowError(
      'a relayed delta must hold from, to and sentAt',
    );
  });

  it('opens a snapshot with its deltas and alias time, and refuses one of another replica', async () => {
    const blob = await sealJson(seal, { sentAt: 900, data }, 'snapshot:rid-1');
    const delta = await sealJson(
      seal,
      { from: 7, to: 8, sentAt: 950, aliases: [], data },
      'delta:rid-1',
    );
    const stored = await openSnapshot(seal, {
      rid: 'rid-1',
      blob,
      deltaBlobs: [delta, null],
      checked: Buffer.from('920'),
      expected: () => 'rid-1',
    });
    expect(stored).toMatchObject({ data, sentAt: 900, aliasCheckedAt: 920 });
    expect(stored.deltas.map(({ from, to }) => [from, to])).toEqual([[7, 8]]);

    const plain = await openSnapshot(seal, {
      rid: 'rid-1',
      blob,
      deltaBlobs: [],
      checked: undefined,
      expected: () => 'rid-1',
    });
    expect(plain).not.toHaveProperty('aliasCheckedAt');

    await expect(
      openSnapshot(seal, {
        rid: 'rid-1',
        blob,
        deltaBlobs: [],
        checked: null,
        expected: () => 'rid-other',
      }),
    ).rejects.toThrowError('a stored snapshot is not of the replica it is stored under');
  });
});

describe('ReplicaQueues', () => {
  it('runs the tasks of one replica in order, reports a failure and goes on', async () => {
    const errors: unknown[] = [];
    const queues = new ReplicaQueues((error) => errors.push(error));
    const ran: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    queues.enqueue('a', async () => {
      await gate;
      ran.push('a1');
    });
    queues.enqueue('a', async () => {
      throw new Error('unreadable relay');
    });
    queues.enqueue('a', async () => {
      ran.push('a3');
    });
    let bDone!: () => void;
    const bRan = new Promise<void>((resolve) => {
      bDone = resolve;
    });
    queues.enqueue('b', async () => {
      ran.push('b1');
      bDone();
    });
    await bRan;
    expect(ran).toEqual(['b1']); // another replica does not wait
    release();
    await until(() => ran.length === 3, 'the queued relays of a to run');
    expect(ran).toEqual(['b1', 'a1', 'a3']);
    expect(errors).toEqual([new Error('unreadable relay')]);
  });
});

describe('RelayWaiters', () => {
  it('lets waiters go on a relay of their replica, on abort, or when their time is up', async () => {
    const waiters = new RelayWaiters();
    const settled: string[] = [];
    const wait = (name: string, rid: string, ms: number, signal?: AbortSignal) =>
      waiters.next(rid, ms, signal).then(() => void settled.push(name));
    const controller = new AbortController();
    const all = [
      wait('a1', 'a', 60_000),
      wait('a2', 'a', 60_000),
      wait('b', 'b', 60_000),
      wait('aborted', 'c', 60_000, controller.signal),
      wait('timed out', 'd', 5),
    ];
    waiters.wake('a');
    controller.abort();
    await until(() => settled.length === 4, 'the woken, aborted and timed-out waiters');
    expect(settled.sort()).toEqual(['a1', 'a2', 'aborted', 'timed out']);
    waiters.wakeAll();
    await Promise.all(all);
    expect(settled).toContain('b');
  });
});
