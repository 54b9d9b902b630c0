/**
 * The gateway as a subgraph behind a real router (issue 21): composed with a second subgraph
 * (notes on transactions, naming their accounts) by The Guild's and Apollo's composition, served
 * by Hive Gateway's runtime on loopback. A query spanning both answers what the gateway answers
 * directly plus the notes, for the same upstream calls; tokens, error codes, subscriptions and
 * `@defer` pass through the router.
 */
import { type IncomingMessage, request } from 'node:http';
import { meros } from 'meros';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf } from '../gateway/support/responses.js';
import { sseClient } from '../live/support/subscribers.js';
import { gqlAt } from '../support/graphql.js';
import { type Stack, startStack } from '../support/stack.js';
import {
  type Federation,
  notesOnNewest,
  PLANS_SDL,
  startFederation,
} from './support/federation.js';
import { NOTES_SDL, type Note } from './support/notes-subgraph.js';
import { type Composer, compose } from './support/router.js';

const TOKEN = 'federation-router-token-0001';
const OTHER_TOKEN = 'federation-router-token-0002';
const COMPOSERS: Composer[] = ['guild', 'apollo'];

let stack: Stack;
let notes: Note[];
beforeAll(async () => {
  stack = await startStack({
    token: TOKEN,
    sandbox: {
      rateLimit: false,
      users: [
        { token: TOKEN, plans: [{ seed: 11, transactions: 400 }] },
        { token: OTHER_TOKEN, plans: [{ seed: 12, transactions: 20 }] },
      ],
    },
  });
  notes = await notesOnNewest(stack, 100);
});
afterAll(() => stack.close());

const PAGE = 30;

/** A screen of the plan, as a client of the gateway asks for it. */
const DIRECT = /* GraphQL */ `
  query Screen($planId: PlanId!) {
    plan(id: $planId) {
      id
      name
      transactions(first: ${PAGE}) {
        totalCount
        nodes {
          id
          date
          amount
          amountFormatted
          payee { id name }
          category { id name }
          account { id name balance }
        }
      }
    }
  }
`;
/** The same screen through the router, with each transaction's notes and their accounts. */
const SPANNING = DIRECT.replace(
  'account { id name balance }',
  'account { id name balance } notes { id text account { id name balance } }',
);

interface ScreenNode {
  id: string;
  account: { id: string; name: string; balance: number };
  notes?: { id: string; text: string; account: { id: string; name: string; balance: number } }[];
}
interface Screen {
  plan: { transactions: { nodes: ScreenNode[] } };
}

describe('composition', () => {
  it.each(COMPOSERS)('composes the gateway with the notes subgraph (%s)', (composer) => {
    const composed = compose(composer, [
      { name: 'plans', url: 'http://plans.invalid/subgraph', sdl: PLANS_SDL },
      { name: 'notes', url: 'http://notes.invalid/graphql', sdl: NOTES_SDL },
    ]);
    if ('errors' in composed) throw new Error(composed.errors.join('\n'));
    const { supergraphSdl } = composed;
    // Both subgraphs resolve Transaction by the gateway's key; Account only from the gateway.
    expect(supergraphSdl).toMatch(/join__type\(graph: PLANS, key: "planId id"\)/);
    expect(supergraphSdl).toMatch(/join__type\(graph: NOTES, key: "planId id"\)/);
    expect(supergraphSdl).toMatch(
      /join__type\(graph: NOTES, key: "planId id", resolvable: false\)/,
    );
    expect(supergraphSdl).toContain('http://plans.invalid/subgraph');
  });
});

