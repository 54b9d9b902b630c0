/**
 * What one MCP session may cost through resource subscriptions (issue 29, item 1), over
 * Streamable HTTP with the SDK's own client and with a raw client that stops reading: month
 * URIs only within the plan's months, at most `subscriptionsPerPlan` URIs of a plan and
 * `subscriptionsPerSession` in all, one notification per URI a change concerns, and a stream
 * whose reader stays behind ended with a reason once `SUBSCRIPTION_PENDING_KB` is passed.
 * (stdio shares the code: test/mcp/stdio.test.ts checks the bounds there.)
 */
import type { Socket } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIVE, type McpConfig } from '../../src/config/config.js';
import { openAccount } from '../live/support/live.js';
import { startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { connectHttp } from './support/mcp-clients.js';
import {
  neverReadingStream,
  openSession,
  readResponseToEnd,
  subscribeAt,
} from './support/raw-mcp.js';

const SPEND = `mutation McpSpend($planId: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $planId, input: $input) { __typename }
}`;
const NOTE = `mutation McpNote($planId: PlanId!, $categoryId: UUID!, $note: String) {
  updateCategory(planId: $planId, categoryId: $categoryId, input: { note: $note }) { __typename }
}`;

let stack: TimedStack | undefined;
const clients: Client[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  await stack?.close();
  stack = undefined;
});

async function start(
  mcp: Partial<McpConfig>,
  pendingBytes = DEFAULT_LIVE.pendingBytesPerSubscriber,
) {
  const s = await startStack({
    clock: 'manual',
    timers: 'manual',
    sandbox: {
      rateLimit: false,
      users: [
        {
          token: 'mcp-bounds-token-0123456789',
          plans: [{ transactions: 60 }, { transactions: 60 }],
        },
      ],
    },
    config: { live: { ...DEFAULT_LIVE, pendingBytesPerSubscriber: pendingBytes } },
    mcp,
  });
  stack = s;
  return s;
}

/** The plan's months (`YYYY-MM-01`), first to last, as its REST summary says. */
async function monthsOf(s: TimedStack, planId: string): Promise<string[]> {
  const { plans } = await s.writer.getPlans({ token: s.token }, {});
  const plan = plans.find((p) => p.id === planId);
  if (!plan?.first_month || !plan.last_month) throw new Error(`no months for ${planId}`);
  const months: string[] = [];
  for (let month = plan.first_month; month <= plan.last_month; ) {
    months.push(month);
    const [year, m] = month.split('-').map(Number) as [number, number];
    month = m === 12 ? `${year + 1}-01-01` : `${year}-${String(m + 1).padStart(2, '0')}-01`;
  }
  return months;
}

/** `count` distinct budget URIs of the plan's months, a day of each month after another. */
function dayUris(planId: string, months: readonly string[], count: number): string[] {
  const uris: string[] = [];
  for (let day = 1; day <= 28 && uris.length < count; day += 1)
    for (const month of months)
      if (uris.length < count)
        uris.push(
          `plans://${planId}/months/${month.slice(0, 8)}${String(day).padStart(2, '0')}/budget`,
        );
  return uris;
}

/** A categorized outflow written through the gateway: every month's budget changes. */
async function spend(s: TimedStack, account: string, category: string, memo: string) {
  const answer = await s.gql<{ createTransaction: { __typename: string } }>(SPEND, {
    planId: s.planId,
    input: {
      accountId: account,
      categoryId: category,
      date: new Date(s.clock.now()).toISOString().slice(0, 10),
      amount: -1_000,
      approved: true,
      memo,
    },
  });
  expect(answer.body.errors).toBeUndefined();
}

/** A category's note changed through the gateway: every month's budget shows the category. */
async function note(s: TimedStack, category: string, text: string) {
  const answer = await s.gql(NOTE, { planId: s.planId, categoryId: category, note: text });
  expect(answer.body.errors).toBeUndefined();
}

/** The plan's Groceries category (spending in it moves the month's budget). */
async function groceries(s: TimedStack): Promise<string> {
  const { category_groups } = await s.writer.getCategories(
    { token: s.token },
    { planId: s.planId },
  );
  const category = category_groups.flatMap((g) => g.categories).find((c) => c.name === 'Groceries');
  if (!category) throw new Error('no Groceries category');
  return category.id;
}

/** An SDK client over HTTP that counts the `resources/updated` notifications of each URI. */
async function countingClient(s: TimedStack) {
  const client = await connectHttp(s.mcpUrl, s.token);
  clients.push(client);
  const notified = new Map<string, number>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    const { uri } = notification.params;
    notified.set(uri, (notified.get(uri) ?? 0) + 1);
  });
  return { client, notified };
}

