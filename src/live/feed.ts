/**
 * One subscriber's stream of changes: an async iterator the GraphQL subscription consumes.
 *
 * - Lazy: nothing is held until the first `next()`. A subscription that is never streamed (sent
 *   in a batch, or refused with 406 for its `Accept` header) never calls it, so it never takes a
 *   slot, a channel or a poller (`attach` runs on the first `next()`).
 * - Started: the hub hands it what the subscriber missed (`start`, a replay or nothing) with the
 *   publish sequence that replay covers; changes published up to it are in the replay and are
 *   dropped, later ones follow it.
 * - Bounded: everything is delivered as events within `limits.event` (see parts.ts), one event
 *   per `next()`. Changes that arrive while the subscriber is not reading merge into one pending
 *   change (later rows win, deletions remove); when what waits for it passes
 *   `limits.pendingBytes` (counted as published, before merging), the subscriber has fallen too
 *   far behind: the pending data is dropped and the stream ends with `SUBSCRIBER_TOO_SLOW`.
 *   A single change larger than that is still delivered to a subscriber that has nothing
 *   pending (it is shared with every other subscriber, not copied).
 * - `select` turns an event into what the field delivers, or null to skip it (a filtered field
 *   with nothing of interest in it); the last event of a change split in several is asked for
 *   with `required` once an earlier one was delivered, so the client sees `continues: false`.
 *
 * `return()` ends the stream at once, also while a `next()` is waiting (graphql-ws and yoga's SSE
 * call it when the client goes away); `end(error)` drops what waits and delivers the error as
 * the last value.
 */
import { GraphQLError } from 'graphql';
import { gatewayError } from '../errors/codes.js';
import { mergeChanges, type PlanChange } from '../replica/changes.js';
import { nextTurn } from '../time/next-turn.js';
import { ChangeParts, type EventLimits, itemsOfChange, type RowSizes } from './parts.js';

export interface FeedLimits {
  readonly event: EventLimits;
  /** Bytes of changes waiting for a subscriber that is not reading, before it is ended. */
  readonly pendingBytes: number;
}

export interface FeedOptions<T> {
  readonly select: (change: PlanChange, required: boolean) => T | null;
  /** Runs on the first `next()`: takes the slot and joins the channel (may throw a refusal). */
  readonly attach: (feed: PlanFeed<T>) => void;
  readonly limits: FeedLimits;
  readonly sizes: RowSizes;
}

export class PlanFeed<T> implements AsyncIterableIterator<T | GraphQLError> {
  private _attached = false;
  private _onClose: (() => void) | undefined;
  private _released = false;
  private _started = false;
  /** Publish sequence the start covers: changes up to it are in what `start` handed over. */
  private _covered = 0;
  /** The knowledge the subscriber has caught up to (resume point of a split change's parts). */
  private _knowledge = 0;
  private _current: ChangeParts | undefined;
  /** Whether an event of `_current` was taken (delivered or skipped). */
  private _currentTaken = false;
  /** Whether an event of `_current` was delivered. */
  private _currentDelivered = false;
  private _pending: PlanChange | undefined;
  private _pendingBytes = 0;
  private _error: GraphQLError | undefined;
  private _ending = false;
  private _done = false;
  private _wake: (() => void) | undefined;

  constructor(private readonly _options: FeedOptions<T>) {}

  /** Whether the stream is over (returned by the consumer or ended by the hub). */
  get closed(): boolean {
    return this._done || this._ending;
  }

  /** Called once attached: what leaving takes (the slot, the channel). */
  onClose(release: () => void): void {
    if (this._released) release();
    else this._onClose = release;
  }

  /**
   * What the subscriber missed, as events (undefined: nothing), covering the changes published
   * up to sequence `covered`, at `knowledge`.
   */
  start(replay: ChangeParts | undefined, covered: number, knowledge: number): void {
    if (this.closed || this._started) return;
    this._started = true;
    this._covered = covered;
    this._knowledge = knowledge;
    this._current = replay;
    this._currentTaken = false;
    this._currentDelivered = false;
    this._notify();
  }

  /** A change published with sequence number `seq`, `bytes` of rows. */
  push(change: PlanChange, seq: number, bytes: number): void {
    if (this.closed || !this._started || seq <= this._covered) return;
    if (
      this._pending !== undefined &&
      this._pendingBytes + bytes > this._options.limits.pendingBytes
    ) {
      this._tooSlow();
      return;
    }
    this._pending = this._pending ? mergeChanges(this._pending, change) : change;
    this._pendingBytes += bytes;
    this._notify();
  }

