/**
 * Work that two runs of the suite in one checkout must not do at once: building the same `dist/`
 * folder (one run would start, or pack, files the other is rewriting). A lock file in the
 * system's temporary folder, named after the checkout and the work, holds its owner's pid; the
 * other run waits for it, and takes over one whose owner is gone (a run killed mid-build).
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './wait.js';

const ROOT = new URL('../../', import.meta.url).pathname;

export async function exclusively<T>(name: string, work: () => Promise<T>): Promise<T> {
  const digest = createHash('sha256').update(`${ROOT}\n${name}`).digest('hex').slice(0, 16);
  const lock = join(tmpdir(), `plans-gateway-${digest}.lock`);
  await until(() => take(lock), `the lock of "${name}" (${lock}) to be free`, {
    timeoutMs: 300_000,
    everyMs: 100,
  });
  try {
    return await work();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Private: whether this process now holds the lock. */
function take(lock: string): boolean {
  try {
    const fd = openSync(lock, 'wx');
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (!alive(Number(readOwner(lock)))) rmSync(lock, { force: true });
  return false;
}

function readOwner(lock: string): string {
  try {
    return readFileSync(lock, 'utf8');
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  // An empty file: its owner is between creating and writing it.
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
