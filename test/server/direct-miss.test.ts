/**
 * The direct path of misses (`src/server/direct-miss.ts`) against yoga: one gateway, two ports,
 * one with the direct path in front of yoga and one with yoga alone. Each request of a corpus
 * (varied variables, accepts, encodings and tokens; a bad id, a missing plan, an upstream failure,
 * a cost refusal, invalid documents, an unexpected throw, GET, a mutation) is sent to both in turn
 * and must get the same status, the same bytes (compressed or not) and the same headers (but the
 * date and the connection's).
 * A token the upstream refused is never answered by the direct path.
 */
import { createServer, type RequestListener, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DirectMiss } from '../../src/server/direct-miss.js';
import { withFrontDoor } from '../../src/server/front-door.js';
import { decodedBody } from '../support/content-encoding.js';
import { type ClockedStack, type Stack, startStack } from '../support/stack.js';

const TOKEN = 'direct-miss-token';
const DASHBOARD = `query Dashboard($planId: PlanId! = "last-used") {
  plan(id: $planId) { id name month(month: "current") { toBeBudgeted ageOfMoney }
    accounts { id name balance balanceFormatted } categoryGroups { name categories { name balance } } }
}`;
/** A user no request reads before the upstream fails. */
const COLD_TOKEN = 'direct-miss-cold-token';
const ACCOUNTS = '{ plan(id: "last-used") { accounts { name } } }';

interface Answer {
  status: number;
  /** The body as sent (compressed or not), and as text (decompressed). */
  bytes: Buffer;
  body: string;
  headers: Record<string, string>;
}

/** A secret no answer may carry: the message of an unexpected throw after admission. */
const SECRET = 'direct-miss-secret-detail';

/** Throws, unexpectedly, while executing any operation whose variables ask it to. */
const exploding: Plugin = {
  onExecute({ args }) {
    if (args.variableValues?.explode === true) throw new Error(SECRET);
  },
};

const IGNORED = new Set(['date', 'connection', 'keep-alive']);

/** Sends with node's client: exactly the headers given (fetch adds its own). */
function send(port: number, init: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port,
        path: init.path ?? '/graphql',
        method: init.method,
        headers: init.rawHeaders
          ? [...Object.entries(init.headers).flat(), ...init.rawHeaders]
          : init.headers,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [key, value] of Object.entries(response.headers))
            if (!IGNORED.has(key) && value !== undefined) headers[key] = String(value);
          const bytes = Buffer.concat(chunks);
          const plain = decodedBody(bytes, headers['content-encoding']);
          resolve({
            status: response.statusCode ?? 0,
            bytes,
            body: plain.toString('utf8'),
            headers,
          });
        });
      },
    );
    sent.on('error', reject);
    sent.end(init.body);
  });
}

interface Sent {
  method: 'GET' | 'POST';
  /** Extra header lines, repeated names kept. */
  rawHeaders?: string[];
  path?: string;
  headers: Record<string, string>;
  body?: string;
}

/** A GET of `params` (each percent-encoded), with the token unless `token` is null. */
function getOf(
  params: Record<string, string>,
  headers: Record<string, string> = {},
  token: string | null = TOKEN,
): Sent {
  const search = Object.entries(params)
    .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
    .join('&');
  return {
    method: 'GET',
    path: `/graphql?${search}`,
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...headers },
  };
}

