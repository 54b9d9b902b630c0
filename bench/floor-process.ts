/**
 * The floor process (`floor-child.ts`), started by the benchmarks that measure the gateway
 * against it (`floor.ts`, `replay.ts`): one raw `node:http` server and one bare graphql-yoga
 * server over the same answer's bytes, in a process of their own (as the gateway is), whose CPU
 * time is asked over IPC.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** CPU time a process has used so far, microseconds (user and system, all its threads). */
export interface CpuTime {
  readonly user: number;
  readonly system: number;
}

export interface FloorProcess {
  /** Bare graphql-yoga over the printed schema, its resolvers reading the answer. */
  readonly yoga: string;
  /** Raw `node:http` sending the answer's bytes, with the headers a replay has. */
  readonly raw: string;
  cpu(): Promise<CpuTime>;
  close(): void;
}

/** Starts the floor process over the answer in `answerFile` (JSON), with `env` added. */
export async function startFloorProcess(
  answerFile: string,
  env: Readonly<Record<string, string>>,
): Promise<FloorProcess> {
  const child = fork(fileURLToPath(new URL('./floor-child.ts', import.meta.url)), [answerFile], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  });
  const urls = await new Promise<{ yoga: string; raw: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the floor process exited with ${code}`)));
    child.once('message', (message) => resolve(message as { yoga: string; raw: string }));
  });
  return {
    ...urls,
    cpu: () =>
      new Promise((resolve) => {
        child.once('message', (message) => resolve(message as CpuTime));
        child.send({ type: 'cpu' });
      }),
    close: () => child.disconnect(),
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
