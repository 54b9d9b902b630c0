/**
 * The one loop that keeps a lease while its holder works (a webhook feed, a cluster flight):
 * `renew` (take-or-renew, true while held) every `everyMs`, one at a time, until `stop()` or a
 * renewal that says the lease is gone (then `onLost`, once, and no more renewals). A renewal
 * that throws counts as lost: a holder that cannot tell whether it still holds stops as if it
 * did not. Renew at a third of the lease's TTL, so one lost round trip does not lose the lease.
 *
 * A poller has no loop of its own: each poll turn takes or renews its lease (`PollLeases`) for
 * two intervals, so the lease lapses while the poller backs off and another instance may poll.
 */
import type { Scheduler, TimerHandle } from '../time/scheduler.js';

export interface LeaseRenewal {
  stop(): void;
}

export interface LeaseRenewalOptions {
  readonly scheduler: Scheduler;
  readonly everyMs: number;
  /** Takes or renews the lease: true while it is held. */
  readonly renew: () => Promise<boolean>;
  /** The lease is gone: the holder stops its work. @default nothing */
  readonly onLost?: () => void;
}

export function renewLease(options: LeaseRenewalOptions): LeaseRenewal {
  const { scheduler, everyMs, renew, onLost } = options;
  let stopped = false;
  let timer: TimerHandle | undefined;
  const tick = async () => {
    if (stopped) return;
    const held = await renew().catch(() => false);
    if (stopped) return;
    if (held) return next();
    stopped = true;
    onLost?.();
  };
  // Fire and forget: a manual scheduler waits for a task's promise, and a renewal that waits on
  // Redis may wait on another of its timers (the link's deadline).
  const next = () => {
    timer = scheduler.setTimeout(() => void tick(), everyMs);
  };
  next();
  return {
    stop() {
      stopped = true;
      timer?.cancel();
    },
  };
}
