/**
 * The parts of webhooks that need no gateway: which addresses count as public, the connection's
 * checked lookup, Standard Webhooks signatures against the reference library, sealed tokens, the
 * retry schedule, and the SQLite store's ordering and transactions.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionResult } from 'graphql';
import { Webhook } from 'standardwebhooks';
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { DEFAULT_WEBHOOKS } from '../../src/config/config.js';
import {
  createSealer,
  SealBrokenError,
  SealedWithAnotherKeyError,
} from '../../src/crypto/sealer.js';
import { createDeliverer } from '../../src/deliveries/deliverer.js';
import { createWebhookFeeds } from '../../src/deliveries/feeds.js';
import { retriesExhausted, retryDelay } from '../../src/deliveries/retry.js';
import { createManualScheduler } from '../../src/time/scheduler.js';
import { sealedStore } from '../../src/webhooks/sealed-store.js';
import { newEventId, newSecret, signedHeaders } from '../../src/webhooks/signing.js';
import { createSqliteWebhookStore } from '../../src/webhooks/sqlite-store.js';
import type { EndpointRecord } from '../../src/webhooks/store.js';
import { checkedLookup, isPublicAddress, urlProblem } from '../../src/webhooks/target.js';
import { until } from '../support/wait.js';
import { startReceiver } from './support/receiver.js';

describe('targets', () => {
  it('tells public addresses from private, loopback, link-local and reserved ones', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) {
      expect(isPublicAddress(address), address).toBe(true);
    }
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not an address',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('refuses every range of the IANA special-purpose registries, and IPv4 ones in every IPv6 form', () => {
    // Each entry's first, middle and last address is refused; the IPv4 ones also mapped
    // (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d, issue 29) and through NAT64 (64:ff9b::a.b.c.d).
    for (const cidr of IANA_IPV4_SPECIAL) {
      for (const address of spanOf(cidr)) {
        for (const form of [address, `::ffff:${address}`, `::${address}`, `64:ff9b::${address}`]) {
          expect(isPublicAddress(form), `${form} (${cidr})`).toBe(false);
        }
      }
    }
    for (const cidr of IANA_IPV6_SPECIAL) {
      for (const address of spanOf(cidr)) {
        expect(isPublicAddress(address), `${address} (${cidr})`).toBe(false);
      }
    }
    // Right outside some of them, and the usual public addresses, in every form.
    for (const address of [
      '192.31.195.255',
      '192.31.197.0',
      '192.175.49.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.255',
      '8.8.8.8',
      '93.184.216.34',
    ]) {
      for (const form of [address, `::ffff:${address}`, `64:ff9b::${address}`]) {
        expect(isPublicAddress(form), form).toBe(true);
      }
      expect(isPublicAddress(`::${address}`), `::${address}`).toBe(false);
    }
    for (const address of [
      '2001:200::1',
      '2620:4f:7fff:ffff:ffff:ffff:ffff:ffff',
      '2620:4f:8001::',
      '2606:4700:4700::1111',
      '2a00:1450:4001:81a::200e',
      '3fff:1000::',
    ]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it('refuses IPv4-compatible IPv6 URLs, however written', () => {
    for (const url of [
      'https://[::127.0.0.1]/',
      'https://[::7f00:1]/',
      'https://[0:0:0:0:0:0:7f00:1]/x',
      'https://[::a9fe:a9fe]/latest/meta-data',
      'https://[::1.2.3.4]/',
    ]) {
      expect(urlProblem(url, false), url).toMatch(/must reach a public address/);
    }
  });

  it('allows http only on loopback, and only with private targets allowed', () => {
    expect(urlProblem('https://hooks.example.com/x', false)).toBeNull();
    expect(urlProblem('http://127.0.0.1:9/x', false)).toContain('https');
    expect(urlProblem('http://127.0.0.1:9/x', true)).toBeNull();
    expect(urlProblem('http://10.0.0.1/x', true)).toContain('https');
    expect(urlProblem('https://10.0.0.1/x', true)).toBeNull();
  });

  it('refuses a name that resolves to a private address when connecting', async () => {
    const lookup = checkedLookup(false);
    const error = await new Promise<Error | null>((resolve) =>
      lookup('localhost', { all: false }, (e) => resolve(e)),
    );
    expect(error?.message).toMatch(/localhost resolves to .*not a public address/);
    const allowed = await new Promise<string>((resolve, reject) =>
      checkedLookup(true)('localhost', { all: false }, (e, address) =>
        e ? reject(e) : resolve(String(address)),
      ),
    );
    expect(['127.0.0.1', '::1']).toContain(allowed);
  });
});

describe('signatures', () => {
  it('verify with the reference library, under every secret that signs', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const id = newEventId();
    const body = JSON.stringify({ type: 'plan.changed', data: { planId: 'p' } });
    const headers = signedHeaders(id, Math.floor(Date.now() / 1000), body, [current, previous]);
    for (const secret of [current, previous]) {
      expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    }
    expect(() => new Webhook(newSecret()).verify(body, { ...headers })).toThrow();
  });
});

describe('sealing at rest', () => {
  it('opens only with a key that sealed it, for the place it was sealed for', () => {
    const key = randomBytes(32);
    const sealer = createSealer(key);
    const sealed = sealer.seal('whsec_secret', 'secret:a');
    expect(sealed).toMatch(new RegExp(`^s1\\.${sealer.keyId}\\.`));
    expect(sealed).not.toContain('whsec_secret');
    expect(sealer.open(sealed, 'secret:a')).toBe('whsec_secret');
    // Moved to another endpoint's row, altered, or under another key: it does not open.
    expect(() => sealer.open(sealed, 'secret:b')).toThrow(SealBrokenError);
    expect(() => sealer.open(`${sealed.slice(0, -2)}AA`, 'secret:a')).toThrow(SealBrokenError);
    const other = createSealer(randomBytes(32));
    expect(() => other.open(sealed, 'secret:a')).toThrow(SealedWithAnotherKeyError);
    // A key ring: the new key seals, the previous one still opens what it sealed.
    const rotated = createSealer(randomBytes(32), [key]);
    expect(rotated.open(sealed, 'secret:a')).toBe('whsec_secret');
    expect(rotated.seal('x', 'c')).toMatch(new RegExp(`^s1\\.${rotated.keyId}\\.`));
    // Digests name the same thing the same way under one key, differently under another.
    expect(sealer.digest('feed', 'tk', 'plan')).toBe(
      createSealer(key).digest('feed', 'tk', 'plan'),
    );
    expect(sealer.digest('feed', 'tk', 'plan')).not.toBe(other.digest('feed', 'tk', 'plan'));
    expect(sealer.digest('feed', 'tk', 'plan')).not.toContain('plan');
  });
});

describe('retry schedule', () => {
  const policy = { baseMs: 30_000, maxDelayMs: 3_600_000, windowMs: 86_400_000 };

  it('doubles from the base up to the cap, within ±20 %', () => {
    const nominal = [30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000];
    nominal.forEach((ms, index) => {
      expect(retryDelay(policy, index + 1, () => 0)).toBe(Math.round(ms * 0.8));
      expect(retryDelay(policy, index + 1, () => 1)).toBe(Math.round(ms * 1.2));
    });
    expect(retryDelay(policy, 40, () => 0.5)).toBe(3_600_000);
  });

  it('gives up after the window', () => {
    expect(retriesExhausted(policy, 0, 86_399_999)).toBe(false);
    expect(retriesExhausted(policy, 0, 86_400_000)).toBe(true);
  });
});

describe('the SQLite store', () => {
  const endpoint = (id: string, startKnowledge: number): EndpointRecord => ({
    id,
    tokenKey: 'tk',
    planId: 'plan',
    url: 'https://hooks.example.com/',
    kinds: ['TRANSACTIONS'],
    description: null,
    createdAt: 0,
    startKnowledge,
    disabledReason: null,
    disabledAt: null,
  });

  it("hands out one head per endpoint, in each endpoint's order, and moves the cursor with the queue", async () => {
    const store = memoryStore();
    await store.createEndpoint(endpoint('a', 5), newSecret(), 'sealed');
    await store.createEndpoint(endpoint('b', 9), newSecret(), 'sealed');
    const key = { tokenKey: 'tk', planId: 'plan' };
    expect(await store.cursor(key)).toBe(5);
    for (const knowledge of [6, 7]) {
      await store.enqueue(
        key,
        knowledge,
        ['a', 'b'].map((id) => ({
          eventId: `e${knowledge}${id}`,
          endpointId: id,
          serverKnowledge: knowledge,
          payload: '{}',
        })),
        0,
        'me',
      );
    }
    expect(await store.cursor(key)).toBe(7);
    const heads = await store.due(0, 10, new Set(), 'me', 1_000);
    expect(heads.map((d) => d.eventId).sort()).toEqual(['e6a', 'e6b']);
    expect((await store.due(0, 10, new Set(['a']), 'me', 1_000)).map((d) => d.eventId)).toEqual([
      'e6b',
    ]);
    await store.recordAttempt(
      heads.find((d) => d.endpointId === 'a')!,
      { at: 1, durationMs: 3, statusCode: 200, ok: true, error: null },
      { state: 'DELIVERED', nextAttemptAt: 1 },
      'me',
    );
    expect((await store.due(1, 10, new Set(), 'me', 1_000)).map((d) => d.eventId).sort()).toEqual([
      'e6b',
      'e7a',
    ]);
    await store.disableEndpoint('b', 'gone', 2);
    expect((await store.due(2, 10, new Set(), 'me', 1_000)).map((d) => d.eventId)).toEqual(['e7a']);
    expect(await store.feeds()).toEqual([key]);
    await store.close();
  });

  it('keeps the last 1,000 deliveries of an endpoint, and every pending one', async () => {
    const store = memoryStore();
    await store.createEndpoint(endpoint('a', 0), newSecret(), 'sealed');
    const key = { tokenKey: 'tk', planId: 'plan' };
    const ok = { at: 1, durationMs: 1, statusCode: 204, ok: true, error: null };
    await store.enqueue(
      key,
      1,
      [{ eventId: 'pending', endpointId: 'a', serverKnowledge: 1, payload: '{}' }],
      0,
      'me',
    );
    for (let i = 2; i <= 1_100; i += 1) {
      await store.enqueue(
        key,
        i,
        [{ eventId: `e${i}`, endpointId: 'a', serverKnowledge: i, payload: '{}' }],
        0,
        'me',
      );
      const last = (await store.deliveries('a', 1))[0]!;
      await store.recordAttempt(last, ok, { state: 'DELIVERED', nextAttemptAt: 1 }, 'me');
    }
    const kept = await store.deliveries('a', 2_000);
    expect(kept.filter((d) => d.state === 'DELIVERED').length).toBeLessThanOrEqual(1_000);
    expect(kept.at(-1)?.eventId).toBe('pending');
    expect(await store.deliveryOfEvent('e50')).toBeUndefined();
    expect(await store.deliveryOfEvent('e1100')).toBeDefined();
    await store.close();
  });
});

describe('feeds', () => {
  it('answer sync only once a feed they opened has joined its plan (a write right after is in it)', async () => {
    const store = memoryStore();
    await store.createEndpoint(
      {
        id: 'a',
        tokenKey: 'tk',
        planId: 'plan',
        url: 'https://hooks.example.com/',
        kinds: ['PAYEES'],
        description: null,
        createdAt: 0,
        startKnowledge: 0,
        disabledReason: null,
        disabledAt: null,
      },
      newSecret(),
      'token',
    );
    let admit = () => {};
    const admitted = new Promise<void>((resolve) => {
      admit = resolve;
    });
    // A subscription that takes its time to be admitted, then joins on its first pull.
    let joined = false;
    let end = () => {};
    const ended = new Promise<IteratorResult<ExecutionResult>>((resolve) => {
      end = () => resolve({ done: true, value: undefined });
    });
    const subscription: AsyncIterableIterator<ExecutionResult> = {
      next: () => {
        joined = true;
        return ended;
      },
      return: async () => {
        end();
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    const feeds = createWebhookFeeds({
      owner: 'me',
      store,
      scheduler: createManualScheduler({ now: () => 0, set() {} }),
      subscribe: async ({ token }) => {
        expect(token).toBe('token');
        await admitted;
        return subscription;
      },
      onQueued: () => {},
      onError: (error) => {
        throw error;
      },
    });
    let synced = false;
    const syncing = feeds.sync().then(() => {
      synced = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(synced).toBe(false);
    admit();
    await syncing;
    expect(joined).toBe(true);
    expect(feeds.open()).toEqual([{ tokenKey: 'tk', planId: 'plan' }]);
    await feeds.close();
    await store.close();
  });
});

describe('the deliverer', () => {
  it('arms no timer for a head whose attempt is in flight (no busy loop while it waits)', async () => {
    let now = 0;
    const scheduler = createManualScheduler({
      now: () => now,
      set(ms) {
        now = ms;
      },
    });
    const receiver = await startReceiver();
    const store = memoryStore();
    const dispatcher = new Agent();
    const errors: unknown[] = [];
    const deliverer = createDeliverer({
      store,
      config: {
        ...DEFAULT_WEBHOOKS,
        key: randomBytes(32),
        databasePath: ':memory:',
        allowPrivateTargets: true,
      },
      scheduler,
      dispatcher,
      owner: 'me',
      onError: (error) => errors.push(error),
      onDisabled: () => {},
    });
    try {
      await store.createEndpoint(
        {
          id: 'a',
          tokenKey: 'tk',
          planId: 'plan',
          url: receiver.url,
          kinds: ['TRANSACTIONS'],
          description: null,
          createdAt: 0,
          startKnowledge: 0,
          disabledReason: null,
          disabledAt: null,
        },
        newSecret(),
        'sealed',
      );
      await store.enqueue(
        { tokenKey: 'tk', planId: 'plan' },
        1,
        [{ eventId: 'e1', endpointId: 'a', serverKnowledge: 1, payload: '{}' }],
        0,
        'me',
      );
      receiver.hold = true;
      deliverer.wake();
      await until(() => receiver.heldCount() === 1, 'the delivery in flight');
      await until(() => scheduler.pending() === 0, 'no timer armed');
      receiver.release();
      await until(
        async () => (await store.deliveries('a', 1))[0]?.state === 'DELIVERED',
        'delivered',
      );
      expect(errors).toEqual([]);
    } finally {
      await deliverer.close();
      await dispatcher.close();
      await store.close();
      await receiver.close();
    }
  });
});

describe('attempts', () => {
  /** One endpoint at `url` with one queued event, and a deliverer over them (real timers). */
  async function deliveringTo(url: string, timeoutMs = 10_000) {
    let now = 0;
    const scheduler = createManualScheduler({
      now: () => now,
      set(ms) {
        now = ms;
      },
    });
    const store = memoryStore();
    const dispatcher = new Agent();
    await store.createEndpoint(
      {
        id: 'a',
        tokenKey: 'tk',
        planId: 'plan',
        url,
        kinds: ['TRANSACTIONS'],
        description: null,
        createdAt: 0,
        startKnowledge: 0,
        disabledReason: null,
        disabledAt: null,
      },
      newSecret(),
      'sealed',
    );
    await store.enqueue(
      { tokenKey: 'tk', planId: 'plan' },
      1,
      [{ eventId: 'e1', endpointId: 'a', serverKnowledge: 1, payload: '{}' }],
      0,
      'me',
    );
    const deliverer = createDeliverer({
      store,
      config: {
        ...DEFAULT_WEBHOOKS,
        key: randomBytes(32),
        databasePath: ':memory:',
        allowPrivateTargets: true,
        timeoutMs,
      },
      scheduler,
      dispatcher,
      owner: 'me',
      onError: (error) => {
        throw error;
      },
      onDisabled: () => {},
    });
    deliverer.wake();
    const attempts = async () => store.attempts((await store.deliveries('a', 1))[0]!.seq);
    return {
      attempts,
      async close() {
        await deliverer.close();
        await dispatcher.close();
        await store.close();
      },
    };
  }

  it('reads only the first few KiB of an answer, then drops the connection', async () => {
    let written = 0;
    let closedEarly = false;
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 1);
      const more = () => {
        while (written < 256 * 1024 * 1024) {
          written += chunk.byteLength;
          if (!response.write(chunk)) return void response.once('drain', more);
        }
        response.end();
      };
      response.on('close', () => {
        closedEarly = !response.writableFinished;
      });
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const run = await deliveringTo(`http://127.0.0.1:${port}/big`);
    try {
      await until(async () => (await run.attempts()).length === 1, 'the attempt recorded');
      expect((await run.attempts())[0]).toMatchObject({ ok: true, statusCode: 200 });
      await until(() => closedEarly, 'the answer cut short');
      expect(written).toBeLessThan(256 * 1024 * 1024);
    } finally {
      await run.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('counts an answer that does not come in time as a failed attempt', async () => {
    const receiver = await startReceiver();
    receiver.hold = true;
    const run = await deliveringTo(receiver.url, 200);
    try {
      await until(async () => (await run.attempts()).length === 1, 'the attempt recorded');
      expect((await run.attempts())[0]).toMatchObject({
        ok: false,
        statusCode: null,
        error: 'no answer within 200 ms',
      });
    } finally {
      await run.close();
      await receiver.close();
    }
  });
});

