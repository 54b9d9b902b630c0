/**
 * Subscriptions over GraphQL over WebSocket (`graphql-ws` with `ws`), the token in
 * `connectionParams`: an outside write reaches a filtered `transactionsChanged` subscriber within
 * one poll interval; without a token or with a wrong one, the subscription fails alone (the
 * connection stays); a connection holds a bounded number of operations; idle connections and
 * connections that stop answering pings are closed. Hostile input over every transport:
 * test/server/admission-matrix.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DEFAULT_LIVE } from '../../src/config/config.js';
import { startStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import {
  callsOf,
  DEFAULT_POLL_INTERVAL_MS,
  LIVE,
  type LiveStack,
  openAccount,
  outsideWrite,
  subscribed,
} from './support/live.js';
import { type Transport, wsClient } from './support/subscribers.js';

interface TransactionsChanged {
  transactionsChanged: {
    origin: string;
    serverKnowledge: number;
    transactions: {
      id: string;
      memo: string | null;
      accountId: string;
      account: { balance: number };
    }[];
    removedTransactionIds: string[];
  };
}

const TRANSACTIONS_CHANGED = `subscription($planId: PlanId!, $accountId: UUID) {
  transactionsChanged(planId: $planId, accountId: $accountId) {
    origin serverKnowledge
    transactions { id memo accountId account { balance } }
    removedTransactionIds
  }
}`;

let stack: LiveStack | undefined;
const clients: Transport[] = [];
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  for (const client of clients.splice(0)) await client.close();
  await stack?.close();
  stack = undefined;
});

async function started(live: Partial<typeof DEFAULT_LIVE> = {}): Promise<LiveStack> {
  stack = await startStack({ ...LIVE, config: { live: { ...DEFAULT_LIVE, ...live } } });
  return stack;
}

function client(s: LiveStack, token: string | null = s.token, onClose?: (code: number) => void) {
  const transport = wsClient(s.wsUrl, token, onClose ? { onClose } : {});
  clients.push(transport);
  return transport;
}

/** A raw graphql-transport-ws connection, for what the client library hides. */
async function rawConnection(
  wsUrl: string,
  params: Record<string, unknown>,
  options: { autoPong?: boolean } = {},
): Promise<{ socket: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
  const socket = new WebSocket(wsUrl, 'graphql-transport-ws', options);
  sockets.push(socket);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'connection_init', payload: params }));
  await new Promise<void>((resolve) =>
    socket.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'connection_ack') resolve();
    }),
  );
  return { socket, closed };
}

describe('transactionsChanged over WebSocket', () => {
  it('delivers an outside write to the filtered account within one poll interval, and nothing of other accounts', async () => {
    const s = await started();
    const accountId = await openAccount(s);
    const { accounts } = await s.writer.getAccounts({ token: s.token }, { planId: s.planId });
    const other = accounts.find((a) => a.id !== accountId && !a.closed && a.on_budget)!;
    const subscriber = client(s).subscribe<TransactionsChanged>(TRANSACTIONS_CHANGED, {
      planId: s.planId,
      accountId,
    });
    await subscribed(s, 1);

    const elsewhere = await outsideWrite(s, other.id, 'other account');
    const here = await outsideWrite(s, accountId, 'this account');
    s.sandbox.resetCalls();
    await s.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    const event = (
      await subscriber.until((r) =>
        r.data!.transactionsChanged.transactions.some((tx) => tx.id === here.id),
      )
    ).data!.transactionsChanged;
    expect(callsOf(s.sandbox)).toHaveLength(1);
    expect(event.origin).toBe('SYNC');
    expect(event.transactions.map((tx) => tx.id)).toEqual([here.id]);
    expect(JSON.stringify(subscriber.received)).not.toContain(elsewhere.id);

    const read = await s.gql<{ plan: { account: { balance: number } } }>(
      'query($planId: PlanId!, $id: UUID!) { plan(id: $planId) { account(id: $id) { balance } } }',
      { planId: s.planId, id: accountId },
    );
    expect(event.transactions[0]!.account.balance).toBe(read.body.data!.plan.account.balance);
  });

  it('fails the subscription of a connection without a token, or with a wrong one, and only it', async () => {
    const s = await started();
    const codesOf = (outcome: { error?: unknown }, received: { errors?: unknown }[]) =>
      ((outcome.error ?? received[0]?.errors ?? []) as { extensions?: { code?: string } }[]).map(
        (e) => e.extensions?.code,
      );
    const closes: number[] = [];
    const anonymousClient = client(s, null, (code) => closes.push(code));
    const anonymous = anonymousClient.subscribe(TRANSACTIONS_CHANGED, { planId: s.planId });
    expect(codesOf(await anonymous.finished, anonymous.received)).toEqual(['UNAUTHENTICATED']);
    // The connection stays: a query that needs no token still runs on it.
    const typename = anonymousClient.subscribe<{ __typename: string }>('{ __typename }');
    expect((await typename.until((r) => r.data !== undefined)).data).toEqual({
      __typename: 'Query',
    });
    // graphql-ws's lazy client closes an unused connection itself (1000); the server never did.
    expect(closes.filter((code) => code !== 1000)).toEqual([]);

    const wrong = client(s, 'not-a-valid-token').subscribe(TRANSACTIONS_CHANGED, {
      planId: s.planId,
    });
    expect(codesOf(await wrong.finished, wrong.received)).toEqual(['UNAUTHENTICATED']);
    expect(s.gateway.live.stats()).toMatchObject({ channels: 0, subscribers: 0 });
  });

  it('bounds the operations of one connection', async () => {
    const s = await started({ maxSubscriptionsPerConnection: 2 });
    const transport = client(s);
    transport.subscribe(TRANSACTIONS_CHANGED, { planId: s.planId });
    transport.subscribe(TRANSACTIONS_CHANGED, { planId: s.planId });
    await subscribed(s, 2);
    const third = transport.subscribe(TRANSACTIONS_CHANGED, { planId: s.planId });
    const outcome = await third.finished;
    const errors = outcome.error as { message: string; extensions?: { code?: string } }[];
    expect(errors.map((e) => e.extensions?.code)).toEqual(['TOO_MANY_SUBSCRIPTIONS']);
    expect(s.gateway.live.stats().subscribers).toBe(2);
  });

  it('closes a connection that stays idle, and one that stops answering pings', async () => {
    // The default heartbeat (12 s): an answering peer is never dropped however slow the machine.
    const s = await started({ idleTimeoutMs: 60_000 });
    const idle = await rawConnection(s.wsUrl, { authorization: `Bearer ${s.token}` });
    await s.scheduler.advance(59_999);
    expect(idle.socket.readyState).toBe(WebSocket.OPEN);
    await s.scheduler.advance(1);
    expect(await idle.closed).toEqual({ code: 1000, reason: 'idle' });

    // The heartbeat runs on real time (it watches real sockets): a peer that never answers is
    // dropped, whenever the pings come. No other connection is on this gateway.
    const pinging = await s.addGateway({
      serve: 'websocket',
      config: { live: { ...DEFAULT_LIVE, heartbeatMs: 50 } },
    });
    const silent = await rawConnection(pinging.wsUrl, { token: s.token }, { autoPong: false });
    const { code } = await silent.closed;
    expect(code).toBe(1006);
    await until(() => silent.socket.readyState === WebSocket.CLOSED, 'the silent socket closed');
  });
});
