/**
 * The change log that serves resuming subscribers, and the change arithmetic it relies on:
 * coverage from `base`, gaps, bounds; merging changes (later rows win, deletions remove); what a
 * filtered `transactionsChanged` view makes of a change.
 */
import { describe, expect, it } from 'vitest';
import { ChangeLog } from '../../src/live/change-log.js';
import {
  type ChangeKeys,
  emptyKeys,
  mergeChanges,
  type PlanChange,
} from '../../src/replica/changes.js';
import type { TransactionRow } from '../../src/replica/types.js';
import { transactionsView } from '../../src/schema/index.js';
import { planChange } from './support/plan-change.js';

function keys(transactions: string[]): ChangeKeys {
  const result = emptyKeys();
  for (const id of transactions) result.transactions.add(id);
  return result;
}

/** The transaction ids of the log's entries after `knowledge`; undefined when it does not reach. */
const ids = (log: ChangeLog, knowledge: number) =>
  log
    .entriesAfter(knowledge)
    ?.flatMap((entry) => [...entry.keys.transactions])
    .sort();

describe('ChangeLog', () => {
  it('replays the union of the deltas after a knowledge it reaches back to', () => {
    const log = new ChangeLog(10);
    log.record(10, 12, keys(['a']));
    log.record(12, 15, keys(['b']));
    log.record(15, 15, keys([])); // an empty delta moves nothing
    log.record(13, 18, keys(['c'])); // asked from older knowledge (a write's delta): contiguous
    expect(ids(log, 10)).toEqual(['a', 'b', 'c']);
    expect(ids(log, 12)).toEqual(['b', 'c']);
    expect(ids(log, 15)).toEqual(['c']);
    expect(ids(log, 18)).toEqual([]);
    expect(log.entriesAfter(9)).toBeUndefined();
  });

  it('says a write not logged awaits its delta until a delta is recorded or the log restarts', () => {
    const log = new ChangeLog(10);
    expect(log.recordWrite(11, keys(['whole']))).toBe(true);
    expect(log.awaitsDelta).toBe(false);
    log.notePendingWrite(13, keys(['partial']));
    expect(log.awaitsDelta).toBe(true);
    log.record(10, 13, keys(['whole', 'partial']));
    expect(log.awaitsDelta).toBe(false);
    log.notePendingWrite(undefined, keys([]));
    expect(log.awaitsDelta).toBe(true);
    log.restart(20);
    expect(log.awaitsDelta).toBe(false);
  });

  it('restarts after a gap: a full export, or a delta from beyond what it saw', () => {
    const log = new ChangeLog(10);
    log.record(10, 12, keys(['a']));
    log.record(undefined, 20, keys([]));
    expect(log.entriesAfter(12)).toBeUndefined();
    expect(ids(log, 20)).toEqual([]);
    log.record(25, 30, keys(['b']));
    expect(log.base).toBe(30);
    expect(log.entriesAfter(25)).toBeUndefined();
  });

  it('reaches back to a backfill: its keys become the oldest entry, or a whole-plan one when too many', () => {
    const log = new ChangeLog(10, { maxKeys: 6 });
    log.record(10, 12, keys(['a']));
    expect(log.extendBack(5, keys(['x', 'y']))).toBe(true);
    expect(log.base).toBe(5);
    expect(ids(log, 5)).toEqual(['a', 'x', 'y']);
    expect(ids(log, 7)).toEqual(['a', 'x', 'y']); // the backfill's keys cover (5, 10] and more
    expect(ids(log, 10)).toEqual(['a']);
    expect(log.entriesAfter(4)).toBeUndefined();

    expect(log.extendBack(1, keys(['p', 'q', 'r', 's']))).toBe(false); // 3 + 4 ids: over 6
    expect(log.base).toBe(5);
    expect(log.extendBack(1, keys(['gone']), true)).toBe(true);
    expect(log.entriesAfter(1)?.[0]).toMatchObject({ to: 5, everything: true, size: 2 });
    expect(log.size).toBe(5);
  });

  it('drops its oldest deltas beyond its bounds, and no longer reaches back to them', () => {
    const log = new ChangeLog(0, { maxEntries: 2, maxKeys: 3 });
    log.record(0, 1, keys(['a']));
    log.record(1, 2, keys(['b']));
    log.record(2, 3, keys(['c']));
    expect(log.base).toBe(1);
    expect(log.entriesAfter(0)).toBeUndefined();
    expect(ids(log, 1)).toEqual(['b', 'c']);
    log.record(3, 4, keys(['d', 'e'])); // 4 ids: over the bound of 3
    expect(log.base).toBe(2);
    expect(log.size).toBe(3);
    expect(log.entriesAfter(1)).toBeUndefined();
    expect(ids(log, 2)).toEqual(['c', 'd', 'e']);
  });
});

