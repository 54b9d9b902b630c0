/**
 * A liveness limit for what a cluster suite waits on (an event, an answer): it arrives in
 * milliseconds, or never. Not a timed assertion: the limit only turns "never" into a failure
 * that names what did not happen.
 */
export function within<T>(promise: Promise<T>, what: string, limitMs = 15_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const never = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} never came`)), limitMs);
  });
  return Promise.race([promise, never]).finally(() => clearTimeout(timer));
}
