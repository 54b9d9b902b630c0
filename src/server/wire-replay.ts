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
import { LRUCache } from 'lru-cache';
import type { Admission } from '../admission/admission.js';
import { type Presented, presentedByHeaders } from '../admission/presented.js';
import type { Credentials } from '../operation/credentials.js';
import type { Freshness } from '../replica/types.js';
import type { HeadersOf } from './freshness.js';
import { EXPLAIN_HEADER } from './plugins/explain.js';
import { type Named, nameOperation, paramsOfUrl } from './plugins/http-caching/fingerprint.js';
import {
  type Carrier,
  type Replayed,
  type ReplayRequest,
  replayHeaders,
} from './plugins/http-caching/replay.js';
import type { HttpCaching } from './plugins/use-http-caching.js';
import { REQUEST_ID_HEADER, requestIdFor } from './plugins/use-request-id.js';
import { METRICS_HEADER } from './plugins/use-response-extensions.js';

/**
 * What the wire read of a request it handed on: what it presents (for yoga, `adoptCarried`) and,
 * when its credentials passed a synchronous check here, the operation as named here (for the
 * direct path of misses, `wireReading`): read, checked and hashed once per request.
 */
export interface WireReading {
  readonly presented: Presented | undefined;
  readonly named: Named | undefined;
}

const carried = new WeakMap<IncomingMessage, WireReading>();

/** What the wire read of `request`, if it saw it and handed it on. */
export function wireReading(request: IncomingMessage): WireReading | undefined {
  return carried.get(request);
}

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
  const reading = carried.get(nodeRequest as IncomingMessage);
  if (reading) admission.adoptPresented(request, reading.presented);
}

export interface WireReplayOptions {
  /** The HTTP caching of the GraphQL path, whose answers are replayed. */
  caching: Pick<HttpCaching, 'replay' | 'schemaDigest' | 'metrics' | 'maxBodyBytes'>;
  admission: Pick<Admission, 'bounded' | 'credentials'>;
  /** The GraphQL path (`/graphql`). */
  path: string;
  /** Bytes the memo of named requests may hold (see `Memo`). @default 4 MiB */
  memoMaxBytes?: number;
}

/** Answers `request` from the answer cache and says so, or says it did not (nothing sent). */
export type WireReplay = (request: IncomingMessage, response: ServerResponse) => Promise<boolean>;

/** A request whose exact form (see `memoKey`) is longer is named afresh each time. */
const MEMO_MAX_KEY_CHARS = 64 * 1024;
/** Per memo entry besides its key and body: the entry, the named operation, the bookkeeping. */
const MEMO_ENTRY_OVERHEAD_BYTES = 600;
/** Bodies kept per head (a head's requests of the same length but different bodies). */
const MEMOS_PER_HEAD = 4;

/**
 * What the wire learnt of one exact request (its method, URL, `Authorization`, `Accept` and
 * body, byte for byte): naming it again would give the same `Named` (a pure function of these),
 * so a repeated request skips the URL and JSON parsing, the credential's reading and digest and
 * the fingerprint's hashing. What can change is checked on every request all the same: the
 * credentials (stage 5: a token the upstream refused since, a gateway token revoked), the
 * replicas' versions (the ETag), the answer held.
 */
interface Memo {
  /** The body it was made for (its own copy); undefined for a GET. */
  readonly body: Buffer | undefined;
  readonly presented: Presented | undefined;
  readonly named: Named;
  /**
   * This operation passed admission's stages but credentials (size, parse, trusted documents,
   * limits; origin, which the wire only sees absent) once already: for a document sent as text
   * these depend on nothing but the parameters and the gateway's configuration, so they pass
   * again; only stage 5 is asked again. Never set for a hash-only request (the persisted store
   * that resolves it may forget the hash).
   */
  admitted: boolean;
  /** Response headers of its last replays, by representation (few: one per encoding). */
  sent: SentHeaders[];
}

/** The headers of one representation of one answer, but the request id, as `writeHead` takes them. */
interface SentHeaders {
  readonly status: number;
  readonly etag: string;
  readonly body: Buffer | undefined;
  /** Ends with the request id's name and a slot for its value (see `wireHeaders`). */
  readonly headers: string[];
}

