/**
 * The live updates' event target in a cluster: what must reach every instance crosses Redis,
 * what each instance can work out for itself stays in process.
 *
 * - `change` messages stay local. Every instance that holds a replica applies each relayed sync
 *   to it (`tier-relays.ts`), and its replica store announces the change to its own hub, which
 *   publishes it to its own subscribers; rows and links then come from the same replica, and a
 *   change is never delivered twice (once relayed, once published by the instance that made it).
 * - `end` messages (a token refused, a plan gone) cross Redis, sealed with the token's key, on a
 *   channel named by a digest of the topic: every instance ends its own subscriptions. Without
 *   Redis each instance finds the refusal on its own next poll. Each carries the time it was
 *   sent: one older than `MAX_END_AGE_MS` (someone with access to Redis sending a captured
 *   message again) ends nothing and is reported.
 *
 * A message from this instance comes back from Redis too; the instance id in front of each
 * message lets it be skipped.
 */
import { parseExactJson, stringifyExactJson } from '@plans-gateway/rest-contract';
import type { LiveMessage } from '../live/live-bus.js';
import { type Clock, epochNow } from '../time/clock.js';
import type { RedisLink } from './redis.js';
import { redisName, type TokenSeals } from './seal.js';

const ID_BYTES = 8;
/** An `end` message is delivered within milliseconds; one this old was sent again. */
export const MAX_END_AGE_MS = 30_000;

type Listener = EventListenerOrEventListenerObject;

export interface ClusterEventTargetOptions {
  link: RedisLink;
  seals: TokenSeals;
  /** 8 bytes naming this instance. */
  instanceId: Buffer;
  /** A message that could not be opened or published (logged by the caller). @default ignored */
  onError?: (error: unknown) => void;
  /** A message sent again long after it was first (logged by the caller). @default ignored */
  onRejected?: (what: string) => void;
  /** @default epochNow */
  now?: Clock;
}

export class ClusterEventTarget extends EventTarget {
  private readonly _remote = new Map<string, Map<Listener, () => void>>();

  constructor(private readonly _options: ClusterEventTargetOptions) {
    super();
    if (_options.instanceId.length !== ID_BYTES) {
      throw new RangeError(`ClusterEventTarget: instanceId must be ${ID_BYTES} bytes`);
    }
  }

  override addEventListener(type: string, listener: Listener | null, options?: boolean): void {
    super.addEventListener(type, listener, options);
    if (listener === null) return;
    const tokenKey = tokenKeyOfTopic(type);
    if (tokenKey === undefined) return;
    let listeners = this._remote.get(type);
    if (!listeners) {
      listeners = new Map();
      this._remote.set(type, listeners);
    }
    if (listeners.has(listener)) return;
    const channel = this._channel(type);
    const {
      link,
      seals,
      instanceId,
      onError = () => {},
      onRejected = () => {},
      now = epochNow,
    } = this._options;
    const stop = link.subscribe(channel, (message) => {
      if (message.subarray(0, ID_BYTES).equals(instanceId)) return;
      const seal = seals.get(tokenKey);
      if (!seal) return;
      seal
        .open(message.subarray(ID_BYTES), channel)
        .then((body) => {
          const { detail, sentAt } = parseExactJson(body.toString('utf8')) as {
            detail?: LiveMessage;
            sentAt?: unknown;
          };
          if (typeof sentAt !== 'number' || Math.abs(now() - sentAt) > MAX_END_AGE_MS) {
            onRejected('an end message sent again after it was first');
            return;
          }
          const event = new CustomEvent(type, { detail });
          if (typeof listener === 'function') listener(event);
          else listener.handleEvent(event);
        })
        .catch(onError);
    });
    listeners.set(listener, stop);
  }

  override removeEventListener(type: string, listener: Listener | null, options?: boolean): void {
    super.removeEventListener(type, listener, options);
    if (listener === null) return;
    const listeners = this._remote.get(type);
    const stop = listeners?.get(listener);
    if (!listeners || !stop) return;
    listeners.delete(listener);
    if (listeners.size === 0) this._remote.delete(type);
    stop();
  }

  override dispatchEvent(event: Event): boolean {
    const delivered = super.dispatchEvent(event);
    const detail: unknown = (event as CustomEvent<unknown>).detail;
    const tokenKey = tokenKeyOfTopic(event.type);
    if (!isEnd(detail) || tokenKey === undefined) return delivered;
    const { link, seals, instanceId, onError = () => {}, now = epochNow } = this._options;
    const seal = seals.get(tokenKey);
    if (!seal) return delivered;
    const channel = this._channel(event.type);
    seal
      .seal(Buffer.from(stringifyExactJson({ detail, sentAt: now() }), 'utf8'), channel)
      .then((sealed) => link.publish(channel, Buffer.concat([instanceId, sealed])))
      .catch(onError);
    return delivered;
  }

  private _channel(type: string): string {
    return `${this._options.link.prefix}b:${redisName('bus', type)}`;
  }
}

/** The token key in a live topic (`plan:<tokenKey>:<planId>`, `token:<tokenKey>`). */
export function tokenKeyOfTopic(type: string): string | undefined {
  const match = /^(?:plan|token):([0-9a-f]{64})(?::|$)/.exec(type);
  return match?.[1];
}

function isEnd(detail: unknown): boolean {
  return (
    typeof detail === 'object' && detail !== null && (detail as { type?: unknown }).type === 'end'
  );
}