describe('a query spanning both subgraphs', () => {
  it.each(COMPOSERS)(
    'answers what the gateway answers directly, plus the notes, for the same upstream calls (%s)',
    async (composer) => {
      const federation = await startFederation(stack, notes, composer);
      const direct = await stack.addGateway();
      try {
        stack.resetUpstreamCalls();
        const routed = await gqlAt<Screen>(
          federation.router.url,
          SPANNING,
          { planId: stack.planId },
          TOKEN,
        );
        const routedCalls = stack.upstreamCalls();
        stack.resetUpstreamCalls();
        const alone = await direct.gql<Screen>(DIRECT, { planId: stack.planId });
        const directCalls = stack.upstreamCalls();

        const withNotes = dataOf(routed);
        const withoutNotes = structuredClone(withNotes);
        for (const node of withoutNotes.plan.transactions.nodes) delete node.notes;
        expect(withoutNotes).toEqual(dataOf(alone));
        // Each transaction carries its note, whose account the gateway resolved as an entity.
        for (const node of withNotes.plan.transactions.nodes) {
          const expected = notes.filter((note) => note.transactionId === node.id);
          expect(node.notes).toEqual(
            expected.map((note) => ({ id: note.id, text: note.text, account: node.account })),
          );
        }
        expect(withNotes.plan.transactions.nodes.filter((n) => n.notes?.length)).toHaveLength(PAGE);
        expect(routedCalls).toEqual(['getPlanById']);
        expect(routedCalls).toEqual(directCalls);
      } finally {
        await direct.close();
        await federation.close();
      }
    },
  );

  it('resolves 100 transactions named by the notes subgraph in one entity request, one upstream call cold and none warm', async () => {
    const federation = await startFederation(stack, notes, 'guild');
    const query = `query ($planId: ID!) {
      notes(planId: $planId) { id transaction { id planId amount payee { name } } account { name } }
    }`;
    try {
      stack.resetUpstreamCalls();
      const cold = await gqlAt<{
        notes: { id: string; transaction: { id: string; planId: string } }[];
      }>(federation.router.url, query, { planId: stack.planId }, TOKEN);
      const found = dataOf(cold).notes;
      expect(found).toHaveLength(100);
      expect(found.map((note) => note.transaction.id)).toEqual(notes.map((n) => n.transactionId));
      expect(stack.upstreamCalls()).toEqual(['getPlanById']);
      // The router sends the transactions and the accounts in one request: never one per note.
      expect(federation.entityRequests()).toBe(1);

      stack.resetUpstreamCalls();
      const warm = await gqlAt(federation.router.url, query, { planId: stack.planId }, TOKEN);
      expect(dataOf(warm)).toEqual(dataOf(cold));
      expect(stack.upstreamCalls()).toEqual([]);
    } finally {
      await federation.close();
    }
  });
});

