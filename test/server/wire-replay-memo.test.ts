/**
 * The wire replay's memo of exact requests (`src/server/wire-replay.ts`): a repeated request is
 * not named again, and a repeated text operation is not admitted again but for its credentials,
 * which are checked on every request. Driven over real loopback HTTP with a fake answer cache
 * and admission, so what each request was asked (its name, whether it was taken as admitted)
 * is seen directly; test/clients/wire-replay.test.ts runs the same path against the gateway.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Admission, Bounded, RequestParams } from '../../src/admission/admission.js';
import type { CredentialsCheck } from '../../src/admission/credentials.js';
import type { Presented } from '../../src/admission/presented.js';
import { gatewayError } from '../../src/errors/codes.js';
import type { Named } from '../../src/server/plugins/http-caching/fingerprint.js';
import type { Carrier, Replay, Replayed } from '../../src/server/plugins/http-caching/replay.js';
import { createWireReplay, withWireReplay } from '../../src/server/wire-replay.js';

const QUERY = '{ plan(id: "last-used") { id } }';
const ANSWER = Buffer.from('{"data":{"plan":{"id":"p"}}}');

interface Asked {
  name: Named;
  carrier: Carrier;
}

/** A fake answer cache that answers every named request, and records what it was asked. */
function fakeReplay(asked: Asked[]): Replay {
  return {
    async answer(_request, name, carrier): Promise<Replayed> {
      asked.push({ name, carrier });
      return {
        status: 200,
        etag: `"${name.fingerprint.slice(0, 8)}"`,
        contentType: 'application/json',
        body: ANSWER,
        encoding: null,
        get: name.get,
      };
    },
    takeCarried: () => [],
  };
}

/** Admission's two stages the wire asks: bounds (all pass) and credentials (refusable). */
function fakeAdmission(revoked: Set<string>, checks: string[]) {
  const admission: Pick<Admission, 'bounded' | 'credentials'> = {
    bounded: <P extends RequestParams>(params: P) => params as Bounded<P>,
    credentials(presented: Presented): CredentialsCheck {
      const token = presented.kind === 'session' ? presented.session : presented.token;
      checks.push(token);
      if (revoked.has(token))
        return { ok: false, reason: 'refused', error: gatewayError('revoked', 'UNAUTHENTICATED') };
      return { ok: true, credentials: { token, tokenKey: `key-${token}` } };
    },
  };
  return admission;
}