function post(
  body: unknown,
  { token = TOKEN, headers = {} }: { token?: string | null; headers?: Record<string, string> } = {},
): Sent {
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

describe('the direct path of misses', () => {
  let stack: Stack & ClockedStack;
  let directPort: number;
  let yogaPort: number;
  const servers: Server[] = [];
  /** Requests the direct path answered (the rest it handed on to yoga). */
  let answered = 0;
  let otherPlan = '';

  async function serve(handler: RequestListener): Promise<number> {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  beforeAll(async () => {
    stack = await startStack({
      clock: 'manual',
      sandbox: {
        rateLimit: false,
        users: [
          {
            token: TOKEN,
            plans: [
              { seed: 3, transactions: 60 },
              { seed: 4, transactions: 5 },
            ],
          },
          { token: COLD_TOKEN, plans: [{ seed: 9, transactions: 5 }] },
        ],
      },
      config: { metrics: 'on-request', directMisses: true },
      deps: { plugins: [exploding] },
    });
    const direct = stack.gateway.directMiss;
    if (!direct) throw new Error('no direct path');
    const counted: DirectMiss = async (request, response) => {
      const done = await direct(request, response);
      if (done) answered += 1;
      return done;
    };
    // As the port serves it: replays at the wire first, then the direct path, then yoga.
    directPort = await serve(
      withFrontDoor(stack.gateway.yoga, {
        wireReplay: stack.gateway.wireReplay,
        directMiss: counted,
      }),
    );
    yogaPort = await serve(stack.gateway.yoga);
    const plans = await send(yogaPort, post({ query: '{ plans { id } }' }));
    const ids = (JSON.parse(plans.body) as { data: { plans: { id: string }[] } }).data.plans;
    otherPlan = ids[1]!.id;
  });

  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await stack.close();
  });

  /** The same request through both ports (direct first), the answers compared. */
  async function same(init: Sent): Promise<Answer> {
    const viaDirect = await send(directPort, init);
    const viaYoga = await send(yogaPort, init);
    expect(viaDirect.status).toBe(viaYoga.status);
    expect(viaDirect.body).toBe(viaYoga.body);
    expect(viaDirect.bytes.equals(viaYoga.bytes)).toBe(true);
    expect(viaDirect.headers).toEqual(viaYoga.headers);
    return viaDirect;
  }

  it('answers plain misses as yoga does, byte for byte', async () => {
    const before = answered;
    for (let nonce = 0; nonce < 6; nonce += 1) {
      const answer = await same(
        post(
          { query: DASHBOARD, variables: { nonce } },
          { headers: { 'x-request-id': `r-${nonce}` } },
        ),
      );
      expect(answer.status).toBe(200);
      expect(answer.body).toMatch(/^\{"data":\{"plan":/);
    }
    await same(
      post(
        { query: DASHBOARD, variables: { planId: otherPlan, nonce: 'x' } },
        { headers: { 'x-request-id': 'other' } },
      ),
    );
    await same(
      post({ query: ACCOUNTS, operationName: null }, { headers: { 'x-request-id': 'a' } }),
    );
    expect(answered - before).toBe(8);
  });

  it('answers each accepted media type as yoga does', async () => {
    const before = answered;
    for (const accept of ['application/graphql-response+json', '*/*']) {
      const answer = await same(
        post(
          { query: ACCOUNTS, variables: { accept } },
          { headers: { accept, 'x-request-id': 'm' } },
        ),
      );
      expect(answer.status).toBe(200);
    }
    const init = post(
      { query: ACCOUNTS, variables: { accept: 'none' } },
      { headers: { 'x-request-id': 'n' } },
    );
    delete init.headers.accept;
    await same(init);
    expect(answered - before).toBe(3);
  });

  it('compresses as the compression plugin does', async () => {
    const before = answered;
    const encodings = [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0.5, gzip', 'gzip'],
      ['*', 'br'],
      ['br;q=0, gzip;q=0', undefined],
      ['deflate', undefined],
    ] as const;
    for (const [acceptEncoding, expected] of encodings) {
      const answer = await same(
        post(
          { query: DASHBOARD, variables: { acceptEncoding } },
          { headers: { 'accept-encoding': acceptEncoding, 'x-request-id': 'z' } },
        ),
      );
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBe(expected);
      expect(answer.body).toMatch(/^\{"data":\{"plan":/);
    }
    // Under the threshold (1 KiB): sent as it is, though asked for; an error, compressed.
    const small = await same(
      post(
        { query: '{ plan(id: "last-used") { id } }' },
        { headers: { 'accept-encoding': 'gzip', 'x-request-id': 'zs' } },
      ),
    );
    expect(small.headers['content-encoding']).toBeUndefined();
    await same(
      post(
        { query: DASHBOARD, variables: { planId: 'not-a-plan' } },
        { headers: { 'accept-encoding': 'gzip, deflate, br', 'x-request-id': 'ze' } },
      ),
    );
    expect(answered - before).toBe(encodings.length + 2);
  });

  it('answers GET queries as yoga does, ETag and all', async () => {
    const before = answered;
    const cases = [
      getOf({ query: ACCOUNTS, variables: '{"get":1}' }, { 'x-request-id': 'q1' }),
      getOf(
        { query: DASHBOARD, operationName: 'Dashboard', variables: '{"get":2}' },
        { 'x-request-id': 'q2', 'accept-encoding': 'gzip, deflate, br' },
      ),
      getOf(
        { query: ACCOUNTS, variables: '{"get":3}' },
        { 'x-request-id': 'q3', accept: 'application/graphql-response+json' },
      ),
      getOf({ query: DASHBOARD, variables: '{"planId":"not-a-plan"}' }, { 'x-request-id': 'q4' }),
      getOf({ query: '{ plan(id: "last-used") { ' }, { 'x-request-id': 'q5' }),
    ];
    for (const init of cases) await same(init);
    expect(answered - before).toBe(cases.length);
    // Seen twice (once per port): kept, so the wire replays it now, with the same ETag.
    const tagged = await same(cases[1]!);
    expect(tagged.headers.etag).toMatch(/-br"$/);
    expect(answered - before).toBe(cases.length);
  });

  it('answers errors and refusals as yoga does', async () => {
    const before = answered;
    const cases = [
      // A bad id, a plan not found, wrong variables, an unknown field, a missing variable.
      post(
        { query: DASHBOARD, variables: { planId: 'not-a-plan' } },
        { headers: { 'x-request-id': 'e1' } },
      ),
      post(
        { query: DASHBOARD, variables: { planId: '00000000-0000-4000-8000-000000000000' } },
        { headers: { 'x-request-id': 'e2' } },
      ),
      post({ query: DASHBOARD, variables: { planId: 42 } }, { headers: { 'x-request-id': 'e3' } }),
      post({ query: '{ plan(id: "last-used") { nope } }' }, { headers: { 'x-request-id': 'e4' } }),
      post(
        { query: 'query Q($p: PlanId!) { plan(id: $p) { id } }' },
        { headers: { 'x-request-id': 'e5' } },
      ),
      post({ query: '{ plan(id: "last-used") { ' }, { headers: { 'x-request-id': 'e6' } }),
      // Priced over the cost limit: refused by admission before anything runs.
      post(
        {
          query:
            '{ plan(id: "last-used") { accounts { transactions(first: 100000) { nodes { id } } } } }',
        },
        { headers: { 'x-request-id': 'e7' } },
      ),
    ];
    for (const init of cases) {
      const answer = await same(init);
      expect(answer.body).toContain('"errors"');
    }
    expect(answered - before).toBe(cases.length);
  });

  it('answers an upstream failure as yoga does', async () => {
    stack.sandbox.setFaults([{ kind: 'status500' }]);
    const before = answered;
    try {
      const answer = await same(
        post(
          { query: DASHBOARD, operationName: 'Dashboard' },
          { token: COLD_TOKEN, headers: { 'x-request-id': 'u' } },
        ),
      );
      expect(answer.body).toContain('"errors"');
      expect(answered - before).toBe(1);
    } finally {
      stack.sandbox.setFaults([]);
    }
  });

  it('keeps an answer from its second sight, and the wire replays it', async () => {
    const init = post({ query: DASHBOARD, variables: { seen: 'thrice' } });
    const before = answered;
    const first = await send(directPort, init);
    const second = await send(directPort, init);
    const third = await send(directPort, init);
    // Executed twice by the direct path (kept the second time), then replayed at the wire.
    expect(answered - before).toBe(2);
    expect(second.body).toBe(first.body);
    expect(third.body).toBe(first.body);
    expect(third.headers['content-type']).toBe(first.headers['content-type']);
  });

  it('runs a miss on what the wire read of it: its credentials checked once', async () => {
    const { admission } = stack.gateway;
    const check = admission.credentials;
    let checks = 0;
    admission.credentials = (presented) => {
      checks += 1;
      return check(presented);
    };
    try {
      const before = answered;
      const answer = await same(
        post(
          { query: DASHBOARD, variables: { read: 'once' } },
          { headers: { 'x-request-id': 'once' } },
        ),
      );
      expect(answer.status).toBe(200);
      expect(answered - before).toBe(1);
      // The direct port's request, then the yoga port's: one check each.
      expect(checks).toBe(2);
      // What the wire named is still held to the direct path's own rules: not a plain request.
      await same(
        post(
          { query: DASHBOARD, variables: { read: 'x' }, extensions: {} },
          { headers: { 'x-request-id': 'x' } },
        ),
      );
      expect(answered - before).toBe(1);
    } finally {
      admission.credentials = check;
    }
  });

  it('hands everything else on to yoga untouched', async () => {
    const before = answered;
    await same(getOf({ query: ACCOUNTS, extensions: '{}' }, { 'x-request-id': 'g1' }));
    await same(getOf({ query: 'mutation { __typename }' }, { 'x-request-id': 'g2' }));
    await same(getOf({ query: ACCOUNTS }, { 'x-request-id': 'g3', 'if-none-match': '"x"' }));
    await same({
      method: 'GET',
      path: `/graphql?query=${encodeURIComponent(ACCOUNTS).replaceAll('%20', '+')}`,
      headers: { authorization: `Bearer ${TOKEN}`, 'x-request-id': 'g4' },
    });
    await same(getOf({ query: ACCOUNTS }, { 'x-request-id': 'g5' }, null));
    await same(
      post(
        { query: ACCOUNTS },
        { headers: { origin: 'http://elsewhere.example', 'x-request-id': 'o' } },
      ),
    );
    await same(post({ query: ACCOUNTS, extensions: {} }, { headers: { 'x-request-id': 'x' } }));
    await same(post({ query: ACCOUNTS }, { token: null, headers: { 'x-request-id': 't' } }));
    await same(post({ query: 'mutation { __typename }' }, { headers: { 'x-request-id': 'mu' } }));
    await same(post('{"query":', { headers: { 'x-request-id': 'j' } }));
    await same(
      post(
        { query: ACCOUNTS },
        { headers: { 'content-type': 'application/json-seq', 'x-request-id': 'c' } },
      ),
    );
    await same({
      ...post({ query: ACCOUNTS }, { headers: { 'x-request-id': 'd' } }),
      // Two credentials: neither path may pick one the other would not.
      rawHeaders: ['Authorization', 'Bearer another-token'],
    });
    expect(answered - before).toBe(0);
  });

  it('answers an unexpected throw after admission as yoga does, and serves on', async () => {
    const before = answered;
    // yoga masks it (maskAndLog) into an error of the result: 200 in both media types.
    for (const [accept, status] of [
      ['application/json', 200],
      ['application/graphql-response+json', 200],
    ] as const) {
      const answer = await same(
        post(
          { query: ACCOUNTS, variables: { explode: true } },
          { headers: { accept, 'x-request-id': 'boom' } },
        ),
      );
      expect(answer.status).toBe(status);
      expect(answer.body).toContain('"Unexpected error."');
      expect(answer.body).not.toContain(SECRET);
    }
    expect(answered - before).toBe(2);
    // Nothing held: the same request without the throw is answered by the direct path.
    const after = await same(
      post(
        { query: ACCOUNTS, variables: { explode: false } },
        { headers: { 'x-request-id': 'after' } },
      ),
    );
    expect(after.status).toBe(200);
    expect(answered - before).toBe(3);
  });

  it('never answers a token the upstream refused', async () => {
    const unknown = 'direct-miss-unknown-token';
    // Its first use finds out (upstream 401); from then on admission refuses it, in yoga.
    const first = await send(
      directPort,
      post({ query: ACCOUNTS }, { token: unknown, headers: { 'x-request-id': 'k' } }),
    );
    expect(first.body).toContain('UNAUTHENTICATED');
    const before = answered;
    for (let i = 0; i < 3; i += 1) {
      const answer = await same(
        post(
          { query: ACCOUNTS, variables: { i } },
          { token: unknown, headers: { 'x-request-id': `k${i}` } },
        ),
      );
      expect(answer.body).toContain('UNAUTHENTICATED');
    }
    expect(answered).toBe(before);
  });
});
