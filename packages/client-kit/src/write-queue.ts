/**
 * Writes made offline, queued in order and replayed once the network is back, exactly once: each
 * gets its `Idempotency-Key` when it is queued and keeps it on every attempt, so a write whose
 * answer was lost, or a queue flushed twice, is applied once (the gateway answers the original
 * result). The queue lives in a `KeyValueStorage`, so it survives a reload.
 *
 * A write the gateway refuses because what it edits changed elsewhere meanwhile (a
 * `WriteConflict` in its result, sent with `ifUnchangedSince`) is not retried and not
 * overwritten: the queue stops at it and surfaces it with both versions, once (stored with the
 * queue: not sent again by a flush or after a reload), and the app keeps its write again
 * (`retry`, with new variables) or drops it (`discard`). The writes after it wait for that: the
 * queue keeps the order writes were made in and cannot tell which depend on the stopped one (a
 * later write of its row would carry a cursor it never advanced, or overwrite unguarded the row
 * being decided about). Any other typed refusal (`ValidationError`, `NotFoundError`...) is a
 * final answer: the write leaves the queue as `refused`.
 *
 * A guarded write that went through answers its own cursor (the payload's `writeCursor`, when
 * the document selects it): the later queued guarded writes of rows it wrote (the same row, or
 * rows of an `updateTransactions` batch) take it as their `ifUnchangedSince`, kept in storage
 * with them, so they do not conflict with that write (the cursor the cache was at counts it as a
 * change). That is safe: had a row changed elsewhere, the earlier write would have conflicted,
 * and a change after it still conflicts. A write covering rows the cursor does not (a batch after
 * a single row's edit) keeps its own, and may meet its own earlier write as a conflict.
 */
import type { KeyValueStorage } from './storage.js';

/** A write waiting for the network: the document as text, its variables, its key. */
export interface QueuedWrite {
  /** Its `Idempotency-Key`, made when it was queued. */
  readonly key: string;
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>>;
  /** What the app said it is, to show it as pending (e.g. the new transaction's payee). */
  readonly label?: string;
  readonly queuedAt: string;
}

/** The refusal of a write because its target changed meanwhile (the `WriteConflict` type). */
export interface WriteConflict {
  readonly __typename: 'WriteConflict';
  readonly message: string;
  readonly planId?: string;
  readonly id?: string;
  /** The object as it is now, as the write's result selected it. */
  readonly current?: unknown;
  /** What the write would have set. */
  readonly attempted?: unknown;
  readonly cursor?: string;
}

/**
 * Stands, in a queued write's variables, for a value of an earlier queued write's answer: the
 * id of a transaction created offline, for an edit queued after it (`resultOf`).
 */
export interface ResultRef {
  /** The earlier write's key. */
  readonly $resultOf: string;
  /** Where the value is in that write's `data`, e.g. `['createTransaction', 'transaction', 'id']`. */
  readonly path: readonly string[];
}

/**
 * A value of `write`'s answer, for a write queued after it: the queue puts the value in before it
 * sends that one. A guarded write (`ifUnchangedSince`) of rows that `write` made takes `write`'s
 * own `writeCursor` (select it) as its guard, since no cursor from before the row can cover it.
 * If `write` is refused or discarded, the writes that use its answer are refused with it.
 */
export function resultOf(write: Pick<QueuedWrite, 'key'>, path: readonly string[]): ResultRef {
  return { $resultOf: write.key, path: [...path] };
}

function isResultRef(value: unknown): value is ResultRef {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ResultRef).$resultOf === 'string' &&
    Array.isArray((value as ResultRef).path)
  );
}

/** `value` with each `ResultRef` that `replace` answers for replaced (deeply). */
function replacingRefs(value: unknown, replace: (ref: ResultRef) => unknown): unknown {
  if (isResultRef(value)) return replace(value);
  if (Array.isArray(value)) return value.map((item) => replacingRefs(item, replace));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, replacingRefs(item, replace)]),
    );
  return value;
}

/** The keys of the writes whose answers `write` waits for. */
function refsOf(write: QueuedWrite): Set<string> {
  const keys = new Set<string>();
  replacingRefs(write.variables, (ref) => {
    keys.add(ref.$resultOf);
    return ref;
  });
  return keys;
}

/** How one attempt at a write went, as the sending client library saw it. */
export type SendResult =
  | { readonly kind: 'answered'; readonly data: Readonly<Record<string, unknown>> }
  /** No answer (offline, the connection dropped, a 5xx): try again later with the same key. */
  | { readonly kind: 'unreachable'; readonly error: unknown }
  /** GraphQL errors in place of data (bad input, signed out): a final answer. */
  | { readonly kind: 'failed'; readonly error: unknown };

