import {
  account,
  planExport,
  TEST_MONTH,
  TEST_NOW,
  transaction,
  uuid,
} from '@plans-gateway/rest-contract/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPlanState, mergePlanDelta } from '../../src/replica/delta.js';
import type { PlanState } from '../../src/replica/plan-state.js';
import { applySavedEntities } from '../../src/replica/saved.js';
import { createPlanSnapshot } from '../../src/replica/snapshot.js';
import type { TransactionQuery, TransactionRow } from '../../src/replica/types.js';
import { createRandomPlan, randomChange } from './support/random-plan.js';
import { referenceQuery } from './support/reference-query.js';

const options = { currentMonth: TEST_MONTH };

/** Random queries over the ids and dates of a state, unknown ids included. */
function queries(state: PlanState): fc.Arbitrary<TransactionQuery> {
  const all = [...state.transactionsByDate];
  const idsOf = (list: readonly { id: string }[]) => [...list.map((row) => row.id), uuid(99, 1)];
  const date = fc
    .tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 29 }))
    .map(([m, d]) => `2026-${String(m + 1).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
  const key = fc.oneof(
    fc.constantFrom(...all.map((row) => ({ date: row.date, id: row.id }))),
    fc.record({ date, id: fc.constantFrom('', '5', 'z') }),
  );
  const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
  return fc
    .record({
      accountId: optional(fc.constantFrom(...idsOf(state.accounts.rows))),
      categoryId: optional(fc.constantFrom(...idsOf(state.categories.rows))),
      payeeId: optional(fc.constantFrom(...idsOf(state.payees.rows))),
      sinceDate: optional(date),
      untilDate: optional(date),
      type: optional(fc.constantFrom('uncategorized' as const, 'unapproved' as const)),
      order: optional(fc.constantFrom('DATE_ASC' as const, 'DATE_DESC' as const)),
      after: optional(key),
      before: optional(key),
      first: optional(fc.integer({ min: 0, max: 25 })),
      last: optional(fc.integer({ min: 0, max: 25 })),
    })
    .map(
      (query) =>
        Object.fromEntries(
          Object.entries(query).filter(([, v]) => v !== undefined),
        ) as TransactionQuery,
    );
}

function expectAgreesWithReference(state: PlanState, runs: number, seed: number): void {
  const snapshot = createPlanSnapshot(state, { now: () => TEST_NOW });
  const all: TransactionRow[] = [...state.transactions.values()];
  fc.assert(
    fc.property(queries(state), (query) => {
      const page = snapshot.transactions(query);
      expect({
        ids: page.rows.map((row) => row.id),
        totalCount: page.totalCount,
        hasNextPage: page.hasNextPage,
        hasPreviousPage: page.hasPreviousPage,
      }).toEqual(referenceQuery(snapshot, all, query));
    }),
    { numRuns: runs, seed },
  );
}

describe('transactions(query) against a brute-force filter', () => {
  const sizes = {
    accounts: 5,
    payees: 12,
    groups: 3,
    categories: 10,
    transactions: 600,
    splitShare: 0.15,
  };

  it('agrees on a freshly built replica', () => {
    const { fake } = createRandomPlan(4242, sizes);
    expectAgreesWithReference(buildPlanState(fake.exportPlan(), options), 1500, 1);
  });

  it('agrees after deltas and after applied writes', () => {
    const { fake, ids, rng } = createRandomPlan(777, sizes);
    let state = buildPlanState(fake.exportPlan(), options);
    for (let round = 0; round < 3; round += 1) {
      const knowledge = state.serverKnowledge;
      for (let i = 0; i < 40; i += 1) {
        const saved = randomChange(fake, ids, rng);
        if (saved && i % 2 === 0) state = applySavedEntities(state, saved, options);
      }
      expectAgreesWithReference(state, 300, round + 10);
      state = mergePlanDelta(state, fake.exportPlan(knowledge), options);
      expectAgreesWithReference(state, 300, round + 20);
    }
  });

  it('pages through a filtered list forward and backward with seek keys', () => {
    const { fake } = createRandomPlan(31, sizes);
    const state = buildPlanState(fake.exportPlan(), options);
    const snapshot = createPlanSnapshot(state, { now: () => TEST_NOW });
    const accountId = state.accounts.rows[0]!.id;
    const filter = { accountId, sinceDate: '2026-02-01', untilDate: '2026-03-31' } as const;
    const everything = snapshot.transactions(filter).rows.map((row) => row.id);
    expect(everything.length).toBeGreaterThan(30);

    const forward: string[] = [];
    let after: TransactionRow | undefined;
    for (;;) {
      const page = snapshot.transactions({ ...filter, first: 7, ...(after ? { after } : {}) });
      forward.push(...page.rows.map((row) => row.id));
      expect(page.hasPreviousPage).toBe(after !== undefined);
      if (!page.hasNextPage) break;
      after = page.rows[page.rows.length - 1];
    }
    expect(forward).toEqual(everything);

    const backward: string[] = [];
    let before: TransactionRow | undefined;
    for (;;) {
      const page = snapshot.transactions({ ...filter, last: 7, ...(before ? { before } : {}) });
      backward.unshift(...page.rows.map((row) => row.id));
      if (!page.hasPreviousPage) break;
      before = page.rows[0];
    }
    expect(backward).toEqual(everything);
  });

  it('treats only transactions needing a category as uncategorized', () => {
    const plan = uuid(1, 1);
    const budget = uuid(2, 1);
    const budget2 = uuid(2, 2);
    const tracking = uuid(2, 3);
    const t = (n: number, overrides: Partial<TransactionRow>) =>
      transaction({ id: uuid(7, n), account_id: budget, date: `2026-03-0${n}`, ...overrides });
    const state = buildPlanState(
      planExport(
        {
          id: plan,
          accounts: [
            account({ id: budget }),
            account({ id: budget2 }),
            account({ id: tracking, on_budget: false, type: 'otherAsset' }),
          ],
          transactions: [
            t(1, {}),
            t(2, { category_id: uuid(6, 1) }),
            t(3, { transfer_account_id: budget2 }),
            t(4, { transfer_account_id: tracking }),
            t(5, { account_id: tracking }),
            t(6, {}),
          ],
          subtransactions: [{ ...transactionSub(uuid(7, 6)), category_id: uuid(6, 1) }],
        },
        1,
      ),
      options,
    );
    const snapshot = createPlanSnapshot(state, { now: () => TEST_NOW });
    expect(
      snapshot.transactions({ type: 'uncategorized', order: 'DATE_ASC' }).rows.map((row) => row.id),
    ).toEqual([uuid(7, 1), uuid(7, 4)]);
  });

  it('rejects a malformed query, naming the field', () => {
    const { fake } = createRandomPlan(5, {
      accounts: 1,
      payees: 1,
      groups: 1,
      categories: 1,
      transactions: 3,
    });
    const snapshot = createPlanSnapshot(buildPlanState(fake.exportPlan(), options));
    expect(() => snapshot.transactions({ first: -1 })).toThrow(
      'TransactionQuery.first must be a non-negative integer, got -1',
    );
    expect(() => snapshot.transactions({ sinceDate: '03/01/2026' })).toThrow(
      'TransactionQuery.sinceDate must be a YYYY-MM-DD date',
    );
    expect(() => snapshot.transactions({ after: { date: '2026-01-01' } as never })).toThrow(
      'TransactionQuery.after.id must be a string',
    );
    expect(() => snapshot.transactions({ order: 'NEWEST' as never })).toThrow(
      'TransactionQuery.order must be DATE_DESC or DATE_ASC',
    );
  });
});

function transactionSub(parent: string) {
  return {
    id: uuid(8, 1),
    transaction_id: parent,
    amount: -1,
    memo: null,
    payee_id: null,
    payee_name: null,
    category_id: null,
    category_name: null,
    transfer_account_id: null,
    transfer_transaction_id: null,
    deleted: false,
  };
}
