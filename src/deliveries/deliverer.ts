/**
 * Sends the outbox: the head of each enabled endpoint's queue when it falls due, one at a time
 * per endpoint (so an endpoint receives its events in `serverKnowledge` order) and at most
 * `concurrency` in flight in all. A delivery is a POST of the stored body with Standard Webhooks
 * headers; a 2xx within `timeoutMs` is success, anything else is retried (retry.ts) and, after
 * a day of failures, disables the endpoint with the reason. Attempts are written before the
 * next is made, so a crash at any point re-sends at most the attempt in flight (at least once).
 *
 * Nothing here blocks anything else: each attempt is its own promise with its own deadline; a
 * slow endpoint holds one slot, and its own queue, nothing more.
 */
import { type Dispatcher, request } from 'undici';
import type { WebhooksConfig } from '../config/config.js';
import { type Clock, epochNow, monotonicNow } from '../time/clock.js';
import type { Scheduler, TimerHandle } from '../time/scheduler.js';
import { signedHeaders } from '../webhooks/signing.js';
import {
  type AttemptRecord,
  type DeliveryRecord,
  type DeliveryState,
  type WebhookStore,
  WebhookStoreUnavailableError,
} from '../webhooks/store.js';
import { urlProblem } from '../webhooks/target.js';
import { retriesExhausted, retryDelay } from './retry.js';

export interface Deliverer {
  /** Something was queued or became due: look at the outbox now. */
  wake(): void;
  /** Stops taking deliveries; waits for those in flight. */
  close(): Promise<void>;
}

export interface DelivererOptions {
  store: WebhookStore;
  config: WebhooksConfig;
  scheduler: Scheduler;
  dispatcher: Dispatcher;
  onError: (error: unknown) => void;
  /** This instance, as it claims deliveries in a shared store. */
  owner: string;
  /**
   * The time signed into `webhook-timestamp`: receivers compare it with their own clock to refuse
   * replays, so it is the real time of sending even where the scheduler's clock is simulated.
   * @default epochNow
   */
  now?: Clock;
  /** An endpoint was disabled (its feed may have no endpoint left). */
  onDisabled: () => void;
  /** Called after each attempt (tests and the benchmark observe progress). @default none */
  onAttempt?: (delivery: DeliveryRecord, attempt: AttemptRecord) => void;
}

/** A claimed delivery is held this much longer than an attempt may last. */
const HOLD_MARGIN_MS = 5_000;
/** With a shared store, other instances' queues are looked at this often. */
const SHARED_SCAN_MS = 1_000;
/**
 * A store that failed (Redis away or hanging) is looked at again this often: the outbox, and an
 * attempt that could not be recorded (while its claim holds).
 */
const RETRY_STORE_MS = 1_000;

