/**
 * Helpers of the gateway cache suites: a stack whose gateway and sandbox share one manual clock,
 * a second REST client that writes at the sandbox behind the gateway's back, and readers of the
 * calls the sandbox recorded.
 */
import { readFileSync } from 'node:fs';
import type { GatewayConfig } from '../../src/config/config.js';
import type { ManualClock, SandboxCall, SandboxOptions } from '../../src/sandbox/core/api.js';
import { createManualClock } from '../../src/sandbox/index.js';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/client.js';
import { type GraphQLResponse, type Stack, startStack } from '../harness.js';

/** Mid-month, so "current" months and month boundaries are far from the clock moves tests make. */
export const START = Date.parse('2025-06-15T12:00:00.000Z');

export const DASHBOARD = readFileSync(
  new URL('../../bench/dashboard.graphql', import.meta.url),
  'utf8',
);

export interface ClockedStack extends Stack {
  /** Drives the gateway (`deps.now`) and the sandbox (dates, rate window) together. */
  clock: ManualClock;
  /** Another REST client of the same upstream, for writes the gateway does not see. */
  writer: UpstreamClient;
}

export interface ClockedStackOptions {
  sandbox?: Omit<SandboxOptions, 'clock'>;
  config?: Partial<GatewayConfig>;
}

export async function startClockedStack(options: ClockedStackOptions = {}): Promise<ClockedStack> {
  const clock = createManualClock(START);
  const stack = await startStack({
    sandbox: { ...options.sandbox, clock },
    config: options.config ?? {},
    deps: { now: () => clock.now() },
  });
  const writer = createUpstreamClient({
    baseUrl: stack.sandbox.url,
    retry: { attempts: 1 },
    readBackoff: false,
  });
  return {
    ...stack,
    clock,
    writer,
    async close() {
      await writer.close();
      await stack.close();
    },
  };
}

/** The operation ids the sandbox received, optionally only those presented with `token`. */
export function operationsOf(calls: readonly SandboxCall[], token?: string): string[] {
  return calls
    .filter((call) => token === undefined || call.token === token)
    .map((call) => call.operationId ?? `${call.method} ${call.path}`);
}

/** `last_knowledge_of_server` of each getPlanById call: a number for a delta, null for a full export. */
export function planSyncs(calls: readonly SandboxCall[]): (number | null)[] {
  return calls
    .filter((call) => call.operationId === 'getPlanById')
    .map((call) => {
      const knowledge = call.query.last_knowledge_of_server;
      return knowledge === undefined ? null : Number(knowledge);
    });
}

/** Fails with the errors in the message when the response carries any. */
export function dataOf<T>(response: GraphQLResponse<T>): T {
  if (response.body.errors?.length) {
    throw new Error(`unexpected GraphQL errors: ${JSON.stringify(response.body.errors)}`);
  }
  if (!response.body.data) throw new Error(`no data in the response (HTTP ${response.status})`);
  return response.body.data;
}

export interface UpstreamExtension {
  calls: number;
  operations: Record<string, number>;
  cacheHits: number;
  replicaAgeMs: number | null;
}

export interface StaleExtension {
  source: string;
  reason: string;
  ageMs: number;
}

export function upstreamOf(response: GraphQLResponse<unknown>): UpstreamExtension {
  return response.body.extensions?.upstream as UpstreamExtension;
}

export function staleOf(response: GraphQLResponse<unknown>): StaleExtension[] | undefined {
  return response.body.extensions?.stale as StaleExtension[] | undefined;
}

/** Polls (on real time) until `condition` holds; for waiting on an HTTP request to arrive. */
export async function waitFor(
  condition: () => boolean,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
