/**
 * Plumbing the probe scripts share: an in-process gateway on a loopback port, requests that
 * record bytes and time, CPU and heap measures, and one way to print figures.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createSandbox, type Sandbox, type SandboxOptions } from '@plans-gateway/sandbox';
import { defaultConfig, type GatewayConfig } from '../../src/config/config.js';
import { createGateway, type Gateway, type GatewayDeps } from '../../src/gateway/gateway.js';
import type { Probes } from './transports/probe.js';

setFlagsFromString('--expose-gc');
/** A full garbage collection (the probes run with `--expose-gc` set at start). */
export const collectGarbage = runInNewContext('gc') as () => void;

export interface Front {
  gateway: Gateway;
  url: string;
  close(): Promise<void>;
}

export async function startFront(
  upstreamUrl: string,
  config: Partial<GatewayConfig> & Record<string, unknown> = {},
  deps: GatewayDeps = {},
): Promise<Front> {
  const gateway = createGateway(
    { ...defaultConfig(upstreamUrl), graphiql: false, ...config },
    deps,
  );
  const server = createServer(gateway.yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    gateway,
    url: `http://127.0.0.1:${port}/graphql`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
    },
  };
}

export interface Answer {
  status: number;
  bytes: number;
  ms: number;
  text: string;
  json(): {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
    extensions?: Record<string, unknown>;
  };
}

export async function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body,
    ...(signal ? { signal } : {}),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  return {
    status: response.status,
    bytes: Buffer.byteLength(text),
    ms,
    text,
    json: () => JSON.parse(text),
  };
}

export function gql(
  url: string,
  query: string,
  token: string | null,
  headers: Record<string, string> = {},
  variables: Record<string, unknown> = {},
) {
  return post(url, JSON.stringify({ query, variables }), {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...headers,
  });
}

export function codes(answer: Answer): string {
  try {
    const body = answer.json();
    const list = Array.isArray(body) ? body.flatMap((b) => b.errors ?? []) : (body.errors ?? []);
    const set = [
      ...new Set(list.map((e: { extensions?: { code?: unknown } }) => e.extensions?.code)),
    ];
    return set.length === 0 ? 'none' : set.join(',');
  } catch {
    return 'unparsable';
  }
}

export function cpu<T>(work: () => Promise<T>): Promise<{ result: T; cpuMs: number }> {
  const before = process.cpuUsage();
  return work().then((result) => {
    const used = process.cpuUsage(before);
    return { result, cpuMs: (used.user + used.system) / 1000 };
  });
}

export function heapAfterGc(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const ms = (value: number) => `${value.toFixed(0)} ms`;
export const sleep = (t: number) => new Promise((resolve) => setTimeout(resolve, t));

export function report(item: string, figures: Record<string, string | number | boolean>): void {
  console.log(`\n[item ${item}]`);
  for (const [name, value] of Object.entries(figures)) console.log(`  ${name}: ${value}`);
}

export function sandboxWith(options: SandboxOptions): Promise<Sandbox> {
  return createSandbox({ port: 0, rateLimit: false, ...options });
}

export const userWith = (token: string, transactions = 200, plans = 1) => ({
  token,
  plans: Array.from({ length: plans }, (_, i) => ({ seed: 3 + i, transactions })),
});

/**
 * Runs the probes by item number, in order (`--only 1,2,9`: those alone), each on its own: a
 * probe that fails is reported and the next runs. Exits when all are done.
 */
export async function runProbes(title: string, all: Probes): Promise<never> {
  const { values: flags } = parseArgs({ options: { only: { type: 'string' } } });
  const only = flags.only ? new Set(flags.only.split(',').map((s) => s.trim())) : null;
  console.log(`${title}, node ${process.version}, ${new Date().toISOString()}`);
  const items = Object.keys(all).sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
  for (const item of items) {
    if (only && !only.has(item)) continue;
    try {
      await all[item]?.();
    } catch (error) {
      console.log(`\n[item ${item}] probe failed: ${error instanceof Error ? error.stack : error}`);
    }
  }
  process.exit(0);
}
