/**
 * Gateway instances as real processes (`src/cli.ts`, as `npm
 * start` runs it) on ephemeral ports, each in its own process group so a test can kill one
 * mid-load and never leaves one behind, and a round-robin client that moves on to the next
 * instance when one stops answering, as a balancer would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type GraphQLResponse, gqlAt } from '../../support/graphql.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface GatewayProcess {
  readonly url: string;
  readonly pid: number;
  /** Everything it printed so far. */
  output(): string;
  /** SIGKILL to its process group: no drain, no goodbye (a crash). */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL if it has not exited within 5 s. */
  stop(): Promise<void>;
}

export interface GatewayProcessOptions {
  upstreamUrl: string;
  redis?: { url: string; prefix: string };
  /** @default 600 (nothing expires during a test unless it asks for no-cache) */
  maxAgeSeconds?: number;
  /** More settings (environment variables). */
  env?: Record<string, string>;
}

export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: '0',
    HOST: '127.0.0.1',
    UPSTREAM_URL: options.upstreamUrl,
    GRAPHIQL: 'off',
    NODE_ENV: 'development',
    MAX_AGE_SECONDS: String(options.maxAgeSeconds ?? 600),
    REDIS_URL: options.redis?.url ?? '',
    REDIS_KEY_PREFIX: options.redis?.prefix ?? '',
    ...options.env,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts'], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child);
      reject(new Error(`the gateway did not start within 60 s:\n${text}`));
    }, 60_000);
    const check = () => {
      const found = /"url":"(http:\/\/[^"]+\/graphql)"/.exec(text)?.[1];
      if (!found) return;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      resolve(found.replace('//localhost:', '//127.0.0.1:'));
    };
    child.stdout?.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited before it was ready:\n${text}`));
    });
  });
  return {
    url,
    pid: child.pid ?? -1,
    output: () => text,
    async kill() {
      killGroup(child);
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-(child.pid ?? 0), 'SIGTERM');
      } catch {
        return;
      }
      const timer = setTimeout(() => killGroup(child), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Several instances at once. If one fails to start, those that did are killed before the
 * failure is thrown: the suite never got their handles, so its `afterAll` could not stop them.
 */
export async function startGatewayProcesses(
  list: readonly GatewayProcessOptions[],
): Promise<GatewayProcess[]> {
  const settled = await Promise.allSettled(list.map((options) => startGatewayProcess(options)));
  const started = settled.flatMap((each) => (each.status === 'fulfilled' ? [each.value] : []));
  const failed = settled.find((each) => each.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((each) => each.kill()));
    throw failed.reason;
  }
  return started;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export interface RoundRobin {
  /** One operation on the next live instance; an instance that refuses the connection is skipped. */
  gql<Data = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GraphQLResponse<Data> & { instance: number }>;
  /** Instances found dead so far. */
  readonly dead: ReadonlySet<number>;
}

/**
 * A client sending each operation to the next instance in turn. A connection error marks the
 * instance dead and sends the operation to the next one: safe for reads, and for the writes of
 * these suites, which carry import ids (a repeat is refused as a duplicate, never applied twice).
 */
export function roundRobin(urls: readonly string[], token: string): RoundRobin {
  let next = 0;
  const dead = new Set<number>();
  return {
    dead,
    async gql<Data>(
      query: string,
      variables: Record<string, unknown> = {},
      headers: Record<string, string> = {},
    ) {
      for (let tries = 0; tries < urls.length * 2; tries++) {
        const instance = next % urls.length;
        next += 1;
        if (dead.has(instance)) continue;
        try {
          const answer = await gqlAt<Data>(urls[instance]!, query, variables, token, headers);
          return { ...answer, instance };
        } catch {
          dead.add(instance);
        }
      }
      throw new Error('no gateway instance answered');
    },
  };
}
