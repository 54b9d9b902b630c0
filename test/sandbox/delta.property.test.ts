/**
 * Property: for every delta-capable endpoint, replaying the delta response (asked with
 * `last_knowledge_of_server`) onto an earlier full response reproduces the current full
 * response, from the start of a random write sequence and from a point in its middle; and a
 * delta from the current knowledge is empty.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, isoDate } from './support/dates.js';
import { checkDeltaSequence, DELTA_PLAN, endpoints, fetchData, knowledgeOf, snapshot } from './support/delta-endpoints.js';
import { exportPlan, startTestSandbox } from './support/sandbox.js';
import { favouredTargets, writeSequenceArbitrary } from './support/writes.js';

const SEED = 20_250_615;
const RUNS = 25;
const MAX_WRITES = 15;

describe('delta requests', () => {
  it('replay onto an earlier full response to give the current one, for every delta endpoint', async () => {
    await fc.assert(
      fc.asyncProperty(writeSequenceArbitrary(MAX_WRITES), fc.nat(), (writes, splitChoice) =>
        checkDeltaSequence(writes, splitChoice % (writes.length + 1)),
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });

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
      for (const name of ['plan export', 'accounts', 'categories', 'months', 'all transactions', 'account transactions', 'category transactions', 'payee transactions', 'month transactions']) {
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
});
