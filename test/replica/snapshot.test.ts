import {
  category,
  categoryGroup,
  month,
  payee,
  payeeLocation,
  planExport,
  scheduledSubtransaction,
  scheduledTransaction,
  TEST_MONTH,
  TEST_NOW,
  uuid,
} from '@plans-gateway/rest-contract/testing';
import { describe, expect, it } from 'vitest';
import { buildPlanState } from '../../src/replica/delta.js';
import { createPlanSnapshot } from '../../src/replica/snapshot.js';

const P1 = uuid(3, 1);
const P2 = uuid(3, 2);
const G1 = uuid(5, 1);
const G2 = uuid(5, 2);
const S1 = uuid(9, 1);
const S2 = uuid(9, 2);

function snapshot(now = TEST_NOW) {
  const cat = (n: number, group: string, budgeted: number) =>
    category({ id: uuid(6, n), category_group_id: group, budgeted });
  const state = buildPlanState(
    planExport(
      {
        id: uuid(1, 1),
        payees: [payee({ id: P1 }), payee({ id: P2 })],
        payee_locations: [
          payeeLocation({ id: uuid(4, 1), payee_id: P1 }),
          payeeLocation({ id: uuid(4, 2), payee_id: P2 }),
          payeeLocation({ id: uuid(4, 3), payee_id: P1 }),
        ],
        category_groups: [categoryGroup({ id: G1 }), categoryGroup({ id: G2 })],
        categories: [cat(1, G1, 30), cat(2, G2, 40), cat(3, G1, 50)],
        months: [
          month({ month: '2026-02-01', categories: [cat(1, G1, 1), cat(2, G2, 2), cat(3, G1, 3)] }),
          month({
            month: TEST_MONTH,
            categories: [cat(1, G1, 10), cat(2, G2, 20), cat(3, G1, 30)],
          }),
        ],
        scheduled_transactions: [
          scheduledTransaction({ id: S1, account_id: uuid(2, 1) }),
          scheduledTransaction({ id: S2, account_id: uuid(2, 1) }),
        ],
        scheduled_subtransactions: [
          scheduledSubtransaction({ id: uuid(10, 1), scheduled_transaction_id: S2 }),
          scheduledSubtransaction({ id: uuid(10, 2), scheduled_transaction_id: S2 }),
        ],
      },
      5,
    ),
    { currentMonth: TEST_MONTH },
  );
  return createPlanSnapshot(state, { now: () => now });
}

describe('PlanSnapshot reads', () => {
  it('groups payee locations by payee and scheduled subtransactions by parent, in REST order', () => {
    const view = snapshot();
    expect(view.payeeLocationsOfPayee(P1).map((row) => row.id)).toEqual([uuid(4, 1), uuid(4, 3)]);
    expect(view.payeeLocationsOfPayee(uuid(3, 9))).toEqual([]);
    expect(view.payeeLocation(uuid(4, 2))?.payee_id).toBe(P2);
    expect(view.scheduledSubtransactionsOf(S2).map((row) => row.id)).toEqual([
      uuid(10, 1),
      uuid(10, 2),
    ]);
    expect(view.scheduledSubtransactionsOf(S1)).toEqual([]);
    // Same arrays on every call: nothing is copied per read.
    expect(view.payeeLocationsOfPayee(P1)).toBe(view.payeeLocationsOfPayee(P1));
    expect(view.accounts()).toBe(view.accounts());
  });

  it('reads a month by its first day, any day of it, or `current`', () => {
    const view = snapshot();
    expect(view.currentMonth()).toBe(TEST_MONTH);
    expect(view.month('current')?.month).toBe(TEST_MONTH);
    expect(view.month('2026-02-17')?.month).toBe('2026-02-01');
    expect(view.categoriesOfGroup(G1, 'current').map((row) => row.budgeted)).toEqual([10, 30]);
    expect(view.categoriesOfGroup(G1, '2026-02-01').map((row) => row.budgeted)).toEqual([1, 3]);
    expect(view.category(uuid(6, 2), '2026-02-09')).toMatchObject({
      budgeted: 2,
      month: '2026-02-01',
    });
  });

  it('follows the injected clock for the default month', () => {
    const inFebruary = snapshot(Date.UTC(2026, 1, 28, 23, 59));
    expect(inFebruary.currentMonth()).toBe('2026-02-01');
    expect(inFebruary.category(uuid(6, 1))?.budgeted).toBe(1);
  });

  it('rejects a month that is not a date, naming it', () => {
    expect(() => snapshot().categories('March')).toThrow(
      'month must be a YYYY-MM-DD date or "current", got "March"',
    );
  });
});