/**
 * The IANA IPv4 Special-Purpose Address Registry, every entry, and multicast (its own registry),
 * transcribed here on their own: the classifier's table in src/webhooks/target.ts is checked
 * against them, not against itself.
 */
const IANA_IPV4_SPECIAL = [
  '0.0.0.0/8',
  '0.0.0.0/32',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.0.0/29',
  '192.0.0.8/32',
  '192.0.0.9/32',
  '192.0.0.10/32',
  '192.0.0.170/32',
  '192.0.0.171/32',
  '192.0.2.0/24',
  '192.31.196.0/24',
  '192.52.193.0/24',
  '192.88.99.0/24',
  '192.88.99.2/32',
  '192.168.0.0/16',
  '192.175.48.0/24',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '255.255.255.255/32',
];

/** The IANA IPv6 Special-Purpose Address Registry, every entry but IPv4-mapped (above), and the
 * IPv4-compatible, site-local and multicast prefixes outside it. */
const IANA_IPV6_SPECIAL = [
  '::1/128',
  '::/128',
  '::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '100:0:0:1::/64',
  '2001::/23',
  '2001::/32',
  '2001:1::1/128',
  '2001:1::2/128',
  '2001:1::3/128',
  '2001:2::/48',
  '2001:3::/32',
  '2001:4:112::/48',
  '2001:10::/28',
  '2001:20::/28',
  '2001:30::/28',
  '2001:db8::/32',
  '2002::/16',
  '2620:4f:8000::/48',
  '3fff::/20',
  '5f00::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
];

/** The first, a middle and the last address of a CIDR block, in the block's family. */
function spanOf(cidr: string): string[] {
  const [network = '', bits = ''] = cidr.split('/');
  const v6 = network.includes(':');
  const width = v6 ? 128n : 32n;
  const start = v6 ? v6Number(network) : v4Number(network);
  const size = 1n << (width - BigInt(bits));
  const text = v6 ? v6Text : v4Text;
  return [start, start + size / 2n, start + size - 1n].map(text);
}

function v4Number(address: string): bigint {
  return address.split('.').reduce((n, part) => (n << 8n) | BigInt(part), 0n);
}

function v4Text(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((n >> shift) & 255n)).join('.');
}

function v6Number(address: string): bigint {
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((n, group) => (n << 16n) | BigInt(`0x${group}`), 0n);
}

function v6Text(n: bigint): string {
  return Array.from({ length: 8 }, (_, i) =>
    ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16),
  ).join(':');
}

/** A store of this process's life (SQLite in memory), sealed under a key of its own. */
function memoryStore() {
  return sealedStore(createSqliteWebhookStore(':memory:'), createSealer(randomBytes(32)));
}
