/**
 * Misses at the wire (issue 34, goal 2): a plain query the answer cache cannot answer is run
 * from node's request, without yoga's fetch `Request`/`Response` handling, its request parser and
 * result processing, which cost about as much as the warm dashboard's whole execution
 * (docs/performance.md, "Misses"). What runs is what yoga runs for such a request, by the same
 * code: the one admission path (`admission.admit`), then yoga's own envelop (`getEnveloped`:
 * validation, the operation's context, every plugin's execution hooks: compiled queries, the
 * deadline, the response extensions, the operation report), then the hooks yoga calls around a
 * result, here called in the same order: HTTP caching's (`HttpCaching.direct`: the answer's
 * ETag, its copy kept from its second sight), error hygiene, yoga's own result processor
 * (`processRegularResult`), then the headers the door's plugins add (request id, hygiene).
 *
 * Only a request that needs nothing else is taken; everything else goes on to `handler` as it
 * came (before anything was run or reported):
 * - a JSON `POST` of the GraphQL path with nothing but `query`, `variables`, `operationName`, or
 *   a `GET` with nothing but those in its URL, each once, percent-encoded without `+` (CSRF
 *   prevention lets any request with `Authorization` through, and only such requests are taken;
 *   a GET's answer carries its ETag as yoga's would; `If-None-Match` goes to yoga);
 * - only the headers of `TAKEN_HEADERS` (no `Origin`, `Cookie`, `Cache-Control`, explain,
 *   metrics, idempotency or tracing headers), an `Accept` that yoga answers as JSON; an
 *   `Accept-Encoding` is answered as the compression plugin answers it (same threshold, `Vary`);
 * - an upstream token (`Authorization: Bearer`) whose check is synchronous and passes: a token
 *   the upstream refused, a gateway token, a session or no token at all go to yoga;
 * - after admission (which reports nothing for an admitted operation), one query without
 *   `@defer`/`@stream` (`compiledQueryOf`): mutations and subscriptions go to yoga.
 * A refusal by admission, an answer with errors or a throw while the operation runs (masked as
 * yoga's `handleError` masks it) is answered here, through yoga's own processor, as yoga answers
 * it (the differential test, test/server/direct-miss.test.ts).
 */

import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ExecutionArgs, ExecutionResult } from 'graphql';
import { processRegularResult } from 'graphql-yoga';
import { type Presented, presentedByHeaders } from '../admission/presented.js';
import { handledAsYoga } from '../errors/internal-errors.js';
import { cleanResult } from '../errors/use-error-hygiene.js';
import type { OperationInitialContext } from './operation-context.js';
import { type Named, nameOperation } from './plugins/http-caching/fingerprint.js';
import { compiledQueryOf } from './plugins/use-compiled-queries.js';
import { compressBody, preferredEncoding } from './plugins/use-compression.js';
import type { HttpCaching } from './plugins/use-http-caching.js';
import { REQUEST_ID_HEADER, requestIdFor } from './plugins/use-request-id.js';
import { addVary } from './plugins/vary.js';
import type { OperationRunner } from './run-operation.js';
import { wireReading } from './wire-replay.js';

export interface DirectMissOptions {
  /** The gateway's admission path and yoga instance, whose envelop runs the operation. */
  gateway: OperationRunner;
  /** The HTTP caching of the GraphQL path (the answer's ETag and kept copy). */
  caching: Pick<HttpCaching, 'direct' | 'schemaDigest' | 'maxBodyBytes' | 'metrics'>;
  /** The GraphQL path (`/graphql`). */
  path: string;
  /**
   * How answers are compressed, as the compression plugin does (`config.compressionMinBytes`):
   * they then vary by encoding. False when they never are.
   */
  compression: { minBytes: number } | false;
  /** yoga's error masking (`maskedErrors.maskError`): an unexpected throw is answered with it. */
  maskError: (error: unknown, message: string) => Error;
}

/** Answers `request` and says so, or says it did not (nothing run, nothing sent). */
export type DirectMiss = (request: IncomingMessage, response: ServerResponse) => Promise<boolean>;