  /**
   * Ends the stream: what waits for the subscriber (a replay, pending changes) is dropped, since
   * it ends for a refusal or a shutdown (it resumes with `since`); with an error, that is the
   * last value delivered.
   */
  end(error?: GraphQLError): void {
    if (this.closed) return;
    this._ending = true;
    this._error = error;
    this._current = undefined;
    this._pending = undefined;
    this._pendingBytes = 0;
    this._notify();
  }

  async next(): Promise<IteratorResult<T | GraphQLError>> {
    if (!this._attached) this._attachNow();
    for (;;) {
      if (this._done) return { done: true, value: undefined };
      // Between two events of one stream (a long replay), let other work in: while the socket
      // takes them, a transport pulls events in one chain of promise jobs.
      if (this._current !== undefined && this._currentTaken) await nextTurn();
      const value = this._nextValue();
      if (value !== undefined) return { done: false, value };
      if (this._current !== undefined || this._pending !== undefined) continue;
      if (this._ending) {
        const error = this._error;
        this._error = undefined;
        if (error) return { done: false, value: error };
        this._finish();
        continue;
      }
      await new Promise<void>((resolve) => {
        this._wake = resolve;
      });
    }
  }

  async return(): Promise<IteratorResult<T | GraphQLError>> {
    this._attached = true; // never attaches after this
    this._finish();
    return { done: true, value: undefined };
  }

  async throw(): Promise<IteratorResult<T | GraphQLError>> {
    return this.return();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  // Private: joins on the first pull; a refusal then (too many subscriptions) is the one value.
  private _attachNow(): void {
    this._attached = true;
    if (this._done) return;
    try {
      this._options.attach(this);
    } catch (error) {
      this.end(
        error instanceof GraphQLError
          ? error
          : gatewayError('Unexpected error.', 'INTERNAL_SERVER_ERROR'),
      );
    }
  }

  // Private: the next event of the change being delivered, or of what is pending; undefined when
  // there is none right now (or the one taken was skipped: the caller loops).
  private _nextValue(): T | GraphQLError | undefined {
    if (this._current === undefined && this._pending !== undefined) {
      const pending = this._pending;
      this._pending = undefined;
      this._pendingBytes = 0;
      this._current = new ChangeParts(
        itemsOfChange(pending),
        {
          planId: pending.planId,
          origin: pending.origin,
          from: this._knowledge,
          to: pending.serverKnowledge,
          previous: pending.previousServerKnowledge,
          ...(pending.writeServerKnowledge === undefined
            ? {}
            : { write: pending.writeServerKnowledge }),
          ...(pending.complete ? { complete: true } : {}),
        },
        this._options.sizes,
      );
      this._currentTaken = false;
      this._currentDelivered = false;
    }
    const current = this._current;
    if (current === undefined) return undefined;
    const part = current.next(this._options.limits.event);
    this._currentTaken = true;
    if (part === undefined || part.last) {
      this._current = undefined;
      this._knowledge = Math.max(this._knowledge, current.header.to);
    }
    if (part === undefined) return undefined;
    const value = this._options.select(part.change, part.last && this._currentDelivered);
    if (value === null) return undefined;
    this._currentDelivered = true;
    return value;
  }

  // Private: the subscriber fell too far behind: what waited for it is dropped and its slot and
  // channel are released now; the error waits for it to read (or leave).
  private _tooSlow(): void {
    this._release();
    this.end(
      gatewayError(
        `This subscriber fell too far behind: more than ${this._options.limits.pendingBytes} bytes of changes waited for it. Subscribe again with \`since\` set to the last serverKnowledge you received.`,
        'SUBSCRIBER_TOO_SLOW',
        { extensions: { limit: this._options.limits.pendingBytes } },
      ),
    );
  }

  // Private: the stream is over: releases the subscriber's resources, wakes a waiting `next()`.
  private _finish(): void {
    if (this._done) return;
    this._done = true;
    this._pending = undefined;
    this._current = undefined;
    this._notify();
    this._release();
  }

  // Private: leaves the channel and frees the slot, once.
  private _release(): void {
    if (this._released) return;
    this._released = true;
    this._onClose?.();
  }

  private _notify(): void {
    const wake = this._wake;
    this._wake = undefined;
    wake?.();
  }
}
