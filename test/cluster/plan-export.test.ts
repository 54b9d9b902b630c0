/**
 * Property: a replica written back as an export (what the snapshot tier stores) and built again
 * answers exactly as the replica did, indexes included, whatever deltas and writes it went
 * through first.
 */
import { TEST_MONTH, TEST_NOW } from '@plans-gateway/rest-contract/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planExportOf } from '../../src/cluster/plan-export.js';
import { buildPlanState, mergePlanDelta } from '../../src/replica/delta.js';
import type { PlanState } from '../../src/replica/plan-state.js';
import { applySavedEntities } from '../../src/replica/saved.js';
import { createPlanSnapshot } from '../../src/replica/snapshot.js';
import { dumpIndexes, dumpSnapshot } from '../replica/support/inspect.js';
import { createRandomPlan, randomChange } from '../replica/support/random-plan.js';

const options = { currentMonth: TEST_MONTH };
const snapshotOf = (state: PlanState) => createPlanSnapshot(state, { now: () => TEST_NOW });

describe('planExportOf (property)', () => {
  it('rebuilds the replica it was written from', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.array(fc.integer({ min: 0, max: 10 }), { maxLength: 5 }),
        fc.boolean(),
        (seed, writesPerSync, applyWrites) => {
          const { fake, ids, rng } = createRandomPlan(seed, {
            accounts: 4,
            payees: 8,
            groups: 3,
            categories: 8,
            transactions: 120,
            splitShare: 0.2,
          });
          let replica = buildPlanState(fake.exportPlan(), options);
          for (const writes of writesPerSync) {
            const knowledge = replica.serverKnowledge;
            for (let i = 0; i < writes; i += 1) {
              const saved = randomChange(fake, ids, rng);
              if (applyWrites && saved) replica = applySavedEntities(replica, saved, options);
            }
            replica = mergePlanDelta(replica, fake.exportPlan(knowledge), options);
          }
          const exported = planExportOf(snapshotOf(replica));
          const rebuilt = buildPlanState(JSON.parse(JSON.stringify(exported)), options);
          expect(dumpSnapshot(snapshotOf(rebuilt))).toEqual(dumpSnapshot(snapshotOf(replica)));
          expect(dumpIndexes(rebuilt)).toEqual(dumpIndexes(replica));
        },
      ),
      { numRuns: 30, seed: 20261122 },
    );
  });
});