/** The request headers a direct miss may carry: any other sends the request to yoga. */
const TAKEN_HEADERS = new Set([
  'host',
  'connection',
  'content-type',
  'content-length',
  'authorization',
  'accept',
  'accept-encoding',
  'user-agent',
  REQUEST_ID_HEADER,
]);

/** yoga's media type for each `Accept` taken (the last of its processors that matches wins). */
const MEDIA_TYPES = new Map<string | undefined, string>([
  [undefined, 'application/json'],
  ['*/*', 'application/json'],
  ['application/json', 'application/json'],
  ['application/graphql-response+json', 'application/graphql-response+json'],
]);

const PARAMS = new Set(['query', 'variables', 'operationName']);

export function createDirectMiss({
  gateway,
  caching,
  path,
  compression,
  maskError,
}: DirectMissOptions): DirectMiss {
  const { admission, yoga } = gateway;
  return async (request, response) => {
    const { headers } = request;
    const url = request.url ?? '';
    const get = request.method === 'GET';
    if (get ? !url.startsWith(`${path}?`) : request.method !== 'POST' || url !== path) return false;
    // Per-request metrics always on: the answer differs per request; left to yoga.
    if (caching.metrics === 'always') return false;
    for (const name in headers) if (!TAKEN_HEADERS.has(name)) return false;
    // A header sent twice: node keeps one (or joins them) where yoga's reading may differ.
    if (request.rawHeaders.length !== 2 * Object.keys(headers).length) return false;
    const mediaType = MEDIA_TYPES.get(headers.accept);
    if (mediaType === undefined) return false;
    const contentType = headers['content-type'];
    // A GET carries no body (nor its headers); a POST a JSON one.
    if (
      get
        ? contentType !== undefined || headers['content-length'] !== undefined
        : contentType === undefined || !isJson(contentType)
    )
      return false;
    const authorization = headers.authorization;
    if (authorization === undefined || !authorization.startsWith('Bearer ')) return false;
    const read = await operationOf(request, get);
    if (read === false) {
      response.destroy();
      return true;
    }
    if (read === null) return false;
    const { params, presented, name } = read;

    const requestId = requestIdFor(single(headers[REQUEST_ID_HEADER]));
    // The request the plugins see in the operation's context (its id, its caller, its headers).
    const fetchRequest = new yoga.fetchAPI.Request(
      `http://${headers.host ?? 'direct.invalid'}${url}`,
      {
        method: get ? 'GET' : 'POST',
        headers: {
          authorization,
          ...(contentType === undefined ? {} : { 'content-type': contentType }),
          ...(headers.accept === undefined ? {} : { accept: headers.accept }),
          [REQUEST_ID_HEADER]: requestId,
        },
      },
    );
    admission.adoptPresented(fetchRequest, presented);
    // From here the request is this path's: whatever happens, it never reaches yoga as well.
    committed.set(request, requestId);
    const verdict = admission.admit({
      query: params.query,
      variables: params.variables ?? null,
      operationName: params.operationName ?? null,
      extensions: undefined,
      presented,
      origin: null,
      ownOrigins: [],
      requestId,
    });
    let result: ExecutionResult;
    try {
      const settled = verdict instanceof Promise ? await verdict : verdict;
      if (!settled.admitted) result = { errors: [settled.error] };
      else {
        if (!compiledQueryOf(settled.document)) return false;
        caching.direct.adopt(fetchRequest, name);
        const initial: OperationInitialContext = {
          request: fetchRequest,
          credentials: settled.credentials,
          admittedCost: settled.cost ?? null,
        };
        const enveloped = yoga.getEnveloped({
          ...initial,
          params: {
            query: settled.query,
            variables: params.variables,
            operationName: params.operationName,
          },
        });
        const errors = enveloped.validate(enveloped.schema, settled.document);
        if (errors.length > 0) {
          admission.forget(settled.document);
          result = { errors };
        } else {
          const contextValue = await enveloped.contextFactory();
          const args: ExecutionArgs = {
            schema: enveloped.schema,
            document: settled.document,
            variableValues: params.variables,
            operationName: params.operationName,
            contextValue,
          };
          const executed = (await enveloped.execute(args)) as ExecutionResult;
          result = caching.direct.executed(fetchRequest, contextValue, executed);
        }
      }
    } catch (error) {
      // As yoga answers a throw while it runs an operation (its `handleError`, masked).
      result = { errors: [handledAsYoga(maskError, error)] };
    }
    const cleaned = cleanResult(result);
    if (isPlain(cleaned)) {
      // What yoga's processor makes of a result without errors (`processRegularResult`): 200,
      // the media type, the result as its serializer writes it; without a Response of its own.
      const answerHeaders = new yoga.fetchAPI.Headers({
        'content-type': `${mediaType}; charset=utf-8`,
      });
      const text = (cleaned.stringify ?? JSON.stringify)(cleaned);
      await write(response, 200, answerHeaders, text, fetchRequest, requestId);
    } else {
      const answer = processRegularResult(cleaned, yoga.fetchAPI, mediaType);
      const text = await answer.text();
      await write(response, answer.status, answer.headers, text, fetchRequest, requestId);
    }
    return true;
  };

  /**
   * The request's operation, named: as the wire replay named it on its way here (a POST: its body
   * parsed, its credentials checked and its fingerprint hashed once), else read and named here;
   * null when not taken, false when the client left mid-body.
   */
  async function operationOf(
    request: IncomingMessage,
    get: boolean,
  ): Promise<DirectOperation | null | false> {
    const url = request.url ?? '';
    const read = get ? undefined : wireReading(request);
    if (read?.named && read.presented?.kind === 'bearer' && read.named.credentials) {
      const params = plainParams(read.named.params);
      return params && { params, presented: read.presented, name: read.named };
    }
    let params: DirectParams | null;
    if (get) params = paramsOfSearch(url.slice(path.length + 1));
    else {
      const body = await bodyOf(request, caching.maxBodyBytes);
      if (body === undefined) return null;
      if (body === null) return false;
      params = parseParams(body);
    }
    if (params === null) return null;
    const presented = presentedByHeaders(request.headers.authorization, url);
    if (presented?.kind !== 'bearer') return null;
    const checked = admission.credentials(presented);
    if (checked instanceof Promise || !checked.ok) return null;
    const name = nameOperation(admission, caching.schemaDigest, {
      params,
      get,
      pathname: path,
      accept: request.headers.accept ?? '',
      credentials: checked.credentials,
    });
    return name && { params, presented, name };
  }

  /**
   * The door's, compression's and HTTP caching's headers added (the plugins' `onResponse`, in
   * their order), the body compressed as the compression plugin does, then sent.
   */
  async function write(
    response: ServerResponse,
    status: number,
    headers: Headers,
    text: string,
    fetchRequest: Request,
    requestId: string,
  ): Promise<void> {
    headers.set(REQUEST_ID_HEADER, requestId);
    headers.set('x-content-type-options', 'nosniff');
    if (!headers.has('cache-control')) headers.set('cache-control', 'no-store');
    let body: string | Buffer = text;
    if (compression) {
      // A body (here always one) varies by encoding, though none was asked for.
      addVary(headers, 'Accept-Encoding');
      const asked = response.req.headers['accept-encoding'];
      const encoding = preferredEncoding(asked === undefined ? null : asked);
      if (encoding !== null && Buffer.byteLength(text) >= compression.minBytes) {
        body = await compressBody(Buffer.from(text), encoding);
        headers.set('content-encoding', encoding);
      }
    }
    caching.direct.responded(fetchRequest, { status, headers });
    const sent: Record<string, string> = {};
    headers.forEach((value, key) => {
      sent[key] = value;
    });
    sent['content-length'] = String(Buffer.byteLength(body));
    response.writeHead(status, sent);
    response.end(body);
  }
}

