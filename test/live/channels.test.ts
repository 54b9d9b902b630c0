/**
 * The channel registry of the hub on its own: admission per token, one channel per (token, plan)
 * shared by its feeds and closed by the last to leave (its log kept), fan-out of bus messages,
 * what a poller's refusal ends, and shutting down. No poll runs: the scheduler never fires.
 */
import { describe, expect, it } from 'vitest';
import { errorFromResponse } from '../../src/errors/upstream-error.js';
import { createPollBudget } from '../../src/live/budget.js';
import {
  admitSubscriber,
  type Channel,
  closeChannels,
  createLogCache,
  deliver,
  endingOf,
  joinChannel,
  type LiveState,
  leaveChannel,
  releaseSubscriber,
} from '../../src/live/channels.js';
import { PlanFeed } from '../../src/live/feed.js';
import { channelKey, createLiveBus } from '../../src/live/live-bus.js';
import { RowSizes } from '../../src/live/parts.js';
import { createLocalLeases } from '../../src/live/poll-leases.js';
import { emptyKeys, type PlanChange } from '../../src/replica/changes.js';
import type { Scheduler } from '../../src/time/scheduler.js';
import { planChange } from './support/plan-change.js';

function liveState(): LiveState & { timers: number[]; cancelled: number[] } {
  const timers: number[] = [];
  const cancelled: number[] = [];
  const scheduler: Scheduler = {
    now: () => 0,
    setTimeout(_task, ms) {
      const id = timers.push(ms);
      return { cancel: () => void cancelled.push(id) };
    },
  };
  return {
    backfill: () => Promise.reject(new Error('no backfill runs in these tests')),
    channels: new Map(),
    tokens: new Map(),
    logs: createLogCache(1_000),
    bus: createLiveBus(),
    poll: {
      replicas: {
        read: () => Promise.reject(new Error('no poll runs in these tests')),
        peek: () => undefined,
      },
      budget: createPollBudget({
        usage: () => {
          throw new Error('no poll runs in these tests');
        },
      }),
      leases: createLocalLeases(),
      scheduler,
    },
    changeLog: {},
    onError: (error) => {
      throw error;
    },
    timers,
    cancelled,
  };
}

function change(serverKnowledge: number): PlanChange {
  return planChange({
    planId: 'plan-1',
    serverKnowledge,
    previousServerKnowledge: serverKnowledge - 1,
    deleted: { ...planChange().deleted, accountIds: [`gone-at-${serverKnowledge}`] },
  });
}

/** A started feed of `channel`, leaving it when closed. */
function joined(live: LiveState, channel: Channel): PlanFeed<PlanChange> {
  const feed = new PlanFeed<PlanChange>({
    select: (each) => each,
    attach: () => {},
    limits: { event: { rows: 500, bytes: 1 << 20 }, pendingBytes: 1 << 20 },
    sizes: new RowSizes(),
  });
  feed.onClose(() => leaveChannel(live, channel, feed));
  channel.feeds.add(feed);
  feed.start(undefined, 0, channel.log.knowledge);
  return feed;
}

const knowledge = (item: IteratorResult<unknown>) =>
  item.done ? 'done' : (item.value as PlanChange).serverKnowledge;

describe('admission', () => {
  it('counts subscribers per token, refuses past the limit, and frees the slot on release', () => {
    const live = liveState();
    admitSubscriber(live, 'token-a', 2);
    admitSubscriber(live, 'token-a', 2);
    admitSubscriber(live, 'token-b', 2);
    expect(() => admitSubscriber(live, 'token-a', 2)).toThrowError(
      expect.objectContaining({
        message:
          'Too many subscriptions for this token: at most 2 at once on one gateway instance.',
        extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: 2 },
      }),
    );
    releaseSubscriber(live, 'token-a');
    admitSubscriber(live, 'token-a', 2);
    expect(live.tokens.get('token-a')?.subscribers).toBe(2);

    // A token with neither subscribers nor channels is forgotten.
    releaseSubscriber(live, 'token-b');
    expect([...live.tokens.keys()]).toEqual(['token-a']);
  });
});

