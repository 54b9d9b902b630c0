/**
 * Pending writes: the writes applied to a replica at once (read-your-writes) that a sync may not
 * have seen yet (rules 2 and 3 of store.ts), and the writes applied while no replica was held but
 * a sync of that token was in flight, replayed onto the replica when it lands.
 */
import type { PendingWrite } from './cache.js';

/** Pending writes kept per replica between syncs; the oldest go first beyond this. */
export const MAX_PENDING_WRITES = 1000;

/** The pending writes after `write` was applied on top of them. */
export function withWrite(
  pending: readonly PendingWrite[],
  write: PendingWrite,
): readonly PendingWrite[] {
  return [...pending, write].slice(-MAX_PENDING_WRITES);
}

/**
 * The writes a sync's answer may not include, to re-apply on top of it: those applied after its
 * request was sent (`epochAtSend`), unless their own knowledge shows the answer includes them.
 */
export function writesNotIn(
  pending: readonly PendingWrite[],
  epochAtSend: number,
  answeredKnowledge: number,
): PendingWrite[] {
  return pending.filter(
    (write) =>
      write.epoch > epochAtSend &&
      !(write.knowledge !== undefined && answeredKnowledge >= write.knowledge),
  );
}

/**
 * The knowledge the next delta is asked from: the answer's, unless a re-applied write has no
 * knowledge of its own; then the one this sync was asked from (0 for a full export), so the
 * next delta is certain to carry the write's entity again.
 */
export function nextKnowledgeAfter(
  survivors: readonly PendingWrite[],
  requestKnowledge: number | undefined,
  answeredKnowledge: number,
): number {
  const unsure = survivors.some((write) => write.knowledge === undefined);
  return unsure ? Math.min(requestKnowledge ?? 0, answeredKnowledge) : answeredKnowledge;
}

/**
 * Writes applied while no replica of their plan was held, kept only while a sync of their token
 * is in flight (which may bring that replica); dropped when the token's last flight ends.
 */
export class OrphanWrites {
  private readonly _writes = new Map<string, Map<string, PendingWrite[]>>();
  private readonly _activeFlights = new Map<string, number>();

  flightStarted(tokenKey: string): void {
    this._activeFlights.set(tokenKey, (this._activeFlights.get(tokenKey) ?? 0) + 1);
  }

  flightEnded(tokenKey: string): void {
    const left = (this._activeFlights.get(tokenKey) ?? 1) - 1;
    if (left > 0) this._activeFlights.set(tokenKey, left);
    else {
      this._activeFlights.delete(tokenKey);
      this._writes.delete(tokenKey);
    }
  }

  /** Keeps `write` for the plan's replica if a sync of the token is in flight. */
  park(tokenKey: string, planId: string, write: PendingWrite): void {
    if (!this._activeFlights.has(tokenKey)) return;
    let byPlan = this._writes.get(tokenKey);
    if (!byPlan) {
      byPlan = new Map();
      this._writes.set(tokenKey, byPlan);
    }
    const list = byPlan.get(planId) ?? [];
    list.push(write);
    byPlan.set(planId, list.slice(-MAX_PENDING_WRITES));
  }

  /** The writes parked for a plan, which then are the caller's. */
  take(tokenKey: string, planId: string): PendingWrite[] {
    const byPlan = this._writes.get(tokenKey);
    const writes = byPlan?.get(planId) ?? [];
    byPlan?.delete(planId);
    return writes;
  }

  /** Drops the token's parked writes (its flights still count). */
  dropToken(tokenKey: string): void {
    this._writes.delete(tokenKey);
  }

  /** Drops every parked write (flights still count). */
  clear(): void {
    this._writes.clear();
  }
}
