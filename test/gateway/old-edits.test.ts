/**
 * Every path that brings changes into a replica carries an edit to a transaction dated two years
 * ago (issue 33): its memo changed, another old transaction deleted, and a line of an old split
 * changed the way only the product's own apps can (`sandbox.editSplitLine`), all behind the
 * gateway's back. The sandbox's transaction lists keep the one-year default window since 1.85.0,
 * so a path that synced through them would miss all three; the paths are a read past max-age, a
 * `no-cache` read, a subscription's poll, a live backfill (a `since` older than the change log),
 * a webhook feed, and a relay from another instance over a real Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTER } from '../../src/config/config.js';
import {
  DEFAULT_POLL_INTERVAL_MS,
  knowledgeOf,
  openAccount,
  subscribed,
} from '../live/support/live.js';
import { type Subscriber, sseClient, type Transport } from '../live/support/subscribers.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { type ServedGateway, startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { type Receiver, startReceiver } from '../webhooks/support/receiver.js';
import { createEndpoint, tempDir, webhookConfig } from '../webhooks/support/webhook-stack.js';

/** Two years before the stacks' clock (`START`, 2025-06-15). */
const OLD_DATE = '2023-06-10';
const TOKEN = 'old-edits-token-000000001';

/** The old rows one round of edits touches. */
interface OldRows {
  readonly edited: string;
  readonly split: string;
  readonly line: string;
  /** One old transaction per round, deleted in that round. */
  readonly deletable: string[];
}

/** What a round changed, to look for on each path. */
interface Round {
  readonly memo: string;
  readonly lineMemo: string;
  readonly deleted: string;
}

interface TransactionSeen {
  id: string;
  memo: string | null;
  subtransactions: { id: string; memo: string | null }[];
}

const OLD_ROWS = `query($planId: PlanId!) {
  plan(id: $planId) {
    serverKnowledge
    transactions(sinceDate: "${OLD_DATE}", untilDate: "${OLD_DATE}", first: 100) {
      nodes { id memo subtransactions { id memo } }
    }
  }
}`;

const CHANGES = `subscription($planId: PlanId!, $since: SafeInt) {
  planChanged(planId: $planId, since: $since) {
    origin continues serverKnowledge
    transactions { id memo subtransactions { id memo } }
    deleted { transactionIds }
  }
}`;

interface ChangeSeen {
  planChanged: {
    origin: string;
    continues: boolean;
    transactions: TransactionSeen[];
    deleted: { transactionIds: string[] };
  };
}

/** Old transactions made straight at the sandbox before the gateway first reads the plan. */
async function makeOldRows(stack: TimedStack, rounds: number): Promise<OldRows> {
  const accountId = await openAccount(stack);
  const create = async (memo: string, extra: Record<string, unknown> = {}) => {
    const created = await stack.writer.createTransaction(
      { token: stack.token },
      {
        planId: stack.planId,
        body: {
          transaction: { account_id: accountId, date: OLD_DATE, amount: -40_000, memo, ...extra },
        },
      },
    );
    return created.transaction!;
  };
  const edited = await create('old, as first written');
  const split = await create('old split', {
    subtransactions: [
      { amount: -25_000, memo: 'line one' },
      { amount: -15_000, memo: 'line two' },
    ],
  });
  const deletable: string[] = [];
  for (let round = 0; round < rounds; round++)
    deletable.push((await create(`old, deleted in round ${round}`)).id);
  return { edited: edited.id, split: split.id, line: split.subtransactions[0]!.id, deletable };
}

/** One round of edits behind the gateway's back: memo, deletion, split line. */
async function editBehindTheBack(stack: TimedStack, rows: OldRows, round: number): Promise<Round> {
  const memo = `edited behind the back, round ${round}`;
  const lineMemo = `line edited, round ${round}`;
  await stack.writer.updateTransaction(
    { token: stack.token },
    { planId: stack.planId, transactionId: rows.edited, body: { transaction: { memo } } },
  );
  const deleted = rows.deletable[round]!;
  await stack.writer.deleteTransaction(
    { token: stack.token },
    { planId: stack.planId, transactionId: deleted },
  );
  stack.sandbox.editSplitLine(stack.planId, rows.line, { memo: lineMemo });
  return { memo, lineMemo, deleted };
}

/** The round's three edits, as a list of transactions (and deleted ids) shows them. */
function expectRound(
  rows: OldRows,
  round: Round,
  transactions: readonly TransactionSeen[],
  deletedIds: readonly string[] | null,
): void {
  const byId = new Map(transactions.map((t) => [t.id, t]));
  expect(byId.get(rows.edited)?.memo).toBe(round.memo);
  expect(byId.get(rows.split)?.subtransactions.find((l) => l.id === rows.line)?.memo).toBe(
    round.lineMemo,
  );
  if (deletedIds === null) expect(byId.has(round.deleted)).toBe(false);
  else expect(deletedIds).toContain(round.deleted);
}

