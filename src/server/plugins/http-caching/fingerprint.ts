/**
 * The name of an operation at the door of the HTTP caching plugin (`../use-http-caching.ts`),
 * before admission: the fingerprint of one operation of one caller, read from GET's query string
 * or a POST's JSON body. What names an answer: the schema, the path, the caller's key, the
 * document (by the SHA-256 of its text, which is also what a hash-only APQ request sends), the
 * operation name, the variables (canonical: key order never splits one operation in two) and the
 * accepted media type. Nothing is walked before admission's first stage has bounded it.
 */
import { createHash } from 'node:crypto';
import type { Admission, Bounded } from '../../../admission/admission.js';
import type { Credentials } from '../../../operation/credentials.js';

/**
 * A request the door could name: its operation's fingerprint, whether it came as GET, and who
 * sends it (admission's credentials stage, asked at the door: the same value admission keeps).
 */
export interface Named {
  readonly fingerprint: string;
  readonly get: boolean;
  readonly credentials: Credentials | null;
  /** The operation as sent (bounded by admission's first stage), for admitting a replay. */
  readonly params: Bounded<OperationParams>;
  /**
   * A persisted query sent with its text, which registers the text under its hash: the APQ
   * plugin must see it (or the hash alone would later be unknown), so it is never replayed.
   */
  readonly registersText?: true;
}

export interface RequestNamerOptions {
  /** Stage 1 of the admission path: what it finds out of bounds is never walked here. */
  admission: Pick<Admission, 'bounded'>;
  /** Answers of another schema are other representations. */
  schemaDigest: string;
  /** Whether a POST's body is read to name it (only when answers are kept to replay). */
  readBodies: boolean;
  /** The largest POST body read. */
  maxBodyBytes: number;
}

/** Names the request's one operation (GET's query string, POST's JSON body); null: it cannot. */
export type NameOf = (
  request: Request,
  url: URL,
  RequestClass: unknown,
  credentials: Credentials | null,
) => Promise<Named | null>;

export function createRequestNamer({
  admission,
  schemaDigest,
  readBodies,
  maxBodyBytes,
}: RequestNamerOptions): NameOf {
  return async (request, url, RequestClass, credentials) => {
    const accept = request.headers.get('accept') ?? '';
    if (request.method === 'GET') {
      return nameOperation(admission, schemaDigest, {
        params: paramsOfUrl(url),
        get: true,
        pathname: url.pathname,
        accept,
        credentials,
      });
    }
    if (request.method !== 'POST' || !readBodies) return null;
    // Only yoga's own request class keeps the parsed body for yoga to read again; only a JSON
    // body of a known, bounded length is read here (yoga refuses the others before reading).
    if (!(request instanceof (RequestClass as typeof Request))) return null;
    if (!request.headers.get('content-type')?.toLowerCase().startsWith('application/json'))
      return null;
    const length = Number(request.headers.get('content-length'));
    if (!Number.isSafeInteger(length) || length <= 0 || length > maxBodyBytes) return null;
    const body: unknown = await request.json().catch(() => null);
    return nameOperation(admission, schemaDigest, {
      params: body,
      get: false,
      pathname: url.pathname,
      accept,
      credentials,
    });
  };
}

/**
 * Names one operation from its parts as a carrier read them (the door of yoga's pipeline, or
 * the wire replay's before it): null when they are not one operation within stage 1's bounds.
 */
export function nameOperation(
  admission: Pick<Admission, 'bounded'>,
  schemaDigest: string,
  {
    params,
    get,
    pathname,
    accept,
    credentials,
  }: {
    params: unknown;
    get: boolean;
    pathname: string;
    accept: string;
    credentials: Credentials | null;
  },
): Named | null {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return null;
  const bounded = admission.bounded(params as OperationParams);
  const tokenKey = credentials?.tokenKey ?? null;
  const fingerprint = bounded && fingerprintOf(pathname, accept, bounded, schemaDigest, tokenKey);
  if (!fingerprint || !bounded) return null;
  const { query, extensions } = bounded;
  const registersText =
    typeof query === 'string' && isObject(extensions) && 'persistedQuery' in extensions;
  return {
    fingerprint,
    get,
    credentials,
    params: bounded,
    ...(registersText ? { registersText } : {}),
  };
}

/** The GraphQL request's parts that name its operation, as sent by GET or in a POST body. */
export interface OperationParams {
  readonly query?: unknown;
  readonly operationName?: unknown;
  readonly variables?: unknown;
  readonly extensions?: unknown;
}

/** GET's parameters as a POST body would carry them; null where one is not JSON. */
export function paramsOfUrl(url: Pick<URL, 'searchParams'>): OperationParams | null {
  const params = url.searchParams;
  const json = (name: string): unknown => JSON.parse(params.get(name) || 'null');
  try {
    return {
      query: params.get('query'),
      operationName: params.get('operationName'),
      variables: json('variables'),
      extensions: json('extensions'),
    };
  } catch {
    return null;
  }
}

/**
 * Private: names one operation of one token. The document counts by its SHA-256, which is also
 * the hash a hash-only APQ request sends, so both forms share entries; GET and POST of the same
 * operation share them too. Null when the request names no document. The variables are walked
 * (recursively, for their canonical form): only once admission's first stage has bounded them.
 */
function fingerprintOf(
  pathname: string,
  accept: string,
  params: Bounded<OperationParams>,
  schemaDigest: string,
  tokenKey: string | null,
): string | null {
  const { query, operationName, variables = null, extensions } = params;
  const document =
    typeof query === 'string' && query !== '' ? sha256(query) : persistedHashOf(extensions);
  if (document === null) return null;
  return sha256(
    JSON.stringify([
      schemaDigest,
      pathname,
      tokenKey,
      document,
      typeof operationName === 'string' && operationName !== '' ? operationName : null,
      canonical(variables),
      accept,
    ]),
  );
}

function persistedHashOf(extensions: unknown): string | null {
  if (typeof extensions !== 'object' || extensions === null) return null;
  const hash = (extensions as { persistedQuery?: { sha256Hash?: unknown } }).persistedQuery
    ?.sha256Hash;
  return typeof hash === 'string' ? hash : null;
}

/** Private: JSON with object keys sorted, so key order never splits one operation in two. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => byCodeUnits(a, b))
        .map(([key, inner]) => [key, canonical(inner)]),
    );
  }
  return value;
}

/**
 * Private: a fixed order for keys, which is all a fingerprint needs. Not `localeCompare`: its
 * first call loads ICU's collator (about 10 ms, on the first request with variables), and each
 * call after it still costs more than comparing code units.
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