describe('channel registry', () => {
  it('opens one channel per (token, plan), polled by its newest token, closed by the last feed to leave', () => {
    const live = liveState();
    admitSubscriber(live, 'key', 10);
    admitSubscriber(live, 'key', 10);
    const channel = joinChannel(live, 'key', 'plan-1', 'token-1', 5);
    expect(joinChannel(live, 'key', 'plan-1', 'token-2', 5)).toBe(channel);
    expect(channel.token).toBe('token-2');
    expect(channel.key).toBe(channelKey('key', 'plan-1'));
    expect(live.timers).toEqual([0]); // one poller, its first turn due at once

    const first = joined(live, channel);
    const second = joined(live, channel);

    leaveChannel(live, channel, first);
    expect(live.channels.get(channel.key)).toBe(channel);
    leaveChannel(live, channel, first); // twice is once
    expect(live.tokens.get('key')?.subscribers).toBe(1);

    leaveChannel(live, channel, second);
    expect(live.channels.size).toBe(0);
    expect(live.tokens.size).toBe(0);
    expect(live.cancelled).toEqual([1]); // the poller stopped
    expect(live.logs.get(channel.key)).toBe(channel.log); // kept for a client that comes back
  });

  it('reuses a kept log that followed the replica, and restarts one that did not', () => {
    const live = liveState();
    const closeAgain = (knowledge: number) => {
      admitSubscriber(live, 'key', 10);
      const channel = joinChannel(live, 'key', 'plan-1', 'token', knowledge);
      leaveChannel(live, channel, joined(live, channel));
      return channel.log;
    };
    const log = closeAgain(5);
    const touched = emptyKeys();
    touched.transactions.add('t1');
    log.record(5, 7, touched);
    expect(closeAgain(7)).toBe(log);
    expect(log.entriesAfter(5)).toHaveLength(1);
    expect(closeAgain(9)).toBe(log);
    expect(log.knowledge).toBe(9);
    expect(log.entriesAfter(7)).toBeUndefined();
  });
});

describe('fan-out and endings', () => {
  it('delivers changes to every feed of the channel, and an end message ends them all', async () => {
    const live = liveState();
    admitSubscriber(live, 'key', 10);
    admitSubscriber(live, 'key', 10);
    const channel = joinChannel(live, 'key', 'plan-1', 'token', 1);
    const feeds = [0, 1].map(() => joined(live, channel));
    deliver(live, channel.key, { type: 'change', change: change(2), seq: 1, bytes: 10 });
    // No such channel:
    deliver(live, 'key:another-plan', { type: 'change', change: change(3), seq: 2, bytes: 10 });
    expect(await Promise.all(feeds.map(async (feed) => knowledge(await feed.next())))).toEqual([
      2, 2,
    ]);

    deliver(live, channel.key, endingOf(errorFromResponse(call, 404, notFound)).message);
    for (const feed of feeds) {
      const ended = await feed.next();
      expect(ended.value).toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    }
    expect(live.channels.size).toBe(0);
    expect(live.tokens.size).toBe(0);
  });

  it('ends the token on a 401, the plan on any other refusal', () => {
    const unauthorized = endingOf(errorFromResponse(call, 401, rest('401', 'not_authorized')));
    expect(unauthorized.scope).toBe('token');
    expect(unauthorized.message.error.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });

    const gone = endingOf(errorFromResponse(call, 404, notFound));
    expect(gone.scope).toBe('plan');
    expect(gone.message.error.extensions).toMatchObject({ code: 'NOT_FOUND' });

    expect(endingOf(new Error('odd'))).toEqual({
      scope: 'plan',
      message: {
        type: 'end',
        error: {
          message: 'The plan can no longer be read.',
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
      },
    });
  });

  it('completes every feed and closes every channel when shutting down', async () => {
    const live = liveState();
    const feeds: PlanFeed<PlanChange>[] = [];
    for (const planId of ['plan-1', 'plan-2']) {
      admitSubscriber(live, 'key', 10);
      const channel = joinChannel(live, 'key', planId, 'token', 1);
      feeds.push(joined(live, channel));
    }
    closeChannels(live);
    expect(await Promise.all(feeds.map(async (feed) => knowledge(await feed.next())))).toEqual([
      'done',
      'done',
    ]);
    expect(live.channels.size).toBe(0);
    expect(live.tokens.size).toBe(0);
    expect(live.logs.size).toBe(2);
  });
});

const call = {
  operationId: 'getPlanById',
  method: 'GET',
  attempt: 1,
  redact: (text: string) => text,
} as const;

function rest(id: string, name: string): string {
  return JSON.stringify({ error: { id, name, detail: 'detail text' } });
}

const notFound = rest('404.2', 'resource_not_found');
