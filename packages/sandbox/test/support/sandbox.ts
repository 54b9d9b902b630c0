/**
 * Starts a sandbox for one suite on an ephemeral port with a manual clock, and gives the suite
 * REST clients for the full-access and read-only tokens.
 */

import type { ManualClock, Sandbox, SandboxOptions } from '../../src/core/api.js';
import { createManualClock, createSandbox } from '../../src/index.js';
import { TEST_NOW } from './dates.js';
import { createRest, dataOf, type Rest } from './rest.js';

export const TOKEN = 'suite-token';
export const READ_ONLY_TOKEN = 'suite-read-only-token';

export interface TestSandbox {
  readonly sandbox: Sandbox;
  readonly clock: ManualClock;
  /** Client with the full-access token of the first user. */
  readonly rest: Rest;
  /** Client with the read-only token of the first user. */
  readonly readOnly: Rest;
  /** The first plan of the first user. */
  readonly planId: string;
  close(): Promise<void>;
}

export interface TestSandboxOptions extends Omit<SandboxOptions, 'clock'> {
  /** Transactions in the first user's single plan, when `users` is not given. @default 120 */
  transactions?: number;
  /** Seed of that plan. @default 7 */
  seed?: number;
  /** Start of the manual clock. @default TEST_NOW */
  now?: number;
}

export async function startTestSandbox(options: TestSandboxOptions = {}): Promise<TestSandbox> {
  const { transactions = 120, seed = 7, now = TEST_NOW, ...rest } = options;
  const clock = createManualClock(now);
  const sandbox = await createSandbox({
    port: 0,
    rateLimit: false,
    users: [{ token: TOKEN, readOnlyToken: READ_ONLY_TOKEN, plans: [{ seed, transactions }] }],
    ...rest,
    clock,
  });
  const first = sandbox.users[0];
  const planId = first?.planIds[0];
  if (first === undefined || planId === undefined) {
    await sandbox.close();
    throw new Error('the sandbox started without a user or a plan');
  }
  const readOnlyToken = first.readOnlyToken;
  return {
    sandbox,
    clock,
    rest: createRest(sandbox.url, first.token),
    readOnly: createRest(sandbox.url, readOnlyToken),
    planId,
    close: () => sandbox.close(),
  };
}

/** The full plan export and its knowledge. */
export async function exportPlan(rest: Rest, planId: string) {
  return dataOf(await rest.get(`/plans/${planId}`), 'getPlanById');
}