describe('the wire replay memo', () => {
  const asked: Asked[] = [];
  const checks: string[] = [];
  const revoked = new Set<string>();
  let handedOn = 0;
  let server: Server;
  let smallServer: Server;

  function listen(memoMaxBytes?: number): Promise<Server> {
    const wire = createWireReplay({
      caching: {
        replay: fakeReplay(asked),
        schemaDigest: 'schema',
        metrics: 'on-request',
        maxBodyBytes: 1024 * 1024,
      },
      admission: fakeAdmission(revoked, checks),
      path: '/graphql',
      ...(memoMaxBytes === undefined ? {} : { memoMaxBytes }),
    });
    const pipeline = withWireReplay((_request, response) => {
      handedOn += 1;
      response.writeHead(418).end();
    }, wire);
    const made = createServer(pipeline);
    return new Promise((resolve) => made.listen(0, '127.0.0.1', () => resolve(made)));
  }

  beforeAll(async () => {
    server = await listen();
    smallServer = await listen(1);
  });
  afterAll(async () => {
    for (const made of [server, smallServer]) {
      made.closeAllConnections();
      await new Promise((resolve) => made.close(resolve));
    }
  });
  beforeEach(() => {
    asked.length = 0;
    checks.length = 0;
    revoked.clear();
    handedOn = 0;
  });

  function post(
    body: unknown,
    {
      token = 'alice',
      to = server,
      inParts = false,
      requestId,
      seen,
    }: {
      token?: string;
      to?: Server;
      inParts?: boolean;
      requestId?: string;
      /** Receives the response's `x-request-id`. */
      seen?: (id: string | undefined) => void;
    } = {},
  ): Promise<number> {
    const { port } = to.address() as AddressInfo;
    const text = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const sent = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/graphql',
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
            authorization: `Bearer ${token}`,
            ...(requestId === undefined ? {} : { 'x-request-id': requestId }),
          },
        },
        (response) => {
          seen?.(single(response.headers['x-request-id']));
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      sent.on('error', reject);
      if (!inParts) sent.end(text);
      else {
        // The body's halves written apart, so the server reads it in more than one chunk.
        const half = Math.floor(text.length / 2);
        sent.write(text.slice(0, half), () => setImmediate(() => sent.end(text.slice(half))));
      }
    });
  }

  it('names a repeated request once and takes its text operation as admitted, checking credentials each time', async () => {
    expect(await post({ query: QUERY })).toBe(200);
    expect(await post({ query: QUERY })).toBe(200);
    expect(await post({ query: QUERY })).toBe(200);
    expect(asked.map((a) => a.carrier.admitted)).toEqual([undefined, true, true]);
    // The same name each time (the memo's), and stage 5 asked on every request.
    expect(new Set(asked.map((a) => a.name.fingerprint)).size).toBe(1);
    expect(checks).toEqual(['alice', 'alice', 'alice']);
  });

  it('never replays for a token refused since (revoked): the pipeline answers it', async () => {
    expect(await post({ query: QUERY, operationName: null })).toBe(200);
    expect(await post({ query: QUERY, operationName: null })).toBe(200);
    revoked.add('alice');
    expect(await post({ query: QUERY, operationName: null })).toBe(418);
    expect(handedOn).toBe(1);
    expect(asked).toHaveLength(2);
  });

  it('names another token, and another body, afresh: never the memo of another', async () => {
    await post({ query: QUERY, variables: { a: 1 } });
    await post({ query: QUERY, variables: { a: 1 } });
    await post({ query: QUERY, variables: { a: 1 } }, { token: 'bob' });
    await post({ query: QUERY, variables: { a: 2 } });
    // As long as the other body, and sent under the same head: still its own memo.
    await post({ query: QUERY, variables: { a: 1 } });
    const [first, again, bob, other, back] = asked;
    expect(again!.name.fingerprint).toBe(first!.name.fingerprint);
    expect(again!.carrier.admitted).toBe(true);
    expect(bob!.name.credentials?.tokenKey).toBe('key-bob');
    expect(bob!.name.fingerprint).not.toBe(first!.name.fingerprint);
    expect(bob!.carrier.admitted).toBeUndefined();
    expect(other!.name.fingerprint).not.toBe(first!.name.fingerprint);
    expect(other!.carrier.admitted).toBeUndefined();
    expect(back!.name.fingerprint).toBe(first!.name.fingerprint);
    expect(back!.carrier.admitted).toBe(true);
  });

  it('reads a body sent in parts as the same request as one sent at once', async () => {
    expect(await post({ query: QUERY, variables: { parts: 1 } }, { inParts: true })).toBe(200);
    expect(await post({ query: QUERY, variables: { parts: 1 } })).toBe(200);
    expect(await post({ query: QUERY, variables: { parts: 1 } }, { inParts: true })).toBe(200);
    expect(handedOn).toBe(0);
    expect(new Set(asked.map((a) => a.name.fingerprint)).size).toBe(1);
    expect(asked.map((a) => a.carrier.admitted)).toEqual([undefined, true, true]);
  });

  it("sends each replay's own request id, never one kept from another", async () => {
    const ids: (string | undefined)[] = [];
    const seen = (id: string | undefined) => ids.push(id);
    await post({ query: QUERY, variables: { id: 1 } }, { requestId: 'first-request', seen });
    await post({ query: QUERY, variables: { id: 1 } }, { requestId: 'second-request', seen });
    await post({ query: QUERY, variables: { id: 1 } }, { seen });
    expect(ids.slice(0, 2)).toEqual(['first-request', 'second-request']);
    expect(ids[2]).toMatch(/^[0-9a-f-]{36}$/);
    expect(asked.map((a) => a.carrier.requestId)).toEqual(ids);
  });

  it('admits a hash-only request every time: the store that resolves its hash may forget it', async () => {
    const byHash = { extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } };
    await post(byHash);
    await post(byHash);
    expect(asked.map((a) => a.carrier.admitted)).toEqual([undefined, undefined]);
  });

  it('holds no more than its bytes: a request it cannot keep is named every time', async () => {
    await post({ query: QUERY }, { to: smallServer });
    await post({ query: QUERY }, { to: smallServer });
    expect(asked.map((a) => a.carrier.admitted)).toEqual([undefined, undefined]);
    expect(asked[1]!.name).not.toBe(asked[0]!.name);
  });
});

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