/** Reads the old rows through the graph; `headers` as a client would send them. */
async function readOldRows(
  gateway: Pick<ServedGateway, 'gql'>,
  planId: string,
  headers: Record<string, string> = {},
): Promise<TransactionSeen[]> {
  const answer = await gateway.gql<{
    plan: { transactions: { nodes: TransactionSeen[] } };
  }>(OLD_ROWS, { planId }, { headers });
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data!.plan.transactions.nodes;
}

/** Every event of a subscriber merged: the last memo seen per id, every deleted id. */
function merged(subscriber: Subscriber<ChangeSeen>): {
  transactions: TransactionSeen[];
  deleted: string[];
} {
  const rows = new Map<string, TransactionSeen>();
  const deleted: string[] = [];
  for (const event of subscriber.received) {
    for (const tx of event.data?.planChanged.transactions ?? []) rows.set(tx.id, tx);
    deleted.push(...(event.data?.planChanged.deleted.transactionIds ?? []));
  }
  return { transactions: [...rows.values()], deleted };
}

/** Whether the subscriber has seen the round's three edits. */
function sawRound(subscriber: Subscriber<ChangeSeen>, rows: OldRows, round: Round): boolean {
  const { transactions, deleted } = merged(subscriber);
  const byId = new Map(transactions.map((t) => [t.id, t]));
  return (
    byId.get(rows.edited)?.memo === round.memo &&
    byId.get(rows.split)?.subtransactions.find((l) => l.id === rows.line)?.memo ===
      round.lineMemo &&
    deleted.includes(round.deleted)
  );
}

describe('an old transaction edited behind the gateway', () => {
  const dir = tempDir();
  const clients: Transport[] = [];
  const receivers: Receiver[] = [];
  let stack: TimedStack;
  let rows: OldRows;
  let round = 0;

  beforeAll(async () => {
    stack = await startStack({
      clock: 'manual',
      timers: 'manual',
      serve: 'websocket',
      sandbox: { rateLimit: false, users: [{ token: TOKEN, plans: [{ seed: 33 }] }] },
      config: { webhooks: webhookConfig(`${dir.path}/old-edits.db`) },
    });
    rows = await makeOldRows(stack, 6);
    // The window the lists keep: a list of the last year does not reach the old rows.
    const listed = await stack.rest<{ data: { transactions: { id: string }[] } }>(
      `/plans/${stack.planId}/transactions`,
    );
    expect(listed.body.data.transactions.map((t) => t.id)).not.toContain(rows.edited);
    await readOldRows(stack, stack.planId); // the replica is loaded
  });

  afterAll(async () => {
    for (const client of clients.splice(0)) await client.close();
    for (const receiver of receivers.splice(0)) await receiver.close();
    await stack.close();
    dir.remove();
  });

  it('arrives through a read past max-age', async () => {
    const edits = await editBehindTheBack(stack, rows, round++);
    stack.clock.advance(31_000);
    stack.sandbox.resetCalls();
    expectRound(rows, edits, await readOldRows(stack, stack.planId), null);
    expect(stack.upstreamCalls()).toEqual(['getPlanById']);
  });

  it('arrives through a no-cache read', async () => {
    await readOldRows(stack, stack.planId);
    const edits = await editBehindTheBack(stack, rows, round++);
    stack.sandbox.resetCalls();
    // Within max-age: an ordinary read answers from the replica, as it was.
    const cached = await readOldRows(stack, stack.planId);
    expect(cached.find((t) => t.id === rows.edited)?.memo).not.toBe(edits.memo);
    expect(stack.upstreamCalls()).toEqual([]);
    // A millisecond later (the manual clock stands still otherwise): no-cache asks for a sync
    // sent after the request arrived.
    stack.clock.advance(1);
    const fresh = await readOldRows(stack, stack.planId, { 'cache-control': 'no-cache' });
    expectRound(rows, edits, fresh, null);
    expect(stack.upstreamCalls()).toEqual(['getPlanById']);
  });

  it("arrives through a subscription's poll", async () => {
    const client = sseClient(stack.url, stack.token);
    clients.push(client);
    const subscriber = client.subscribe<ChangeSeen>(CHANGES, { planId: stack.planId });
    await subscribed(stack, 1);
    const edits = await editBehindTheBack(stack, rows, round++);
    stack.sandbox.resetCalls();
    await stack.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    await until(() => sawRound(subscriber, rows, edits), 'the poll brings the old edits');
    const { transactions, deleted } = merged(subscriber);
    expectRound(rows, edits, transactions, deleted);
    expect(stack.upstreamCalls()).toEqual(['getPlanById']);
    subscriber.stop();
    await subscribed(stack, 0);
  });

  it('arrives through a live backfill (a since older than the change log)', async () => {
    const held = await knowledgeOf(stack);
    // Another token's change log cannot reach back: a second gateway, with no log at all, loads
    // the plan after the edits and is asked to replay from before them.
    const edits = await editBehindTheBack(stack, rows, round++);
    const second = await stack.addGateway({ serve: 'websocket' });
    await readOldRows(second, stack.planId);
    stack.sandbox.resetCalls();
    const client = sseClient(second.url, stack.token);
    clients.push(client);
    const subscriber = client.subscribe<ChangeSeen>(CHANGES, { planId: stack.planId, since: held });
    await until(() => sawRound(subscriber, rows, edits), 'the replay brings the old edits');
    const { transactions, deleted } = merged(subscriber);
    expectRound(rows, edits, transactions, deleted);
    expect(subscriber.received[0]?.data?.planChanged.origin).toBe('REPLAY');
    expect(stack.sandbox.calls().map((c) => c.query.last_knowledge_of_server)).toEqual([
      String(held),
    ]);
    subscriber.stop();
    await until(() => second.gateway.live.stats().subscribers === 0, 'the subscriber gone');
  });

  it('arrives through a webhook feed', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    await createEndpoint(stack, receiver.url, { kinds: ['TRANSACTIONS'] });
    await stack.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    const edits = await editBehindTheBack(stack, rows, round++);
    const delivered = () =>
      receiver.delivered().map(
        (r) =>
          JSON.parse(r.body) as {
            data: { transactions?: TransactionSeen[]; deleted?: { transactionIds?: string[] } };
          },
      );
    const seen = () => {
      const transactions = new Map<string, TransactionSeen>();
      const deleted: string[] = [];
      for (const body of delivered()) {
        for (const tx of body.data.transactions ?? []) transactions.set(tx.id, tx);
        deleted.push(...(body.data.deleted?.transactionIds ?? []));
      }
      return { transactions: [...transactions.values()], deleted };
    };
    for (let poll = 0; poll < 5; poll++) {
      await stack.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
      const { transactions } = seen();
      if (transactions.some((t) => t.id === rows.edited && t.memo === edits.memo)) break;
    }
    await until(
      () => seen().transactions.some((t) => t.id === rows.edited && t.memo === edits.memo),
      'a delivery with the old edits',
    );
    const { transactions, deleted } = seen();
    expectRound(rows, edits, transactions, deleted);
  });
});

