/**
 * Replays at the wire: a repeated query whose answer the answer cache holds is answered from
 * node's request, before yoga builds a fetch `Request`, runs its plugins or touches the body
 * again, with the held bytes in the encoding the client accepts (compressed once per answer).
 * What decides a replay is the HTTP caching plugin's own (`plugins/use-http-caching.ts`): the
 * same fingerprint, the same validator re-read from the replicas under the request's freshness,
 * the same answers; and the replay is admitted by the one admission path, as the plugin's is.
 *
 * Only what the wire can answer exactly as yoga would is taken here; everything else goes on to
 * `handler` as it came (a POST's body, read here, is handed to yoga as already read):
 * - `GET` and JSON `POST` of the GraphQL path, a POST with a `Content-Length` within the limit;
 * - no `Origin` (CORS headers and the origin check are yoga's; browsers' cross-origin reads
 *   carry it) and no `Cookie` (a session is checked where its refusal can say where to sign in);
 * - no `Cache-Control` (a `no-cache` read sends a delta: its execution should not send another)
 *   and no request for per-request metrics (such a body differs every time).
 */

import type {
  IncomingHttpHeaders,
  IncomingMessage,
  RequestListener,
  ServerResponse,
} from 'node:http';
import type { Admission } from '../admission/admission.js';
import { type Presented, presentedByHeaders } from '../admission/presented.js';
import type { Credentials } from '../operation/credentials.js';
import { EXPLAIN_HEADER } from './plugins/explain.js';
import { nameOperation, paramsOfUrl } from './plugins/http-caching/fingerprint.js';
import { type ReplayRequest, replayHeaders } from './plugins/http-caching/replay.js';
import type { HttpCaching } from './plugins/use-http-caching.js';
import { REQUEST_ID_HEADER, requestIdFor } from './plugins/use-request-id.js';
import { METRICS_HEADER } from './plugins/use-response-extensions.js';

/** What a request handed on to yoga presents, as read here (see `adoptCarried`). */
const carried = new WeakMap<IncomingMessage, Presented | undefined>();

/**
 * Tells admission what a request the wire handed on presents, as the wire read it (yoga's
 * `serverContext.req` is node's request): read and digested once per request, wherever answered.
 */
export function adoptCarried(
  admission: Pick<Admission, 'adoptPresented'>,
  request: Request,
  nodeRequest: unknown,
): void {
  if (typeof nodeRequest !== 'object' || nodeRequest === null) return;
  const node = nodeRequest as IncomingMessage;
  if (carried.has(node)) admission.adoptPresented(request, carried.get(node));
}

export interface WireReplayOptions {
  /** The HTTP caching of the GraphQL path, whose answers are replayed. */
  caching: Pick<HttpCaching, 'replay' | 'schemaDigest' | 'metrics' | 'maxBodyBytes'>;
  admission: Pick<Admission, 'bounded' | 'credentials'>;
  /** The GraphQL path (`/graphql`). */
  path: string;
}

/** Answers `request` from the answer cache and says so, or says it did not (nothing sent). */
export type WireReplay = (request: IncomingMessage, response: ServerResponse) => Promise<boolean>;

export function createWireReplay({ caching, admission, path }: WireReplayOptions): WireReplay {
  const { replay, schemaDigest, metrics, maxBodyBytes } = caching;
  return async (request, response) => {
    const { headers, method } = request;
    const url = request.url ?? '/';
    const query = url.indexOf('?');
    if ((query === -1 ? url : url.slice(0, query)) !== path) return false;
    if (headers.origin !== undefined || headers.cookie !== undefined) return false;
    if (headers['cache-control'] !== undefined || headers[METRICS_HEADER] !== undefined)
      return false;
    // An explanation is never a held answer (plugins/explain.ts).
    if (headers[EXPLAIN_HEADER] !== undefined) return false;
    const get = method === 'GET';
    if (!get && (method !== 'POST' || metrics === 'always')) return false;
    let params: unknown;
    if (get) {
      params = paramsOfUrl(new URL(url, 'http://wire.invalid'));
    } else {
      const length = Number(headers['content-length']);
      if (!headers['content-type']?.toLowerCase().startsWith('application/json')) return false;
      if (!Number.isSafeInteger(length) || length <= 0 || length > maxBodyBytes) return false;
      const body = await readBody(request, length);
      if (body === null) {
        // The client went away mid-body: nobody is left to answer.
        response.destroy();
        return true;
      }
      // yoga reads the body from here (`body`, as a framework's body parser leaves it).
      (request as IncomingMessage & { body?: Buffer }).body = body;
      params = parseJson(body);
    }
    const presented = presentedByHeaders(headers.authorization, url);
    carried.set(request, presented);
    const credentials = presented === undefined ? null : await checked(admission, presented);
    if (credentials === undefined) return false;
    const name = nameOperation(admission, schemaDigest, {
      params,
      get,
      pathname: path,
      accept: headers.accept ?? '',
      credentials,
    });
    if (name === null) return false;
    const requestId = requestIdFor(single(headers[REQUEST_ID_HEADER]));
    const replayed = await replay.answer(viewOf(headers), name, {
      presented,
      origin: null,
      ownOrigins: [],
      requestId,
    });
    if (replayed === null || response.headersSent) return false;
    const sent = replayHeaders(replayed);
    response.writeHead(replayed.status, {
      ...sent,
      // What the door's plugins add to every answer (request ids, hygiene, caching's `Vary`).
      [REQUEST_ID_HEADER]: requestId,
      'x-content-type-options': 'nosniff',
      'cache-control': sent['cache-control'] ?? 'no-store',
      ...(sent.etag === undefined
        ? {}
        : { vary: [sent.vary, 'Authorization', 'Accept'].filter(Boolean).join(', ') }),
    });
    response.end(replayed.status === 304 ? undefined : replayed.body);
    return true;
  };
}

/**
 * `handler` with replays at the wire before it: a request the wire does not answer reaches
 * `handler` as it came (a POST's body already read, as `body`). Without `wire`, `handler`.
 */
export function withWireReplay(
  handler: RequestListener,
  wire: WireReplay | undefined,
): RequestListener {
  if (!wire) return handler;
  return (request, response) => {
    wire(request, response).then(
      (answered) => {
        if (!answered) handler(request, response);
      },
      () => {
        // Whatever failed here, the pipeline answers the request as it would have.
        if (!response.headersSent) handler(request, response);
      },
    );
  };
}

/** Private: the credentials of what the request presents; undefined when admission refuses them. */
async function checked(
  admission: Pick<Admission, 'credentials'>,
  presented: NonNullable<ReturnType<typeof presentedByHeaders>>,
): Promise<Credentials | undefined> {
  const check = admission.credentials(presented);
  const done = check instanceof Promise ? await check : check;
  return done.ok ? done.credentials : undefined;
}

/** Private: the body (node's parser holds it to `Content-Length`); null when the client left. */
function readBody(request: IncomingMessage, length: number): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    request.on('data', (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    });
    request.once('end', () =>
      resolve(received === length ? Buffer.concat(chunks, received) : null),
    );
    request.once('error', () => resolve(null));
    // After `end` this settles nothing: a promise resolves once.
    request.once('close', () => resolve(null));
  });
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}

/** Private: node's headers as the replay reads a request's (lower-case names, one value each). */
function viewOf(headers: IncomingHttpHeaders): ReplayRequest {
  const get = (name: string): string | null => {
    const value = headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return { headers: { get, has: (name) => get(name) !== null } };
}
