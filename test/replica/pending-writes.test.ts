import { describe, expect, it } from 'vitest';
import type { PendingWrite } from '../../src/replica/cache.js';
import {
  MAX_PENDING_WRITES,
  nextKnowledgeAfter,
  OrphanWrites,
  withWrite,
  writesNotIn,
} from '../../src/replica/pending-writes.js';

function write(epoch: number, knowledge?: number): PendingWrite {
  return { saved: {}, epoch, knowledge };
}

describe('writesNotIn', () => {
  it('forgets writes applied before the sync request was sent (rule 2)', () => {
    expect(writesNotIn([write(1, 10), write(2)], 2, 5)).toEqual([]);
  });

  it('keeps a later write unless the answer knowledge reaches its own (rule 3)', () => {
    const included = write(3, 10);
    const missing = write(4, 12);
    const unknown = write(5);
    expect(writesNotIn([included, missing, unknown], 2, 10)).toEqual([missing, unknown]);
  });
});

describe('nextKnowledgeAfter', () => {
  it('is the answer knowledge when every re-applied write has knowledge of its own', () => {
    expect(nextKnowledgeAfter([write(3, 12)], 8, 10)).toBe(10);
    expect(nextKnowledgeAfter([], undefined, 10)).toBe(10);
  });

  it('falls back to the knowledge the sync was asked from (0 for a full) for a write without', () => {
    expect(nextKnowledgeAfter([write(3)], 8, 10)).toBe(8);
    expect(nextKnowledgeAfter([write(3)], undefined, 10)).toBe(0);
  });
});

describe('withWrite', () => {
  it('appends and keeps only the newest writes beyond the cap', () => {
    let pending: readonly PendingWrite[] = [];
    for (let epoch = 1; epoch <= MAX_PENDING_WRITES + 2; epoch++) {
      pending = withWrite(pending, write(epoch));
    }
    expect(pending).toHaveLength(MAX_PENDING_WRITES);
    expect(pending[0]?.epoch).toBe(3);
    expect(pending.at(-1)?.epoch).toBe(MAX_PENDING_WRITES + 2);
  });
});

describe('OrphanWrites', () => {
  it('keeps a write only while a sync of its token is in flight', () => {
    const orphans = new OrphanWrites();
    orphans.park('t1', 'plan-a', write(1));
    expect(orphans.take('t1', 'plan-a')).toEqual([]);

    orphans.flightStarted('t1');
    orphans.park('t1', 'plan-a', write(2));
    orphans.park('t1', 'plan-b', write(3));
    expect(orphans.take('t1', 'plan-a')).toEqual([write(2)]);
    expect(orphans.take('t1', 'plan-a')).toEqual([]);
    expect(orphans.take('t1', 'plan-b')).toEqual([write(3)]);
  });

  it('drops the parked writes when the token last flight ends, not before', () => {
    const orphans = new OrphanWrites();
    orphans.flightStarted('t1');
    orphans.flightStarted('t1');
    orphans.park('t1', 'plan-a', write(1));
    orphans.flightEnded('t1');
    orphans.park('t1', 'plan-a', write(2));
    expect(orphans.take('t1', 'plan-a')).toEqual([write(1), write(2)]);
    orphans.park('t1', 'plan-a', write(3));
    orphans.flightEnded('t1');
    expect(orphans.take('t1', 'plan-a')).toEqual([]);
  });

  it('forgetting a token drops its writes while its flights still count', () => {
    const orphans = new OrphanWrites();
    orphans.flightStarted('t1');
    orphans.park('t1', 'plan-a', write(1));
    orphans.dropToken('t1');
    expect(orphans.take('t1', 'plan-a')).toEqual([]);
    orphans.park('t1', 'plan-a', write(2));
    expect(orphans.take('t1', 'plan-a')).toEqual([write(2)]);
  });
});
