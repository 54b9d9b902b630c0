/**
 * The gateway's REST client: the only code that knows the upstream's URLs, headers and undici.
 * One typed method per operationId, all driven by the route table in `routes.ts`; a request is
 * built in `outgoing-request.ts`, an answer read in `decode-response.ts`, errors made in
 * `src/errors/upstream-error.ts`. A call passes the client's policies, composed here as
 * interceptors around one attempt (`interceptors.ts`, `attempt.ts`, after undici's
 * `Dispatcher.compose`): read back-off, token gate, retries of reads (writes never), fair share.
 * The options and their defaults are in `client-settings.ts`.
 */
import {
  OPERATION_IDS,
  type OperationId,
  type OperationResult,
  type Params,
  type ParamsArgs,
  ROUTES,
} from '@plans-gateway/rest-contract';
import type { UpstreamError } from '../errors/upstream-error.js';
import { sendAttempt } from './attempt.js';
import { type CallOptions, composeCall, type ReportAnswer } from './call.js';
import {
  createPool,
  requirePositiveInteger,
  resolveSettings,
  type UpstreamClientOptions,
} from './client-settings.js';
import type { StreamReading } from './decode-response.js';
import { fairShare, readBackoff, retries, tokenGate } from './interceptors.js';
import { buildOutgoingRequest } from './outgoing-request.js';
import type { TokenStatus } from './token-gate.js';

export type { CallOptions } from './call.js';
export { DEFAULT_CONNECTIONS_PER_TOKEN, type UpstreamClientOptions } from './client-settings.js';

/** Without a token gate, an answer tells no one. */
const reportAnswer: ReportAnswer = () => {};

export type OperationMethod<Op extends OperationId> = (
  call: CallOptions,
  ...params: ParamsArgs<Op>
) => Promise<OperationResult<Op>>;

export type UpstreamOperations = { readonly [Op in OperationId]: OperationMethod<Op> };

export interface UpstreamClient extends UpstreamOperations {
  /** The normalized base URL (origin and `/v1` path, no trailing slash). */
  readonly baseUrl: string;
  /** Any operation by id, for callers that are generic over operations. */
  call<Op extends OperationId>(
    operationId: Op,
    call: CallOptions,
    ...params: ParamsArgs<Op>
  ): Promise<OperationResult<Op>>;
  /**
   * An operation with its params as one object, for callers generic over operations whose
   * params always exist (the writes): rest arguments cannot be spread from a generic there.
   */
  callWithParams<Op extends OperationId>(
    operationId: Op,
    call: CallOptions,
    params: Params<Op>,
  ): Promise<OperationResult<Op>>;
  /**
   * A read whose answer is parsed as it streams (see `StreamReading`): the array members of the
   * object at `reading.at` below `data` go to the taker `reading.open()` returns for each attempt,
   * in batches, and are never held; resolves to the rest of `data`, those arrays left empty.
   * Retried like any read; a body over `reading.maxBytes` fails with kind `too_large`, never
   * retried.
   */
  stream<Op extends OperationId>(
    operationId: Op,
    call: CallOptions,
    reading: StreamReading,
    ...params: ParamsArgs<Op>
  ): Promise<unknown>;
  /** Connection slots in use and requests waiting for one (see `fair-share.ts`). */
  connectionStats(): { inUse: number; waiting: number };
  /**
   * What the token gate knows of a token by its digest (see `token-gate.ts`); `unknown` when the
   * gate is off.
   */
  tokenStatus(tokenKey: string): TokenStatus;
  /** The remembered 401 of a token the upstream refused (see `token-gate.ts`), if any. */
  tokenRefusal(tokenKey: string): UpstreamError | undefined;
  /** Forgets a refusal: the key stands for a new token now (a sign-in grant's refresh). */
  forgiveToken(tokenKey: string): void;
  /**
   * Asks the upstream whether it is up: `GET /user` without a token, through the client's own
   * dispatcher (not the global `fetch`), outside the ledger and the token's fair share. Resolves
   * with the HTTP status (a 401 costs no quota and proves the upstream answers); rejects when no
   * answer came, or when `signal` aborts first.
   */
  probe(signal: AbortSignal): Promise<number>;
  /** Waits for in-flight requests, then closes the owned pool. Later calls reject. */
  close(): Promise<void>;
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const settings = resolveSettings(options);
  const { origin, basePath } = settings;
  // The client owns (and closes) the pool it creates, never a dispatcher it was handed.
  const ownsDispatcher = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? createPool(settings);
  let closed = false;
  // The policies around one attempt, as undici composes interceptors: the last sees a call first.
  const dispatch = composeCall(
    sendAttempt({ ...settings, dispatcher }),
    fairShare(settings.share),
    retries(settings.retry, { ...settings, isClosed: () => closed }),
    ...(settings.gate ? [tokenGate(settings.gate)] : []),
    ...(settings.backoff ? [readBackoff(settings.backoff)] : []),
  );
  // A call's request is built once, its token checked, for every attempt and policy.
  const sendCall = async (
    operationId: OperationId,
    call: CallOptions,
    params: Readonly<Record<string, unknown>> | undefined,
    stream?: StreamReading,
  ): Promise<unknown> => {
    const request = buildOutgoingRequest(
      operationId,
      call?.token,
      call?.tokenKey,
      basePath,
      params,
      settings.headerSettings,
    );
    return dispatch({ operationId, request, options: call, stream, attempt: 1, reportAnswer });
  };
  const send = <Op extends OperationId>(
    operationId: Op,
    call: CallOptions,
    params: Readonly<Record<string, unknown>> | undefined,
  ) => sendCall(operationId, call, params) as Promise<OperationResult<Op>>;
  const known = (operationId: OperationId, method: string) => {
    if (!Object.hasOwn(ROUTES, operationId)) {
      throw new TypeError(`${method}: unknown operationId "${String(operationId)}"`);
    }
  };

