/**
 * The admission path: every operation, whatever carries it (HTTP POST and GET, SSE, GraphQL over
 * WebSocket, and transports to come), is admitted here, by the same checks in the same order,
 * before anything is built for it. See this folder's README for the order and why.
 *
 *  1. size: the document's bytes, the nesting of the variables and extensions (the body's bytes
 *     are the carrier's); nothing may walk them before this stage (`bounded`);
 *  2. parse: by the SHA-256 of the text from the document cache, else within the token and
 *     nesting bounds; a failed parse is never kept;
 *  3. trusted documents: with `only`, the manifest's operations alone;
 *  4. limits: aliases, directives, depth, breadth, cost;
 *  5. credentials: a token that cannot be one, or one the upstream refused (the token gate);
 *     the only place `Credentials` are made (`credentials.ts`), once per presented credential;
 *  6. origin: `CORS_ORIGINS`, for HTTP requests and WebSocket upgrades alike.
 *
 * A refusal is one GraphQL error with a code (and the HTTP status an HTTP transport answers
 * with); it is reported like any operation (`outcome: refused`). A document is cached once it
 * passed every stage.
 */
import type { DocumentNode, GraphQLError, GraphQLSchema } from 'graphql';
import type { CostMode, GatewayConfig, Limits } from '../config/config.js';
import { copyError, gatewayError } from '../errors/codes.js';
import type { Credentials } from '../operation/credentials.js';
import { type OperationReportSink, refusalReport } from '../telemetry/operation-report.js';
import { nestedTooDeep, parseWithin } from './bounded-parse.js';
import {
  type CredentialsCheck,
  createCredentialsStage,
  type GrantTokens,
  type SessionCredentials,
} from './credentials.js';
import { createDocumentCache, digestOf } from './document-cache.js';
import type { OperationCost } from './operation-cost.js';
import { createOperationLimits, type OperationLimits } from './operation-limits.js';
import { forbiddenOrigin, isAllowedOrigin } from './origin.js';
import { type Presented, presentedByRequest } from './presented.js';
import { type DocumentSources, resolveText, untrusted } from './trusted-documents.js';

/** One operation as a transport received it. */
export interface OperationRequest {
  /** The text sent, if any (a hash-only request names its text in `extensions`). */
  readonly query: string | null | undefined;
  readonly variables?: Readonly<Record<string, unknown>> | null | undefined;
  readonly operationName?: string | null | undefined;
  readonly extensions?: unknown;
  /**
   * The credential as presented (`presented.ts`: a header, `access_token`, `connectionParams`),
   * read once by the transport; undefined: none. The same value for every operation it carries,
   * so it is checked and digested once.
   */
  readonly presented: Presented | undefined;
  /** `Origin` of the request or WebSocket upgrade; null when absent (not a browser). */
  readonly origin: string | null;
  /** The gateway's own origins as this client reached it (its pages are always allowed). */
  readonly ownOrigins: readonly string[];
  readonly requestId: string;
  /**
   * The schema the operation runs against, when not the gateway's own: the subgraph endpoint's
   * (`/subgraph`). Limits are priced against it. @default the `schema` admission was made with
   */
  readonly schema?: GraphQLSchema;
  /**
   * The text is the gateway's own (an MCP tool's curated operation, or the manifest's), not a
   * client's: trusted documents admit it without a hash. Only server code sets this; no transport
   * reads it from a request. @default false
   */
  readonly own?: boolean;
}

/** The stages, in the order they run. */
export const STAGES = ['size', 'parse', 'trusted', 'limits', 'credentials', 'origin'] as const;
export type Stage = (typeof STAGES)[number];

/** The HTTP status of a stage's refusals, unless the refusal says otherwise. */
const STATUS: Record<Stage, number> = {
  size: 413,
  parse: 400,
  trusted: 400,
  limits: 400,
  credentials: 401,
  origin: 403,
};

export type Verdict =
  | {
      readonly admitted: true;
      readonly document: DocumentNode;
      /** The text that runs (a hash-only request's from the manifest or the persisted store). */
      readonly query: string;
      readonly credentials: Credentials | null;
      /** What the operation costs against the cost limit (null when it cannot be priced). */
      readonly cost?: AdmittedCost | null;
    }
  | { readonly admitted: false; readonly stage: Stage; readonly error: GraphQLError };

/**
 * An admitted operation's price, as routers name it (`extensions.cost`): the estimate, the
 * limit, and whether the limit would have refused it (only in `measure` mode does one run).
 */
export interface AdmittedCost {
  readonly estimated: number;
  readonly max: number;
  readonly mode: CostMode;
  readonly overLimit: boolean;
}

/** The parts of a request that name its operation, as a carrier received them (unchecked). */
export interface RequestParams {
  readonly query?: unknown;
  readonly variables?: unknown;
  readonly extensions?: unknown;
}

declare const withinBounds: unique symbol;

/**
 * Request parameters stage 1 found within its bounds (the document's bytes, the nesting of the
 * variables and extensions): only these may be walked recursively (a key built from the
 * variables, a log line). Only `Admission.bounded` makes one.
 */
