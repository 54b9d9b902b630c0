/**
 * One subscriber's stream of changes: an async iterator the GraphQL subscription consumes.
 *
 * Changes that arrive while the subscriber has not asked for the next one merge into a single
 * pending change (see `mergeChanges`), so a slow or stalled reader holds at most one row per
 * entity of the plan, whatever the rate of changes. `select` turns a change into what the field
 * delivers, or null to skip it (a filtered field with nothing of interest in it).
 *
 * `return()` ends the stream at once, also while a `next()` is waiting (graphql-ws and yoga's SSE
 * call it when the client goes away); `end(error)` delivers the error as the last value.
 */
import type { GraphQLError } from 'graphql';
import { mergeChanges, type PlanChange } from './changes.js';

export class PlanFeed<T> implements AsyncIterableIterator<T | GraphQLError> {
  private _pending: PlanChange | undefined;
  private _error: GraphQLError | undefined;
  private _ending = false;
  private _done = false;
  private _wake: (() => void) | undefined;

  constructor(
    private readonly _select: (change: PlanChange) => T | null,
    private readonly _onClose: () => void,
  ) {}

  /** Whether the stream is over (returned by the consumer or ended by the hub). */
  get closed(): boolean {
    return this._done || this._ending;
  }

  /** A change after those already pending. */
  push(change: PlanChange): void {
    if (this.closed) return;
    this._pending = this._pending ? mergeChanges(this._pending, change) : change;
    this._notify();
  }

  /** A change that happened before those already pending (a replay computed after subscribing). */
  prepend(change: PlanChange): void {
    if (this.closed) return;
    this._pending = this._pending ? mergeChanges(change, this._pending) : change;
    this._notify();
  }

  /** Ends the stream after what is pending; with an error, it is the last value delivered. */
  end(error?: GraphQLError): void {
    if (this.closed) return;
    this._ending = true;
    this._error = error;
    this._notify();
  }

  async next(): Promise<IteratorResult<T | GraphQLError>> {
    for (;;) {
      if (this._done) return { done: true, value: undefined };
      const change = this._pending;
      if (change !== undefined) {
        this._pending = undefined;
        const value = this._select(change);
        if (value !== null) return { done: false, value };
        continue;
      }
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
    this._finish();
    return { done: true, value: undefined };
  }

  async throw(): Promise<IteratorResult<T | GraphQLError>> {
    return this.return();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  // Private: releases the subscriber's resources once, and wakes a waiting `next()`.
  private _finish(): void {
    if (this._done) return;
    this._done = true;
    this._pending = undefined;
    this._notify();
    this._onClose();
  }

  private _notify(): void {
    const wake = this._wake;
    this._wake = undefined;
    wake?.();
  }
}
