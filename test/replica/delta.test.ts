import {
  account,
  category,
  categoryGroup,
  month,
  payee,
  planExport,
  scheduledSubtransaction,
  scheduledTransaction,
  subtransaction,
  TEST_MONTH,
  TEST_NOW,
  transaction,
  uuid,
} from '@plans-gateway/rest-contract/testing';
import { describe, expect, it } from 'vitest';
import { buildPlanState, mergePlanDelta } from '../../src/replica/delta.js';
import { createPlanSnapshot } from '../../src/replica/snapshot.js';
import { ReplicaDataError } from '../../src/replica/validate.js';

const PLAN = uuid(1, 1);
const A1 = uuid(2, 1);
const A2 = uuid(2, 2);
const A3 = uuid(2, 3);
const G1 = uuid(5, 1);
const G2 = uuid(5, 2);
const C1 = uuid(6, 1);
const C2 = uuid(6, 2);
const C3 = uuid(6, 3);
const P1 = uuid(3, 1);
const P2 = uuid(3, 2);
const T1 = uuid(7, 1);
const T2 = uuid(7, 2);
const S1 = uuid(8, 1);
const S2 = uuid(8, 2);
const S3 = uuid(8, 3);
const options = { currentMonth: TEST_MONTH };
const view = (state: Parameters<typeof createPlanSnapshot>[0]) =>
  createPlanSnapshot(state, { now: () => TEST_NOW });

function baseExport() {
  const cat = (id: string, group: string, budgeted: number) =>
    category({
      id,
      category_group_id: group,
      category_group_name: group === G1 ? 'Bills' : 'Fun',
      budgeted,
    });
  return planExport(
    {
      id: PLAN,
      accounts: [account({ id: A1, name: 'Checking' }), account({ id: A2, name: 'Savings' })],
      payees: [payee({ id: P1, name: 'Grocer' }), payee({ id: P2, name: 'Landlord' })],
      category_groups: [
        categoryGroup({ id: G1, name: 'Bills' }),
        categoryGroup({ id: G2, name: 'Fun' }),
      ],
      categories: [cat(C1, G1, 300), cat(C2, G2, 400)],
      months: [
        month({ month: '2026-02-01', categories: [cat(C1, G1, 100), cat(C2, G2, 200)] }),
        month({ month: TEST_MONTH, categories: [cat(C1, G1, 300), cat(C2, G2, 400)] }),
      ],
      transactions: [
        transaction({ id: T1, account_id: A1, date: '2026-03-02', category_id: C1, payee_id: P1 }),
        transaction({
          id: T2,
          account_id: A1,
          date: '2026-03-01',
          category_id: null,
          payee_id: P2,
        }),
      ],
      subtransactions: [
        subtransaction({ id: S1, transaction_id: T2, category_id: C1 }),
        subtransaction({ id: S2, transaction_id: T2, category_id: C2, payee_id: P1 }),
      ],
    },
    10,
  );
}

describe('buildPlanState', () => {
  it('stores rows in export order with plan_id attached, and month on category rows', () => {
    const snapshot = view(buildPlanState(baseExport(), options));
    expect(snapshot.planId).toBe(PLAN);
    expect(snapshot.serverKnowledge).toBe(10);
    expect(snapshot.info.name).toBe('Test Plan');
    expect(snapshot.accounts().map((row) => [row.name, row.plan_id])).toEqual([
      ['Checking', PLAN],
      ['Savings', PLAN],
    ]);
    expect(
      snapshot.categories('2026-02-01').map((row) => [row.id, row.budgeted, row.month]),
    ).toEqual([
      [C1, 100, '2026-02-01'],
      [C2, 200, '2026-02-01'],
    ]);
    // Default month: the current one by the injected clock.
    expect(snapshot.category(C2)?.budgeted).toBe(400);
    expect(snapshot.months().map((row) => row.month)).toEqual(['2026-02-01', TEST_MONTH]);
    expect(snapshot.months()[0]).not.toHaveProperty('categories');
    expect(snapshot.subtransactionsOf(T2).map((row) => row.id)).toEqual([S1, S2]);
  });

  it('falls back to the top-level categories for a month the plan does not have', () => {
    const snapshot = view(buildPlanState(baseExport(), options));
    expect(
      snapshot.categories('2030-01-01').map((row) => [row.id, row.budgeted, row.month]),
    ).toEqual([
      [C1, 300, TEST_MONTH],
      [C2, 400, TEST_MONTH],
    ]);
    expect(snapshot.categoriesOfGroup(G2, '2026-02-15').map((row) => row.budgeted)).toEqual([200]);
  });

  it('indexes a split under its own and its subtransactions’ categories and payees', () => {
    const state = buildPlanState(baseExport(), options);
    const ids = (key: string, lists: typeof state.transactionsByCategory) =>
      [...(lists.get(key) ?? [])].map((r) => r.id);
    expect(ids(C1, state.transactionsByCategory)).toEqual([T2, T1]);
    expect(ids(C2, state.transactionsByCategory)).toEqual([T2]);
    expect(ids(P1, state.transactionsByPayee)).toEqual([T2, T1]);
    expect(ids(A1, state.transactionsByAccount)).toEqual([T2, T1]);
  });
});

