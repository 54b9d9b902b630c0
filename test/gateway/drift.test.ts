/**
 * Reconciliation (issue 33): the sandbox's `silent` fault changes rows without advancing
 * `server_knowledge`, so no delta ever brings the change and the replica is silently stale. The
 * reconciler compares the replica with one full export per period and repairs it: the drift is
 * found within one period at the cost of one export, counted by kind in `/metrics`, logged as one
 * line of ids, and a subscriber receives the repair as an ordinary SYNC change. Time runs on the
 * manual clock and timers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIVE } from '../../src/config/config.js';
import { DEFAULT_POLL_INTERVAL_MS, openAccount, subscribed } from '../live/support/live.js';
import { type Subscriber, sseClient, type Transport } from '../live/support/subscribers.js';
import { startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';

const PERIOD_MS = 3_600_000;
const TOKEN = 'drift-token-0000000000001';
const SECRET_MEMO = 'silently changed memo 4711';
const SECRET_LINE = 'silently changed line 4712';

const CHANGES = `subscription($planId: PlanId!) {
  planChanged(planId: $planId) {
    origin serverKnowledge
    transactions { id memo subtransactions { id memo } }
  }
}`;

interface ChangeSeen {
  planChanged: {
    origin: string;
    serverKnowledge: number;
    transactions: {
      id: string;
      memo: string | null;
      subtransactions: { id: string; memo: string | null }[];
    }[];
  };
}

let stack: TimedStack;
let client: Transport;
let subscriber: Subscriber<ChangeSeen>;
let plain: string;
let split: string;
let line: string;

beforeAll(async () => {
  stack = await startStack({
    clock: 'manual',
    timers: 'manual',
    serve: 'websocket',
    log: true,
    sandbox: { rateLimit: false, users: [{ token: TOKEN, plans: [{ seed: 35 }] }] },
    config: { live: { ...DEFAULT_LIVE, reconcileMs: PERIOD_MS } },
  });
  const accountId = await openAccount(stack);
  const create = async (memo: string, extra: Record<string, unknown> = {}) =>
    (
      await stack.writer.createTransaction(
        { token: stack.token },
        {
          planId: stack.planId,
          body: {
            transaction: {
              account_id: accountId,
              date: '2024-03-02',
              amount: -9_000,
              memo,
              ...extra,
            },
          },
        },
      )
    ).transaction!;
  plain = (await create('as written')).id;
  const splitRow = await create('split', {
    subtransactions: [
      { amount: -4_000, memo: 'first line' },
      { amount: -5_000, memo: 'second line' },
    ],
  });
  split = splitRow.id;
  line = splitRow.subtransactions[0]!.id;
  client = sseClient(stack.url, stack.token);
  subscriber = client.subscribe<ChangeSeen>(CHANGES, { planId: stack.planId });
  await subscribed(stack, 1);
  await stack.scheduler.advance(DEFAULT_POLL_INTERVAL_MS); // the replica is loaded and polled
});

afterAll(async () => {
  await client?.close();
  await stack?.close();
});

function sawRepair(): boolean {
  return subscriber.received.some((event) =>
    event.data?.planChanged.transactions.some((t) => t.id === plain && t.memo === SECRET_MEMO),
  );
}

describe('a change no delta brings', () => {
  it('is found and repaired within one period at the cost of one export', async () => {
    const knowledge = stack.gateway.replicas.peek(stack.tokenKey, stack.planId)!.snapshot
      .serverKnowledge;
    stack.sandbox.setFaults([{ kind: 'silent', operationId: 'updateTransaction', times: 1 }]);
    await stack.writer.updateTransaction(
      { token: stack.token },
      { planId: stack.planId, transactionId: plain, body: { transaction: { memo: SECRET_MEMO } } },
    );
    stack.sandbox.setFaults([]);
    stack.sandbox.editSplitLine(stack.planId, line, { memo: SECRET_LINE }, { silent: true });
    stack.sandbox.resetCalls();

    // Half a period of polls: each delta brings nothing, the replica stays as it was.
    await stack.scheduler.advance(PERIOD_MS / 2);
    const held = stack.gateway.replicas.peek(stack.tokenKey, stack.planId)!.snapshot;
    expect(held.serverKnowledge).toBe(knowledge);
    expect(held.transaction(plain)?.memo).toBe('as written');
    expect(sawRepair()).toBe(false);
    const exportsBefore = stack.sandbox
      .calls()
      .filter(
        (c) => c.operationId === 'getPlanById' && c.query.last_knowledge_of_server === undefined,
      );
    expect(exportsBefore).toEqual([]);

    // The period ends: the next poll's read starts the run, one export, the repair.
    await stack.scheduler.advance(PERIOD_MS / 2 + DEFAULT_POLL_INTERVAL_MS);
    await until(sawRepair, () => `the repair; received ${JSON.stringify(subscriber.received)}`);
    const repaired = subscriber.received.find((event) =>
      event.data?.planChanged.transactions.some((t) => t.id === plain && t.memo === SECRET_MEMO),
    )!.data!.planChanged;
    expect(repaired.origin).toBe('SYNC');
    expect(repaired.serverKnowledge).toBe(knowledge);
    expect(
      repaired.transactions.find((t) => t.id === split)?.subtransactions.find((l) => l.id === line)
        ?.memo,
    ).toBe(SECRET_LINE);
    const exports = stack.sandbox
      .calls()
      .filter(
        (c) => c.operationId === 'getPlanById' && c.query.last_knowledge_of_server === undefined,
      );
    expect(exports).toHaveLength(1);
    const snapshot = stack.gateway.replicas.peek(stack.tokenKey, stack.planId)!.snapshot;
    expect(snapshot.transaction(plain)?.memo).toBe(SECRET_MEMO);
    expect(snapshot.subtransaction(line)?.memo).toBe(SECRET_LINE);

    // Counted by kind; logged once, with ids and never the memos.
    const metrics = await stack.gateway.metrics.text();
    expect(metrics).toContain('gateway_replica_drift_total{kind="transactions"} 1');
    expect(metrics).toContain('gateway_replica_drift_total{kind="subtransactions"} 1');
    expect(metrics).toContain('gateway_replica_reconciliations_total{outcome="repaired"} 1');
    const lines = stack.log.filter((entry) => entry.msg === 'replica drift repaired');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      planId: stack.planId,
      drift: { transactions: [plain], subtransactions: [line] },
    });
    const text = JSON.stringify(stack.log);
    expect(text).not.toContain(SECRET_MEMO);
    expect(text).not.toContain(SECRET_LINE);
  });

  it('costs one export a period and finds nothing when nothing drifted', async () => {
    stack.sandbox.resetCalls();
    await stack.scheduler.advance(PERIOD_MS + DEFAULT_POLL_INTERVAL_MS);
    await until(
      async () =>
        (await stack.gateway.metrics.text()).includes(
          'gateway_replica_reconciliations_total{outcome="clean"} 1',
        ),
      'a clean comparison',
    );
    const exports = stack.sandbox
      .calls()
      .filter(
        (c) => c.operationId === 'getPlanById' && c.query.last_knowledge_of_server === undefined,
      );
    expect(exports).toHaveLength(1);
    expect(stack.log.filter((entry) => entry.msg === 'replica drift repaired')).toHaveLength(1);
  });
});