describe('an old transaction edited behind two instances sharing Redis', () => {
  let redis: TestRedis;
  let stack: TimedStack | undefined;

  beforeAll(async () => {
    redis = await startTestRedis();
  });

  afterAll(async () => {
    await stack?.close();
    await redis?.close();
  });

  it("arrives through the relay of the other instance's sync, with no call of its own", async () => {
    const config = {
      redisUrl: redis.url,
      cluster: { ...DEFAULT_CLUSTER, keyPrefix: `${redis.prefix}old-edits:` },
    };
    stack = await startStack({
      clock: 'manual',
      timers: 'manual',
      sandbox: { rateLimit: false, users: [{ token: TOKEN, plans: [{ seed: 34 }] }] },
      config,
    });
    const second = await stack.addGateway({ config });
    for (const gateway of [stack.gateway, second.gateway]) {
      expect(await gateway.cluster!.ready(5_000)).toBe(true);
    }
    const rows = await makeOldRows(stack, 1);
    await readOldRows(stack, stack.planId);
    await readOldRows(second, stack.planId);
    const edits = await editBehindTheBack(stack, rows, 0);
    stack.clock.advance(31_000);
    stack.sandbox.resetCalls();
    expectRound(rows, edits, await readOldRows(stack, stack.planId), null);
    expect(stack.upstreamCalls()).toEqual(['getPlanById']);
    // The other instance merges the relayed delta: its replica has the edits, asked of no one.
    await until(() => {
      const held = second.gateway.replicas.peek(stack!.tokenKey, stack!.planId);
      return held?.snapshot.transaction(rows.edited)?.memo === edits.memo;
    }, 'the relayed delta on the second instance');
    const snapshot = second.gateway.replicas.peek(stack.tokenKey, stack.planId)!.snapshot;
    expect(snapshot.transaction(edits.deleted)).toBeUndefined();
    expect(snapshot.subtransaction(rows.line)?.memo).toBe(edits.lineMemo);
    expectRound(rows, edits, await readOldRows(second, stack.planId), null);
    expect(stack.upstreamCalls()).toEqual(['getPlanById']);
  }, 60_000);
});
