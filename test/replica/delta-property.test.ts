/**
 * Property: whatever the upstream does, a replica kept current with deltas (and with the
 * gateway's own writes applied in between) ends equal to a replica built from the final full
 * export, indexes included.
 */
import { TEST_MONTH, TEST_NOW } from '@plans-gateway/rest-contract/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPlanState, mergePlanDelta } from '../../src/replica/delta.js';
import type { PlanState } from '../../src/replica/plan-state.js';
import { applySavedEntities } from '../../src/replica/saved.js';
import { createPlanSnapshot } from '../../src/replica/snapshot.js';
import { dumpIndexes, dumpSnapshot } from './support/inspect.js';
import { createRandomPlan, randomChange } from './support/random-plan.js';

const options = { currentMonth: TEST_MONTH };
const snapshotOf = (state: PlanState) => createPlanSnapshot(state, { now: () => TEST_NOW });

function expectSameReplica(actual: PlanState, expected: PlanState): void {
  expect(dumpSnapshot(snapshotOf(actual))).toEqual(dumpSnapshot(snapshotOf(expected)));
  expect(dumpIndexes(actual)).toEqual(dumpIndexes(expected));
}

describe('delta merge (property)', () => {
  it('applying random deltas equals building from the final export', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        // Each entry is one sync: how many upstream writes happen before it.
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 8 }),
        // Whether the gateway applies the REST responses of writes it made (read-your-writes).
        fc.boolean(),
        (seed, writesPerSync, applyWrites) => {
          const { fake, ids, rng } = createRandomPlan(seed, {
            accounts: 4,
            payees: 8,
            groups: 3,
            categories: 8,
            transactions: 150,
            splitShare: 0.2,
          });
          let replica = buildPlanState(fake.exportPlan(), options);
          for (const writes of writesPerSync) {
            const knowledge = replica.serverKnowledge;
            for (let i = 0; i < writes; i += 1) {
              const saved = randomChange(fake, ids, rng);
              if (applyWrites && saved) replica = applySavedEntities(replica, saved, options);
            }
            expect(replica.serverKnowledge).toBe(knowledge);
            replica = mergePlanDelta(replica, fake.exportPlan(knowledge), options);
            expect(replica.serverKnowledge).toBe(fake.knowledge);
          }
          expectSameReplica(replica, buildPlanState(fake.exportPlan(), options));
        },
      ),
      { numRuns: 40, seed: 20260315 },
    );
  });

  it('a delta merged twice changes nothing the second time', () => {
    const { fake, ids, rng } = createRandomPlan(99, {
      accounts: 3,
      payees: 5,
      groups: 2,
      categories: 5,
      transactions: 80,
    });
    const start = buildPlanState(fake.exportPlan(), options);
    for (let i = 0; i < 30; i += 1) randomChange(fake, ids, rng);
    const delta = fake.exportPlan(start.serverKnowledge);
    const once = mergePlanDelta(start, delta, options);
    const twice = mergePlanDelta(once, delta, options);
    expectSameReplica(twice, once);
    expectSameReplica(once, buildPlanState(fake.exportPlan(), options));
  });
});