export function createWireReplay({
  caching,
  admission,
  path,
  memoMaxBytes = 4 * 1024 * 1024,
}: WireReplayOptions): WireReplay {
  const { replay, schemaDigest, metrics, maxBodyBytes } = caching;
  /**
   * Memos by the request's head (`memoKey`: its short parts and the body's length), each found
   * by comparing the body byte for byte: the look-up hashes the head, never the body.
   */
  const memos = new LRUCache<string, readonly Memo[]>({
    maxSize: Math.max(1, memoMaxBytes),
    sizeCalculation: (bucket, key) =>
      bucket.reduce(
        (bytes, memo) => bytes + (memo.body?.length ?? 0) + MEMO_ENTRY_OVERHEAD_BYTES,
        2 * key.length,
      ),
  });
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
    let body: Buffer | undefined;
    if (!get) {
      const length = Number(headers['content-length']);
      if (!headers['content-type']?.toLowerCase().startsWith('application/json')) return false;
      if (!Number.isSafeInteger(length) || length <= 0 || length > maxBodyBytes) return false;
      const read = await readBody(request, length);
      if (read === null) {
        // The client went away mid-body: nobody is left to answer.
        response.destroy();
        return true;
      }
      // yoga reads the body from here (`body`, as a framework's body parser leaves it).
      (request as IncomingMessage & { body?: Buffer }).body = read;
      body = read;
    }
    const key = memoKey(url, headers, body);
    const bucket = key === null ? undefined : memos.get(key);
    let memo = bucket && memoOf(bucket, body);
    let named: Named;
    let presented: Presented | undefined;
    // Whether the credentials were checked without waiting (an upstream token's are).
    let synchronous: boolean;
    if (memo) {
      presented = memo.presented;
      const check = presented === undefined ? null : checked(admission, presented);
      synchronous = !(check instanceof Promise);
      const credentials = check instanceof Promise ? await check : check;
      if (credentials === undefined) return handOn(request, presented);
      const known = memo.named.credentials;
      if (credentials?.tokenKey !== known?.tokenKey) {
        // Not the caller it named (cannot happen for one credential, but never across callers).
        memos.delete(key!);
        return handOn(request, presented);
      }
      // A gateway token's grant may carry a refreshed upstream token: the fresh one reads.
      named = credentials === known ? memo.named : { ...memo.named, credentials };
    } else {
      const params = get ? paramsOfUrl(new URL(url, 'http://wire.invalid')) : parseJson(body!);
      presented = presentedByHeaders(headers.authorization, url);
      const check = presented === undefined ? null : checked(admission, presented);
      synchronous = !(check instanceof Promise);
      const credentials = check instanceof Promise ? await check : check;
      if (credentials === undefined) return handOn(request, presented);
      const fresh = nameOperation(admission, schemaDigest, {
        params,
        get,
        pathname: path,
        accept: headers.accept ?? '',
        credentials,
      });
      if (fresh === null) return handOn(request, presented);
      named = fresh;
      if (key !== null) {
        memo = { body: body && copyOf(body), presented, named, admitted: false, sent: [] };
        memos.set(key, [memo, ...(bucket ?? []).slice(0, MEMOS_PER_HEAD - 1)]);
      }
    }
    const requestId = requestIdFor(single(headers[REQUEST_ID_HEADER]), newRequestId);
    // Two literals rather than a spread: the carrier is one plain object of a fixed shape.
    const carrier: Carrier = memo?.admitted
      ? { presented, origin: null, ownOrigins: EMPTY, requestId, admitted: true }
      : { presented, origin: null, ownOrigins: EMPTY, requestId };
    const replayed = await replay.answer(new NodeRequestView(headers), named, carrier);
    if (replayed === null || response.headersSent)
      return handOn(request, presented, synchronous ? named : undefined);
    if (memo && !memo.admitted && hasText(named)) memo.admitted = true;
    const sent = memo ? sentHeaders(memo, replayed) : wireHeaders(replayed);
    // Its last slot is the request id's: filled here, read by `writeHead` before it returns.
    sent[sent.length - 1] = requestId;
    response.writeHead(replayed.status, sent);
    response.end(replayed.status === 304 ? undefined : replayed.body);
    return true;
  };
}

const EMPTY: readonly string[] = [];

/** A fresh request id (one function, not a default argument made per request). */
function newRequestId(): string {
  return crypto.randomUUID();
}

/**
 * Private: not answered here: yoga finds what the request presents as read here
 * (`adoptCarried`), the direct path the operation as named here (`wireReading`). A function of
 * the module, not a closure made per request.
 */
function handOn(request: IncomingMessage, presented: Presented | undefined, named?: Named): false {
  carried.set(request, { presented, named });
  return false;
}

/**
 * Private: the head of the exact request as far as naming it goes: method (GET or POST), URL
 * (its query string, an `access_token`), `Authorization` (the caller), `Accept` (part of the
 * fingerprint) and the body's length (its bytes are compared, `memoOf`); null when too long to
 * keep. Other headers are read per request.
 */
function memoKey(
  url: string,
  headers: IncomingHttpHeaders,
  body: Buffer | undefined,
): string | null {
  const authorization = headers.authorization ?? '';
  const accept = headers.accept ?? '';
  const size = url.length + authorization.length + accept.length + (body?.length ?? 0);
  if (size > MEMO_MAX_KEY_CHARS) return null;
  // Newlines cannot occur in a header value or a request target: the parts cannot run together.
  return `${body ? `POST ${body.length}` : 'GET'}\n${url}\n${authorization}\n${accept}`;
}

/** Private: the memo of this very body among a head's, if any (bytes compared). */
function memoOf(bucket: readonly Memo[], body: Buffer | undefined): Memo | undefined {
  for (const memo of bucket) {
    if (memo.body === undefined ? body === undefined : body?.equals(memo.body)) return memo;
  }
  return undefined;
}

