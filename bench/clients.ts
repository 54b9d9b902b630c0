/**
 * The bench's two kinds of client over loopback keep-alive connections (undici pools): a GraphQL
 * client of the gateway, and a REST client of the sandbox that plays the baseline (what an app
 * without the gateway sends) and the "other client" that writes behind the gateway's back.
 * Both read and parse every body, as a real client would.
 */
import { Pool } from 'undici';

export interface GraphQLAnswer {
  status: number;
  body: { data?: unknown; errors?: unknown[]; extensions?: Record<string, unknown> };
}

export interface GraphQLClient {
  request(
    query: string,
    variables: Record<string, unknown>,
    token: string,
    headers?: Record<string, string>,
  ): Promise<GraphQLAnswer>;
  close(): Promise<void>;
}

export function createGraphQLClient(url: string, connections: number): GraphQLClient {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections, keepAliveTimeout: 60_000 });
  return {
    async request(query, variables, token, headers = {}) {
      const response = await pool.request({
        method: 'POST',
        path: target.pathname,
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
          authorization: `Bearer ${token}`,
          ...headers,
        },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await response.body.json()) as GraphQLAnswer['body'];
      return { status: response.statusCode, body };
    },
    close: () => pool.close(),
  };
}

export interface RestAnswer<T = unknown> {
  status: number;
  data: T;
  /** Size of the response body in bytes. */
  bytes: number;
}

export interface RestClient {
  get<T = unknown>(path: string, token: string): Promise<RestAnswer<T>>;
  send<T = unknown>(
    method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    token: string,
    body?: unknown,
  ): Promise<RestAnswer<T>>;
  close(): Promise<void>;
}

/** `baseUrl` includes `/v1`; paths are relative to it. */
export function createRestClient(baseUrl: string, connections: number): RestClient {
  const base = new URL(baseUrl);
  const pool = new Pool(base.origin, { connections, keepAliveTimeout: 60_000 });
  async function call<T>(
    method: string,
    path: string,
    token: string,
    body?: unknown,
  ): Promise<RestAnswer<T>> {
    const response = await pool.request({
      method: method as 'GET',
      path: `${base.pathname}${path}`,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    const parsed = JSON.parse(text) as { data: T };
    return { status: response.statusCode, data: parsed.data, bytes: Buffer.byteLength(text) };
  }
  return {
    get: (path, token) => call('GET', path, token),
    send: (method, path, token, body) => call(method, path, token, body),
    close: () => pool.close(),
  };
}

/** True for HTTP 200 with data and without errors. */
export function isGoodAnswer(answer: GraphQLAnswer): boolean {
  return (
    answer.status === 200 && answer.body.data != null && (answer.body.errors?.length ?? 0) === 0
  );
}
