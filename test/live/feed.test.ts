/**
 * A subscriber's feed (coalescing, filtering, ending) and the manual scheduler the suites use to
 * run simulated hours.
 */
import { createManualClock } from '@plans-gateway/sandbox';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { PlanChange } from '../../src/live/changes.js';
import { PlanFeed } from '../../src/live/feed.js';
import { createManualScheduler } from '../../src/live/scheduler.js';
import { planChange } from './support/plan-change.js';

function change(knowledge: number, accountIds: string[]): PlanChange {
  const deleted = planChange().deleted;
  return planChange({
    serverKnowledge: knowledge,
    previousServerKnowledge: knowledge - 1,
    deleted: { ...deleted, accountIds },
  });
}

describe('PlanFeed', () => {
  it('merges what a slow reader has not taken yet into one change, and skips what select drops', async () => {
    let closed = 0;
    const feed = new PlanFeed(
      (c) => (c.deleted.accountIds.includes('skip') ? null : c),
      () => (closed += 1),
    );
    for (let k = 1; k <= 100; k += 1) feed.push(change(k, [`a${k}`]));
    const first = await feed.next();
    expect(first.done).toBe(false);
    const merged = first.value as PlanChange;
    expect(merged.serverKnowledge).toBe(100);
    expect(merged.previousServerKnowledge).toBe(0);
    expect(merged.deleted.accountIds).toHaveLength(100);

    feed.push(change(101, ['skip']));
    feed.end(new GraphQLError('gone', { extensions: { code: 'UNAUTHENTICATED' } }));
    const last = await feed.next();
    expect(last.value).toBeInstanceOf(GraphQLError);
    expect(await feed.next()).toEqual({ done: true, value: undefined });
    expect(closed).toBe(1);
  });

  it('ends at once when returned while a next() is waiting', async () => {
    let closed = 0;
    const feed = new PlanFeed(
      (c) => c,
      () => (closed += 1),
    );
    const waiting = feed.next();
    await feed.return();
    expect(await waiting).toEqual({ done: true, value: undefined });
    feed.push(change(1, ['late']));
    expect(await feed.next()).toEqual({ done: true, value: undefined });
    expect(closed).toBe(1);
  });
});

describe('createManualScheduler', () => {
  it('runs due tasks in time order at their time, waiting for each, and honours cancel', async () => {
    const clock = createManualClock(0);
    const scheduler = createManualScheduler(clock);
    const ran: [string, number][] = [];
    scheduler.setTimeout(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      ran.push(['b', clock.now()]);
      scheduler.setTimeout(() => void ran.push(['c', clock.now()]), 5);
    }, 20);
    scheduler.setTimeout(() => void ran.push(['a', clock.now()]), 10);
    scheduler.setTimeout(() => void ran.push(['never', clock.now()]), 15).cancel();
    scheduler.setTimeout(() => void ran.push(['later', clock.now()]), 100);
    await scheduler.advance(50);
    expect(ran).toEqual([
      ['a', 10],
      ['b', 20],
      ['c', 25],
    ]);
    expect(clock.now()).toBe(50);
    expect(scheduler.pending()).toBe(1);
  });
});