/** A category the gateway's arithmetic follows (no target): a write to it takes one trip. */
async function plainCategory(s: TimedStack): Promise<string> {
  const { category_groups } = await s.writer.getCategories(
    { token: s.token },
    { planId: s.planId },
  );
  const category = category_groups
    .filter((g) => !g.hidden && !g.deleted && g.name !== 'Credit Card Payments')
    .flatMap((g) => g.categories)
    .find(
      (c) =>
        c.goal_type === null &&
        !c.hidden &&
        !c.deleted &&
        !c.internal &&
        c.name !== 'Inflow: Ready to Assign',
    );
  if (!category) throw new Error('the seed has no category without a target');
  return category.id;
}

describe('resource subscriptions of one session', () => {
  it('refuses months outside the plan, naming its months; before, years from 1000 on were taken', async () => {
    const s = await start({});
    const client = await connectHttp(s.mcpUrl, s.token);
    clients.push(client);
    const months = await monthsOf(s, s.planId);
    const first = months[0]!.slice(0, 7);
    const last = months.at(-1)!.slice(0, 7);
    for (const day of ['1000-01-01', '9999-12-31', `${Number(last.slice(0, 4)) + 1}-01-15`])
      await expect(
        client.subscribeResource({ uri: `plans://${s.planId}/months/${day}/budget` }),
      ).rejects.toThrow(
        new RegExp(
          `Argument "month": ${day.slice(0, 7)} is not a month of plan .*${first} to ${last}`,
        ),
      );
    await client.subscribeResource({ uri: `plans://${s.planId}/months/${months[0]}/budget` });
    await client.subscribeResource({ uri: `plans://${s.planId}/months/current/budget` });
    expect(s.gateway.live.stats().subscribers).toBe(1);
  });

  it('takes at most subscriptionsPerPlan URIs of a plan and subscriptionsPerSession in all', async () => {
    const s = await start({ subscriptionsPerPlan: 4, subscriptionsPerSession: 6 });
    const client = await connectHttp(s.mcpUrl, s.token);
    clients.push(client);
    const [planA, planB] = s.sandbox.users[0]!.planIds as [string, string];
    const inA = dayUris(planA, await monthsOf(s, planA), 5);
    const inB = dayUris(planB, await monthsOf(s, planB), 3);

    for (const uri of inA.slice(0, 4)) await client.subscribeResource({ uri });
    // Again: nothing more is taken.
    await client.subscribeResource({ uri: inA[0]! });
    await expect(client.subscribeResource({ uri: inA[4]! })).rejects.toThrow(
      /already subscribes to 4 resources of plan .*MCP_SUBSCRIPTIONS_PER_PLAN/,
    );
    await client.subscribeResource({ uri: inB[0]! });
    await client.subscribeResource({ uri: `plans://${planB}/overview` });
    await expect(client.subscribeResource({ uri: inB[1]! })).rejects.toThrow(
      /already subscribes to 6 resources \(MCP_SUBSCRIPTIONS_PER_SESSION\)/,
    );
    // Unsubscribing frees a place.
    await client.unsubscribeResource({ uri: inA[0]! });
    await client.subscribeResource({ uri: inB[1]! });
    // One planChanged subscription per plan, whatever the URIs.
    expect(s.gateway.live.stats().subscribers).toBe(2);
  });

  it('notifies each subscribed URI once per write, with the delta that follows it', async () => {
    const s = await start({ subscriptionsPerPlan: 8 });
    const { client, notified } = await countingClient(s);
    // Days of this month (spending today changes it), `current` and the overview.
    const thisMonth = new Date(s.clock.now()).toISOString().slice(0, 8);
    const budgets = [
      ...dayUris(s.planId, [`${thisMonth}01`], 6),
      `plans://${s.planId}/months/current/budget`,
    ];
    const overview = `plans://${s.planId}/overview`;
    // The overview first: a change notifies in that order, so once the last budget is in,
    // whatever the change said of the overview is too.
    for (const uri of [overview, ...budgets]) await client.subscribeResource({ uri });
    await until(
      () => s.gateway.live.stats().subscribers === 1,
      () => `a subscriber (${JSON.stringify(s.gateway.live.stats())})`,
    );
    const counts = (uris: readonly string[]) => uris.map((uri) => notified.get(uri) ?? 0);
    const category = await groceries(s);

    // Spending: the write's answer (the transaction), then its delta (balances, the month,
    // the category). Before, both notified the overview, and a category's writes every month
    // twice.
    await spend(s, await openAccount(s), category, 'seen once');
    await until(
      () => counts([...budgets, overview]).every((n) => n >= 1),
      () => `every URI notified (got ${JSON.stringify([...notified])})`,
    );
    expect(counts([overview])).toEqual([1]);
    // A note on the category: every month's budget (and the overview, when the delta brings
    // this month's row again).
    await note(s, category, 'seen once too');
    await until(
      () => counts(budgets).every((n) => n >= 2),
      () => `every budget notified again (got ${JSON.stringify([...notified])})`,
    );
    // The poll after the writes brings nothing new, and says nothing.
    await s.scheduler.advance(36_000);
    await client.listResourceTemplates();
    expect(counts(budgets)).toEqual(budgets.map(() => 2));
    expect(notified.get(overview)).toBeLessThanOrEqual(2);
  });

  it('notifies of a write applied in one trip at once, and not again when the poll confirms it', async () => {
    const s = await start({ subscriptionsPerPlan: 8 });
    const { client, notified } = await countingClient(s);
    const overview = `plans://${s.planId}/overview`;
    const current = `plans://${s.planId}/months/current/budget`;
    for (const uri of [overview, current]) await client.subscribeResource({ uri });
    await until(
      () => s.gateway.live.stats().subscribers === 1,
      () => `a subscriber (${JSON.stringify(s.gateway.live.stats())})`,
    );
    const account = await openAccount(s);
    const category = await plainCategory(s);
    s.resetUpstreamCalls();

    // The clock stands still: no poll runs. Before, the write's own change said nothing and
    // the resources were told only at the next poll.
    await spend(s, account, category, 'one trip');
    expect(s.upstreamCalls()).toEqual(['createTransaction']);
    await until(
      () => (notified.get(current) ?? 0) >= 1 && (notified.get(overview) ?? 0) >= 1,
      () => `both URIs notified without a poll (got ${JSON.stringify([...notified])})`,
    );

    // The poll's delta confirms the write's figures: nothing differs, nothing is told.
    await s.scheduler.advance(36_000);
    await until(
      () => s.upstreamCalls().length > 1,
      () => `the poll after the write (calls: ${s.upstreamCalls().join(', ')})`,
    );
    await client.listResourceTemplates();
    expect([notified.get(overview), notified.get(current)]).toEqual([1, 1]);
  });

  it('ends the stream of a reader that stays behind, with a reason, and its subscriptions', async () => {
    const pendingBytes = 8 * 1024;
    const s = await start(
      { subscriptionsPerPlan: 400, subscriptionsPerSession: 400 },
      pendingBytes,
    );
    const sessionId = await openSession(s.mcpUrl, s.token);
    if (typeof sessionId !== 'string') throw new Error(`no session: ${sessionId}`);
    const uris = dayUris(s.planId, await monthsOf(s, s.planId), 400);
    for (let i = 0; i < uris.length; i += 50)
      expect(
        await Promise.all(
          uris.slice(i, i + 50).map((uri) => subscribeAt(s.mcpUrl, s.token, sessionId, uri)),
        ),
      ).not.toContain(expect.any(String));
    const stalled = await neverReadingStream(s.mcpUrl, s.token, sessionId);
    sockets.push(stalled);
    await until(
      () => s.gateway.live.stats().subscribers === 1,
      () => `a subscriber (${JSON.stringify(s.gateway.live.stats())})`,
    );

    // Each write notifies every URI (~60 KB); the socket's buffers take a few MB, then the
    // notifications wait in the gateway, until more than pendingBytes waited.
    const category = await groceries(s);
    let writes = 0;
    while (s.gateway.live.stats().subscribers > 0 && writes < 200) {
      await note(s, category, `write ${writes}`);
      writes += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Before: every write queued ~60 KB more for this reader, for as long as the session lived.
    expect(s.gateway.live.stats()).toMatchObject({ subscribers: 0, channels: 0 });

    const received = await readResponseToEnd(stalled);
    // What waited past the bound was dropped, not kept for it.
    const delivered = received.split('notifications/resources/updated').length - 1;
    expect(delivered).toBeGreaterThan(0);
    expect(delivered).toBeLessThan(writes * uris.length);
    expect(received).toMatch(
      /"method":"notifications\/message".*Resource updates ended: .*SUBSCRIPTION_PENDING_KB/,
    );
    // The reason is the last thing the stream said: it ended after it.
    expect(received.slice(received.lastIndexOf('notifications/message'))).not.toContain(
      'notifications/resources/updated',
    );
    // Subscribing again works.
    expect(await subscribeAt(s.mcpUrl, s.token, sessionId, uris[0]!)).toBeUndefined();
  }, 120_000);
});