export function createDeliverer(options: DelivererOptions): Deliverer {
  const { store, config, scheduler, onError, owner } = options;
  const busy = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  /** Waits between tries of a record: ended at once by `close`. */
  const pauses = new Set<() => void>();
  let timer: TimerHandle | undefined;
  let pumping = false;
  let again = false;
  let closed = false;

  const pump = async (): Promise<void> => {
    if (closed) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    let looked = scheduler.now();
    try {
      do {
        again = false;
        const room = config.concurrency - inFlight.size;
        if (room <= 0) break;
        looked = scheduler.now();
        const due = await store.due(looked, room, busy, owner, config.timeoutMs + HOLD_MARGIN_MS);
        for (const delivery of due) start(delivery);
        if (due.length === room) again = true;
      } while (again && !closed);
      await arm(looked);
    } catch (error) {
      onError(error);
      // Nothing else may wake it (no feed writes while the store fails): look again soon.
      if (!closed) {
        timer?.cancel();
        timer = scheduler.setTimeout(() => void pump(), RETRY_STORE_MS);
      }
    } finally {
      pumping = false;
    }
  };

  // Private: a timer for the earliest head that was not due when the outbox was looked at (one
  // timer, re-armed after each pump). Heads due then and not taken wait for a slot or their
  // endpoint's attempt in flight, whose end pumps again: no timer for them, no busy loop.
  const arm = async (looked: number) => {
    timer?.cancel();
    timer = undefined;
    const at = await store.nextDueAt(looked);
    if (closed) return;
    // Shared: what other instances queue (or leave behind) shows up only by looking again.
    const wait = at === undefined ? undefined : Math.max(0, at - scheduler.now());
    const next = store.shared ? Math.min(wait ?? SHARED_SCAN_MS, SHARED_SCAN_MS) : wait;
    if (next === undefined) return;
    timer = scheduler.setTimeout(() => void pump(), next);
  };

  const start = (delivery: DeliveryRecord) => {
    busy.add(delivery.endpointId);
    const running = attempt(delivery)
      .catch(onError)
      .finally(() => {
        busy.delete(delivery.endpointId);
        inFlight.delete(running);
        void pump();
      });
    inFlight.add(running);
  };

  // Private: an attempt's record, tried again while the store does not answer and the claim
  // holds: the delivery was made, and once Redis answers again it is recorded, not sent twice.
  const record = async (
    delivery: DeliveryRecord,
    attempt: AttemptRecord,
    next: { state: DeliveryState; nextAttemptAt: number },
    claimedUntil: number,
  ): Promise<void> => {
    for (;;) {
      try {
        return await store.recordAttempt(delivery, attempt, next, owner);
      } catch (error) {
        const retry = error instanceof WebhookStoreUnavailableError && !closed;
        if (!retry || scheduler.now() + RETRY_STORE_MS >= claimedUntil) throw error;
        await new Promise<void>((resolve) => {
          const wait = scheduler.setTimeout(() => {
            pauses.delete(end);
            resolve();
          }, RETRY_STORE_MS);
          const end = () => {
            wait.cancel();
            resolve();
          };
          pauses.add(end);
        });
      }
    }
  };

  const attempt = async (delivery: DeliveryRecord): Promise<void> => {
    const claimedUntil = scheduler.now() + config.timeoutMs + HOLD_MARGIN_MS;
    const endpoint = await store.endpoint(delivery.endpointId);
    if (!endpoint || endpoint.disabledReason !== null) {
      await store.release(delivery, owner);
      return;
    }
    const at = scheduler.now();
    const secrets = await store.secrets(endpoint.id, at);
    const signedAt = (options.now ?? epochNow)();
    const outcome = await send(
      endpoint.url,
      delivery,
      secrets,
      signedAt,
      config,
      options.dispatcher,
    );
    const made: AttemptRecord = { at, ...outcome };
    if (closed && !outcome.ok && outcome.statusCode === null) {
      await store.release(delivery, owner); // cut short by shutdown
      return;
    }
    if (outcome.ok) {
      await record(delivery, made, { state: 'DELIVERED', nextAttemptAt: at }, claimedUntil);
    } else {
      const now = scheduler.now();
      const policy = {
        baseMs: config.retryBaseMs,
        maxDelayMs: config.retryMaxDelayMs,
        windowMs: config.retryWindowMs,
      };
      const delay = retryDelay(policy, delivery.attempts + 1);
      await record(delivery, made, { state: 'PENDING', nextAttemptAt: now + delay }, claimedUntil);
      if (retriesExhausted(policy, delivery.firstAttemptAt ?? at, now + delay)) {
        await store.disableEndpoint(
          endpoint.id,
          `Deliveries failed for ${hours(config.retryWindowMs)}: event ${delivery.eventId} was last answered ${outcome.statusCode === null ? `with no response (${outcome.error})` : `HTTP ${outcome.statusCode}`}. Fix the receiver, then enable the endpoint again (updateWebhookEndpoint, enabled: true): waiting events are kept.`,
          now,
        );
        options.onDisabled();
      }
    }
    options.onAttempt?.(delivery, made);
  };

  return {
    wake: () => void pump(),
    async close() {
      closed = true;
      timer?.cancel();
      for (const end of [...pauses]) end();
      pauses.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}

function hours(ms: number): string {
  const h = ms / 3_600_000;
  return h >= 1 ? `${Number(h.toFixed(1))} h` : `${Math.round(ms / 1000)} s`;
}

/** Private: one POST, its answer's status, bounded in time and in the bytes read. */
async function send(
  url: string,
  delivery: DeliveryRecord,
  secrets: readonly string[],
  at: number,
  config: WebhooksConfig,
  dispatcher: Dispatcher,
): Promise<Omit<AttemptRecord, 'at'>> {
  const started = monotonicNow();
  const duration = () => Math.round(monotonicNow() - started);
  const problem = urlProblem(url, config.allowPrivateTargets);
  if (problem) return { ok: false, statusCode: null, durationMs: 0, error: `url ${problem}` };
  const signal = AbortSignal.timeout(config.timeoutMs);
  try {
    const response = await request(url, {
      method: 'POST',
      dispatcher,
      signal,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'plans-graphql-gateway-webhooks',
        ...signedHeaders(delivery.eventId, Math.floor(at / 1000), delivery.payload, secrets),
      },
      body: delivery.payload,
    });
    // Only a small part of the answer is read: a receiver cannot make the gateway buffer much.
    let read = 0;
    for await (const chunk of response.body) {
      read += (chunk as Buffer).byteLength;
      if (read >= config.responseBytes) break;
    }
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    return {
      ok,
      statusCode: response.statusCode,
      durationMs: duration(),
      error: ok ? null : `HTTP ${response.statusCode}`,
    };
  } catch (error) {
    const timedOut = signal.aborted;
    return {
      ok: false,
      statusCode: null,
      durationMs: duration(),
      error: timedOut ? `no answer within ${config.timeoutMs} ms` : describe(error),
    };
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return 'the request failed';
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const code =
    (cause as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown }).code;
  const message = cause?.message ?? error.message;
  return typeof code === 'string' ? `${code}: ${message}` : message;
}
