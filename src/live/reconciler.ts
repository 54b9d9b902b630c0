/**
 * Reconciliation: once a period, each plan read in it is compared with a full export of it
 * (`ReplicaStore.reconcile`), and repaired when it drifted: a change the upstream made
 * without a delta ever bringing it (rows changed while `server_knowledge` stood still, a delta
 * that dropped a row). The repair reaches subscribers as an ordinary `SYNC` change (the store
 * announces a full reload; the hub publishes what differs).
 *
 * Its calls are the polls' (`PollBudget`): an export takes the place of a poll. It is counted in
 * the polls' ledger, so the next poll waits for it (a subscribed plan's polls spend the whole share
 * by design: waiting for the share would never end); it waits only for the headroom a client's
 * write needs (`headroomWaitMs`), and never goes ahead of a client: while requests wait for an upstream connection it waits `CLIENT_WAIT_MS` and
 * looks again. One plan at a time.
 *
 * When: the first read after a period ended starts the run of the plans read in that period (a
 * poll is a read, so a plan with subscribers or webhook endpoints is reconciled on time). No
 * timer waits meanwhile: a gateway nobody reads holds nothing armed.
 *
 * Cost: one export per plan read in the period (plus one delta when the replica was behind it,
 * which the next read would have spent anyway); at the default daily period and one plan, 1 of a
 * token's 4,800 requests a day. What it keeps: the plans read since the last run, each with the
 * token that read it, in this process only (the poller keeps its token the same way); nothing
 * goes to Redis.
 */
import type { PlanDrift, ReconcileResult, ReplicaStore } from '../replica/types.js';
import type { Scheduler, TimerHandle } from '../time/scheduler.js';
import type { PollBudget } from './budget.js';

/** How long a reconciliation waits when clients are waiting for the upstream. */
export const CLIENT_WAIT_MS = 1_000;
/** A week: the longest period `RECONCILE_HOURS` accepts. */
const MAX_PERIOD_MS = 168 * 3_600_000;

export interface ReconcilerOptions {
  readonly replicas: Pick<ReplicaStore, 'reconcile'>;
  readonly budget: PollBudget;
  readonly scheduler: Scheduler;
  /** Time between two runs; plans read in between are compared at the next. */
  readonly periodMs: number;
  /** Whether clients' requests wait for the upstream now (connections all taken). */
  readonly clientsWaiting: () => boolean;
  /** Each comparison that ran: its plan and result (drift counted and logged by the caller). */
  readonly onResult: (report: ReconcileReport) => void;
  /** A comparison failed (the upstream refused or failed); it is tried again next period. */
  readonly onError: (error: unknown, plan: { tokenKey: string; planId: string }) => void;
}

export interface ReconcileReport {
  readonly tokenKey: string;
  readonly planId: string;
  readonly result: ReconcileResult;
}

export interface Reconciler {
  /** A plan was read with this token: it is compared at the end of the period. */
  noteRead(token: string, tokenKey: string, planId: string): void;
  /** Plans waiting for the next run, and whether one is running. */
  stats(): { readonly waiting: number; readonly running: boolean };
  /** Stops the timer; a comparison in flight finishes, and its result is still reported. */
  close(): void;
}

interface Noted {
  readonly token: string;
  readonly tokenKey: string;
  readonly planId: string;
}

export function createReconciler(options: ReconcilerOptions): Reconciler {
  const { replicas, budget, scheduler, periodMs } = options;
  if (!Number.isSafeInteger(periodMs) || periodMs <= 0 || periodMs > MAX_PERIOD_MS) {
    throw new RangeError(
      `createReconciler: periodMs must be a positive integer up to ${MAX_PERIOD_MS}, got ${String(periodMs)}`,
    );
  }
  /** Plans read since the last run began, by token key and plan. */
  let noted = new Map<string, Noted>();
  /** Plans of the current run still to compare. */
  const queue: Noted[] = [];
  let retry: TimerHandle | undefined;
  let running = false;
  let closed = false;
  /** When the current period ends: the first read after it starts a run. */
  let periodEnds = scheduler.now() + periodMs;

  const keyOf = (tokenKey: string, planId: string) => `${tokenKey}\u0000${planId}`;

  function startRun(): void {
    periodEnds = scheduler.now() + periodMs;
    queue.push(...noted.values());
    noted = new Map();
    void drain();
  }

  function later(delayMs: number): void {
    retry?.cancel();
    retry = scheduler.setTimeout(() => {
      retry = undefined;
      void drain();
    }, delayMs);
  }

  async function drain(): Promise<void> {
    if (running || closed) return;
    running = true;
    try {
      while (queue.length > 0 && !closed) {
        const next = queue[0]!;
        if (options.clientsWaiting()) return later(CLIENT_WAIT_MS);
        const wait = await budget.headroomWaitMs(next.tokenKey);
        if (wait > 0) return later(wait);
        queue.shift();
        await compare(next);
      }
    } finally {
      running = false;
    }
  }

  async function compare(plan: Noted): Promise<void> {
    const { token, tokenKey, planId } = plan;
    try {
      const result = await replicas.reconcile({
        token,
        tokenKey,
        planId,
        meter: budget.meter(tokenKey),
      });
      options.onResult({ tokenKey, planId, result });
    } catch (error) {
      options.onError(error, { tokenKey, planId });
    }
  }

  return {
    noteRead(token, tokenKey, planId) {
      if (closed) return;
      // The latest token of the key: a refreshed OAuth token replaces an older one (a read
      // of the same token, every replay's, changes nothing: no new entry per read).
      const key = keyOf(tokenKey, planId);
      if (noted.get(key)?.token !== token) noted.set(key, { token, tokenKey, planId });
      if (scheduler.now() >= periodEnds) startRun();
    },
    stats: () => ({ waiting: noted.size + queue.length, running }),
    close() {
      closed = true;
      retry?.cancel();
      noted.clear();
      queue.length = 0;
    },
  };
}

/** Every id that differed, by kind, for the log line: ids only, never names or amounts. */
export function driftIds(drift: PlanDrift): Record<string, string[]> {
  const ids: Record<string, string[]> = {};
  for (const [kind, found] of Object.entries(drift)) {
    if (found) ids[kind] = [...found.changed, ...found.extra, ...found.missing];
  }
  return ids;
}
