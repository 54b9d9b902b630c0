/**
 * Child processes for the CLI suites: each starts in its own process group (`detached`), so a
 * test can count every process it left and the cleanup kills the whole group, never just a
 * wrapper.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface Launched {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** JSON log lines parsed so far. */
  logs(): Record<string, unknown>[];
  /** Resolves with the URL of the first `listening` log line; rejects if the process exits first. */
  readonly listening: Promise<string>;
  readonly exited: Promise<number | null>;
  /** Process ids in the child's process group (the child included) that are still alive. */
  group(): number[];
  /** Command lines of the processes in the group. */
  commands(): string[];
  /** SIGKILL to the whole group (cleanup). */
  killGroup(): void;
}

const launched = new Set<Launched>();

/** Kills every group a test started and did not stop; call from afterAll/afterEach. */
export function killAll(): void {
  for (const process of launched) process.killGroup();
  launched.clear();
}

export function launch(
  command: string,
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): Launched {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const logs = () =>
    text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const listening = new Promise<string>((resolve, reject) => {
    const check = () => {
      const line = logs().find((entry) => entry.msg === 'listening');
      if (line) resolve(String(line.url));
    };
    child.stdout?.on('data', check);
    void exited.then((code) => reject(new Error(`exited with ${code} before listening:\n${text}`)));
  });
  listening.catch(() => undefined);
  const pgid = child.pid ?? -1;
  const entry: Launched = {
    child,
    output: () => text,
    logs,
    listening,
    exited,
    group: () => processGroup(pgid),
    commands: () => groupCommands(pgid).map(({ command }) => command),
    killGroup() {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
  launched.add(entry);
  return entry;
}

/** Live processes whose process group id is `pgid` (from `ps`, zombies excluded). */
export function processGroup(pgid: number): number[] {
  return groupCommands(pgid).map(({ pid }) => pid);
}

/** The same, with each process's command line (for assertions that name what is running). */
export function groupCommands(pgid: number): { pid: number; command: string }[] {
  const table = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return table
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null && Number(match[2]) === pgid && !match[3]?.startsWith('Z'))
    .map((match) => ({ pid: Number(match?.[1]), command: match?.[4] ?? '' }));
}

/** The direct children of a process. */
export function childrenOf(pid: number): number[] {
  const table = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' });
  return table
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, ppid]) => ppid === pid)
    .map(([child]) => child as number);
}
