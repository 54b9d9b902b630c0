/**
 * The channel registry of the hub on its own: admission per token, one channel per (token, plan)
 * shared by its feeds and closed by the last to leave (its log kept), fan-out of bus messages,
 * what a poller's refusal ends, and shutting down. No poll runs: the scheduler never fires.
 */
import { describe, expect, it } from 'vitest';
import { createPollBudget } from '../../src/live/budget.js';
import { channelKey, createLiveBus } from '../../src/live/bus.js';
import { emptyKeys, type PlanChange } from '../../src/live/changes.js';
import {
  admitSubscriber,
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
import { createLocalLeases } from '../../src/live/leases.js';
import type { Scheduler } from '../../src/live/scheduler.js';
import { errorFromResponse } from '../../src/upstream/errors.js';
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
  });
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

    const first = new PlanFeed(
      (each) => each,
      () => leaveChannel(live, channel, first),
    );
    const second = new PlanFeed(
      (each) => each,
      () => leaveChannel(live, channel, second),
    );
    channel.feeds.add(first);
    channel.feeds.add(second);

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
      const feed = new PlanFeed(
        (each) => each,
        () => {},
      );
      channel.feeds.add(feed);
      leaveChannel(live, channel, feed);
      return channel.log;
    };
    const log = closeAgain(5);
    const touched = emptyKeys();
    touched.transactions.add('t1');
    log.record(5, 7, touched);
    expect(closeAgain(7)).toBe(log);
    expect(log.since(5)).toBeDefined();
    expect(closeAgain(9)).toBe(log);
    expect(log.knowledge).toBe(9);
    expect(log.since(7)).toBeUndefined();
  });
});

describe('fan-out and endings', () => {
  it('delivers changes to every feed of the channel, and an end message ends them all', async () => {
    const live = liveState();
    admitSubscriber(live, 'key', 10);
    admitSubscriber(live, 'key', 10);
    const channel = joinChannel(live, 'key', 'plan-1', 'token', 1);
    const feeds = [0, 1].map(() => {
      const feed: PlanFeed<PlanChange> = new PlanFeed(
        (each) => each,
        () => leaveChannel(live, channel, feed),
      );
      channel.feeds.add(feed);
      return feed;
    });
    deliver(live, channel.key, { type: 'change', change: change(2) });
    deliver(live, 'key:another-plan', { type: 'change', change: change(3) }); // no such channel
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
        error: { message: 'The plan can no longer be read.', extensions: {} },
      },
    });
  });

  it('completes every feed and closes every channel when shutting down', async () => {
    const live = liveState();
    const feeds: PlanFeed<PlanChange>[] = [];
    for (const planId of ['plan-1', 'plan-2']) {
      admitSubscriber(live, 'key', 10);
      const channel = joinChannel(live, 'key', planId, 'token', 1);
      const feed: PlanFeed<PlanChange> = new PlanFeed(
        (each) => each,
        () => leaveChannel(live, channel, feed),
      );
      channel.feeds.add(feed);
      feeds.push(feed);
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
