/**
 * The "second load beside it" of `--loaded`: a process (`busy-child.ts`) keeping one core busy
 * while a benchmark measures, as a CI runner's other jobs load a shared machine.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The second load of `loaded`: a process keeping one core busy until it is stopped. */
export async function startBusy(): Promise<ChildProcess> {
  const entry = fileURLToPath(new URL('./busy-child.ts', import.meta.url));
  const child = fork(entry, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`busy-child exited (${code})`)));
  });
  return child;
}

export async function stopBusy(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
