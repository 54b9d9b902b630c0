import type {
  CursorStore,
  QueuedWrite,
  QueueEvent,
  WriteQueue,
  WriteQueueState,
} from '@plans-gateway/client-kit/offline';
import { createContext, useContext, useEffect, useState } from 'react';

/**
 * The session's write queue (the client kit's; every write of the app goes through it) and the
 * cursors its cache is at.
 */
export const OutboxContext = createContext<{ queue: WriteQueue; cursors: CursorStore } | null>(
  null,
);

export function useOutbox(): WriteQueue {
  return useSession().queue;
}

export function useCursors(): CursorStore {
  return useSession().cursors;
}

function useSession() {
  const session = useContext(OutboxContext);
  if (!session) throw new Error('useOutbox outside <OutboxContext.Provider>');
  return session;
}

/** The queue's waiting writes and its conflict, as they change. */
export function useOutboxState(queue: WriteQueue): WriteQueueState {
  const [state, setState] = useState(queue.state);
  useEffect(() => {
    setState(queue.state());
    return queue.subscribe((_event, next) => setState(next));
  }, [queue]);
  return state;
}

/** What became of a write: sent, refused, stopped by a conflict, or waiting for the network. */
export type WriteOutcome = Exclude<QueueEvent, { kind: 'queued' | 'discarded' }>;

/**
 * Queues a write and tells what its first attempt came to (offline: `waiting`). A write behind
 * others waits with them when the queue stops before it (offline, or a conflict ahead): that is
 * its answer too, or a form would wait for an attempt that does not come until the network does.
 */
export function submitWrite(
  queue: WriteQueue,
  write: { query: string; variables: Record<string, unknown>; label: string },
): Promise<WriteOutcome> {
  return new Promise((resolve, reject) => {
    const early: WriteOutcome[] = [];
    let ours: QueuedWrite | null = null;
    const done = (outcome: WriteOutcome) => {
      stop();
      resolve(outcome);
    };
    const judge = (event: WriteOutcome, queued: QueuedWrite) => {
      if (event.write.key === queued.key) return done(event);
      const stopped = event.kind === 'waiting' || event.kind === 'conflict';
      if (stopped && queue.state().pending.some((pending) => pending.key === queued.key))
        done({
          kind: 'waiting',
          write: queued,
          error: event.kind === 'waiting' ? event.error : event.conflict,
        });
    };
    const stop = queue.subscribe((event) => {
      if (event.kind === 'queued' || event.kind === 'discarded') return;
      if (ours === null) early.push(event);
      else judge(event, ours);
    });
    queue.enqueue(write).then((queued: QueuedWrite) => {
      ours = queued;
      const own = early.find((event) => event.write.key === queued.key);
      if (own) return done(own);
      // What came before it was known may have been about other writes: ask for an attempt
      // whose outcome this can read (a flush asked while one runs runs once more after it).
      queue.flush().catch(() => {});
    }, reject);
  });
}

/** The message of a refusal: a typed error result, or a GraphQL or network error. */
export function messageOf(reason: unknown): string {
  const message = (reason as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : 'refused';
}

/**
 * The writes waiting for the network, shown as pending, and a write the gateway refused because
 * what it edits changed elsewhere meanwhile: both versions, and the choice to keep it or not.
 */
export function PendingWrites() {
  const queue = useOutbox();
  const { pending, conflict } = useOutboxState(queue);
  if (pending.length === 0 && !conflict) return null;
  return (
    <div className="outbox">
      {pending.length > 0 && (
        <ul className="pending" aria-label="Waiting to be sent">
          {pending.map((write) => (
            <li key={write.key} data-testid="pending-write">
              <span className="badge">Pending</span> {write.label ?? 'A change'}
            </li>
          ))}
        </ul>
      )}
      {conflict && (
        <div className="conflict" role="alert" data-testid="write-conflict">
          {/* The gateway's message is for developers; the person gets a plain question. */}
          <p title={conflict.conflict.message}>
            <strong>Not saved: {conflict.write.label ?? 'a change'}.</strong> It was changed
            elsewhere meanwhile. Which version should stay?
          </p>
          <dl>
            <dt>Theirs, now</dt>
            <dd data-testid="conflict-current">{describeVersion(conflict.conflict.current)}</dd>
            <dt>Yours</dt>
            <dd data-testid="conflict-attempted">{describeVersion(conflict.conflict.attempted)}</dd>
          </dl>
          <button type="button" onClick={() => void queue.discard(conflict.write.key)}>
            Keep theirs
          </button>
          <button
            type="button"
            onClick={() =>
              void queue.retry(conflict.write.key, {
                ...conflict.write.variables,
                ifUnchangedSince: conflict.conflict.cursor,
              })
            }
          >
            Keep mine
          </button>
        </div>
      )}
    </div>
  );
}

/**
 * One side of a conflict in words: its fields (ids and type names left out), `memo: “Lunch”`; a
 * row deleted elsewhere (`current` null) says so.
 */
function describeVersion(version: unknown): string {
  if (version === null || version === undefined) return 'Deleted';
  if (typeof version !== 'object') return String(version);
  const fields = Object.entries(version).filter(([name]) => name !== 'id' && name !== '__typename');
  if (fields.length === 0) return 'Changed';
  return fields
    .map(([name, value]) =>
      value === null
        ? `${name}: none`
        : `${name}: ${typeof value === 'string' ? `“${value}”` : JSON.stringify(value)}`,
    )
    .join(', ');
}
