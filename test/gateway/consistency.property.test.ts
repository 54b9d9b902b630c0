/**
 * Correctness under change: another client writes straight at the REST interface while the
 * gateway keeps its replica by deltas. After every forced sync (`Cache-Control: no-cache`), each
 * of a fixed set of rich queries answers exactly what a fresh gateway with no cache answers on
 * the same upstream. Seeded and bounded: a few runs of a few dozen steps.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ClockedStack, startStack } from '../support/stack.js';
import { applyWrite } from './support/apply-write.js';
import { expectSame, QUERIES, variablesFor } from './support/consistency-queries.js';
import { dataOf, upstreamOf } from './support/responses.js';
import { type WriteCommand, writeCommand } from './support/write-commands.js';

const TOKEN = 'consistency-token-000001';
/** Compressing each large answer only to inflate it again costs more than the rest of a check. */
const UNCOMPRESSED = { compressionMinBytes: false } as const;

type Step =
  | { kind: 'write'; command: WriteCommand }
  | { kind: 'read' }
  | { kind: 'check'; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: writeCommand.map((command) => ({ kind: 'write' as const, command })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'read' as const }) },
  { weight: 1, arbitrary: fc.nat(1_000).map((pick) => ({ kind: 'check' as const, pick })) },
);

/** Forces a sync on the long-lived gateway, then compares every query with a fresh gateway. */
async function check(s: ClockedStack, planId: string, pick: number): Promise<void> {
  const variables = await variablesFor(s.writer, TOKEN, planId, pick);
  const fresh = await s.addGateway({ serve: 'fetch', config: UNCOMPRESSED });
  try {
    const expected = new Map<string, unknown>();
    for (const [name, query] of Object.entries(QUERIES)) {
      const synced = await s.gql(query, variables, {
        token: TOKEN,
        headers: { 'cache-control': 'no-cache' },
      });
      expected.set(name, dataOf(await fresh.gql(query, variables, { token: TOKEN })));
      expectSame(dataOf(synced), expected.get(name), `${name} after a forced sync`);
      expect(upstreamOf(synced).operations, `${name}: the forced sync is one delta`).toEqual({
        getPlanById: 1,
      });
      s.clock.advance(1);
    }
    // Within max-age the replica answers alone, with what the sync stored.
    for (const [name, query] of Object.entries(QUERIES)) {
      const cached = await s.gql(query, variables, { token: TOKEN });
      expect(upstreamOf(cached).calls, `${name} within max-age`).toBe(0);
      expectSame(dataOf(cached), expected.get(name), `${name} from the replica`);
    }
  } finally {
    await fresh.close();
  }
}

describe('the replica under outside writes', () => {
  it('answers like a fresh gateway after every forced sync (seeded, bounded)', async () => {
    let accepted = 0;
    let attempted = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 50 }),
        fc.array(step, { minLength: 12, maxLength: 28 }),
        async (seed, steps) => {
          const s = await startStack({
            serve: 'fetch',
            clock: 'manual',
            config: UNCOMPRESSED,
            sandbox: {
              rateLimit: false,
              users: [{ token: TOKEN, plans: [{ seed, transactions: 150 }] }],
            },
          });
          try {
            const planId = s.sandbox.users[0]!.planIds[0]!;
            await s.gql(QUERIES.plan!, { planId }, { token: TOKEN }); // warm the replica
            for (const current of [...steps, { kind: 'check' as const, pick: seed }]) {
              s.clock.advance(4_000);
              if (current.kind === 'write') {
                attempted += 1;
                if (
                  await applyWrite(
                    { client: s.writer, token: TOKEN, planId, now: s.clock.now() },
                    current.command,
                  )
                )
                  accepted += 1;
              } else if (current.kind === 'read') {
                // A read within or past max-age, possibly before the gateway saw the last writes.
                const read = await s.gql(
                  QUERIES.transactions!,
                  await variablesFor(s.writer, TOKEN, planId, 0),
                  {
                    token: TOKEN,
                  },
                );
                expect(read.body.errors).toBeUndefined();
              } else {
                await check(s, planId, current.pick);
              }
            }
          } finally {
            await s.close();
          }
        },
      ),
      { seed: 20250615, numRuns: 5, unbiased: true, endOnFailure: true },
    );
    // The generator must mostly produce writes the upstream accepts, or the property is vacuous.
    expect(accepted / attempted).toBeGreaterThan(0.6);
  }, 180_000);
});
