/**
 * Runs a command to its end in a process group of its own (so a timeout kills everything it
 * started) and collects what it printed: for builds and installs a suite needs before it runs.
 */
import { spawn } from 'node:child_process';

export interface CommandOutcome {
  readonly code: number | null;
  /** stdout and stderr, interleaved as they came. */
  readonly output: string;
}

export function runCommand(
  command: string,
  args: readonly string[],
  { cwd, timeoutMs = 120_000 }: { cwd: string; timeoutMs?: number },
): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
