/**
 * Correctness under change: another client writes straight at the REST interface while the
 * gateway keeps its replica by deltas. After every forced sync (`Cache-Control: no-cache`), each
 * of a fixed set of rich queries answers exactly what a fresh gateway with no cache answers on
 * the same upstream. Seeded and bounded: a few runs of a few dozen steps.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gqlAt, startGateway } from '../harness.js';
import { allFields } from '../support/selection.js';
import { type ClockedStack, dataOf, startClockedStack, upstreamOf } from './support.js';
import { applyWrite, liveParts, type WriteCommand, writeCommand } from './writes.js';

const TOKEN = 'consistency-token-000001';

const TRANSACTION = allFields('Transaction', {
  subtransactions: allFields('SubTransaction', { payee: '{ id name }', category: '{ id name }' }),
  account: '{ id name balance }',
  payee: '{ id name transferAccountId }',
  category: '{ id name budgeted activity balance }',
  transferAccount: '{ id name }',
});
const PAGE = `{ totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node ${TRANSACTION} } }`;
const HYBRID = `{ totalCount nodes ${allFields('HybridTransaction')} }`;

/** The fixed set of rich queries; each one is answered by both gateways and compared. */
const QUERIES: Record<string, string> = {
  plan: `query($planId: PlanId!) { plan(id: $planId) ${allFields('Plan')} }`,
  accounts: `query($planId: PlanId!) { plan(id: $planId) { accounts ${allFields('Account', { transferPayee: '{ id name }' })} } }`,
  categoryGroups: `query($planId: PlanId!) { plan(id: $planId) {
    categoryGroups ${allFields('CategoryGroup', { categories: allFields('Category', { group: '{ id name }' }) })} } }`,
  // Every month's summary; the categories of the months writes reach (back to 80 days) and after.
  months: `query($planId: PlanId!) { plan(id: $planId) {
    months ${allFields('Month')}
    ${['2025-02-01', '2025-03-01', '2025-04-01', '2025-05-01', '2025-06-01']
      .map(
        (m, i) => `m${i}: month(month: "${m}") { month categories ${allFields('MonthCategory')} }`,
      )
      .join('\n    ')} } }`,
  transactions: `query($planId: PlanId!, $account: UUID!, $category: UUID!, $payee: UUID!, $since: Date!) { plan(id: $planId) {
    newest: transactions(first: 30) ${PAGE}
    oldest: transactions(order: DATE_ASC, first: 10) ${PAGE}
    last: transactions(last: 7) ${PAGE}
    byAccount: transactions(accountId: $account, first: 25) ${PAGE}
    byCategory: transactions(categoryId: $category, first: 25) ${PAGE}
    byPayee: transactions(payeeId: $payee, first: 25) ${PAGE}
    recent: transactions(sinceDate: $since, first: 40) ${PAGE}
    window: transactions(accountId: $account, sinceDate: $since, type: unapproved, first: 15) ${PAGE}
    uncategorized: transactions(type: uncategorized, first: 25) ${PAGE}
    unapproved: transactions(type: unapproved, first: 25) ${PAGE}
  } }`,
  payees: `query($planId: PlanId!, $category: UUID!, $payee: UUID!) { plan(id: $planId) {
    payees ${allFields('Payee', { transferAccount: '{ id name }' })}
    payeeLocations ${allFields('PayeeLocation')}
    payee(id: $payee) { transactions(first: 30) ${HYBRID} }
    category(id: $category) { transactions(first: 30) ${HYBRID} }
  } }`,
  scheduled: `query($planId: PlanId!) { plan(id: $planId) {
    scheduledTransactions(first: 500) { totalCount nodes ${allFields('ScheduledTransaction', {
      subtransactions: allFields('ScheduledSubTransaction'),
      account: '{ id name }',
      payee: '{ id name }',
      category: '{ id name }',
    })} } } }`,
  monthTransactions: `query($planId: PlanId!) { plan(id: $planId) {
    current: month(month: "current") { ${allFields('Month').slice(1, -1)} transactions(first: 200) ${PAGE} }
    previous: month(month: "2025-05-01") { transactions(first: 200) ${PAGE} categories { id activity balance } }
  } }`,
};

type Step =
  | { kind: 'write'; command: WriteCommand }
  | { kind: 'read' }
  | { kind: 'check'; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: writeCommand.map((command) => ({ kind: 'write' as const, command })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'read' as const }) },
  { weight: 1, arbitrary: fc.nat(1_000).map((pick) => ({ kind: 'check' as const, pick })) },
);

/** Filter arguments for the transaction queries, taken from the plan as it is now. */
async function variablesFor(
  s: ClockedStack,
  planId: string,
  pick: number,
): Promise<Record<string, unknown>> {
  const { plan } = await s.writer.getPlanById({ token: TOKEN }, { planId });
  const live = liveParts(plan);
  const at = <T>(items: readonly T[]) => items[pick % items.length]!;
  return {
    planId,
    account: at(live.openAccounts).id,
    category: at(live.categories).id,
    payee: at(plan.payees.filter((p) => !p.deleted)).id,
    since: '2025-05-10',
  };
}

/** Deep equality; answers are compared as JSON first because a deep diff of every answer is slow. */
function expectSame(actual: unknown, expected: unknown, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual, what).toEqual(expected);
}

/** Forces a sync on the long-lived gateway, then compares every query with a fresh gateway. */
async function check(s: ClockedStack, planId: string, pick: number): Promise<void> {
  const variables = await variablesFor(s, planId, pick);
  const fresh = await startGateway(s.sandbox, { deps: { now: () => s.clock.now() } });
  try {
    const expected = new Map<string, unknown>();
    for (const [name, query] of Object.entries(QUERIES)) {
      const synced = await s.gql(query, variables, {
        token: TOKEN,
        headers: { 'cache-control': 'no-cache' },
      });
      expected.set(name, dataOf(await gqlAt(fresh.url, query, variables, TOKEN)));
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
          const s = await startClockedStack({
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
                const read = await s.gql(QUERIES.transactions!, await variablesFor(s, planId, 0), {
                  token: TOKEN,
                });
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