export type Bounded<P extends RequestParams> = P & { readonly [withinBounds]: true };

export interface Admission {
  /**
   * The text a hash-only request names, for transports that need it before `admit` (yoga checks
   * that a request has a query before handing it on); `admit` does the same itself.
   */
  resolve(
    query: string | null | undefined,
    extensions: unknown,
  ): { query: string | null | undefined } | { refused: GraphQLError };
  /** Synchronous but for a session's credentials or a gateway access token (stage 5 looks up). */
  admit(operation: OperationRequest): Verdict | Promise<Verdict>;
  /**
   * Stage 1 alone, for what must read a request before it is admitted (the answer cache names
   * an answer at the door): the parameters as `Bounded`, or null when stage 1 would refuse them
   * (then nothing may walk them; `admit` refuses them, answers and logs it).
   */
  bounded<P extends RequestParams>(params: P): Bounded<P> | null;
  /**
   * What an HTTP request presents (`presentedByRequest`), read once per request: the plugins
   * that look at a request before admission (the answer cache) and admission's own see one value.
   */
  presentedBy(request: Request): Presented | undefined;
  /**
   * What `request` presents, as a carrier in front of yoga already read it (the wire replay,
   * which hands on what it did not answer): `presentedBy` returns it, and the credentials made
   * for it are found again, so a credential is still read and digested once per request.
   */
  adoptPresented(request: Request, presented: Presented | undefined): void;
  /**
   * Stage 5 alone, for what must know who calls before an operation is admitted (the answer
   * cache at the door, MCP's session door): the `Credentials`, made once per presented value, or
   * the refusal (a token that cannot be one, or one the upstream refused). Nothing is reported.
   */
  credentials(presented: Presented): CredentialsCheck | Promise<CredentialsCheck>;
  /**
   * Stage 6 alone, for a transport that can refuse at its door (an HTTP request, an upgrade).
   * With `cookie`, the caller presents a session cookie: `CORS_ORIGINS=*` does not cover it, only
   * the gateway's own origins and the listed ones do.
   */
  originRefusal(
    origin: string | null,
    ownOrigins: readonly string[],
    cookie?: boolean,
  ): GraphQLError | null;
  /** Drops a cached document that validation refused: failures are never kept. */
  forget(document: DocumentNode): void;
  /** The document cache's entries and estimated bytes. */
  stats(): { documents: number; documentBytes: number };
}

export interface AdmissionOptions {
  schema: GraphQLSchema;
  config: Pick<GatewayConfig, 'limits' | 'documentCache' | 'corsOrigins'>;
  documents: DocumentSources;
  /**
   * The refusal of a token the upstream refused a moment ago, by digest (the token gate's
   * memory), as execution would answer it. @default none known
   */
  tokenRefusal?: (tokenKey: string) => GraphQLError | null;
  /** Where refusals are reported (the log line and metrics of every operation). @default none */
  sinks?: readonly OperationReportSink[];
  /** A session cookie's credentials (sign-in). @default none: a session cookie is refused */
  sessions?: SessionCredentials;
  /** The gateway's own access tokens (sign-in's authorization server). @default none accepted */
  grantTokens?: GrantTokens | undefined;
}

