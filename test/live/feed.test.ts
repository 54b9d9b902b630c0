/**
 * A subscriber's feed (coalescing, filtering, ending) and the manual scheduler the suites use to
 * run simulated hours.
 */
import { createManualClock } from '@plans-gateway/sandbox';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { gatewayError } from '../../src/errors/codes.js';
import { type FeedLimits, PlanFeed } from '../../src/live/feed.js';
import { RowSizes } from '../../src/live/parts.js';
import type { PlanChange } from '../../src/replica/changes.js';
import { createManualScheduler } from '../../src/time/scheduler.js';
import { planChange } from './support/plan-change.js';

function change(knowledge: number, accountIds: string[]): PlanChange {
  const deleted = planChange().deleted;
  return planChange({
    serverKnowledge: knowledge,
    previousServerKnowledge: knowledge - 1,
    deleted: { ...deleted, accountIds },
  });
}

const LIMITS: FeedLimits = { event: { rows: 500, bytes: 1 << 20 }, pendingBytes: 1 << 20 };

/** A feed, with how many times it attached and closed. */
function feedOf<T = PlanChange>(
  options: {
    select?: (change: PlanChange, required: boolean) => T | null;
    limits?: FeedLimits;
    attach?: () => void;
  } = {},
) {
  const counts = { attached: 0, closed: 0 };
  const feed = new PlanFeed<T>({
    select: options.select ?? ((c) => c as T),
    limits: options.limits ?? LIMITS,
    sizes: new RowSizes(),
    attach: (self) => {
      counts.attached += 1;
      options.attach?.();
      self.onClose(() => (counts.closed += 1));
    },
  });
  return { feed, counts };
}

describe('PlanFeed', () => {
  it('merges what a slow reader has not taken yet into one change, and skips what select drops', async () => {
    const { feed, counts } = feedOf({
      select: (c) => (c.deleted.accountIds.includes('skip') ? null : c),
    });
    const first = feed.next();
    feed.start(undefined, 0, 0);
    for (let k = 1; k <= 100; k += 1) feed.push(change(k, [`a${k}`]), k, 10);
    const merged = (await first).value as PlanChange;
    expect(merged.serverKnowledge).toBe(100);
    expect(merged.previousServerKnowledge).toBe(0);
    expect(merged.deleted.accountIds).toHaveLength(100);
    expect(merged.continues).toBeUndefined();

    feed.push(change(101, ['skip']), 101, 10);
    feed.end(gatewayError('gone', 'UNAUTHENTICATED'));
    const last = await feed.next();
    expect(last.value).toBeInstanceOf(GraphQLError);
    expect(await feed.next()).toEqual({ done: true, value: undefined });
    expect(counts).toEqual({ attached: 1, closed: 1 });
  });

  it('takes nothing until its first next(): returned before, it never attaches', async () => {
    const { feed, counts } = feedOf();
    expect(counts.attached).toBe(0);
    await feed.return();
    expect(await feed.next()).toEqual({ done: true, value: undefined });
    expect(counts).toEqual({ attached: 0, closed: 0 });
  });

  it('ends with the refusal its attach throws', async () => {
    const { feed } = feedOf({
      attach: () => {
        throw gatewayError('full', 'TOO_MANY_SUBSCRIPTIONS');
      },
    });
    const refused = await feed.next();
    expect(refused.value).toMatchObject({ extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } });
    expect(await feed.next()).toEqual({ done: true, value: undefined });
  });

  it('drops what its start covers, and what arrives before it', async () => {
    const { feed } = feedOf();
    const waiting = feed.next();
    feed.push(change(1, ['before-start']), 1, 10);
    feed.start(undefined, 2, 2);
    feed.push(change(2, ['covered']), 2, 10);
    feed.push(change(3, ['after']), 3, 10);
    expect(((await waiting).value as PlanChange).deleted.accountIds).toEqual(['after']);
  });

  it('splits a large change into events within the limits, each resuming at the knowledge before it', async () => {
    const limits = { event: { rows: 40, bytes: 1 << 20 }, pendingBytes: 1 << 20 };
    const { feed } = feedOf({ limits });
    feed.start(undefined, 0, 6);
    const ids = Array.from({ length: 100 }, (_, i) => `account-${i}`);
    feed.push({ ...change(7, ids), previousServerKnowledge: 6 }, 1, 2_000);
    const events: PlanChange[] = [];
    for (let i = 0; i < 3; i++) events.push((await feed.next()).value as PlanChange);
    expect(events.map((e) => e.deleted.accountIds.length)).toEqual([40, 40, 20]);
    expect(events.map((e) => e.serverKnowledge)).toEqual([6, 6, 7]);
    expect(events.map((e) => e.previousServerKnowledge)).toEqual([6, 6, 6]);
    expect(events.map((e) => e.continues)).toEqual([true, true, undefined]);
    expect(events.flatMap((e) => e.deleted.accountIds)).toEqual(ids);
  });

  it('delivers the last event of a split change even when the filter keeps nothing of it', async () => {
    const limits = { event: { rows: 2, bytes: 1 << 20 }, pendingBytes: 1 << 20 };
    const { feed } = feedOf({
      limits,
      select: (c, required) => {
        const kept = c.deleted.accountIds.filter((id) => id.startsWith('keep'));
        return kept.length > 0 || required ? kept : null;
      },
    });
    feed.start(undefined, 0, 0);
    feed.push(change(1, ['keep-1', 'drop-1', 'drop-2', 'drop-3']), 1, 100);
    expect((await feed.next()).value).toEqual(['keep-1']);
    expect((await feed.next()).value).toEqual([]); // the end of the change, nothing kept
    feed.push(change(2, ['drop-4']), 2, 100);
    feed.push(change(3, ['keep-2']), 3, 100);
    expect((await feed.next()).value).toEqual(['keep-2']);
  });

  it('ends a subscriber that fell too far behind, dropping what waited for it', async () => {
    const limits = { event: { rows: 500, bytes: 1 << 20 }, pendingBytes: 1_000 };
    const { feed, counts } = feedOf({ limits });
    const first = feed.next();
    feed.start(undefined, 0, 0);
    feed.push(change(1, ['a']), 1, 600);
    expect(((await first).value as PlanChange).serverKnowledge).toBe(1);
    feed.push(change(2, ['b']), 2, 600); // waits: 600 bytes
    feed.push(change(3, ['c']), 3, 600); // 1,200 would wait: over 1,000
    const ended = await feed.next();
    expect(ended.value).toMatchObject({
      extensions: { code: 'SUBSCRIBER_TOO_SLOW', limit: 1_000 },
    });
    expect(await feed.next()).toEqual({ done: true, value: undefined });
    expect(counts.closed).toBe(1);

    // One change larger than the limit still reaches a subscriber with nothing waiting.
    const other = feedOf({ limits });
    const waiting = other.feed.next();
    other.feed.start(undefined, 0, 0);
    other.feed.push(change(4, ['large']), 4, 5_000);
    expect(((await waiting).value as PlanChange).serverKnowledge).toBe(4);
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
