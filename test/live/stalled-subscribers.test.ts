/**
 * Subscribers that never read (issue 18, item 1): a `since: 0` replay is produced one event at a
 * time, as the socket drains, so 4 tokens x 50 subscribers that never read hold a few events
 * each (heap growth bounded by the event bytes, not the plan), and one that falls too far
 * behind while changes keep coming is ended with `SUBSCRIBER_TOO_SLOW` instead of buffering.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIVE } from '../../src/config/config.js';
import { startStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import {
  DEFAULT_POLL_INTERVAL_MS,
  LIVE,
  type LiveStack,
  openAccount,
  outsideWrite,
  subscribed,
} from './support/live.js';
import { neverReading, readToEnd } from './support/raw-subscriber.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const EVENT_BYTES = 32 * 1024;
/** About 120 KB of replay on the wire, more than the bound below allows a subscriber. */
const TRANSACTIONS = 1_200;
const REPLAY = `subscription($since: SafeInt) {
  planChanged(planId: "last-used", since: $since) {
    origin serverKnowledge continues
    transactions { id date amount memo }
    categories { id name }
  }
}`;
/** A fat selection: a replay of several MB on the wire, more than the sockets absorb unread. */
const FAT_REPLAY = `subscription($since: SafeInt) {
  planChanged(planId: "last-used", since: $since) {
    origin serverKnowledge
    transactions {
      id date amount amountFormatted amountCurrency memo cleared approved flagColor flagName
      importId importPayeeName importPayeeNameOriginal debtTransactionType deleted
      account { id name type onBudget closed note balance balanceFormatted clearedBalance clearedBalanceFormatted unclearedBalance unclearedBalanceFormatted }
      payee { id name transferAccountId }
      category { id name hidden note budgeted budgetedFormatted activity activityFormatted balance balanceFormatted }
    }
  }
}`;

let stack: LiveStack | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await stack?.close();
  stack = undefined;
});

/** A subscription with `since` on a raw socket that is then never read from. */
async function stalled(url: string, token: string, since: number, query = REPLAY) {
  const socket = await neverReading(url, token, JSON.stringify({ query, variables: { since } }));
  sockets.push(socket);
  return socket;
}

/**
 * Watches each subscription's replay: whether its last event (`continues: false`) has been made,
 * and the socket it goes to. A replay is as far as it goes once its last event is made or its
 * socket waits for the reader (on a machine whose socket buffers take less than the replay).
 */
function replays() {
  const watched: { socket: Socket | undefined; made: boolean }[] = [];
  const plugin: Plugin = {
    onSubscribe({ args }) {
      const replay = {
        socket: (args.contextValue as { req?: IncomingMessage }).req?.socket,
        made: false,
      };
      watched.push(replay);
      return {
        onSubscribeResult: () => ({
          onNext({ result }) {
            const change = (result as ExecutionResult<{ planChanged?: { continues: boolean } }>)
              .data?.planChanged;
            if (change?.continues === false) replay.made = true;
          },
        }),
      };
    },
  };
  const settled = () =>
    watched.filter((replay) => replay.made || replay.socket?.writableNeedDrain).length;
  return { plugin, settled };
}

function heap(): number {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/**
 * Stalled subscribers per token: enough that a feed keeping what it sent shows hundreds of MB
 * against a bound of a few; 100 (400 replays) outlasted 180 s with two full runs at once on two
 * cores under other work, and proved no more.
 */
const PER_TOKEN = 50;

describe('subscribers that never read', () => {
  it('4 tokens x 50 of them hold a few events each, not the replay', async () => {
    const tokens = Array.from({ length: 4 }, (_, i) => `stalled-token-00000000${i}`);
    const watch = replays();
    const s = await startStack({
      ...LIVE,
      sandbox: {
        rateLimit: false,
        users: tokens.map((token, i) => ({
          token,
          plans: [{ seed: 20 + i, transactions: TRANSACTIONS }],
        })),
      },
      config: { live: { ...DEFAULT_LIVE, eventBytes: EVENT_BYTES } },
      deps: { plugins: [watch.plugin] },
    });
    stack = s;
    for (const token of tokens) {
      await s.gql('{ plan(id: "last-used") { serverKnowledge } }', {}, { token });
    }
    const before = heap();
    for (const token of tokens) {
      for (let i = 0; i < PER_TOKEN; i++) await stalled(s.url, token, 0);
    }
    // Each replay runs until its socket stops draining, or to its end (loopback buffers here
    // take all of it). The limits are for two full runs at once on two cores, several times
    // what this takes alone (about 6 s).
    await until(
      () => watch.settled() === 4 * PER_TOKEN,
      () => `${4 * PER_TOKEN} replays as far as their sockets take (have ${watch.settled()})`,
      { timeoutMs: 120_000 },
    );
    await subscribed(s, 4 * PER_TOKEN);
    const growth = heap() - before;
    // About 17 MB for 400; a feed that kept the events it sent grew by 470 MB for 400.
    expect(growth).toBeLessThan(4 * PER_TOKEN * (2 * EVENT_BYTES + 64 * 1024));
  }, 180_000);

  it('one that falls too far behind is ended with SUBSCRIBER_TOO_SLOW, the rest still served', async () => {
    const s = await startStack({
      ...LIVE,
      sandbox: {
        rateLimit: false,
        users: [{ token: 'stalled-token-000000009', plans: [{ seed: 8, transactions: 6_000 }] }],
      },
      config: {
        live: { ...DEFAULT_LIVE, eventBytes: EVENT_BYTES, pendingBytesPerSubscriber: 8 * 1024 },
      },
    });
    stack = s;
    const accountId = await openAccount(s);
    const stalledSocket = await stalled(s.url, s.token, 0, FAT_REPLAY);
    await subscribed(s, 1);
    // Each write reaches it as a change of a few KB; it reads nothing.
    // Each round waits until the poll it starts has brought the write into the replica (so the
    // change went out to the subscriber), however long a loaded machine takes over it.
    const knowledge = () =>
      s.gateway.replicas.peek(s.tokenKey, s.planId)?.snapshot.serverKnowledge ?? 0;
    for (let i = 0; i < 20 && s.gateway.live.stats().subscribers > 0; i++) {
      const written = await outsideWrite(s, accountId, `change ${i}`);
      await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
      await until(
        () => s.gateway.live.stats().subscribers === 0 || knowledge() >= written.serverKnowledge,
        'the poll brought the write into the replica',
      );
    }
    // Its slot, channel and poller are released at once, before it reads the error.
    expect(s.gateway.live.stats()).toMatchObject({ subscribers: 0, channels: 0 });
    const received = await readToEnd(stalledSocket);
    expect(received).toContain('"origin":"REPLAY"');
    expect(received).toContain('SUBSCRIBER_TOO_SLOW');
    expect(received).toContain('event: complete');

    // The token can subscribe again.
    const next = await stalled(s.url, s.token, 1_000_000);
    await subscribed(s, 1);
    next.destroy();
    await subscribed(s, 0);
  });
});
