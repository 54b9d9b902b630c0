/**
 * The gateway's link to Redis (or Valkey): one connection for commands, one for pub/sub, and
 * the rule that makes a cluster safe to run: **Redis is never on a client's critical path**.
 *
 * - Commands fail at once while the link is down (no offline queue). Every round trip (`run`,
 *   `script`, `publish`: a command, a pipeline, a script with its NOSCRIPT retry) gives up after
 *   `commandTimeoutMs`, and the first that does takes the link down as if the connection had
 *   dropped: a Redis that hangs (stopped, swapping, a script running away) costs one timeout,
 *   not one per command. A `PING` at once, then every `commandTimeoutMs` (one at a time),
 *   brings the link back once Redis answers in time again. A deadline that fires waits for that
 *   turn's I/O first: after a stall of this process the answer may already be there. Every
 *   caller falls back to what this instance knows alone (its own ledger, its own replicas,
 *   polling on its own). Clients see no error.
 * - ioredis reconnects by itself (back-off up to 2 s) and the pub/sub connection resubscribes;
 *   `onChange` tells the gateway when the link goes down and comes back, which it logs (a
 *   warning) and exposes as a metric. Whoever keeps state in Redis re-sends it on `available`
 *   (the ledger), because a Redis that restarted may have lost everything.
 * - ioredis is loaded with a dynamic import when a link is created: a gateway without
 *   `REDIS_URL` never loads it. The link exists at once and is unavailable until connected.
 *
 * Round trips are counted (a pipeline or a script is one), for the benchmark's "Redis round
 * trips per operation".
 */

import { createHash } from 'node:crypto';
import type { Redis, RedisOptions } from 'ioredis';
import { createSystemScheduler, type Scheduler } from '../time/scheduler.js';

/**
 * The command connection as a round trip sees it (`RedisLink.run`): the one Redis client type
 * the rest of the gateway names, so nothing outside this file imports ioredis.
 */
export type RedisCommands = Redis;

/** Returned instead of a result when Redis could not answer; the caller goes on alone. */
export const UNAVAILABLE: unique symbol = Symbol('redis unavailable');
export type Unavailable = typeof UNAVAILABLE;

export interface RedisLinkOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://` for TLS. */
  url: string;
  /** Prefix of every key and channel, so one Redis can serve several deployments. @default 'pgw:' */
  prefix?: string;
  /**
   * A round trip that takes longer counts as failed (the caller goes on alone) and takes the
   * link down until a `PING` answers within it again. @default 1_000
   */
  commandTimeoutMs?: number;
  /** Timers of the command deadline and the probe (tests use a manual one). @default real timers */
  scheduler?: Scheduler;
  /** Told on every change: down (with the reason) or back up. */
  onChange?: (change: LinkChange) => void;
}

export type LinkChange =
  | { readonly available: true; readonly first: boolean }
  | { readonly available: false; readonly reason: string };

export interface RedisLinkStats {
  readonly available: boolean;
  /** Round trips sent (commands, pipelines, scripts, publishes). */
  readonly roundTrips: number;
  /** Operations that found Redis unavailable or failed, and went on without it. */
  readonly fallbacks: number;
  /**
   * Round trips that ran out of `commandTimeoutMs` (the first took the link down, and every
   * other in flight then gave up with it).
   */
  readonly timeouts: number;
  /** Times the link went down. */
  readonly outages: number;
  /**
   * Round trips sent whose answer has not come yet, probes and those given up on included
   * (Redis owes them an answer: a test on a manual clock moves it only when none is, since
   * moving it runs out their deadlines).
   */
  readonly inFlight: number;
}

/** A Lua script run by its SHA1 (sent in full once per connection when Redis lacks it). */
export interface LuaScript {
  readonly lua: string;
  readonly sha: string;
}

export function luaScript(lua: string): LuaScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

