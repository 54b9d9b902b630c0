import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayErrorCode,
  gatewayErrorCode,
  isUpstreamError,
  UpstreamError,
  type UpstreamErrorInit,
} from '../../src/errors/upstream-error.js';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/client.js';
import {
  sendJson,
  sendRestError,
  startTestServer,
  type TestServer,
} from '../upstream/support/http-server.js';

const TOKEN = 'errors-test-token-abcdefghijklmnop';
const PLAN = 'plan-1';

let server: TestServer;
let client: UpstreamClient;

beforeAll(async () => {
  server = await startTestServer();
  client = createUpstreamClient({
    baseUrl: server.baseUrl,
    readBackoff: false,
    // One token meets every status here; a remembered 401 would answer the later cases.
    tokenGate: false,
    sleep: async () => {},
  });
});
afterAll(async () => {
  await client.close();
  await server.close();
});
afterEach(() => {
  server.requests.length = 0;
});

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!isUpstreamError(error)) throw new Error(`expected an UpstreamError, got ${inspect(error)}`);
  return error;
}

describe('REST errors are decoded verbatim and mapped to gateway codes', () => {
  const CASES: Array<[number, string, string, GatewayErrorCode]> = [
    [400, '400', 'bad_request', 'BAD_REQUEST'],
    [401, '401', 'not_authorized', 'UNAUTHENTICATED'],
    [403, '403.1', 'subscription_lapsed', 'SUBSCRIPTION_LAPSED'],
    [403, '403.2', 'trial_expired', 'TRIAL_EXPIRED'],
    [403, '403.3', 'unauthorized_scope', 'READ_ONLY_SCOPE'],
    [403, '403.4', 'data_limit_reached', 'DATA_LIMIT_REACHED'],
    [404, '404.1', 'not_found', 'NOT_FOUND'],
    [404, '404.2', 'resource_not_found', 'NOT_FOUND'],
    [409, '409', 'conflict', 'CONFLICT'],
    [429, '429', 'too_many_requests', 'RATE_LIMITED'],
    [500, '500', 'internal_server_error', 'UPSTREAM_ERROR'],
    [503, '503', 'service_unavailable', 'UPSTREAM_UNAVAILABLE'],
  ];

  it.each(CASES)('%i %s %s → %s', async (status, id, name, code) => {
    const detail = `Detail of ${id}, with "quotes" and ünïcode`;
    server.handle((_request, res) => sendRestError(res, status, id, name, detail));

    const error = await failure(client.getAccounts({ token: TOKEN }, { planId: PLAN }));

    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('UpstreamError');
    expect(error).toMatchObject({
      operationId: 'getAccounts',
      method: 'GET',
      status,
      kind: 'http',
      upstream: { status, id, name, detail },
      outcomeUnknown: false,
    });
    expect(gatewayErrorCode(error)).toBe(code);
    expect(error.message).toContain(`getAccounts (GET)`);
    expect(error.message).toContain(`${status} ${id} ${name}`);
  });

  it('synthesizes the REST error for a non-JSON error body, never copying the body', async () => {
    server.handle((_request, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<html><pre>Traceback: at secret_internal_function (app.rb:12)</pre></html>');
    });
    const error = await failure(client.getUser({ token: TOKEN }));
    expect(error.upstream).toEqual({
      status: 503,
      id: '503',
      name: 'service_unavailable',
      detail: 'The upstream answered HTTP 503 with a body that is not a REST error',
    });
    expect(gatewayErrorCode(error)).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.message).not.toContain('Traceback');
    expect(JSON.stringify(error.upstream)).not.toContain('secret_internal_function');
  });

  it('synthesizes for an empty error body and for JSON that is not the error wrapper', async () => {
    server.handle((_request, res) => {
      res.writeHead(502);
      res.end();
    });
    const empty = await failure(client.getUser({ token: TOKEN }));
    expect(empty.upstream).toEqual({
      status: 502,
      id: '502',
      name: 'bad_gateway',
      detail: 'The upstream answered HTTP 502 with an empty body',
    });
    expect(gatewayErrorCode(empty)).toBe('UPSTREAM_UNAVAILABLE');

    server.handle((_request, res) => sendJson(res, 404, { message: 'nope' }));
    const notWrapper = await failure(client.getUser({ token: TOKEN }));
    expect(notWrapper.upstream).toMatchObject({ status: 404, id: '404', name: 'not_found' });
    expect(gatewayErrorCode(notWrapper)).toBe('NOT_FOUND');
  });

  it('maps a 403 with an unknown sub-id to FORBIDDEN', async () => {
    server.handle((_request, res) => sendRestError(res, 403, '403.9', 'something_new', 'x'));
    const error = await failure(client.getUser({ token: TOKEN }));
    expect(error.upstream?.id).toBe('403.9');
    expect(gatewayErrorCode(error)).toBe('FORBIDDEN');
  });

  it('redacts the token if the upstream ever echoes it in an error', async () => {
    server.handle((_request, res) =>
      sendRestError(res, 401, '401', 'not_authorized', `Token ${TOKEN} is revoked`),
    );
    const error = await failure(client.getUser({ token: TOKEN }));
    expect(error.upstream?.detail).toBe('Token [redacted] is revoked');
    expect(error.message).not.toContain(TOKEN);
  });

  it('keeps long details whole in upstream but short in the message', async () => {
    const detail = 'x'.repeat(1_000);
    server.handle((_request, res) => sendRestError(res, 400, '400', 'bad_request', detail));
    const error = await failure(client.getUser({ token: TOKEN }));
    expect(error.upstream?.detail).toBe(detail);
    expect(error.message.length).toBeLessThan(300);
  });
});