export function createAdmission({
  schema,
  config,
  documents,
  tokenRefusal = () => null,
  sinks = [],
  sessions,
  grantTokens,
}: AdmissionOptions): Admission {
  const { limits } = config;
  const cache = createDocumentCache(config.documentCache);
  // One set of limits per schema served: what they remember per document (its cost, its
  // aliases) is priced against that schema's fields.
  const limitsBySchema = new WeakMap<GraphQLSchema, OperationLimits>();
  const limitsOf = (served: GraphQLSchema): OperationLimits => {
    let found = limitsBySchema.get(served);
    if (!found) {
      found = createOperationLimits(served, limits);
      limitsBySchema.set(served, found);
    }
    return found;
  };
  limitsOf(schema);
  const originRefusal = (origin: string | null, ownOrigins: readonly string[], cookie = false) =>
    isAllowedOrigin(
      cookie && config.corsOrigins === '*' ? [] : config.corsOrigins,
      origin,
      ownOrigins,
    )
      ? null
      : forbiddenOrigin();
  const credentialsStage = createCredentialsStage(tokenRefusal, sessions, grantTokens);
  const presentedByRequests = new WeakMap<Request, Presented | null>();

  function admit(operation: OperationRequest): Verdict | Promise<Verdict> {
    const refuse = (stage: Stage, refusal: GraphQLError, document?: DocumentNode): Verdict => {
      const error = withStatus(refusal, STATUS[stage]);
      report(sinks, operation, error, document);
      return { admitted: false, stage, error };
    };
    const resolved = resolveText(documents, operation.query, operation.extensions);
    if ('refused' in resolved) return refuse('trusted', resolved.refused);
    const query = resolved.query;
    if (typeof query !== 'string' || query === '')
      return refuse('parse', gatewayError('Must provide query string.', 'BAD_REQUEST'));

    const oversize = sizeRefusal(query, operation, limits);
    if (oversize) return refuse('size', oversize);

    const digest = digestOf(query);
    let document = cache.get(digest);
    let parsed: { tokens: number } | undefined;
    if (!document) {
      const result = parseWithin(query, limits);
      if (!result.ok) return refuse('parse', result.error);
      document = result.document;
      parsed = result;
    }

    const notTrusted = operation.own ? null : untrusted(documents, query, operation.extensions);
    if (notTrusted) return refuse('trusted', notTrusted, document);

    const operationLimits = limitsOf(operation.schema ?? schema);
    const overLimit = operationLimits.refusal(
      document,
      operation.operationName,
      operation.variables,
    );
    if (overLimit) return refuse('limits', overLimit, document);
    const cost = admittedCost(
      operationLimits.price(document, operation.operationName, operation.variables),
      limits,
    );

    const admitted = document;
    const finish = (checked: CredentialsCheck | null): Verdict => {
      if (checked && !checked.ok) return refuse('credentials', checked.error, admitted);
      const credentials: Credentials | null = checked ? checked.credentials : null;
      const cookie = operation.presented?.kind === 'session';
      const foreign = originRefusal(operation.origin, operation.ownOrigins, cookie);
      if (foreign) return refuse('origin', foreign, admitted);
      if (parsed) cache.set(digest, admitted, { length: query.length, tokens: parsed.tokens });
      return { admitted: true, document: admitted, query, credentials, cost };
    };
    if (operation.presented === undefined) return finish(null);
    const checked = credentialsStage.check(operation.presented);
    // Only a session or a gateway access token waits (a look-up); an upstream token stays synchronous.
    return checked instanceof Promise ? checked.then(finish) : finish(checked);
  }

  return {
    resolve: (query, extensions) => resolveText(documents, query, extensions),
    admit,
    bounded: <P extends RequestParams>(params: P) => {
      const query = typeof params.query === 'string' ? params.query : '';
      return sizeRefusal(query, params, limits) ? null : (params as Bounded<P>);
    },
    presentedBy(request) {
      let presented = presentedByRequests.get(request);
      if (presented === undefined) {
        presented = presentedByRequest(request) ?? null;
        presentedByRequests.set(request, presented);
      }
      return presented ?? undefined;
    },
    adoptPresented(request, presented) {
      presentedByRequests.set(request, presented ?? null);
    },
    credentials: (presented) => credentialsStage.check(presented),
    originRefusal,
    forget: (document) => cache.forget(document),
    stats() {
      const { entries, bytes } = cache.stats();
      return { documents: entries, documentBytes: bytes };
    },
  };
}

/**
 * Private: stage 1. The text is measured without encoding it when its length alone decides (a
 * character is 1 to 3 UTF-8 bytes); the variables and extensions are walked without recursion,
 * so no depth of JSON can overflow a stack later (coercion, the answer cache's key and logging
 * walk them recursively).
 */
function sizeRefusal(
  query: string,
  { variables, extensions }: Pick<RequestParams, 'variables' | 'extensions'>,
  limits: Pick<Limits, 'documentBytes' | 'nesting'>,
): GraphQLError | null {
  const max = limits.documentBytes;
  const atLeast = query.length > max;
  const bytes = atLeast || query.length * 3 <= max ? query.length : Buffer.byteLength(query);
  if (bytes > max)
    return gatewayError(
      `The document is ${atLeast ? 'at least ' : ''}${bytes} bytes, over the limit of ${max} (comments count too).`,
      'OPERATION_TOO_COMPLEX',
      { extensions: { limit: 'documentBytes', max } },
    );
  if (nestingOf(variables, limits.nesting) > limits.nesting)
    return nestedTooDeep(limits.nesting, 'The variables nest arrays and objects');
  if (nestingOf(extensions, limits.nesting) > limits.nesting)
    return nestedTooDeep(limits.nesting, 'The extensions nest arrays and objects');
  return null;
}

/** Private: how deep `value` nests arrays and objects, counting no further than `max + 1`. */
function nestingOf(value: unknown, max: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > max) return deepest;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** Private: the HTTP status a refusal is answered with over HTTP, unless it has its own. */
function withStatus(error: GraphQLError, status: number): GraphQLError {
  if (error.extensions.http !== undefined) return error;
  return copyError(error, { extensions: { ...error.extensions, http: { status } } });
}

// Private: a refusal is reported like an operation that ran, with nothing it did not pass.
function admittedCost(
  priced: OperationCost | null,
  limits: Pick<Limits, 'complexity' | 'costMode'>,
): AdmittedCost | null {
  if (!priced) return null;
  return {
    estimated: priced.complexity,
    max: limits.complexity,
    mode: limits.costMode ?? 'enforce',
    overLimit: priced.complexity > limits.complexity,
  };
}

function report(
  sinks: readonly OperationReportSink[],
  operation: OperationRequest,
  error: GraphQLError,
  document: DocumentNode | undefined,
): void {
  const refusal = refusalReport(operation.requestId, document, operation.operationName, [
    String(error.extensions.code ?? 'BAD_REQUEST'),
  ]);
  for (const sink of sinks) {
    try {
      sink(refusal);
    } catch {
      // An observer's failure must never change a verdict.
    }
  }
}
