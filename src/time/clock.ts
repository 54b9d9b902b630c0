/**
 * The gateway's one clock type. Everything that reads time takes a `Clock` (an option named
 * `now`) instead of calling `Date.now()` or `performance.now()` itself, so tests and the
 * benchmark run it on a manual clock and a simulated hour takes milliseconds.
 *
 * Two origins are in use, and each option says which it expects:
 * - wall clock, epoch milliseconds (`epochNow`): replica ages, TTLs, "today", dates sent to peers
 *   and anything compared across instances;
 * - monotonic milliseconds (`monotonicNow`): durations within one process (an attempt, an
 *   operation), which must not jump when the system clock is set.
 */

/** Milliseconds, read each time it is called. */
export type Clock = () => number;

/** The system's wall clock: epoch milliseconds. */
export const epochNow: Clock = () => Date.now();

/** The process's monotonic clock: milliseconds from an arbitrary origin, never going back. */
export const monotonicNow: Clock = () => performance.now();
