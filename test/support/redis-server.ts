/**
 * A real Redis for the cluster suites: `redis-server` on a free loopback port, nothing kept on
 * disk, in its own process group (killed with it), or the one at `REDIS_URL` when set, used
 * under a unique key prefix and cleaned of exactly those keys afterwards.
 *
 * Prerequisite: `redis-server` on the PATH (Redis 7 or Valkey), unless `REDIS_URL` is set.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

export interface TestRedis {
  readonly url: string;
  /** Every key and channel of the test lives under it. */
  readonly prefix: string;
  /** Whether this test started the server (only then can it be stopped and restarted). */
  readonly owned: boolean;
  /** A client for the test's own inspection (SCAN, GET...). */
  readonly client: Redis;
  /** Kills the server (its data is gone: nothing is persisted). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /**
   * Freezes the server (SIGSTOP): connections stay open and nothing is answered, as when Redis
   * hangs (swapping, a runaway script, a paused VM). Its own client (`client`) hangs too.
   */
  pause(): void;
  /** Lets a paused server go on (SIGCONT); what was sent meanwhile is answered then. */
  resume(): void;
  /** Every key under the prefix with its value(s) as buffers. */
  dump(): Promise<Map<string, Buffer[]>>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function spawnServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => fail(new Error(`redis-server did not start: ${output}`)),
      // Liveness only, sized for a loaded machine (a spawn and its first log line).
      45_000,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      killGroup(child);
      reject(error);
    };
    child.once('error', (error) =>
      fail(new Error(`redis-server could not be run (is it installed?): ${error.message}`)),
    );
    child.once('exit', (code) => fail(new Error(`redis-server exited with ${code}: ${output}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(child);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  });
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function signalServer(child: ChildProcess | undefined, signal: 'SIGSTOP' | 'SIGCONT'): void {
  if (child?.pid === undefined) throw new Error('cannot signal a Redis this test did not start');
  process.kill(child.pid, signal);
}

async function waitExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
}

export async function startTestRedis(options: { own?: boolean } = {}): Promise<TestRedis> {
  const prefix = `pgw-test-${randomBytes(6).toString('hex')}:`;
  const external = options.own ? undefined : process.env.REDIS_URL;
  let port = 0;
  let child: ChildProcess | undefined;
  let url: string;
  if (external) {
    url = external;
  } else {
    for (let attempt = 0; ; attempt++) {
      port = await freePort();
      try {
        child = await spawnServer(port);
        break;
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
    url = `redis://127.0.0.1:${port}`;
  }
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  await client.connect();

  async function dump(): Promise<Map<string, Buffer[]>> {
    const found = new Map<string, Buffer[]>();
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const type = await client.type(key);
        const values =
          type === 'string'
            ? [(await client.getBuffer(key)) ?? Buffer.alloc(0)]
            : type === 'hash'
              ? Object.values(await client.hgetallBuffer(key))
              : type === 'zset'
                ? await client.zrangeBuffer(key, 0, -1)
                : [];
        found.set(key, values);
      }
    } while (cursor !== '0');
    return found;
  }

  return {
    url,
    prefix,
    owned: child !== undefined,
    client,
    async stop() {
      if (!child) throw new Error('cannot stop a Redis this test did not start');
      killGroup(child);
      await waitExit(child);
    },
    async start() {
      if (!child) throw new Error('cannot start a Redis this test did not start');
      child = await spawnServer(port);
    },
    pause() {
      signalServer(child, 'SIGSTOP');
    },
    resume() {
      signalServer(child, 'SIGCONT');
    },
    dump,
    async close() {
      if (external) {
        const keys = [...(await dump()).keys()];
        if (keys.length > 0) await client.del(...keys);
      }
      client.disconnect();
      if (child) {
        killGroup(child);
        await waitExit(child);
      }
    },
  };
}