describe('retryable and outcomeUnknown', () => {
  it.each([
    [400, false],
    [404, false],
    [409, false],
    [429, true],
    [500, true],
    [503, true],
  ])('a read answered %i has retryable=%s and a known outcome', async (status, retryable) => {
    server.handle((_request, res) => sendRestError(res, status, String(status), 'x', 'y'));
    const error = await failure(client.getPayees({ token: TOKEN }, { planId: PLAN }));
    expect(error.retryable).toBe(retryable);
    expect(error.outcomeUnknown).toBe(false);
  });

  it.each([
    [400, false, false],
    [409, false, false],
    [429, true, false],
    [500, false, true],
    [503, false, true],
  ])(
    'a write answered %i has retryable=%s, outcomeUnknown=%s',
    async (status, retryable, outcomeUnknown) => {
      server.handle((_request, res) => sendRestError(res, status, String(status), 'x', 'y'));
      const error = await failure(
        client.createPayee({ token: TOKEN }, { planId: PLAN, body: { payee: { name: 'P' } } }),
      );
      expect(error).toMatchObject({ method: 'POST', retryable, outcomeUnknown });
      expect(server.requests).toHaveLength(1);
    },
  );
});

describe('gatewayErrorCode', () => {
  const base: UpstreamErrorInit = {
    message: 'm',
    operationId: 'getUser',
    method: 'GET',
    status: null,
    kind: 'network',
    upstream: null,
    retryable: true,
    outcomeUnknown: false,
    attempts: 1,
  };
  const code = (init: Partial<UpstreamErrorInit>) =>
    gatewayErrorCode(new UpstreamError({ ...base, ...init }));

  it('maps transport failures and unreadable answers', () => {
    expect(code({ kind: 'network' })).toBe('UPSTREAM_UNAVAILABLE');
    expect(code({ kind: 'timeout' })).toBe('UPSTREAM_UNAVAILABLE');
    expect(code({ kind: 'network', status: 200 })).toBe('UPSTREAM_UNAVAILABLE');
    expect(code({ kind: 'malformed', status: 200 })).toBe('UPSTREAM_ERROR');
    expect(code({ kind: 'too_large', status: 200 })).toBe('UPSTREAM_ERROR');
  });

  it('falls back by status class for statuses the interface does not list', () => {
    const http = (status: number, id = String(status)) =>
      code({ kind: 'http', status, upstream: { status, id, name: 'n', detail: 'd' } });
    expect(http(405)).toBe('BAD_REQUEST');
    expect(http(422)).toBe('BAD_REQUEST');
    expect(http(504)).toBe('UPSTREAM_UNAVAILABLE');
    expect(http(501)).toBe('UPSTREAM_ERROR');
    expect(http(302)).toBe('UPSTREAM_ERROR');
    expect(http(403, '403')).toBe('FORBIDDEN');
    expect(http(404, '404')).toBe('NOT_FOUND');
  });

  it('isUpstreamError tells UpstreamError apart from other errors', () => {
    expect(isUpstreamError(new UpstreamError(base))).toBe(true);
    expect(isUpstreamError(new Error('x'))).toBe(false);
    expect(isUpstreamError({ kind: 'http' })).toBe(false);
    expect(isUpstreamError(null)).toBe(false);
  });
});
