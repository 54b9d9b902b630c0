/**
 * Subscriptions delivered by HTTP callback (Apollo's "HTTP callback protocol for GraphQL
 * subscriptions", 1.0), the way routers can take a subgraph's subscriptions instead of a
 * WebSocket or a stream: the router posts the subscription to `/subgraph` with
 * `extensions.subscription { callbackUrl, subscriptionId, verifier, heartbeatIntervalMs }`, and
 * the gateway posts the events to `callbackUrl`.
 *
 * The subscription itself is the gateway's own: it passed the one admission path and runs in the
 * subgraph's yoga (`plugins/use-callback-subscriptions.ts`), so its events come from the one hub,
 * the one poller per (token, plan) and the token's budget share, and it counts against the
 * per-token subscription limit as a WebSocket subscriber does. What is here is the delivery:
 *
 * 1. `check` first: the callback URL must pass the webhook targets' rules (src/webhooks/target.ts:
 *    one rule set, one `WEBHOOK_ALLOW_PRIVATE_TARGETS` switch; the connection's own lookup refuses
 *    a name resolving to a private address) and answer 2xx (a 404 says the router does not know
 *    the subscription). Only then does the router get `{"data":null}`.
 * 2. `next` per event, `check` as the heartbeat every interval (protocol 1.0 dropped the separate
 *    heartbeat message), `complete` when the events end (with errors on shutdown or when the
 *    caller's credentials ended).
 * 3. A 404 or 410 ends the subscription (the router let it go); so does any message not answered
 *    2xx within one heartbeat interval (timed on the gateway's scheduler): a router that stops
 *    answering is let go at most two intervals after its last answer, and its share of the
 *    poller is freed at once (the events' iterator is returned).
 *
 * Bounds: `live.maxCallbackSubscriptions` at once on the instance (TOO_MANY_SUBSCRIPTIONS past
 * it), the router's heartbeat interval at most `live.maxCallbackHeartbeatMs` (0, "no heartbeat",
 * gets that maximum: a dead router is always noticed), one message in flight per subscription.
 */
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { Dispatcher } from 'undici';
import type { LiveConfig } from '../config/config.js';
import { gatewayError } from '../errors/codes.js';
import type { Logger } from '../telemetry/logger.js';
import type { Scheduler, TimerHandle } from '../time/scheduler.js';
import { createTargetDispatcher, postToTarget, urlProblem } from '../webhooks/target.js';

/** The header both sides put on the protocol's messages. */
export const CALLBACK_PROTOCOL_HEADER = 'subscription-protocol';
export const CALLBACK_PROTOCOL = 'callback/1.0';
/** A router's heartbeat interval when its request names none (Apollo's default). */
const DEFAULT_HEARTBEAT_MS = 5_000;
/** The shortest interval honoured: a router cannot make the gateway post more often. */
const MIN_HEARTBEAT_MS = 1_000;
/** Bytes of a router's answer read (its body means nothing to the protocol). */
const ANSWER_BYTES = 4_096;

/** What a router's subscription request asks, read from its `extensions.subscription`. */
export interface CallbackRequest {
  readonly callbackUrl: string;
  readonly subscriptionId: string;
  readonly verifier: string;
  /** The interval the gateway heartbeats at (the router's, within the bounds). */
  readonly heartbeatMs: number;
}

export type CallbackSettings = Pick<
  LiveConfig,
  'maxCallbackSubscriptions' | 'maxCallbackHeartbeatMs' | 'callbackAllowPrivateTargets'
>;

/**
 * The request's callback subscription: undefined when it asks none (no
 * `extensions.subscription`), else the request or what is wrong with it, naming the field.
 */
export function readCallbackRequest(
  extensions: unknown,
  settings: CallbackSettings,
): CallbackRequest | { readonly problem: string } | undefined {
  if (typeof extensions !== 'object' || extensions === null) return undefined;
  const asked = (extensions as Record<string, unknown>).subscription;
  if (asked === undefined) return undefined;
  const problem = (text: string) => ({ problem: `extensions.subscription${text}` });
  if (typeof asked !== 'object' || asked === null) return problem(' must be an object');
  const fields = asked as Record<string, unknown>;
  const text = (name: string, max: number): string | { problem: string } => {
    const value = fields[name];
    if (typeof value !== 'string' || value.length === 0 || value.length > max) {
      return problem(`.${name} must be a string of 1 to ${max} characters`);
    }
    return value;
  };
  const callbackUrl = text('callbackUrl', 2_048);
  if (typeof callbackUrl !== 'string') return callbackUrl;
  const urlIssue = urlProblem(callbackUrl, settings.callbackAllowPrivateTargets);
  if (urlIssue) return problem(`.callbackUrl ${urlIssue}`);
  const subscriptionId = text('subscriptionId', 256);
  if (typeof subscriptionId !== 'string') return subscriptionId;
  const verifier = text('verifier', 1_024);
  if (typeof verifier !== 'string') return verifier;
  const interval = fields.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_MS;
  if (typeof interval !== 'number' || !Number.isSafeInteger(interval) || interval < 0) {
    return problem('.heartbeatIntervalMs must be a whole number of milliseconds, 0 or more');
  }
  const heartbeatMs =
    interval === 0
      ? settings.maxCallbackHeartbeatMs
      : Math.min(Math.max(interval, MIN_HEARTBEAT_MS), settings.maxCallbackHeartbeatMs);
  return { callbackUrl, subscriptionId, verifier, heartbeatMs };
}