/** Sends one queued write with `Idempotency-Key: write.key`. */
export type SendWrite = (write: QueuedWrite) => Promise<SendResult>;

export type QueueEvent =
  | { readonly kind: 'queued'; readonly write: QueuedWrite }
  | { readonly kind: 'sent'; readonly write: QueuedWrite; readonly data: unknown }
  | { readonly kind: 'refused'; readonly write: QueuedWrite; readonly reason: unknown }
  | { readonly kind: 'conflict'; readonly write: QueuedWrite; readonly conflict: WriteConflict }
  | { readonly kind: 'waiting'; readonly write: QueuedWrite; readonly error: unknown }
  /** The conflicting write was dropped (`discard`): its conflict is gone from the state. */
  | { readonly kind: 'discarded'; readonly write: QueuedWrite };

export interface WriteQueueState {
  /** Waiting writes, oldest first. */
  readonly pending: readonly QueuedWrite[];
  /** The write the queue stopped at, and the conflict it met. */
  readonly conflict: { readonly write: QueuedWrite; readonly conflict: WriteConflict } | null;
}

export interface WriteQueue {
  /** Queues a write (kept in storage first), then flushes. Resolves with the stored write. */
  enqueue(write: {
    query: string;
    variables: Record<string, unknown>;
    label?: string;
  }): Promise<QueuedWrite>;
  /** Sends the waiting writes in order, one at a time; a second call joins the running flush. */
  flush(): Promise<WriteQueueState>;
  state(): WriteQueueState;
  /** Every change of state, and each write's outcome. Returns what unsubscribes. */
  subscribe(listener: (event: QueueEvent, state: WriteQueueState) => void): () => void;
  /** Drops the conflicting write, and goes on with the others. */
  discard(key: string): Promise<WriteQueueState>;
  /** Sends the conflicting write again with new variables (a new write: a new key). */
  retry(key: string, variables: Record<string, unknown>): Promise<WriteQueueState>;
}

interface Stored {
  readonly pending: QueuedWrite[];
  readonly conflict: WriteQueueState['conflict'];
}

/**
 * A queue kept in `storage` under `key`, sending with `send`. Call `open` once; flush on start
 * and on reconnect (`resumeOnReconnect(() => queue.flush())`).
 */