export interface RedisLink {
  readonly prefix: string;
  readonly available: boolean;
  stats(): RedisLinkStats;
  /**
   * One round trip with the command connection; `UNAVAILABLE` when Redis cannot answer within
   * `timeoutMs` (@default `commandTimeoutMs`: more only for large transfers off a request's path).
   */
  run<T>(op: (redis: RedisCommands) => Promise<T>, timeoutMs?: number): Promise<T | Unavailable>;
  /** Runs a script (one round trip); replies with buffers when `buffers` is true. */
  script(
    script: LuaScript,
    keys: readonly string[],
    args: readonly (string | number | Buffer)[],
    buffers?: boolean,
    timeoutMs?: number,
  ): Promise<unknown>;
  publish(channel: string, message: Buffer): Promise<boolean>;
  /** Calls `onMessage` for each message on `channel` until the returned function is called. */
  subscribe(channel: string, onMessage: (message: Buffer) => void): () => void;
  /** Calls `listener` each time the link comes (back) up. */
  onAvailable(listener: () => void): () => void;
  /** Calls `listener` each time the link goes down (whoever waits on Redis should stop). */
  onUnavailable(listener: () => void): () => void;
  /** Resolves true once connected, false after `timeoutMs` without a connection. */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const RECONNECT_MAX_MS = 2_000;
/** What a round trip's deadline resolves to. */
const TIMED_OUT: unique symbol = Symbol('redis timed out');

/**
 * Creates the link at once and connects in the background (ioredis is imported on the way):
 * until the connection is up the link is unavailable, and callers go on alone.
 */
export function createRedisLink(options: RedisLinkOptions): RedisLink {
  const {
    url,
    prefix = 'pgw:',
    commandTimeoutMs = 1_000,
    scheduler = createSystemScheduler(),
    onChange,
  } = options;
  if (!/^rediss?:\/\//.test(url)) {
    throw new TypeError(`REDIS_URL must start with redis:// or rediss://, got ${redactUrl(url)}`);
  }
  let commands: Redis | undefined;
  let events: Redis | undefined;
  let roundTrips = 0;
  let fallbacks = 0;
  let timeouts = 0;
  let inFlight = 0;
  let closed = false;
  /** Redis let a round trip run past its deadline; down until a probe answers in time. */
  let hung = false;
  let probing: Promise<unknown> | undefined;
  /** Round trips in flight: each gives up when called. */
  const waiting = new Set<() => void>();
  const state = new LinkState();
  const listeners = new Set<() => void>();
  const downListeners = new Set<() => void>();
  const handlers = new Map<string, Set<(message: Buffer) => void>>();

  function update(reason: string): void {
    if (closed) return;
    const ready = commands?.status === 'ready' && events?.status === 'ready' && !hung;
    const change = state.update(ready, reason);
    if (!change) return;
    onChange?.(change);
    for (const listener of [...(change.available ? listeners : downListeners)]) listener();
  }

  /**
   * `work`, or `TIMED_OUT` once `commandTimeoutMs` passed first, or as soon as the link is found
   * hanging (by this round trip or another): its late outcome is dropped.
   */
  function withDeadline<T>(
    work: Promise<T>,
    onExpired = () => {},
    timeoutMs = commandTimeoutMs,
  ): Promise<T | typeof TIMED_OUT> {
    let timer: { cancel(): void } | undefined;
    let given = false;
    let settled = false;
    let giveUp = () => {};
    const expired = new Promise<typeof TIMED_OUT>((resolve) => {
      giveUp = () => {
        given = true;
        resolve(TIMED_OUT);
      };
      timer = scheduler.setTimeout(() => {
        // After this turn's I/O: when this process itself was stalled (GC, CPU), the answer may
        // be waiting in the socket already, and Redis is not the one that hung.
        setImmediate(() => {
          if (given || settled) return;
          onExpired();
          giveUp();
        });
      }, timeoutMs);
    });
    waiting.add(giveUp);
    inFlight += 1;
    const settle = () => {
      settled = true;
      inFlight -= 1;
    };
    work.then(settle, settle);
    return Promise.race([work, expired]).finally(() => {
      timer?.cancel();
      waiting.delete(giveUp);
    });
  }

  /**
   * Private: Redis hangs. Every round trip still waiting on it gives up now, and the link is
   * down until a `PING` answers within the deadline.
   */
  function hang(): void {
    for (const giveUp of [...waiting]) giveUp();
    if (hung || closed) return;
    hung = true;
    update(`redis did not answer within ${commandTimeoutMs} ms`);
    // At once: a Redis that was only slow for a moment (behind a large transfer) is back as
    // soon as it answers; one that hangs lets this PING run out too, and the next waits.
    void probe();
  }

  function probeSoon(): void {
    // Fire and forget: a manual scheduler waits for a task's promise, and this one waits on
    // another of its timers (the deadline).
    scheduler.setTimeout(() => void probe(), commandTimeoutMs);
  }

  async function probe(): Promise<void> {
    if (closed || !hung) return;
    // One PING at a time: a Redis that never answers does not pile them up.
    if (probing || commands?.status !== 'ready') {
      probeSoon();
      return;
    }
    const ping = commands.ping().finally(() => {
      if (probing === ping) probing = undefined;
    });
    probing = ping;
    if ((await withDeadline(ping).catch(() => TIMED_OUT)) === TIMED_OUT) {
      probeSoon();
      return;
    }
    hung = false;
    update('answering again');
  }

  function sendSubscribe(channel: string): void {
    if (!events) return;
    roundTrips += 1;
    events.subscribe(channel).catch(() => {
      fallbacks += 1;
    });
  }

  const connecting = import('ioredis').then(({ Redis }) => {
    if (closed) return;
    ({ commands, events } = createClients(Redis, url));
    for (const client of [commands, events]) {
      client.on('ready', () => update('ready'));
      client.on('close', () => update('connection closed'));
      client.on('end', () => update('connection ended'));
      // Without a listener ioredis prints every failed reconnection; the state change says enough.
      client.on('error', (error: Error) => update(error.message));
    }
    events.on('messageBuffer', (channel: Buffer, message: Buffer) => {
      for (const handler of handlers.get(channel.toString('utf8')) ?? []) handler(message);
    });
    for (const client of [commands, events]) {
      void client.connect().catch((error: unknown) => update(describe(error)));
    }
    // Queued on the events connection until it is up (subscriptions made before ioredis loaded).
    for (const channel of handlers.keys()) sendSubscribe(channel);
  });
  connecting.catch((error: unknown) => {
    const change = state.failedToLoad(
      `ioredis could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
    );
    onChange?.(change);
  });

  const link: RedisLink = {
    prefix,
    get available() {
      return state.available;
    },
    stats: () => ({
      available: state.available,
      roundTrips,
      fallbacks,
      timeouts,
      outages: state.outages,
      inFlight,
    }),

    async run(op, timeoutMs = commandTimeoutMs) {
      if (!state.available || !commands) {
        fallbacks += 1;
        return UNAVAILABLE;
      }
      roundTrips += 1;
      try {
        const result = await withDeadline(
          op(commands),
          () => {
            timeouts += 1;
            hang();
          },
          timeoutMs,
        );
        if (result !== TIMED_OUT) return result;
      } catch {
        // Redis answered with an error, or the connection dropped (the link will say so).
      }
      fallbacks += 1;
      return UNAVAILABLE;
    },

    async script(script, keys, args, buffers = false, timeoutMs = commandTimeoutMs) {
      return link.run(async (redis) => {
        const call = (useSha: boolean) => {
          const command = useSha ? 'EVALSHA' : 'EVAL';
          const all = [useSha ? script.sha : script.lua, keys.length, ...keys, ...args];
          return buffers ? redis.callBuffer(command, all) : redis.call(command, all);
        };
        try {
          return await call(true);
        } catch (error) {
          if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
          roundTrips += 1;
          return await call(false);
        }
      }, timeoutMs);
    },

    async publish(channel, message) {
      const sent = await link.run((redis) => redis.publish(channel, message));
      return sent !== UNAVAILABLE;
    },

    subscribe(channel, onMessage) {
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        sendSubscribe(channel);
      }
      set.add(onMessage);
      return () => {
        const current = handlers.get(channel);
        if (!current?.delete(onMessage) || current.size > 0) return;
        handlers.delete(channel);
        if (closed || !events) return;
        roundTrips += 1;
        events.unsubscribe(channel).catch(() => {
          fallbacks += 1;
        });
      };
    },

    onAvailable(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },

    onUnavailable(listener) {
      downListeners.add(listener);
      return () => void downListeners.delete(listener);
    },

    ready(timeoutMs) {
      if (state.available) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          stop();
          resolve(false);
        }, timeoutMs);
        const stop = link.onAvailable(() => {
          clearTimeout(timer);
          stop();
          resolve(true);
        });
      });
    },

    async close() {
      closed = true;
      state.close();
      handlers.clear();
      listeners.clear();
      downListeners.clear();
      await connecting.catch(() => {});
      await Promise.all(
        [commands, events].map(async (client) => {
          if (!client) return;
          if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
          else client.disconnect();
        }),
      );
    },
  };
  return link;
}

/**
 * Whether the link is up, from what its two connections report, and how many times it went
 * down. It is up once both connections are ready; it goes down (one outage, told once) when
 * either is lost, not while one is ready and the other still on its way.
 */
export class LinkState {
  private _state: 'connecting' | 'up' | 'down' = 'connecting';
  private _everUp = false;
  private _available = false;
  private _outages = 0;

  get available(): boolean {
    return this._available;
  }

  get outages(): number {
    return this._outages;
  }

  /**
   * A connection reported `reason` (`'ready'` when it came up); `bothReady` says whether both
   * connections are ready now. Returns the change to tell, when this is one.
   */
  update(bothReady: boolean, reason: string): LinkChange | undefined {
    if (bothReady) {
      if (this._state === 'up') return undefined;
      this._state = 'up';
      this._available = true;
      const change = { available: true, first: !this._everUp } as const;
      this._everUp = true;
      return change;
    }
    this._available = false;
    if (this._state === 'down' || reason === 'ready') return undefined;
    this._state = 'down';
    this._outages += 1;
    return { available: false, reason };
  }

  /** ioredis could not be loaded: an outage the link never recovers from. */
  failedToLoad(reason: string): LinkChange {
    this._outages += 1;
    return { available: false, reason };
  }

  /** Closed: unavailable for good. */
  close(): void {
    this._available = false;
  }
}

// Private: the two connections, not yet connected: commands fail fast, subscriptions wait. The
// command deadline is the link's own (`run`), which also covers pipelines and script retries.
function createClients(RedisClient: typeof Redis, url: string): { commands: Redis; events: Redis } {
  const common: RedisOptions = {
    retryStrategy: (times) => Math.min(100 * times, RECONNECT_MAX_MS),
    connectTimeout: 2_000,
    lazyConnect: true,
  };
  return {
    commands: new RedisClient(url, {
      ...common,
      // Fail fast: a command while disconnected must not wait for a reconnection.
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      connectionName: 'plans-gateway',
    }),
    events: new RedisClient(url, {
      ...common,
      // Subscriptions made while disconnected are sent on connection, and restored after one.
      enableOfflineQueue: true,
      autoResubscribe: true,
      maxRetriesPerRequest: null,
      connectionName: 'plans-gateway-events',
    }),
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
