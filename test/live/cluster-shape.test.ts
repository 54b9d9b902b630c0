/**
 * The seams a Redis tier plugs into (issue 12), exercised in process: two gateway instances share
 * an event bus whose events cross as JSON text, asynchronously (what
 * `@graphql-yoga/redis-event-target` does), poll leases and the ledger of polls. One poll per
 * interval serves the subscribers of both instances.
 */
import { afterEach, describe, it } from 'vitest';
import { createLiveBus } from '../../src/live/live-bus.js';
import type { PollLeases } from '../../src/live/poll-leases.js';
import { createRequestLedger } from '../../src/upstream/request-ledger.js';
import { type ServedGateway, startStack } from '../support/stack.js';
import { LIVE, type LiveStack } from './support/live.js';
import type { Transport } from './support/subscribers.js';
import { expectOnePollPerChangeOnBoth } from './support/two-instances.js';

/** Like a Redis event target: the detail is serialized on dispatch and parsed on delivery. */
class JsonEventTarget extends EventTarget {
  override dispatchEvent(event: Event): boolean {
    const text = JSON.stringify((event as CustomEvent<unknown>).detail);
    setImmediate(() =>
      super.dispatchEvent(new CustomEvent(event.type, { detail: JSON.parse(text) })),
    );
    return true;
  }
}

/** A lease table with TTLs on the shared clock; each instance asks under its own name. */
function leaseTable(now: () => number): (owner: string) => PollLeases {
  const holders = new Map<string, { owner: string; until: number }>();
  return (owner) => ({
    async acquire(key, ttlMs) {
      const held = holders.get(key);
      if (held && held.owner !== owner && held.until > now()) return false;
      holders.set(key, { owner, until: now() + ttlMs });
      return true;
    },
    async release(key) {
      if (holders.get(key)?.owner === owner) holders.delete(key);
    },
  });
}

let stack: LiveStack | undefined;
let second: ServedGateway | undefined;
const clients: Transport[] = [];

function track(transport: Transport): Transport {
  clients.push(transport);
  return transport;
}

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await second?.close();
  second = undefined;
  await stack?.close();
  stack = undefined;
});

describe('two instances sharing a JSON bus, poll leases and the poll ledger', () => {
  it('poll once per interval in total and deliver each change to the subscribers of both', async () => {
    const bus = createLiveBus(new JsonEventTarget());
    const pollLedger = createRequestLedger({ limit: 100 });
    const leases = leaseTable(() => stack!.clock.now());
    stack = await startStack({
      ...LIVE,
      deps: { live: { bus, leases: leases('first'), pollLedger } },
    });
    const s = stack;
    second = await s.addGateway({
      serve: 'websocket',
      deps: { live: { bus, leases: leases('second'), pollLedger } },
    });
    await expectOnePollPerChangeOnBoth(s, second, track);
  });
});