export async function openWriteQueue(options: {
  storage: KeyValueStorage;
  send: SendWrite;
  key?: string;
  /** Makes a fresh key: `crypto.randomUUID` where it exists. */
  newKey?: () => string;
  now?: () => Date;
}): Promise<WriteQueue> {
  const storageKey = options.key ?? 'plans-gateway:write-queue';
  const newKey = options.newKey ?? (() => globalThis.crypto.randomUUID());
  const now = options.now ?? (() => new Date());
  const saved = await options.storage.getItem(storageKey);
  let current: Stored = saved ? parseStored(saved, storageKey) : { pending: [], conflict: null };
  const listeners = new Set<(event: QueueEvent, state: WriteQueueState) => void>();
  let running: Promise<WriteQueueState> | null = null;
  let again: Promise<WriteQueueState> | null = null;

  const snapshot = (): WriteQueueState => ({
    pending: [...current.pending],
    conflict: current.conflict,
  });
  const commit = async (next: Stored, event?: QueueEvent) => {
    current = next;
    await options.storage.setItem(storageKey, JSON.stringify(current));
    if (event) for (const listener of listeners) listener(event, snapshot());
  };

  const flushOnce = async (): Promise<WriteQueueState> => {
    while (current.conflict === null && current.pending.length > 0) {
      const write = current.pending[0] as QueuedWrite;
      if (refsOf(write).size > 0) {
        // What it waits for is no longer queued before it (a queue edited by hand, or lost).
        await refuse(write, new Error('It uses the answer of a write that was not sent.'));
        continue;
      }
      const result = await options
        .send(write)
        .catch((error: unknown): SendResult => ({ kind: 'unreachable', error }));
      if (result.kind === 'unreachable') {
        for (const listener of listeners)
          listener({ kind: 'waiting', write, error: result.error }, snapshot());
        break;
      }
      // Writes queued while this one was out stay: `current` is read again after the answer.
      const rest = () => current.pending.filter((queued) => queued.key !== write.key);
      if (result.kind === 'failed') {
        await refuse(write, result.error);
        continue;
      }
      const conflict = conflictIn(result.data);
      if (conflict) {
        await commit(
          { pending: rest(), conflict: { write, conflict } },
          { kind: 'conflict', write, conflict },
        );
        break;
      }
      const refusal = refusalIn(result.data);
      if (refusal) {
        await refuse(write, refusal);
        continue;
      }
      const written = writeCursorIn(result.data);
      const later = withAnswer(write, result.data, written, rest());
      await commit(
        { pending: written ? advanced(write, written, later) : later, conflict: null },
        { kind: 'sent', write, data: result.data },
      );
    }
    return snapshot();
  };

  /** Refuses `write`, and with it the later writes that use its answer. */
  const refuse = async (write: QueuedWrite, reason: unknown) => {
    await commit(
      { pending: current.pending.filter((queued) => queued.key !== write.key), conflict: null },
      { kind: 'refused', write, reason },
    );
    await refuseDependents(write);
  };

  /** Refuses the writes that use the answer of `write` (refused or discarded), in turn theirs. */
  const refuseDependents = async (write: QueuedWrite) => {
    const gone = new Set([write.key]);
    for (const queued of [...current.pending]) {
      if (![...refsOf(queued)].some((key) => gone.has(key))) continue;
      gone.add(queued.key);
      await commit(
        { ...current, pending: current.pending.filter((other) => other.key !== queued.key) },
        {
          kind: 'refused',
          write: queued,
          reason: new Error(`It uses the answer of a write not made: ${write.label ?? write.key}.`),
        },
      );
    }
  };

  const queue: WriteQueue = {
    async enqueue(write) {
      const queued: QueuedWrite = {
        key: newKey(),
        query: write.query,
        variables: write.variables,
        ...(write.label === undefined ? {} : { label: write.label }),
        queuedAt: now().toISOString(),
      };
      await commit(
        { ...current, pending: [...current.pending, queued] },
        { kind: 'queued', write: queued },
      );
      void queue.flush();
      return queued;
    },
    flush() {
      if (running === null) {
        const run = flushOnce().finally(() => {
          if (running === run) running = null;
        });
        running = run;
        return run;
      }
      // Asked while a flush runs (the network came back while an attempt was failing): one
      // more after it, or the writes would wait for the next reason to flush.
      again ??= running.then(() => {
        again = null;
        return queue.flush();
      });
      return again;
    },
    state: snapshot,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async discard(key) {
      const stopped = current.conflict?.write;
      if (stopped?.key !== key) throw new Error(`No conflicting write with key ${key}.`);
      // An event, so that a view showing the conflict (subscribed) hears that it is gone.
      await commit({ ...current, conflict: null }, { kind: 'discarded', write: stopped });
      await refuseDependents(stopped);
      return queue.flush();
    },
    async retry(key, variables) {
      const stopped = current.conflict?.write;
      if (stopped?.key !== key) throw new Error(`No conflicting write with key ${key}.`);
      const again: QueuedWrite = {
        ...stopped,
        key: newKey(),
        variables,
        queuedAt: now().toISOString(),
      };
      // The writes that use its answer wait for the new one's.
      const retargeted = current.pending.map((queued) =>
        refsOf(queued).has(key)
          ? {
              ...queued,
              variables: replacingRefs(queued.variables, (ref) =>
                ref.$resultOf === key ? { ...ref, $resultOf: again.key } : ref,
              ) as Record<string, unknown>,
            }
          : queued,
      );
      await commit(
        { pending: [again, ...retargeted], conflict: null },
        { kind: 'queued', write: again },
      );
      return queue.flush();
    },
  };
  return queue;
}

/** The `WriteConflict` among a mutation's results (its top-level fields), if any. */
export function conflictIn(data: Readonly<Record<string, unknown>>): WriteConflict | null {
  for (const value of Object.values(data)) {
    if (isTyped(value) && value.__typename === 'WriteConflict') return value as WriteConflict;
  }
  return null;
}

/** The `writeCursor` a mutation's payload answered (its top-level fields), if any. */
function writeCursorIn(data: Readonly<Record<string, unknown>>): string | null {
  for (const value of Object.values(data)) {
    const cursor = isTyped(value) ? (value as { writeCursor?: unknown }).writeCursor : undefined;
    if (typeof cursor === 'string') return cursor;
  }
  return null;
}

/**
 * The writes after `sent` with the values of its answer in place of their `resultOf(sent)`; one
 * of them guarded, all of whose rows `sent` made (their ids came from its answer), takes `cursor`
 * (`sent`'s `writeCursor`) as its guard: the cursor it was queued with predates those rows.
 */
