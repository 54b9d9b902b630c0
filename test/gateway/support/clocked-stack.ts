/**
 * The stack of the gateway cache suites: a gateway and a sandbox that share one manual clock,
 * and a second REST client that writes at the sandbox behind the gateway's back.
 */
import { readFileSync } from 'node:fs';
import { createManualClock, type ManualClock, type SandboxOptions } from '@plans-gateway/sandbox';
import type { GatewayConfig } from '../../../src/config/config.js';
import { createUpstreamClient, type UpstreamClient } from '../../../src/upstream/client.js';
import { type Stack, startStack } from '../../support/stack.js';

/** Mid-month, so "current" months and month boundaries are far from the clock moves tests make. */
export const START = Date.parse('2025-06-15T12:00:00.000Z');

export const DASHBOARD = readFileSync(
  new URL('../../../bench/dashboard.graphql', import.meta.url),
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
