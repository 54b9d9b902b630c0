/**
 * The event bus of live updates: yoga's `createPubSub` over an `EventTarget`. In one process the
 * target is a plain `EventTarget`; across instances it can be `@graphql-yoga/redis-event-target`
 * (`createRedisEventTarget({ publishClient, subscribeClient })`), which serializes each event's
 * `detail` as JSON. Messages are therefore plain JSON: rows, ids, numbers, strings; never a
 * snapshot or a class instance.
 */
import { createPubSub, type PubSub } from 'graphql-yoga';
import type { SerializedError } from '../errors/codes.js';
import type { PlanChange } from '../replica/changes.js';

export type LiveMessage =
  | {
      readonly type: 'change';
      readonly change: PlanChange;
      /** The hub's publish sequence: a subscriber's replay covers the changes up to some `seq`. */
      readonly seq: number;
      /** Bytes of the change's rows (what a subscriber not reading holds for it). */
      readonly bytes: number;
    }
  /** The subscriptions of the topic end with this error (a revoked token, a deleted plan). */
  | { readonly type: 'end'; readonly error: SerializedError };

/**
 * Topics: `plan` is keyed by `channelKey(tokenKey, planId)` and carries that plan's changes for
 * that token; `token` is keyed by the token key and ends every subscription of the token.
 */
export interface LiveTopics {
  [topic: string]: [string, LiveMessage];
  plan: [channel: string, message: LiveMessage];
  token: [tokenKey: string, message: LiveMessage];
}

export type LiveBus = PubSub<LiveTopics>;

/** Same key shape as the replica's: a token digest and a plan id, never a raw token. */
export function channelKey(tokenKey: string, planId: string): string {
  return `${tokenKey}:${planId}`;
}

/**
 * @param eventTarget where events travel. @default a new in-process `EventTarget`
 */
export function createLiveBus(eventTarget: EventTarget = new EventTarget()): LiveBus {
  return createPubSub<LiveTopics>({ eventTarget });
}
