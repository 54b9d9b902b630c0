/**
 * A plan's first export slower than the flight's `maxWaitMs` (a large plan, 300k–1M
 * transactions, takes minutes). The instance waiting on another's load used to be cut at that
 * deadline and send the same export again, though the holder was alive and its body arriving.
 * Now it waits on while the holder's lease shows progress (its marker moves as the body
 * arrives), then installs what the holder stored: one export in the cluster. A load that stops
 * arriving (the holder hung: its lease still held and renewed) no longer holds it back.
 *
 * The clock is the suite's manual one and the export drips through the hostile upstream piece
 * by piece, each sent when the test says, so "longer than `maxWaitMs`" is counted, not waited.
 * The operation deadline is shorter than the load too: the waiting instance's reader is held
 * by the progress it sees, as the loading instance's reader by its own.
 */
import type { Sandbox } from '@plans-gateway/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisName } from '../../src/cluster/seal.js';
import { DEFAULT_CLUSTER } from '../../src/config/config.js';
import type { ManualScheduler } from '../../src/time/scheduler.js';
import { tokenKey } from '../../src/upstream/token-key.js';
import { type DrippingExport, drippingExport } from '../support/dripping-export.js';
import { gqlAt } from '../support/graphql.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import {
  type HostileStack,
  type ServedGateway,
  startStack,
  type TimedStack,
} from '../support/stack.js';
import { until } from '../support/wait.js';
import { callsOf, exportsOf } from './support/calls.js';
import { advanceBetweenRoundTrips, expectServed } from './support/frozen-redis.js';
import { within } from './support/within.js';

const TOKENS = ['flight-progress-token-01', 'flight-progress-token-02', 'flight-progress-token-03'];
const COMMAND_TIMEOUT_MS = 1_000;
/** Long: Redis counts it in real time, so no renewal is due while the test runs. */
const FLIGHT_LEASE_MS = 60_000;
const MAX_WAIT_MS = 1_000;
/** The holder beats at most every 200 ms; one piece a step, 250 ms apart, beats each time. */
const STALL_MS = 600;
const DEADLINE_MS = 4_000;
/** Shorter than the load: a reader that comes halfway through wants data sent after it began. */
const MAX_AGE_MS = 2_000;
const STEP_MS = 250;
/** 6 s of load in all: past `MAX_WAIT_MS` and the operation deadline, within three of them. */
const PIECES = 24;
const READ = 'query($planId: PlanId!) { plan(id: $planId) { id name serverKnowledge } }';

type PlanAnswer = { plan: { id: string; name: string; serverKnowledge: number } };

let redis: TestRedis;
let stack: TimedStack & HostileStack;
let sandbox: Sandbox;
let scheduler: ManualScheduler;
let a: ServedGateway;
let b: ServedGateway;

beforeAll(async () => {
  redis = await startTestRedis();
  const cluster = {
    url: redis.url,
    ...DEFAULT_CLUSTER,
    keyPrefix: redis.prefix,
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
    flightLeaseMs: FLIGHT_LEASE_MS,
    flightMaxWaitMs: MAX_WAIT_MS,
    flightStallMs: STALL_MS,
  };
  const config = { operationDeadlineMs: DEADLINE_MS, maxAgeMs: MAX_AGE_MS };
  stack = await startStack({
    clock: 'manual',
    timers: 'manual',
    hostile: true,
    sandbox: {
      rateLimit: false,
      users: TOKENS.map((token, seed) => ({ token, plans: [{ seed, transactions: 2_000 }] })),
    },
    config,
    cluster,
  });
  ({ sandbox, scheduler } = stack);
  a = stack;
  b = await stack.addGateway({ cluster, config });
  for (const each of [a, b]) expect(await each.gateway.cluster!.ready(5_000)).toBe(true);
}, 60_000);

afterAll(async () => {
  // The stack closes the upstream first, which ends a load still dripping.
  await stack?.close();
  await redis?.close();
});

const planOf = (token: string) => sandbox.users.find((user) => user.token === token)!.planIds[0]!;
const leaseOf = (token: string) =>
  `${redis.prefix}f:${redisName('flight', tokenKey(token), planOf(token))}`;
const clusters = () => [a.gateway.cluster!, b.gateway.cluster!];

function read(at: ServedGateway, token: string) {
  return gqlAt<PlanAnswer>(at.url, READ, { planId: planOf(token) }, token);
}