/** Why a callback subscription ended, as `stats` and the log tell it. */
export type CallbackEnd =
  | 'completed' // its events ended; `complete` sent
  | 'gone' // the router answered 404 or 410
  | 'unanswered' // a message failed or was not answered within the heartbeat interval
  | 'credentials' // the caller's credentials ended; `complete` with UNAUTHENTICATED sent
  | 'shutdown'; // the gateway closed; `complete` with SHUTTING_DOWN sent

export interface CallbackSubscriptionsStats {
  /** Subscriptions delivering now. */
  readonly active: number;
  /** Ended subscriptions by why, since start. */
  readonly ended: Readonly<Record<CallbackEnd, number>>;
  /**
   * Messages posted whose answer has not come yet (their deadline runs on the scheduler: a test
   * on a manual clock moves it only when none is, or it gives up on an answer on its way).
   */
  readonly inFlight: number;
}

export interface CallbackSubscriptions {
  readonly settings: CallbackSettings;
  /** Holds a place for one more (before the operation runs), or the refusal past the cap. */
  reserve(): { release(): void } | GraphQLError;
  /**
   * Checks the callback URL, then delivers `events` there until they end or the router lets go.
   * Null: started (answer `{"data":null}`); else the error to answer with (the events were ended).
   * Takes over `place`, which is released when the subscription ends.
   */
  start(
    place: { release(): void },
    asked: CallbackRequest,
    events: AsyncIterableIterator<ExecutionResult>,
    tokenKey: string | undefined,
  ): Promise<GraphQLError | null>;
  /** Ends the subscriptions of a caller whose credentials ended (`complete` with UNAUTHENTICATED). */
  endCredentials(tokenKey: string): void;
  stats(): CallbackSubscriptionsStats;
  /** Ends every subscription, sending each router `complete` (SHUTTING_DOWN), and waits for them. */
  close(): Promise<void>;
}

export interface CallbackSubscriptionsOptions {
  readonly settings: CallbackSettings;
  readonly scheduler: Scheduler;
  readonly logger?: Logger | undefined;
  /** Where the messages connect. @default checked targets only, as webhook deliveries */
  readonly dispatcher?: Dispatcher | undefined;
}

/** Private: one subscription being delivered. */
interface Delivery {
  readonly asked: CallbackRequest;
  readonly events: AsyncIterableIterator<ExecutionResult>;
  readonly tokenKey: string | undefined;
  heartbeat: TimerHandle | undefined;
  /** Set once: why it ended. */
  ended: CallbackEnd | undefined;
  /** One message at a time: each waits for the one before. */
  sending: Promise<unknown>;
}

type Outcome = 'ok' | 'gone' | 'unanswered';

