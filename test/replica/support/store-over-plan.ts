import { TEST_NOW } from '@plans-gateway/rest-contract/testing';
import { createReplicaStore, type ReplicaStoreOptions } from '../../../src/replica/store.js';
import { classifyFailure, createFakeUpstream, createManualClock } from './fake-upstream.js';
import { createRandomPlan, type PlanSizes } from './random-plan.js';

/**
 * A replica store over one random plan that `token-a` holds (`last-used` names it), on a manual
 * clock at TEST_NOW: what most store tests start from. `options` add to the store's own.
 */
export function storeOverRandomPlan(
  seed: number,
  sizes: PlanSizes,
  options: Partial<ReplicaStoreOptions> = {},
) {
  const { fake, ids, rng } = createRandomPlan(seed, sizes);
  const upstream = createFakeUpstream();
  upstream.addToken('token-a', [fake], { 'last-used': fake.id });
  const clock = createManualClock(TEST_NOW);
  const store = createReplicaStore({
    fetchPlan: upstream.fetchPlan,
    classifyFailure,
    now: clock.now,
    ...options,
  });
  return { fake, ids, rng, upstream, clock, store };
}