describe('mergePlanDelta', () => {
  it('upserts in place, appends new rows, drops deleted ones and advances knowledge', () => {
    const before = buildPlanState(baseExport(), options);
    const delta = planExport(
      {
        id: PLAN,
        name: 'Renamed Plan',
        last_month: '2026-07-01',
        accounts: [
          account({ id: A1, name: 'Main checking' }),
          account({ id: A3, name: 'Cash' }),
          account({ id: A2, deleted: true }),
        ],
      },
      12,
    );
    const after = view(mergePlanDelta(before, delta, options));
    expect(after.accounts().map((row) => row.name)).toEqual(['Main checking', 'Cash']);
    expect(after.account(A2)).toBeUndefined();
    expect(after.serverKnowledge).toBe(12);
    expect(after.info).toMatchObject({ name: 'Renamed Plan', last_month: '2026-07-01' });
    // Untouched collections are the same rows.
    expect(after.payees()).toBe(view(before).payees());
  });

  it('merges a month that lists only its changed categories', () => {
    const before = buildPlanState(baseExport(), options);
    const delta = planExport(
      {
        id: PLAN,
        months: [
          month({
            month: '2026-02-01',
            budgeted: 999,
            categories: [
              category({
                id: C2,
                category_group_id: G2,
                category_group_name: 'Fun',
                budgeted: 250,
              }),
            ],
          }),
        ],
      },
      11,
    );
    const after = view(mergePlanDelta(before, delta, options));
    expect(after.month('2026-02-01')?.budgeted).toBe(999);
    expect(after.categories('2026-02-01').map((row) => [row.id, row.budgeted])).toEqual([
      [C1, 100],
      [C2, 250],
    ]);
    // Other months untouched.
    expect(after.categories(TEST_MONTH)).toBe(view(before).categories(TEST_MONTH));
  });

  it('adds and deletes whole months', () => {
    const before = buildPlanState(baseExport(), options);
    const delta = planExport(
      {
        id: PLAN,
        months: [
          month({ month: '2026-02-01', deleted: true }),
          month({
            month: '2026-04-01',
            categories: [
              category({
                id: C1,
                category_group_id: G1,
                category_group_name: 'Bills',
                budgeted: 5,
              }),
            ],
          }),
        ],
      },
      11,
    );
    const after = view(mergePlanDelta(before, delta, options));
    expect(after.months().map((row) => row.month)).toEqual([TEST_MONTH, '2026-04-01']);
    expect(after.month('2026-02-01')).toBeUndefined();
    expect(after.categories('2026-04-01').map((row) => row.budgeted)).toEqual([5]);
    // An absent month falls back to the top-level categories.
    expect(after.categories('2026-02-01').map((row) => row.month)).toEqual([
      TEST_MONTH,
      TEST_MONTH,
    ]);
  });

  it('copies a category’s own fields into months the delta did not carry, and removes deleted ones everywhere', () => {
    const before = buildPlanState(baseExport(), options);
    const delta = planExport(
      {
        id: PLAN,
        categories: [
          category({
            id: C1,
            category_group_id: G2,
            category_group_name: 'Fun',
            name: 'Rent',
            budgeted: 300,
          }),
          category({ id: C2, category_group_id: G2, deleted: true }),
          category({ id: C3, category_group_id: G2, category_group_name: 'Fun', name: 'New' }),
        ],
      },
      11,
    );
    const after = view(mergePlanDelta(before, delta, options));
    const feb = after.categories('2026-02-01');
    expect(feb.map((row) => [row.id, row.name, row.category_group_id, row.budgeted])).toEqual([
      [C1, 'Rent', G2, 100],
    ]);
    expect(after.categoriesOfGroup(G2, TEST_MONTH).map((row) => row.name)).toEqual(['Rent']);
    expect(after.categories('2030-01-01').map((row) => row.name)).toEqual(['Rent', 'New']);
  });

  it('follows a renamed category group into every category row', () => {
    const before = buildPlanState(baseExport(), options);
    const delta = planExport(
      { id: PLAN, category_groups: [categoryGroup({ id: G1, name: 'Fixed costs' })] },
      11,
    );
    const after = view(mergePlanDelta(before, delta, options));
    expect(after.category(C1, '2026-02-01')?.category_group_name).toBe('Fixed costs');
    expect(after.category(C1, '2030-01-01')?.category_group_name).toBe('Fixed costs');
    expect(after.category(C2, '2026-02-01')?.category_group_name).toBe('Fun');
  });

  it('replaces changed subtransactions in place, appends new ones and re-indexes the parent', () => {
    const before = buildPlanState(baseExport(), options);
    const delta = planExport(
      {
        id: PLAN,
        subtransactions: [
          subtransaction({ id: S1, transaction_id: T2, category_id: C2, amount: -700 }),
          subtransaction({ id: S3, transaction_id: T2, category_id: C3 }),
          subtransaction({ id: S2, transaction_id: T2, deleted: true }),
        ],
      },
      11,
    );
    const state = mergePlanDelta(before, delta, options);
    const after = view(state);
    expect(after.subtransactionsOf(T2).map((row) => [row.id, row.amount])).toEqual([
      [S1, -700],
      [S3, -500],
    ]);
    expect(after.subtransaction(S2)).toBeUndefined();
    expect(after.transactions({ categoryId: C1 }).rows.map((row) => row.id)).toEqual([T1]);
    expect(after.transactions({ categoryId: C3 }).rows.map((row) => row.id)).toEqual([T2]);
    expect(after.transactions({ payeeId: P1 }).rows.map((row) => row.id)).toEqual([T1]);
  });

  it('recounts the hybrid rows of a split whose lines alone changed', () => {
    const before = view(buildPlanState(baseExport(), options));
    expect(before.hybridCount({ categoryId: C1 }, {})).toBe(2); // T1, and T2's line S1
    expect(before.hybridCount({ categoryId: C2 }, {})).toBe(1);
    expect(before.hybridCount({ payeeId: P1 }, {})).toBe(2); // T1, and S2
    const delta = planExport(
      {
        id: PLAN,
        subtransactions: [
          subtransaction({ id: S1, transaction_id: T2, category_id: C2 }),
          subtransaction({ id: S3, transaction_id: T2, category_id: C2, payee_id: P1 }),
        ],
      },
      11,
    );
    const after = view(mergePlanDelta(buildPlanState(baseExport(), options), delta, options));
    // T2 stays in C2's and P1's lists, with more lines there.
    expect(after.hybridCount({ categoryId: C1 }, {})).toBe(1);
    expect(after.hybridCount({ categoryId: C2 }, {})).toBe(3);
    expect(after.hybridCount({ payeeId: P1 }, {})).toBe(3);
    expect(after.hybridCount({ payeeId: P2 }, {})).toBe(1); // T2's whole row
    expect(after.hybridCount({ categoryId: C2 }, { sinceDate: '2026-03-02' })).toBe(0);
    expect(after.hybridCount({ categoryId: C1 }, { sinceDate: '2026-03-02' })).toBe(1);
    expect(after.hybridCount({ categoryId: C3 }, {})).toBe(0);
  });

  it('drops the subtransactions of a deleted transaction even when the delta omits them', () => {
    const before = buildPlanState(baseExport(), options);
    const delta = planExport(
      {
        id: PLAN,
        transactions: [transaction({ id: T2, account_id: A1, date: '2026-03-01', deleted: true })],
      },
      11,
    );
    const state = mergePlanDelta(before, delta, options);
    const after = view(state);
    expect(after.transaction(T2)).toBeUndefined();
    expect(after.subtransactionsOf(T2)).toEqual([]);
    expect(after.subtransaction(S1)).toBeUndefined();
    expect(state.subtransactions.size).toBe(0);
    expect(after.transactions({ categoryId: C2 }).rows).toEqual([]);
    expect(after.transactions({}).rows.map((row) => row.id)).toEqual([T1]);
  });

  it('moves a transaction between index lists when its date, account, category or payee changes', () => {
    const before = buildPlanState(baseExport(), options);
    const delta = planExport(
      {
        id: PLAN,
        transactions: [
          transaction({
            id: T1,
            account_id: A2,
            date: '2026-02-20',
            category_id: C2,
            payee_id: P2,
          }),
        ],
      },
      11,
    );
    const after = view(mergePlanDelta(before, delta, options));
    expect(after.transactions({ accountId: A1 }).rows.map((row) => row.id)).toEqual([T2]);
    expect(after.transactions({ accountId: A2 }).rows.map((row) => row.id)).toEqual([T1]);
    expect(after.transactions({ order: 'DATE_ASC' }).rows.map((row) => row.id)).toEqual([T1, T2]);
    expect(after.transactions({ categoryId: C1 }).rows.map((row) => row.id)).toEqual([T2]);
    expect(after.transactions({ payeeId: P2 }).rows.map((row) => row.id)).toEqual([T2, T1]);
  });

  it('keeps only subtransactions whose parent is live', () => {
    const before = buildPlanState(baseExport(), options);
    const delta = planExport(
      {
        id: PLAN,
        subtransactions: [subtransaction({ id: S3, transaction_id: uuid(7, 99), category_id: C3 })],
      },
      11,
    );
    const after = view(mergePlanDelta(before, delta, options));
    expect(after.subtransaction(S3)).toBeUndefined();
    expect(after.transactions({ categoryId: C3 }).totalCount).toBe(0);
  });

  it('cascades a deleted scheduled transaction to its subtransactions', () => {
    const SC = uuid(9, 1);
    const initial = baseExport();
    initial.plan.scheduled_transactions = [scheduledTransaction({ id: SC, account_id: A1 })];
    initial.plan.scheduled_subtransactions = [
      scheduledSubtransaction({ id: uuid(10, 1), scheduled_transaction_id: SC }),
      scheduledSubtransaction({ id: uuid(10, 2), scheduled_transaction_id: SC }),
    ];
    const before = buildPlanState(initial, options);
    expect(view(before).scheduledSubtransactionsOf(SC)).toHaveLength(2);
    const delta = planExport(
      {
        id: PLAN,
        scheduled_transactions: [scheduledTransaction({ id: SC, account_id: A1, deleted: true })],
      },
      11,
    );
    const after = view(mergePlanDelta(before, delta, options));
    expect(after.scheduledTransactions()).toEqual([]);
    expect(after.scheduledSubtransactionsOf(SC)).toEqual([]);
  });

  it('never changes the state it merged into', () => {
    const before = buildPlanState(baseExport(), options);
    const snapshot = view(before);
    const pageBefore = snapshot.transactions({ accountId: A1 }).rows;
    mergePlanDelta(
      before,
      planExport(
        { id: PLAN, transactions: [transaction({ id: T1, account_id: A2, date: '2026-01-01' })] },
        11,
      ),
      options,
    );
    expect(snapshot.transactions({ accountId: A1 }).rows).toEqual(pageBefore);
    expect(snapshot.transaction(T1)?.account_id).toBe(A1);
    expect(snapshot.serverKnowledge).toBe(10);
  });

  it('rejects a malformed delta with an error naming the field, leaving the replica as it was', () => {
    const before = buildPlanState(baseExport(), options);
    const bad = planExport(
      { id: PLAN, transactions: [transaction({ id: T1, account_id: A1, date: '2026-3-1' })] },
      11,
    );
    expect(() => mergePlanDelta(before, bad, options)).toThrow(ReplicaDataError);
    expect(() => mergePlanDelta(before, bad, options)).toThrow(
      'data.plan.transactions[0].date must be a YYYY-MM-DD date, got "2026-3-1"',
    );
    const noList = { server_knowledge: 11, plan: { ...baseExport().plan, payees: undefined } };
    expect(() => mergePlanDelta(before, noList as never, options)).toThrow(
      'data.plan.payees must be an array',
    );
    expect(view(before).transaction(T1)?.date).toBe('2026-03-02');
  });

  it('refuses a delta of another plan', () => {
    const before = buildPlanState(baseExport(), options);
    expect(() => mergePlanDelta(before, planExport({ id: uuid(1, 2) }, 11), options)).toThrow(
      /data\.plan\.id must be the replica's plan id/,
    );
  });
});