/** Private: a body's own copy, outside node's shared pool (a kept slice would hold its slab). */
function copyOf(body: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(body.length);
  body.copy(copy);
  return copy;
}

/** Private: whether the operation came as text (its admission depends on nothing else). */
function hasText(named: Named): boolean {
  const { query } = named.params;
  return typeof query === 'string' && query !== '';
}

/**
 * Private: the headers of `replayed` as the memo kept them for its representation (the same
 * status, ETag and held bytes give the same headers), made once.
 */
function sentHeaders(memo: Memo, replayed: Replayed): string[] {
  const body = replayed.status === 304 ? undefined : replayed.body;
  for (const kept of memo.sent)
    if (kept.status === replayed.status && kept.etag === replayed.etag && kept.body === body)
      return kept.headers;
  const headers = wireHeaders(replayed);
  // A string body is this request's own (its metrics): never kept.
  if (typeof body !== 'string') {
    if (memo.sent.length >= 4) memo.sent.shift();
    memo.sent.push({ status: replayed.status, etag: replayed.etag, body, headers });
  }
  return headers;
}

/**
 * Private: the headers of a replay as a flat list, what the door's plugins add included, ending
 * with the request id's name and an empty slot for each request's own id.
 */
function wireHeaders(replayed: Replayed): string[] {
  const sent = replayHeaders(replayed);
  const all: Record<string, string> = {
    ...sent,
    // What the door's plugins add to every answer (hygiene, caching's `Vary`); the request id
    // is each request's own.
    'x-content-type-options': 'nosniff',
    'cache-control': sent['cache-control'] ?? 'no-store',
    ...(sent.etag === undefined
      ? {}
      : { vary: [sent.vary, 'Authorization', 'Accept'].filter(Boolean).join(', ') }),
  };
  return [...Object.entries(all).flat(), REQUEST_ID_HEADER, ''];
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
    void answerOrHandOn(wire, handler, request, response);
  };
}

/** Private: the wire's answer, else `handler`'s (a function, not closures made per request). */
async function answerOrHandOn(
  wire: WireReplay,
  handler: RequestListener,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  let answered: boolean;
  try {
    answered = await wire(request, response);
  } catch {
    // Whatever failed here, the pipeline answers the request as it would have.
    answered = response.headersSent;
  }
  if (!answered) handler(request, response);
}

/**
 * Private: the credentials of what the request presents; undefined when admission refuses them.
 * An upstream token's check stays synchronous (no promise per request).
 */
function checked(
  admission: Pick<Admission, 'credentials'>,
  presented: Presented,
): Credentials | undefined | Promise<Credentials | undefined> {
  const check = admission.credentials(presented);
  if (check instanceof Promise)
    return check.then((done) => (done.ok ? done.credentials : undefined));
  return check.ok ? check.credentials : undefined;
}

/** Private: a body being read: its chunks so far, and who waits for it. */
interface BodyReading {
  readonly chunks: Buffer[];
  received: number;
  readonly length: number;
  readonly done: (body: Buffer | null) => void;
}

const READING = Symbol('wire-replay body');
type Reading = IncomingMessage & { [READING]?: BodyReading };

/**
 * Private: the body (node's parser holds it to `Content-Length`); null when the client left.
 * The listeners are shared functions reading their state off the request (`this`).
 */
function readBody(request: IncomingMessage, length: number): Promise<Buffer | null> {
  return new Promise((done) => {
    (request as Reading)[READING] = { chunks: [], received: 0, length, done };
    // `on`, not `once` (which wraps each listener per request): each fires at most once, and
    // after `end` the others settle nothing (a promise resolves once).
    request.on('data', onBodyData);
    request.on('end', onBodyEnd);
    request.on('error', onBodyGone);
    request.on('close', onBodyGone);
  });
}

function onBodyData(this: Reading, chunk: Buffer): void {
  const reading = this[READING]!;
  reading.received += chunk.length;
  reading.chunks.push(chunk);
}

function onBodyEnd(this: Reading): void {
  const { chunks, received, length, done } = this[READING]!;
  if (received !== length) done(null);
  // A body that came in one chunk (most do) is that chunk: the stream handed it over, no copy.
  else done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
}

function onBodyGone(this: Reading): void {
  this[READING]!.done(null);
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

/**
 * Private: node's headers as the replay reads a request's (lower-case names, one value each);
 * a class, so a request costs one small object and no closures.
 */
class NodeRequestView implements ReplayRequest, HeadersOf {
  readonly headers: Pick<Headers, 'get' | 'has'>;
  /** Its freshness, decided once (`requestFreshness`), kept here rather than in a weak map. */
  decidedFreshness: Freshness | undefined = undefined;
  constructor(headers: IncomingHttpHeaders) {
    this.headers = new NodeHeadersView(headers);
  }
}

class NodeHeadersView implements Pick<Headers, 'get' | 'has'> {
  private readonly node: IncomingHttpHeaders;
  constructor(headers: IncomingHttpHeaders) {
    this.node = headers;
  }
  get(name: string): string | null {
    const value = this.node[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  has(name: string): boolean {
    return this.node[name.toLowerCase()] !== undefined;
  }
}