export function createCallbackSubscriptions(
  options: CallbackSubscriptionsOptions,
): CallbackSubscriptions {
  const { settings, scheduler, logger } = options;
  const dispatcher =
    options.dispatcher ??
    createTargetDispatcher({
      allowPrivate: settings.callbackAllowPrivateTargets,
      // A backstop on real time; the heartbeat interval on the scheduler decides first.
      timeoutMs: settings.maxCallbackHeartbeatMs * 2,
      connections: 64,
    });
  const deliveries = new Set<Delivery>();
  let reserved = 0;
  let inFlight = 0;
  let closed = false;
  let closing: Promise<void> | undefined;
  const ended: Record<CallbackEnd, number> = {
    completed: 0,
    gone: 0,
    unanswered: 0,
    credentials: 0,
    shutdown: 0,
  };

  /** Posts one message; its answer within the heartbeat interval decides the outcome. */
  const post = async (asked: CallbackRequest, message: Record<string, unknown>) => {
    const controller = new AbortController();
    const deadline = scheduler.setTimeout(() => controller.abort(), asked.heartbeatMs);
    inFlight++;
    try {
      const body = JSON.stringify({
        kind: 'subscription',
        id: asked.subscriptionId,
        verifier: asked.verifier,
        ...message,
      });
      const answer = await postToTarget(asked.callbackUrl, body, {
        dispatcher,
        signal: controller.signal,
        headers: {
          // Exactly this: Hive Gateway parses only a body of `application/json` as JSON.
          'content-type': 'application/json',
          [CALLBACK_PROTOCOL_HEADER]: CALLBACK_PROTOCOL,
        },
        answerBytes: ANSWER_BYTES,
      });
      const status = answer.status;
      const outcome: Outcome =
        status === 404 || status === 410
          ? 'gone'
          : status < 300 && status >= 200
            ? 'ok'
            : 'unanswered';
      return { outcome, status, protocol: answer.headers[CALLBACK_PROTOCOL_HEADER] };
    } catch (error) {
      return { outcome: 'unanswered' as const, status: 0, error };
    } finally {
      inFlight--;
      deadline.cancel();
    }
  };

  /** Queues a message behind the one in flight. */
  const send = (delivery: Delivery, message: Record<string, unknown>) => {
    const sent = delivery.sending.then(() => post(delivery.asked, message));
    delivery.sending = sent.catch(() => {});
    return sent;
  };

  /** Ends a delivery once: no more heartbeats, the events returned (the hub frees the share). */
  const end = (delivery: Delivery, why: CallbackEnd) => {
    if (delivery.ended) return false;
    delivery.ended = why;
    ended[why]++;
    delivery.heartbeat?.cancel();
    deliveries.delete(delivery);
    void Promise.resolve(delivery.events.return?.()).catch(() => {});
    logger?.info(
      { subscriptionId: delivery.asked.subscriptionId, ended: why },
      'callback subscription ended',
    );
    return true;
  };

  const beat = (delivery: Delivery) => {
    // The task returns at once: its answer waits on the scheduler's own deadline timer, which a
    // manual scheduler would never reach while it waited for the task.
    delivery.heartbeat = scheduler.setTimeout(() => {
      if (delivery.ended) return;
      void send(delivery, { action: 'check' }).then(({ outcome }) => {
        if (delivery.ended) return;
        if (outcome === 'ok') beat(delivery);
        else end(delivery, outcome);
      });
    }, delivery.asked.heartbeatMs);
  };

  const deliver = async (delivery: Delivery) => {
    try {
      for (;;) {
        const step = await delivery.events.next();
        if (delivery.ended) return;
        if (step.done) break;
        const { outcome } = await send(delivery, { action: 'next', payload: step.value });
        if (delivery.ended) return;
        if (outcome !== 'ok') {
          end(delivery, outcome);
          return;
        }
      }
      if (end(delivery, 'completed')) await send(delivery, { action: 'complete' });
    } catch (error) {
      // The events failed (yoga masks what resolvers throw: this is the iterator's own).
      logger?.error({ err: error }, 'callback subscription failed');
      if (end(delivery, 'completed')) {
        await send(delivery, {
          action: 'complete',
          errors: [gatewayError('Unexpected error.', 'INTERNAL_SERVER_ERROR')],
        });
      }
    }
  };

  /** Ends a delivery from outside, telling the router why in `complete`. */
  const completeWith = async (delivery: Delivery, why: CallbackEnd, error: GraphQLError) => {
    if (!end(delivery, why)) return;
    await send(delivery, { action: 'complete', errors: [error] });
  };

  return {
    settings,
    reserve() {
      if (closed) return gatewayError('The gateway is shutting down.', 'SHUTTING_DOWN');
      if (deliveries.size + reserved >= settings.maxCallbackSubscriptions) {
        return gatewayError(
          `Too many callback subscriptions on this instance: at most ${settings.maxCallbackSubscriptions} at once.`,
          'TOO_MANY_SUBSCRIPTIONS',
          { extensions: { limit: settings.maxCallbackSubscriptions } },
        );
      }
      reserved++;
      let held = true;
      return {
        release() {
          if (held) reserved--;
          held = false;
        },
      };
    },
    async start(place, asked, events, tokenKey) {
      const check = await post(asked, { action: 'check' });
      const protocol = check.protocol;
      const wrongProtocol =
        protocol !== undefined && String(protocol).toLowerCase() !== CALLBACK_PROTOCOL;
      if (check.outcome !== 'ok' || wrongProtocol || closed) {
        place.release();
        await Promise.resolve(events.return?.()).catch(() => {});
        const what = wrongProtocol
          ? `answered with ${CALLBACK_PROTOCOL_HEADER}: ${String(protocol)}, not ${CALLBACK_PROTOCOL}`
          : check.status === 0
            ? 'did not answer within the heartbeat interval'
            : `answered ${check.status}`;
        return gatewayError(
          `The callback URL's check failed: extensions.subscription.callbackUrl ${what}.`,
          'BAD_REQUEST',
        );
      }
      const delivery: Delivery = {
        asked,
        events,
        tokenKey,
        heartbeat: undefined,
        ended: undefined,
        sending: Promise.resolve(),
      };
      deliveries.add(delivery);
      place.release();
      beat(delivery);
      void deliver(delivery);
      return null;
    },
    endCredentials(tokenKey) {
      for (const delivery of [...deliveries]) {
        if (delivery.tokenKey !== tokenKey) continue;
        void completeWith(
          delivery,
          'credentials',
          gatewayError('The credentials of this subscription ended.', 'UNAUTHENTICATED'),
        );
      }
    },
    stats: () => ({ active: deliveries.size, ended: { ...ended }, inFlight }),
    close() {
      closing ??= closeAll();
      return closing;
    },
  };

  async function closeAll() {
    closed = true;
    // Each router is told, within its heartbeat interval at most.
    await Promise.all(
      [...deliveries].map((delivery) =>
        completeWith(
          delivery,
          'shutdown',
          gatewayError('The gateway is shutting down.', 'SHUTTING_DOWN'),
        ),
      ),
    );
    if (!options.dispatcher) await dispatcher.close();
  }
}
