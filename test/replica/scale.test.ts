/**
 * A 100,000-transaction replica: filtered pages must touch a small number of rows, counted by
 * the snapshot's meter (never by timing).
 */
import { planExport, TEST_MONTH, transaction, uuid } from '@plans-gateway/rest-contract/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildPlanState, mergePlanDelta } from '../../src/replica/delta.js';
import type { PlanState } from '../../src/replica/plan-state.js';
import { createPlanSnapshot } from '../../src/replica/snapshot.js';
import type { QueryMeter } from '../../src/replica/transaction-query.js';
import type { PlanSnapshot, TransactionQuery, TransactionRow } from '../../src/replica/types.js';
import { createLargeExport, LARGE_PLAN_ID } from './support/large-plan.js';
import { referenceQuery } from './support/reference-query.js';

const COUNT = 100_000;
const ACCOUNT = uuid(2, 7);
const CATEGORY = uuid(6, 3);
const PAYEE = uuid(3, 42);
const MARCH = { sinceDate: '2022-03-01', untilDate: '2022-03-31' } as const;

describe('a 100,000-transaction replica', () => {
  let state: PlanState;
  let snapshot: PlanSnapshot;
  const meter: QueryMeter = { rowsVisited: 0 };
  const visits = (query: TransactionQuery) => {
    meter.rowsVisited = 0;
    const page = snapshot.transactions(query);
    return { page, rows: page.rows.map((row) => row.id), visited: () => meter.rowsVisited };
  };
  const reference = (query: TransactionQuery) =>
    referenceQuery(snapshot, [...state.transactions.values()], query);

  beforeAll(() => {
    state = buildPlanState(createLargeExport({ transactions: COUNT }), {
      currentMonth: TEST_MONTH,
    });
    snapshot = createPlanSnapshot(state, { meter });
  });

  it('holds every transaction', () => {
    expect(state.transactions.size).toBe(COUNT);
    expect(state.transactionsByDate.size).toBe(COUNT);
  });

  it('serves one account, one month, first 50 by visiting about 50 rows', () => {
    const query = { accountId: ACCOUNT, ...MARCH, first: 50 };
    const { page, rows, visited } = visits(query);
    expect(rows).toHaveLength(50);
    expect(visited()).toBe(50);
    // Without a residual filter the counts are window arithmetic: no further rows visited.
    expect(page.totalCount).toBe(reference(query).totalCount);
    expect(page.hasNextPage).toBe(true);
    expect(page.hasPreviousPage).toBe(false);
    expect(visited()).toBe(50);
    expect(rows).toEqual(reference(query).ids);
  });

  it('counts a date range of the whole plan without visiting rows', () => {
    const { page, visited } = visits({ ...MARCH, first: 0 });
    expect(page.totalCount).toBe(reference(MARCH).totalCount);
    expect(visited()).toBe(0);
  });

  it('combines filters by walking only the most selective window', () => {
    const query = { accountId: ACCOUNT, categoryId: CATEGORY, ...MARCH, first: 10 };
    const accountWindow = snapshot.transactions({ accountId: ACCOUNT, ...MARCH }).totalCount;
    const categoryWindow = snapshot.transactions({ categoryId: CATEGORY, ...MARCH }).totalCount;
    const { page, rows, visited } = visits(query);
    expect(rows).toEqual(reference(query).ids);
    expect(page.totalCount).toBe(reference(query).totalCount);
    expect(visited()).toBeLessThanOrEqual(2 * Math.min(accountWindow, categoryWindow));
    expect(visited()).toBeLessThan(COUNT / 100);
  });

  it('seeks to a later page by key without walking the earlier ones', () => {
    const all = snapshot.transactions({ payeeId: PAYEE, order: 'DATE_ASC' }).rows;
    const middle = all[Math.floor(all.length / 2)]!;
    const { rows, visited } = visits({
      payeeId: PAYEE,
      order: 'DATE_ASC',
      after: middle,
      first: 20,
    });
    expect(rows).toEqual(
      all.slice(all.indexOf(middle) + 1, all.indexOf(middle) + 21).map((row) => row.id),
    );
    expect(visited()).toBe(20);
  });

  it('filters by type inside the chosen window only', () => {
    const query: TransactionQuery = { accountId: ACCOUNT, ...MARCH, type: 'unapproved' };
    const window = snapshot.transactions({ accountId: ACCOUNT, ...MARCH }).totalCount;
    const { page, rows, visited } = visits(query);
    expect(rows).toEqual(reference(query).ids);
    expect(page.totalCount).toBe(rows.length);
    expect(visited()).toBeLessThanOrEqual(2 * window);
  });

  it('merges a delta and serves the changed page without a rebuild', () => {
    const moved = state.transactionsByAccount.get(ACCOUNT)!.at(12345 % 5000) as TransactionRow;
    const delta = planExport(
      {
        id: LARGE_PLAN_ID,
        transactions: [
          { ...moved, date: '2022-03-15', memo: 'moved here' },
          transaction({
            id: uuid(7, COUNT + 1),
            account_id: ACCOUNT,
            date: '2022-03-31',
            payee_id: PAYEE,
          }),
        ],
      },
      1001,
    );
    const next = mergePlanDelta(state, delta, { currentMonth: TEST_MONTH });
    // Most chunks of the date index are shared with the previous version.
    const before = new Set(state.transactionsByDate._internals().chunks);
    const after = next.transactionsByDate._internals().chunks;
    expect(after.filter((chunk) => !before.has(chunk)).length).toBeLessThanOrEqual(4);

    const view = createPlanSnapshot(next);
    const page = view.transactions({ accountId: ACCOUNT, ...MARCH, first: 3 });
    expect(page.rows[0]?.id).toBe(uuid(7, COUNT + 1));
    expect(
      view
        .transactions({ accountId: ACCOUNT, ...MARCH })
        .rows.some((row) => row.memo === 'moved here'),
    ).toBe(true);
    expect(view.transactions({}).totalCount).toBe(COUNT + 1);
  });
});