function row(id: string, accountId: string, memo = ''): TransactionRow {
  return {
    id,
    plan_id: 'p',
    date: '2025-06-15',
    amount: -1000,
    memo,
    cleared: 'uncleared',
    approved: true,
    flag_color: null,
    flag_name: null,
    account_id: accountId,
    payee_id: null,
    category_id: null,
    transfer_account_id: null,
    transfer_transaction_id: null,
    matched_transaction_id: null,
    import_id: null,
    import_payee_name: null,
    import_payee_name_original: null,
    debt_transaction_type: null,
    deleted: false,
  };
}

function change(partial: Partial<PlanChange>): PlanChange {
  return planChange(partial);
}

describe('merging changes (a slow subscriber receives one)', () => {
  it('keeps the later row, lets a later deletion remove a row, and spans both knowledges', () => {
    const first = change({
      origin: 'WRITE',
      serverKnowledge: 5,
      previousServerKnowledge: 4,
      transactions: [row('t1', 'a', 'old'), row('t2', 'a')],
    });
    const second = change({
      serverKnowledge: 7,
      previousServerKnowledge: 5,
      transactions: [row('t1', 'a', 'new')],
      deleted: { ...change({}).deleted, transactionIds: ['t2'] },
    });
    const merged = mergeChanges(first, second);
    expect(merged.transactions.map((tx) => [tx.id, tx.memo])).toEqual([['t1', 'new']]);
    expect(merged.deleted.transactionIds).toEqual(['t2']);
    expect(merged).toMatchObject({
      origin: 'SYNC',
      serverKnowledge: 7,
      previousServerKnowledge: 4,
    });
    // A row after a deletion of the same id brings it back.
    const revived = mergeChanges(second, change({ transactions: [row('t2', 'a')] }));
    expect(revived.deleted.transactionIds).toEqual([]);
    expect(revived.transactions.map((tx) => tx.id)).toEqual(['t1', 't2']);
  });

  it('is a complete WRITE only when no write in it awaits a SYNC', () => {
    const whole = change({ origin: 'WRITE', complete: true });
    const partial = change({ origin: 'WRITE' });
    const sync = change({});
    const completeOf = (first: PlanChange, second: PlanChange) =>
      mergeChanges(first, second).complete === true;
    expect(completeOf(whole, whole)).toBe(true);
    // A sync before a whole write leaves nothing awaited.
    expect(completeOf(sync, whole)).toBe(true);
    // The first write's SYNC is still to come: a reader waiting for it must keep waiting.
    expect(completeOf(partial, whole)).toBe(false);
    expect(completeOf(whole, partial)).toBe(false);
    expect(completeOf(whole, sync)).toBe(false);
  });

  it('files a transaction where it was before the first change: nowhere, if that one made it', () => {
    const place = (id: string, accountId: string) => ({ id, accountId, categoryIds: [] });
    const merged = mergeChanges(
      change({
        transactions: [row('made', 'a'), row('old', 'b')],
        transactionsBefore: [place('old', 'a')],
      }),
      change({
        transactions: [row('made', 'b'), row('old', 'c')],
        transactionsBefore: [place('made', 'a'), place('old', 'b')],
      }),
    );
    expect(merged.transactionsBefore).toEqual([place('old', 'a')]);
  });

  it('keeps the split lines of the version of each transaction that won', () => {
    const line = (id: string, transactionId: string) => ({
      id,
      transaction_id: transactionId,
      plan_id: 'p',
      amount: -500,
      memo: null,
      payee_id: null,
      payee_name: null,
      category_id: `c-${id}`,
      category_name: null,
      transfer_account_id: null,
      transfer_transaction_id: null,
      deleted: false,
    });
    const merged = mergeChanges(
      change({
        transactions: [row('t1', 'a'), row('t2', 'a')],
        subtransactions: [line('old', 't1'), line('kept', 't2')],
      }),
      change({ transactions: [row('t1', 'a')], subtransactions: [line('new', 't1')] }),
    );
    expect(merged.subtransactions.map((sub) => sub.id).sort()).toEqual(['kept', 'new']);
  });
});

describe('transactionsView (transactionsChanged with filters)', () => {
  it('shows what matches, reports what left the view or was deleted, and skips the rest', () => {
    const moved = row('moved', 'b');
    const event = change({
      transactions: [row('here', 'a'), moved, row('elsewhere', 'c')],
      transactionsBefore: [
        { id: 'moved', accountId: 'a', categoryIds: [] },
        { id: 'elsewhere', accountId: 'c', categoryIds: [] },
        { id: 'gone', accountId: 'a', categoryIds: [] },
        { id: 'gone-elsewhere', accountId: 'c', categoryIds: [] },
      ],
      deleted: { ...change({}).deleted, transactionIds: ['gone', 'gone-elsewhere'] },
    });
    const view = transactionsView(event, 'a');
    expect(view?.transactions.map((tx) => tx.id)).toEqual(['here']);
    expect(view?.removedTransactionIds).toEqual(['moved', 'gone']);
    expect(transactionsView(change({ transactions: [row('x', 'c')] }), 'a')).toBeNull();
    expect(transactionsView(event)?.transactions).toHaveLength(3);
  });
});
