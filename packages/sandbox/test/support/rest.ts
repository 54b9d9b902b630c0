/**
 * A thin fetch client for the sandbox that keeps what the SDK hides: the raw status, headers
 * and body text, and control over how (and whether) the token is presented.
 */
import type { OperationId, ResponseData } from '@plans-gateway/rest-contract';
import { isRecord } from './check-shape.js';

export type QueryValue = string | number | boolean | undefined;

export interface RestRequest {
  query?: Record<string, QueryValue>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent verbatim as the body, for malformed payloads. */
  rawBody?: string;
  /** Overrides the client's token; `null` sends none. */
  token?: string | null;
  /** Where the token travels. @default 'header' */
  tokenIn?: 'header' | 'query';
  headers?: Record<string, string>;
}

export interface RestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or `undefined` when the body is not JSON. */
  body: unknown;
}

export interface Rest {
  readonly baseUrl: string;
  request(method: string, path: string, request?: RestRequest): Promise<RestResponse>;
  get(path: string, query?: Record<string, QueryValue>): Promise<RestResponse>;
  post(path: string, body?: unknown): Promise<RestResponse>;
  put(path: string, body?: unknown): Promise<RestResponse>;
  patch(path: string, body?: unknown): Promise<RestResponse>;
  delete(path: string): Promise<RestResponse>;
  /** Same client with another token (`null`: none). */
  withToken(token: string | null): Rest;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function createRest(baseUrl: string, token: string | null): Rest {
  const request = async (
    method: string,
    path: string,
    options: RestRequest = {},
  ): Promise<RestResponse> => {
    const url = new URL(baseUrl + path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const presented = options.token === undefined ? token : options.token;
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    if (presented !== null) {
      if (options.tokenIn === 'query') url.searchParams.set('access_token', presented);
      else headers.Authorization = `Bearer ${presented}`;
    }
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && headers['Content-Type'] === undefined)
      headers['Content-Type'] = 'application/json';
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: parseJson(text) };
  };
  return {
    baseUrl,
    request,
    get: (path, query) => request('GET', path, { query }),
    post: (path, body) => request('POST', path, { body }),
    put: (path, body) => request('PUT', path, { body }),
    patch: (path, body) => request('PATCH', path, { body }),
    delete: (path) => request('DELETE', path),
    withToken: (other) => createRest(baseUrl, other),
  };
}

/** What `dataOf` needs: a REST response or an SDK exchange. */
export interface StatusAndBody {
  status: number;
  body: unknown;
  text?: string;
}

/** A failed expectation about a response, carrying the response text for the report. */
function fail(response: StatusAndBody, expected: string): never {
  const text = response.text ?? JSON.stringify(response.body) ?? '';
  throw new Error(`expected ${expected}, got ${response.status}: ${text.slice(0, 500)}`);
}

/**
 * The `data` of a success response, typed by operation. Throws with the body when the status
 * is not the expected one, so a failing test shows the sandbox's error.
 */
export function dataOf<Op extends OperationId>(
  response: StatusAndBody,
  _operation: Op,
  status: number | readonly number[] = 200,
): ResponseData[Op] {
  const statuses = typeof status === 'number' ? [status] : status;
  if (!statuses.includes(response.status)) fail(response, `status ${statuses.join(' or ')}`);
  if (!isRecord(response.body) || !isRecord(response.body.data)) fail(response, 'a { data } body');
  return response.body.data as unknown as ResponseData[Op];
}
