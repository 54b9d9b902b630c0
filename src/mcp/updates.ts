/**
 * A session's `notifications/resources/updated` on their way out, paced by its transport.
 *
 * - Each URI waits at most once: a change that concerns a URI already waiting adds nothing, so
 *   what waits is bounded by the URIs the session subscribes (`subscriptionsPerSession`).
 * - Sent as the transport takes them: over Streamable HTTP the SDK queues whatever it is given
 *   for the GET stream, so a URI is handed over only while that stream's socket is not backed up
 *   (`backedUp`); over stdio the SDK's own `send` waits for stdout to drain.
 * - Bounded in bytes like a GraphQL subscriber (`SUBSCRIPTION_PENDING_KB`, see src/live/feed.ts):
 *   notifications are counted as published while something waits, and once the count passes
 *   `pendingBytes` the reader has stayed behind: what waits is dropped and `overflow` ends the
 *   stream with a reason. A batch larger than the bound still goes to a reader that had nothing
 *   waiting.
 */

/** How a transport paces a session's notifications. */
export interface NotificationPacing {
  /** Undefined when the transport takes more now; else resolves once it does (or is gone). */
  backedUp(): Promise<void> | undefined;
}

export interface UpdateQueue {
  /** Queues one notification per URI (none for a URI already waiting). */
  notify(uris: Iterable<string>): void;
  /** Drops what waits; nothing is sent after. */
  close(): void;
}

/** Bytes a notification costs on the wire besides its URI (JSON-RPC envelope, SSE framing). */
const NOTIFICATION_OVERHEAD = 100;

export function createUpdateQueue(options: {
  readonly pacing: NotificationPacing;
  /** Hands one notification to the transport. */
  readonly send: (uri: string) => Promise<void>;
  readonly pendingBytes: number;
  /** The reader stayed behind: `bytes` were published while it did not take them. */
  readonly overflow: (bytes: number) => void;
  readonly onError: (error: unknown) => void;
}): UpdateQueue {
  const { pacing, send, pendingBytes, overflow, onError } = options;
  const waiting = new Set<string>();
  let published = 0;
  let draining = false;
  let closed = false;

  const drain = async () => {
    draining = true;
    try {
      while (!closed && waiting.size > 0) {
        const backedUp = pacing.backedUp();
        if (backedUp) await backedUp;
        const next = waiting.values().next();
        if (closed || next.done) break;
        waiting.delete(next.value);
        await send(next.value);
      }
    } finally {
      draining = false;
      if (waiting.size === 0) published = 0;
    }
  };

  return {
    notify(uris) {
      if (closed) return;
      const behind = waiting.size > 0;
      for (const uri of uris) {
        published += Buffer.byteLength(uri) + NOTIFICATION_OVERHEAD;
        waiting.add(uri);
      }
      if (behind && published > pendingBytes) {
        const bytes = published;
        waiting.clear();
        published = 0;
        overflow(bytes);
        return;
      }
      if (!draining && waiting.size > 0) drain().catch(onError);
    },
    close() {
      closed = true;
      waiting.clear();
    },
  };
}
