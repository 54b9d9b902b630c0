/**
 * The write pipeline sends a write's delta sync on the event loop's next turn, so a mutation
 * whose selection needs nothing the delta brings is answered (resolved, serialized, written)
 * before the delta's request is built; the token's next reads of a plan still wait for that
 * delta from the moment the write's outcome is handed back (read-your-writes), and this
 * operation's own reads of the plan take the snapshot it brings.
 */
import { describe, expect, it } from 'vitest';
import type { PlanReplicas } from '../../src/loaders/create-loaders.js';
import type { Loaders } from '../../src/loaders/loaders.js';
import type { RestCache } from '../../src/loaders/rest-cache.js';
import { createOperationMeter } from '../../src/operation/meter.js';
import type { PlanSnapshot, ReplicaStore } from '../../src/replica/types.js';
import type { UpstreamClient } from '../../src/upstream/client.js';
import { createWritePipeline } from '../../src/writes/pipeline.js';
import { createSettling } from '../../src/writes/settling.js';

const TOKEN_KEY = 'token-key';
const PLAN_ID = '11111111-1111-4111-8111-111111111111';

/** Stands in for a replica: the pipeline reads only its plan id. */
const snapshot = (label: string) => ({ planId: PLAN_ID, label }) as unknown as PlanSnapshot;

function pipelineWithFakes() {
  const settling = createSettling();
  const deltaReads: string[] = [];
  const primed: Promise<PlanSnapshot>[] = [];
  const synced = snapshot('after the delta');
  const replicas: PlanReplicas & Pick<ReplicaStore, 'applySaved' | 'peek' | 'expire'> = {
    read: async (read) => {
      deltaReads.push(read.planId);
      return { snapshot: synced, ageMs: 0, version: 2 } as unknown as Awaited<
        ReturnType<PlanReplicas['read']>
      >;
    },
    applySaved: () => snapshot('the write applied'),
    peek: () => ({ snapshot: snapshot('before the write') }) as ReturnType<ReplicaStore['peek']>,
    expire: () => undefined,
  };
  const upstream = {
    callWithParams: async () => ({
      transaction_ids: ['t-1'],
      transaction: { id: 't-1' },
      server_knowledge: 7,
    }),
  } as unknown as UpstreamClient;
  const loaders = {
    forget: () => undefined,
    prime: (_planId: string, value: PlanSnapshot | Error | Promise<PlanSnapshot>) => {
      if (value instanceof Promise) primed.push(value);
    },
  } as unknown as Loaders;
  const writes = createWritePipeline({
    credentials: { token: 'token', tokenKey: TOKEN_KEY },
    settling,
    upstream,
    replicas,
    restCache: { invalidate: () => undefined } as unknown as RestCache,
    meter: createOperationMeter(),
    loaders,
  });
  return { writes, settling, deltaReads, primed, synced };
}

describe('the delta sync after a write', () => {
  it('is sent on the next turn, after the outcome; later reads wait for it from the outcome on', async () => {
    const { writes, settling, deltaReads, primed, synced } = pipelineWithFakes();
    const outcome = await writes.run('createTransaction', {
      planId: PLAN_ID,
      body: { transaction: { account_id: 'a-1', date: '2026-01-01', amount: -1_000 } },
    });

    // The outcome is handed back (and the answer can be written) before the delta is built.
    expect(outcome.planId).toBe(PLAN_ID);
    expect(deltaReads).toEqual([]);
    // Read-your-writes: the token's next plan reads already wait for it.
    expect(settling.wait(TOKEN_KEY)).toBeDefined();

    await new Promise((resolve) => setImmediate(resolve));
    expect(deltaReads).toEqual([PLAN_ID]);
    // This operation's reads of the plan, and `changes`, take what the delta brought.
    await expect(primed[0]).resolves.toBe(synced);
    await expect(outcome.replicas?.after).resolves.toBe(synced);
    await settling.idle();
    expect(settling.wait(TOKEN_KEY)).toBeUndefined();
  });
});
