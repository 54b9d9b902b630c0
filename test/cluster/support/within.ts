/**
 * A liveness limit for what a cluster suite waits on (an event, an answer): it arrives in
 * milliseconds on a quiet machine, or never. Not a timed assertion: the limit only turns "never"
 * into a failure that names what did not happen, so it is sized, as `until`'s, for a loaded
 * machine (two full runs of the suite at once on two cores), not for how long it should take.
 */
export function within<T>(promise: Promise<T>, what: string, limitMs = 45_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const never = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} never came`)), limitMs);
  });
  return Promise.race([promise, never]).finally(() => clearTimeout(timer));
}