/** A result yoga's processor sends as it is: no errors, no `extensions.http` to act on. */
function isPlain(result: ExecutionResult): result is ExecutionResult & {
  stringify?: (result: ExecutionResult) => string;
} {
  return !result.errors?.length && result.extensions?.http === undefined;
}

/**
 * `handler` with direct misses before it: a request not taken reaches `handler` as it came (a
 * POST's body read, as `body`, as the wire replay leaves it). Without `direct`, `handler`.
 */
export function withDirectMisses(
  handler: RequestListener,
  direct: DirectMiss | undefined,
): RequestListener {
  if (!direct) return handler;
  return (request, response) => {
    void answerOrHandOn(direct, handler, request, response);
  };
}

async function answerOrHandOn(
  direct: DirectMiss,
  handler: RequestListener,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  let answered: boolean;
  try {
    answered = await direct(request, response);
  } catch {
    const requestId = committed.get(request);
    // Before admission nothing ran: yoga answers the request as it would have. After it, the
    // operation may have run (and been reported): it is never run again.
    answered = response.headersSent || requestId !== undefined;
    if (requestId !== undefined && !response.headersSent) {
      response.writeHead(500, {
        'content-type': 'application/json; charset=utf-8',
        [REQUEST_ID_HEADER]: requestId,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      });
      response.end(UNEXPECTED);
    }
  }
  if (!answered) handler(request, response);
}

