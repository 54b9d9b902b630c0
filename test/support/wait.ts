/**
 * Waiting on a condition in real time, for tests whose other side (a socket, a child process,
 * Redis) moves on its own: poll until it holds, and fail naming what never happened.
 */

export interface UntilOptions {
  /**
   * Liveness only: turns "never" into a named failure. Sized for a loaded machine (two full
   * runs at once on two cores under other work; 15 s was not enough for 50 subscribers to
   * connect), below the 60 s a test has. @default 45_000
   */
  timeoutMs?: number;
  /** Pause between checks. @default 5 */
  everyMs?: number;
}

export async function until(
  check: () => boolean | Promise<boolean>,
  what: string | (() => string),
  { timeoutMs = 45_000, everyMs = 5 }: UntilOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