/** Sends a part of the load; the holder writes its lease with one more beat (or releases it). */
async function onePiece(drip: DrippingExport, lease: string) {
  const before = await redis.client.get(lease);
  await drip.release();
  await until(async () => (await redis.client.get(lease)) !== before, 'the lease written');
}

/** A's load of `token`'s plan, dripping piece by piece once its flight lease is taken. */
async function dripLoad(token: string) {
  const lease = leaseOf(token);
  const drip = drippingExport(PIECES, { token });
  stack.hostile.setRule(drip.rule);
  const loading = read(a, token);
  await until(async () => (await redis.client.exists(lease)) === 1, 'the flight lease taken');
  /** Sends `count` pieces, a step of the clock after each (`after` runs after each step). */
  const pieces = async (count: number, after = () => {}) => {
    for (let piece = 0; piece < count; piece++) {
      await onePiece(drip, lease);
      await advanceBetweenRoundTrips(scheduler, clusters(), STEP_MS, COMMAND_TIMEOUT_MS);
      after();
    }
  };
  return { lease, drip, loading, pieces };
}

/** The load ended (stored, its lease released in the same round trip): both reads answer alike. */
async function bothServed(
  lease: string,
  loading: ReturnType<typeof read>,
  waiting: ReturnType<typeof read>,
) {
  await until(async () => (await redis.client.exists(lease)) === 0, 'the lease released');
  await advanceBetweenRoundTrips(scheduler, clusters(), STEP_MS, COMMAND_TIMEOUT_MS);
  const [loaded, waited] = await within(Promise.all([loading, waiting]), 'both reads');
  expectServed(loaded);
  expectServed(waited);
  expect(waited.body.data).toEqual(loaded.body.data);
}

describe('an instance waiting on another instance’s cold load', () => {
  it('waits on past maxWaitMs while the load arrives, then installs it: one export', async () => {
    const token = TOKENS[0]!;
    const from = scheduler.now();
    const { lease, loading, pieces } = await dripLoad(token);
    const waiting = read(b, token);
    // The waiting instance sends nothing of its own, however long past its maxWaitMs.
    await pieces(PIECES, () => expect(exportsOf(sandbox, token)).toBe(1));
    expect(scheduler.now() - from).toBeGreaterThan(MAX_WAIT_MS + DEADLINE_MS);

    await bothServed(lease, loading, waiting);
    expect(exportsOf(sandbox, token)).toBe(1);
  }, 60_000);

  it('takes a load that outlasted max-age as the base of one delta, for a reader that came late', async () => {
    const token = TOKENS[2]!;
    const from = scheduler.now();
    const { lease, loading, pieces } = await dripLoad(token);
    await pieces(PIECES / 2);
    // Asked once the load is older than max-age: what it brings was sent too early for this
    // reader. Before, that reader sent a second export once the first was stored.
    expect(scheduler.now() - from).toBeGreaterThan(MAX_AGE_MS);
    const waiting = read(b, token);
    await pieces(PIECES / 2);
    expect(exportsOf(sandbox, token)).toBe(1);

    await bothServed(lease, loading, waiting);
    // The stored load installed, then a delta from its knowledge: current for the late reader.
    expect(callsOf(sandbox, token)).toEqual(['getPlanById', 'getPlanById (delta)']);
  }, 60_000);

  it('goes alone once the load stops arriving, though its holder still holds the lease', async () => {
    const token = TOKENS[1]!;
    const { lease, drip, loading, pieces } = await dripLoad(token);
    const waiting = read(b, token);
    await pieces(2);
    expect(exportsOf(sandbox, token)).toBe(1);

    // The holder's upstream call hangs: nothing more arrives, its lease stays (and is renewed).
    // Past maxWaitMs and a stall since the last beat, the waiting instance sends its own.
    await advanceBetweenRoundTrips(
      scheduler,
      clusters(),
      MAX_WAIT_MS + STALL_MS + STEP_MS,
      COMMAND_TIMEOUT_MS,
    );
    await until(() => exportsOf(sandbox, token) === 2, 'the export sent alone');
    expectServed(await within(waiting, 'the read that went alone'));
    // The holder hung, it did not die: its lease was still there when the other went alone.
    const held = await redis.client.get(lease);
    expect(held?.startsWith(`${a.gateway.cluster!.instanceId}.`)).toBe(true);

    // The hung load ends after all; its reader was answered at its deadline or from it.
    for (let piece = 2; piece < PIECES; piece++) await drip.release();
    await within(loading, 'the read of the hung load');
    expect(exportsOf(sandbox, token)).toBe(2);
  }, 60_000);
});
