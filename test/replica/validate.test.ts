/**
 * The written-out row checks (the large-export fast path of `assertEntity`) refuse whatever the
 * rule tables refuse, so a field added to `RULES` but not to them fails here.
 */
import { describe, expect, it } from 'vitest';
import {
  assertEntity,
  type CheckedCollection,
  checkedFields,
  ReplicaDataError,
  WRITTEN_OUT_CHECKS,
} from '../../src/replica/validate.js';

const GOOD_ROWS: Partial<Record<CheckedCollection, Record<string, unknown>>> = {
  transactions: {
    id: 't-1',
    date: '2026-01-02',
    amount: -12_340,
    account_id: 'a-1',
    category_id: null,
    payee_id: 'p-1',
    transfer_account_id: null,
    approved: true,
    deleted: false,
  },
  subtransactions: {
    id: 's-1',
    transaction_id: 't-1',
    amount: -2_000,
    category_id: 'c-1',
    payee_id: null,
    deleted: false,
  },
};

describe('the written-out row checks', () => {
  it('cover the collections a large export is made of', () => {
    expect([...WRITTEN_OUT_CHECKS].sort()).toEqual(['subtransactions', 'transactions']);
  });

  for (const collection of WRITTEN_OUT_CHECKS) {
    const good = GOOD_ROWS[collection]!;

    it(`pass a good ${collection} row`, () => {
      expect(() => assertEntity(collection, good, 'row')).not.toThrow();
    });

    for (const field of checkedFields(collection)) {
      it(`refuse ${collection} rows whose ${field} is wrong, naming it`, () => {
        // Missing and an object: values every check refuses.
        for (const bad of [undefined, {}]) {
          const row = { ...good, [field]: bad };
          expect(() => assertEntity(collection, row, 'data.plan.rows[3]')).toThrow(
            `data.plan.rows[3].${field} must be`,
          );
          expect(() => assertEntity(collection, row, 'row')).toThrow(ReplicaDataError);
        }
      });
    }
  }

  it('leave deleted rows to the general check (only the id is needed)', () => {
    expect(() =>
      assertEntity('transactions', { id: 't-9', deleted: true, amount: 'x' }, 'row'),
    ).not.toThrow();
  });
});
