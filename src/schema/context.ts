import type { LiveOperations } from '../live/hub.js';
import type { Loaders } from '../loaders/loaders.js';
import type { ReadLog } from '../loaders/read-log.js';
import type { Credentials } from '../operation/credentials.js';
import type { OperationDeadline } from '../operation/deadline.js';
import type { OperationMeter } from '../operation/meter.js';
import type { OperationSpan } from '../operation/tracer.js';
import type { WebhookRegistry } from '../webhooks/registry.js';
import type { Writes } from '../writes/pipeline.js';

export interface RateLimitUsage {
  readonly used: number;
  readonly limit: number;
  readonly remaining: number;
  /** Epoch ms when the oldest counted request leaves the rolling window; null when none. */
  readonly resetsAt: number | null;
}

/** The per-request context every resolver receives. */
export interface GatewayContext {
  readonly credentials: Credentials | null;
  readonly loaders: Loaders;
  readonly meter: OperationMeter;
  /** What this operation read and which versions (HTTP caching validates answers with it). */
  readonly reads: ReadLog;
  /** The request's id (its valid `X-Request-Id`, or a generated one), for logs. */
  readonly requestId: string;
  /** The operation's trace span when tracing is on. */
  readonly span?: OperationSpan;
  /** How long the operation waits for the upstream (lifted for subscriptions). */
  readonly deadline?: OperationDeadline;
  /** REST writes for mutations: sent once, applied to the replica, followed by one delta sync. */
  readonly writes: Writes;
  /** Subscriptions to a plan's changes (src/live). */
  readonly live: LiveOperations;
  /** Webhook endpoints and deliveries (src/webhooks); off without the operator's key. */
  readonly webhooks: WebhookRegistry;
  /** This token's upstream usage as the gateway counted it (with a cluster: every instance's). */
  rateLimit(): RateLimitUsage | Promise<RateLimitUsage>;
}
