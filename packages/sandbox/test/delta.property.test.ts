/**
 * Property: for every delta-capable endpoint, replaying the delta response (asked with
 * `last_knowledge_of_server`) onto an earlier full response reproduces the current full
 * response, from the start of a random write sequence and from a point in its middle; and a
 * delta from the current knowledge is empty.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, isoDate } from './support/dates.js';
import { differences } from './support/delta.js';
import {
  checkDeltaSequence,
  DELTA_PLAN,
  endpoints,
  fetchData,
  knowledgeOf,
  snapshot,
} from './support/delta-endpoints.js';
import { exportPlan, startTestSandbox } from './support/sandbox.js';
import { favouredTargets, writeSequenceArbitrary } from './support/writes.js';

const SEED = 20_250_615;
/**
 * Each run starts a sandbox and makes about 100 requests; 25 outlasted 120 s with two full runs
 * at once on two cores under other work. 12 seeded runs of up to 15 writes, split anywhere,
 * still reach every delta endpoint with every kind of write.
 */
const RUNS = 12;
const MAX_WRITES = 15;

describe('delta requests', () => {
  it('replay onto an earlier full response to give the current one, for every delta endpoint', async () => {
    await fc.assert(
      fc.asyncProperty(writeSequenceArbitrary(MAX_WRITES), fc.nat(), (writes, splitChoice) =>
        checkDeltaSequence(writes, splitChoice % (writes.length + 1)),
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // 12 sandboxes of ~100 requests each: seconds alone, several times that on a loaded machine.
  }, 180_000);

  it('carries a write in the deltas of every endpoint it touches', async () => {
    const box = await startTestSandbox(DELTA_PLAN);
    try {
      const today = isoDate(box.clock.now());
      const plan = (await exportPlan(box.rest, box.planId)).plan;
      const targets = favouredTargets(plan, box.clock.now());
      const all = endpoints(box.planId, targets, today);
      const before = await snapshot(box.rest, all);
      const response = await box.rest.post(`/plans/${box.planId}/transactions`, {
        transaction: {
          account_id: targets.accountId,
          date: addDays(today, -1),
          amount: -12_340,
          payee_id: targets.payeeId,
          category_id: targets.categoryId,
        },
      });
      expect(response.status).toBe(201);
      for (const name of [
        'plan export',
        'accounts',
        'categories',
        'months',
        'all transactions',
        'account transactions',
        'category transactions',
        'payee transactions',
        'month transactions',
      ]) {
        const endpoint = all.find((e) => e.name === name);
        if (endpoint === undefined) throw new Error(name);
        const delta = await fetchData(box.rest, endpoint.path, knowledgeOf(before.get(name) ?? {}));
        expect(endpoint.changes(delta).length, name).toBeGreaterThan(0);
      }
      for (const name of ['payees', 'scheduled transactions']) {
        const endpoint = all.find((e) => e.name === name);
        if (endpoint === undefined) throw new Error(name);
        const delta = await fetchData(box.rest, endpoint.path, knowledgeOf(before.get(name) ?? {}));
        expect(endpoint.changes(delta), name).toEqual([]);
      }
    } finally {
      await box.close();
    }
  });

  it('carry the new month and its amounts when the clock enters a new month', async () => {
    const box = await startTestSandbox(DELTA_PLAN);
    try {
      const june = isoDate(box.clock.now());
      const plan = (await exportPlan(box.rest, box.planId)).plan;
      const targets = favouredTargets(plan, box.clock.now());
      const inJune = endpoints(box.planId, targets, june).filter(
        (e) => e.name !== 'month transactions',
      );
      const before = await snapshot(box.rest, inJune);

      box.clock.set(Date.UTC(2025, 6, 2, 12));
      const july = isoDate(box.clock.now());
      // The same endpoints, with the list windows of the new date.
      const inJuly = endpoints(box.planId, targets, july).filter(
        (e) => e.name !== 'month transactions',
      );
      const failures: string[] = [];
      for (const endpoint of inJuly) {
        const earlier = before.get(endpoint.name) ?? {};
        const full = await fetchData(box.rest, endpoint.path);
        const delta = await fetchData(box.rest, endpoint.path, knowledgeOf(earlier));
        const diffs = differences(endpoint.replay(earlier, delta), endpoint.current(full));
        if (diffs.length > 0) failures.push(`${endpoint.name}: ${diffs.join('; ')}`);
      }
      expect(failures).toEqual([]);

      const months = await fetchData(box.rest, `/plans/${box.planId}/months`);
      expect((months.months as { month: string }[]).map((m) => m.month)).toContain('2025-07-01');
      const current = await fetchData(box.rest, `/plans/${box.planId}/months/current`);
      expect((current.month as { month: string }).month).toBe('2025-07-01');
    } finally {
      await box.close();
    }
  });
});