function withAnswer(
  sent: QueuedWrite,
  data: Readonly<Record<string, unknown>>,
  cursor: string | null,
  later: QueuedWrite[],
): QueuedWrite[] {
  return later.map((write) => {
    if (!refsOf(write).has(sent.key)) return write;
    const made = new Set<unknown>();
    const variables = replacingRefs(write.variables, (ref) => {
      if (ref.$resultOf !== sent.key) return ref;
      const value = ref.path.reduce<unknown>(
        (at, name) =>
          typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[name] : undefined,
        data,
      );
      made.add(value);
      return value ?? null;
    }) as Record<string, unknown>;
    const resolved = { ...write, variables };
    const guard = guardedRowsOf(resolved);
    if (cursor === null || guard === null) return resolved;
    const ids = guard.keys.map((key) => (JSON.parse(key) as unknown[])[2]);
    return ids.every((id) => made.has(id))
      ? { ...resolved, variables: { ...variables, [guard.variable]: cursor } }
      : resolved;
  });
}

/**
 * The writes after `sent` with the cursor it answered as their `ifUnchangedSince` where they
 * are guarded writes of rows it wrote (guarded itself; a batch's cursor covers each of its
 * rows, and only those); the others as they were.
 */
function advanced(sent: QueuedWrite, cursor: string, later: QueuedWrite[]): QueuedWrite[] {
  const written = guardedRowsOf(sent);
  if (written === null) return later;
  return later.map((write) => {
    const guard = guardedRowsOf(write);
    return guard?.keys.every((key) => written.keys.includes(key))
      ? { ...write, variables: { ...write.variables, [guard.variable]: cursor } }
      : write;
  });
}

/** The argument names that say which row a guarded write changes, with the row's type. */
const ROW_ARGUMENTS = {
  transactionId: 'Transaction',
  scheduledTransactionId: 'ScheduledTransaction',
  payeeId: 'Payee',
  categoryId: 'Category',
} as const;

/**
 * The rows a queued write changes under `ifUnchangedSince` given as a variable that holds a
 * cursor: their identities, and that variable's name. A row is named by one argument, or, for
 * `updateTransactions`, by the `id` of each item of its `input` variable. Null for anything else:
 * no guard, several guarded fields, a batch item found by `importId`; such writes keep their
 * cursor. Read from the document's text (the kit loads no GraphQL parser): the argument list that
 * holds `ifUnchangedSince`, its `name: $variable` and `name: "literal"` arguments.
 */
function guardedRowsOf(write: QueuedWrite): { keys: string[]; variable: string } | null {
  const lists = [...write.query.matchAll(/\(([^()]*(?<!\$)\bifUnchangedSince\s*:[^()]*)\)/g)];
  if (lists.length !== 1) return null;
  const args = new Map<string, unknown>();
  let variable: string | undefined;
  for (const [, name, named, literal] of lists[0]![1]!.matchAll(
    /\b(\w+)\s*:\s*(?:\$(\w+)|"([^"\\]*)")/g,
  )) {
    args.set(name!, named === undefined ? literal : write.variables[named]);
    if (name === 'ifUnchangedSince') variable = named;
  }
  if (variable === undefined || typeof args.get('ifUnchangedSince') !== 'string') return null;
  const rows = Object.entries(ROW_ARGUMENTS).filter(([name]) => typeof args.get(name) === 'string');
  if (rows.length === 0) {
    const ids = batchIds(args.get('input'));
    return (
      ids && {
        keys: ids.map((id) => JSON.stringify(['Transaction', args.get('planId'), id])),
        variable,
      }
    );
  }
  if (rows.length !== 1) return null;
  const [name, type] = rows[0]!;
  const month = args.get('month');
  const kind = type === 'Category' && typeof month === 'string' ? `MonthCategory:${month}` : type;
  return { keys: [JSON.stringify([kind, args.get('planId'), args.get(name)])], variable };
}

/** The ids of a batch's items (`updateTransactions`' input); null unless each has one. */
function batchIds(input: unknown): string[] | null {
  const items = (input as { transactions?: unknown } | undefined)?.transactions;
  if (!Array.isArray(items) || items.length === 0) return null;
  const ids = items.map((item) => (item as { id?: unknown } | null)?.id);
  return ids.every((id): id is string => typeof id === 'string') ? ids : null;
}

/** Another typed refusal among a mutation's results: a result with a `message` (`... on Error`). */
function refusalIn(data: Readonly<Record<string, unknown>>): unknown {
  return Object.values(data).find(
    (value) => isTyped(value) && typeof (value as { message?: unknown }).message === 'string',
  );
}

function isTyped(value: unknown): value is { __typename: string } {
  return typeof value === 'object' && value !== null && '__typename' in value;
}

function parseStored(text: string, key: string): Stored {
  try {
    const parsed = JSON.parse(text) as Partial<Stored>;
    if (Array.isArray(parsed.pending))
      return { pending: parsed.pending, conflict: parsed.conflict ?? null };
  } catch {
    // Falls through to the error below.
  }
  throw new Error(`The write queue stored under '${key}' is not one this kit wrote.`);
}
