/**
 * Runs the gateway in a child process (see `gateway-child.ts`) and talks to it over IPC, so the
 * memory figures are the gateway's alone, not the sandbox's or the load generator's.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ClusterStats } from '../src/cluster/cluster.js';

export interface GatewayFigures {
  rssBytes: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
  /** The replica store's own estimate (`stats()`), which its byte budget counts. */
  replicas: { replicas: number; bytes: number };
  /** Transaction rows visited by replica queries since the last reset. */
  rowsVisited: number;
  /** CPU time the process has used (user and system), microseconds. */
  cpuMicros: number;
  /** Of `cpuMicros`, the time in the kernel (system calls: the sockets' writes and reads). */
  cpuSystemMicros: number;
  /**
   * CPU time of its main thread alone (JavaScript, and the GC work done on it), microseconds,
   * at 10 ms resolution; NaN where /proc is not there. Helper threads (concurrent GC and
   * compilation) use a shared machine's other core, and the main thread is what a cold load waits on.
   */
  mainThreadCpuMicros: number;
  /** With Redis: round trips, relays, snapshots (see src/cluster). */
  cluster?: ClusterStats;
}

export type ChildRequest =
  | { id: number; type: 'advance'; ms: number }
  | { id: number; type: 'figures'; gc: boolean }
  | { id: number; type: 'reset-meter' }
  | { id: number; type: 'close' };

export type ChildReply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: string };

type Ready = { type: 'ready'; url: string };
/** A request as the caller writes it; the id is added when it is sent. */
type Unsent<T> = T extends unknown ? Omit<T, 'id'> : never;

export interface GatewayProcess {
  /** The GraphQL endpoint. */
  readonly url: string;
  readonly pid: number;
  /** Moves the gateway's clock forward (replica ages, caches, ledger). */
  advanceClock(ms: number): Promise<void>;
  /** Memory after an optional full garbage collection, and the replica figures. */
  figures(options?: { gc?: boolean }): Promise<GatewayFigures>;
  resetMeter(): Promise<void>;
  close(): Promise<void>;
}

export async function startGatewayProcess(options: {
  upstreamUrl: string;
  maxAgeMs: number;
  /** Cooperate with other instances through this Redis, under this key prefix. */
  redis?: { url: string; prefix: string };
  /** The replica budget (`REPLICA_MAX_MB` in bytes). @default the gateway's default */
  replicaMaxBytes?: number;
  /** The answer cache's budget (`ANSWER_CACHE_MAX_MB` in bytes; 0: off). @default the gateway's default */
  answerCacheMaxBytes?: number;
  /** More node flags for the child (`--cpu-prof`, ...). @default none */
  execArgv?: readonly string[];
  /** More environment for the child (`NODE_ENV`, ...). @default this process's alone */
  env?: Readonly<Record<string, string>>;
}): Promise<GatewayProcess> {
  const entry = fileURLToPath(new URL('./gateway-child.ts', import.meta.url));
  const redisArgs = options.redis ? [options.redis.url, options.redis.prefix] : [];
  const child: ChildProcess = fork(
    entry,
    [options.upstreamUrl, String(options.maxAgeMs), ...redisArgs],
    {
      execArgv: ['--import', 'tsx', '--expose-gc', ...(options.execArgv ?? [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: {
        ...process.env,
        ...options.env,
        ...(options.replicaMaxBytes === undefined
          ? {}
          : { BENCH_REPLICA_MAX_BYTES: String(options.replicaMaxBytes) }),
        ...(options.answerCacheMaxBytes === undefined
          ? {}
          : { BENCH_ANSWER_CACHE_MAX_BYTES: String(options.answerCacheMaxBytes) }),
      },
    },
  );
  const pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  let nextId = 1;

  const url = await new Promise<string>((resolve, reject) => {
    const onExit = (code: number | null) =>
      reject(new Error(`the gateway process exited with ${code} before it was ready`));
    child.once('exit', onExit);
    child.on('message', (raw: unknown) => {
      const message = raw as Ready | ChildReply;
      if ('type' in message && message.type === 'ready') {
        child.off('exit', onExit);
        resolve(message.url);
        return;
      }
      const reply = message as ChildReply;
      const waiter = pending.get(reply.id);
      pending.delete(reply.id);
      if (!waiter) return;
      if (reply.ok) waiter.resolve(reply.result);
      else waiter.reject(new Error(`gateway process: ${reply.error}`));
    });
  });
  child.on('exit', (code) => {
    for (const waiter of pending.values())
      waiter.reject(new Error(`the gateway process exited with ${code}`));
    pending.clear();
  });

  const ask = <T>(request: Unsent<ChildRequest>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ ...request, id });
    });

  return {
    url,
    pid: child.pid ?? -1,
    advanceClock: (ms) => ask<null>({ type: 'advance', ms }).then(() => undefined),
    figures: ({ gc = true } = {}) => ask<GatewayFigures>({ type: 'figures', gc }),
    resetMeter: () => ask<null>({ type: 'reset-meter' }).then(() => undefined),
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await ask<null>({ type: 'close' }).catch(() => undefined);
      await exited;
    },
  };
}