/** Requests past the point of no return (admission), with their request id. */
const committed = new WeakMap<IncomingMessage, string>();

/** yoga's masked answer to a failure outside execution. */
const UNEXPECTED = JSON.stringify({
  errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
});

/** A request's operation as the direct path runs it. */
interface DirectOperation {
  readonly params: DirectParams;
  readonly presented: Presented;
  readonly name: Named;
}

interface DirectParams {
  readonly query: string;
  readonly variables?: Record<string, unknown> | null;
  readonly operationName?: string | null;
}

/** Private: the parameters when they are nothing but a text, variables and a name. */
function parseParams(body: Buffer): DirectParams | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  return plainParams(parsed);
}

/**
 * Private: a GET's parameters (its URL's search), each given once, in plain percent-encoding
 * (no `+`, which readers of query strings disagree on), the variables as JSON text.
 */
function paramsOfSearch(search: string): DirectParams | null {
  if (search.includes('+')) return null;
  const params: Record<string, unknown> = {};
  try {
    for (const pair of search.split('&')) {
      const at = pair.indexOf('=');
      if (at < 0) return null;
      const key = decodeURIComponent(pair.slice(0, at));
      if (Object.hasOwn(params, key)) return null;
      params[key] = decodeURIComponent(pair.slice(at + 1));
    }
    if (typeof params.variables === 'string') params.variables = JSON.parse(params.variables);
  } catch {
    return null;
  }
  return plainParams(params);
}

function plainParams(params: object): DirectParams | null {
  for (const key in params) if (!PARAMS.has(key)) return null;
  const { query, variables, operationName } = params as Record<string, unknown>;
  if (typeof query !== 'string' || query === '') return null;
  // As yoga reads them: absent or null, else an object and a string.
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return null;
  if (operationName != null && typeof operationName !== 'string') return null;
  return params as unknown as DirectParams;
}

type WithBody = IncomingMessage & { body?: Buffer };

/**
 * Private: the body, as the wire replay left it or read here (then left as `body` for yoga);
 * undefined when not taken (too long, no length), null when the client left mid-body.
 */
async function bodyOf(request: WithBody, maxBytes: number): Promise<Buffer | null | undefined> {
  if (request.body !== undefined) return request.body;
  const length = Number(request.headers['content-length']);
  if (!Number.isSafeInteger(length) || length <= 0 || length > maxBytes) return undefined;
  const chunks: Buffer[] = [];
  let received = 0;
  const done = await new Promise<boolean>((resolve) => {
    request.on('data', (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    });
    request.once('end', () => resolve(received === length));
    request.once('error', () => resolve(false));
    request.once('close', () => resolve(false));
  });
  if (!done) return null;
  const body = Buffer.concat(chunks, received);
  request.body = body;
  return body;
}

/** Private: `application/json`, with parameters or none (not `application/json-seq`...). */
function isJson(contentType: string): boolean {
  const type = contentType.split(';', 1)[0]?.trim().toLowerCase();
  return type === 'application/json';
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}