  return {
    ...buildOperations(
      (operationId) =>
        (call, ...params) =>
          send(operationId, call, paramsObject(params)),
    ),
    baseUrl: `${origin}${basePath}`,
    call(operationId, call, ...params) {
      if (!Object.hasOwn(ROUTES, operationId)) {
        return Promise.reject(new TypeError(`call: unknown operationId "${String(operationId)}"`));
      }
      return send(operationId, call, paramsObject(params));
    },
    callWithParams(operationId, call, params) {
      if (!Object.hasOwn(ROUTES, operationId)) {
        return Promise.reject(
          new TypeError(`callWithParams: unknown operationId "${String(operationId)}"`),
        );
      }
      return send(operationId, call, params);
    },
    async stream(operationId, call, reading, ...params) {
      known(operationId, 'stream');
      requirePositiveInteger('stream maxBytes', reading.maxBytes);
      return sendCall(operationId, call, paramsObject(params), reading);
    },
    connectionStats: () => settings.share.stats(),
    tokenStatus: (tokenKey) => settings.gate?.status(tokenKey) ?? 'unknown',
    tokenRefusal: (tokenKey) => settings.gate?.refusal(tokenKey),
    forgiveToken: (tokenKey) => settings.gate?.forgive(tokenKey),
    async probe(signal) {
      if (closed) throw new Error('probe: the upstream client is closed');
      const response = await dispatcher.request({
        origin,
        path: `${basePath}/user`,
        method: 'GET',
        headers: { 'user-agent': settings.headerSettings.userAgent, accept: 'application/json' },
        signal,
        headersTimeout: settings.headersTimeoutMs,
        bodyTimeout: settings.bodyTimeoutMs,
      });
      await response.body.dump();
      return response.statusCode;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (ownsDispatcher) await dispatcher.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The operation table

type OperationTable = { -readonly [Op in OperationId]?: OperationMethod<Op> };

/** One method per route of the table, each made by `methodFor`. */
function buildOperations(
  methodFor: <Op extends OperationId>(operationId: Op) => OperationMethod<Op>,
): UpstreamOperations {
  const table: OperationTable = {};
  for (const operationId of OPERATION_IDS) setMethod(table, operationId, methodFor(operationId));
  if (!hasEveryOperation(table)) throw new Error('createUpstreamClient: an operation is missing');
  return table;
}

function setMethod<Op extends OperationId>(
  table: { -readonly [K in Op]?: OperationMethod<K> },
  operationId: Op,
  method: OperationMethod<Op>,
): void {
  table[operationId] = method;
}

function hasEveryOperation(table: OperationTable): table is UpstreamOperations {
  return OPERATION_IDS.every((operationId) => typeof table[operationId] === 'function');
}

/**
 * Private: the params object of a method's rest arguments. The route table (through
 * `ParamsArgs`) types it for callers; `buildRequestTarget` checks every value it reads.
 */
function paramsObject(params: readonly unknown[]): Readonly<Record<string, unknown>> | undefined {
  return params[0] as Readonly<Record<string, unknown>> | undefined;
}