describe('tokens and errors through the router', () => {
  let federation: Federation;
  beforeAll(async () => {
    federation = await startFederation(stack, notes, 'guild');
  });
  afterAll(() => federation.close());

  it("forwards each client's own token: an entity fetch without one is UNAUTHENTICATED", async () => {
    const query = `query ($planId: ID!) { notes(planId: $planId) { id transaction { amount } } }`;
    stack.resetUpstreamCalls();
    const anonymous = await gqlAt(federation.router.url, query, { planId: stack.planId }, null);
    expect(anonymous.body.data ?? null).toBeNull();
    expect(anonymous.body.errors?.[0]).toMatchObject({
      path: ['notes', 0, 'transaction', 'amount'],
      extensions: { code: 'UNAUTHENTICATED' },
    });
    expect(stack.upstreamCalls()).toEqual([]);

    // Another user's token reaches the upstream as theirs: their plans, not this one's.
    const other = await gqlAt<{ plans: { id: string }[] }>(
      federation.router.url,
      '{ plans { id } }',
      {},
      OTHER_TOKEN,
    );
    expect(dataOf(other).plans.map((p) => p.id)).toEqual(stack.sandbox.users[1]!.planIds);
    expect(stack.callsOf(OTHER_TOKEN)).toContain('getPlans');
  });

  it("keeps the gateway's codes and extensions: NOT_FOUND with the REST error, BAD_USER_INPUT naming the field", async () => {
    const otherPlan = stack.sandbox.users[1]!.planIds[0]!;
    const notFound = await gqlAt(
      federation.router.url,
      'query ($planId: PlanId!) { plan(id: $planId) { name } }',
      { planId: otherPlan },
      TOKEN,
    );
    expect(notFound.body.errors?.[0]).toMatchObject({
      path: ['plan'],
      extensions: {
        code: 'NOT_FOUND',
        upstream: { status: 404, id: '404.2', name: 'resource_not_found' },
      },
    });

    const badInput = await gqlAt(
      federation.router.url,
      '{ plan(id: "last-used") { transactions(first: 5, sinceDate: "2025-02-30") { totalCount } } }',
      {},
      TOKEN,
    );
    expect(badInput.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(badInput.body.errors?.[0]?.message).toContain('2025-02-30');
  });

  it("keeps the gateway's refusal of an operation over its limits", async () => {
    const deep = `{ plan(id: "last-used") { accounts { ${'transferPayee { transferAccount { '.repeat(6)}id${' } }'.repeat(6)} } } }`;
    stack.resetUpstreamCalls();
    const refused = await gqlAt(federation.router.url, deep, {}, TOKEN);
    expect(refused.body.errors?.[0]).toMatchObject({
      path: ['plan'],
      extensions: { code: 'OPERATION_TOO_COMPLEX', limit: 'depth', max: 12 },
    });
    expect(stack.upstreamCalls()).toEqual([]);
  });
});

describe('subscriptions and @defer through the router', () => {
  let federation: Federation;
  beforeAll(async () => {
    federation = await startFederation(stack, notes, 'apollo');
  });
  afterAll(() => federation.close());

  it('streams plan changes with the notes of each transaction, and a write through the router', async () => {
    const sse = sseClient(federation.router.url, TOKEN);
    const subscriber = sse.subscribe<{
      planChanged: {
        origin: string;
        transactions: { id: string; memo: string | null; notes: { text: string }[] }[];
      };
    }>(
      `subscription ($planId: PlanId!) {
        planChanged(planId: $planId, since: 0) { origin transactions { id memo notes { text } } }
      }`,
      { planId: stack.planId },
    );
    try {
      const noted = notes[0]!;
      const replay = await subscriber.until(
        (r) => r.data?.planChanged.transactions.some((t) => t.id === noted.transactionId) ?? false,
        'the noted transaction in the replay',
      );
      expect(replay.data?.planChanged.origin).toBe('REPLAY');
      expect(
        replay.data?.planChanged.transactions.find((t) => t.id === noted.transactionId)?.notes,
      ).toEqual([{ text: noted.text }]);

      const account = notes[0]!.accountId;
      const written = await gqlAt<{ createTransaction: { transaction: { id: string } } }>(
        federation.router.url,
        `mutation ($planId: PlanId!, $account: UUID!) {
          createTransaction(planId: $planId, input: { accountId: $account, date: "${new Date().toISOString().slice(0, 10)}", amount: -1000, memo: "through the router" }) {
            ... on CreateTransactionPayload { transaction { id } }
          }
        }`,
        { planId: stack.planId, account },
        TOKEN,
      );
      const createdId = dataOf(written).createTransaction.transaction.id;
      const event = await subscriber.until(
        (r) =>
          r.data?.planChanged.origin === 'WRITE' &&
          r.data.planChanged.transactions.some((t) => t.id === createdId),
        'the write',
      );
      expect(event.data?.planChanged.transactions.find((t) => t.id === createdId)).toEqual({
        id: createdId,
        memo: 'through the router',
        notes: [],
      });
    } finally {
      subscriber.stop();
      await sse.close();
    }
  });

  it('delivers a deferred part with its notes after the first', async () => {
    const response = await post(
      federation.router.url,
      `query ($planId: PlanId!) {
        plan(id: $planId) {
          name
          ... @defer { transactions(first: 3) { nodes { id notes { text } } } }
        }
      }`,
      { planId: stack.planId },
    );
    expect(response.headers['content-type']).toContain('multipart/mixed');
    interface Part {
      data?: { plan: { name: string } };
      incremental?: { data: { transactions: { nodes: { id: string; notes: unknown[] }[] } } }[];
      hasNext: boolean;
    }
    const received: Part[] = [];
    const parts = (await meros<Part>(response)) as AsyncGenerator<{ body: Part }>;
    for await (const part of parts) received.push(part.body);
    expect(received.length).toBeGreaterThanOrEqual(2);
    expect(received[0]).toMatchObject({
      data: { plan: { name: expect.any(String) } },
      hasNext: true,
    });
    expect(received.at(-1)?.hasNext).toBe(false);
    const deferred = received.flatMap((part) => part.incremental ?? []);
    const nodes = deferred.flatMap((item) => item.data.transactions?.nodes ?? []);
    expect(nodes).toHaveLength(3);
    for (const node of nodes)
      expect(node.notes).toEqual(
        notes.filter((n) => n.transactionId === node.id).map((n) => ({ text: n.text })),
      );
    // The newest transactions carry notes (a write through the router may have come first).
    expect(nodes.some((node) => node.notes.length > 0)).toBe(true);
  });
});

function post(url: string, query: string, variables: unknown): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'multipart/mixed',
        authorization: `Bearer ${TOKEN}`,
      },
    });
    req.on('response', resolve).on('error', reject);
    req.end(JSON.stringify({ query, variables }));
  });
}
