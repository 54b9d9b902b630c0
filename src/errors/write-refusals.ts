/**
 * How a failed REST write reaches the client. Refusals a client must handle in its own flow
 * (the body was invalid, the token is read-only, the target does not exist, the import id is
 * taken) become typed results: the classes below, which the schema registers with the errors
 * plugin. Everything else (401, other 403s, 429, 5xx, network, timeout) stays a GraphQL error
 * with its code from docs/graph.md#errors, and says whether the write may have been applied.
 */
import type { OperationId } from '@plans-gateway/rest-contract';
import { copyError } from './codes.js';
import { toGraphQLError } from './to-graphql.js';
import { isUpstreamError, type UpstreamError, type UpstreamRestError } from './upstream-error.js';

/** A write the upstream refused for a reason the client can act on; keeps the REST error verbatim. */
export abstract class WriteRefusedError extends Error {
  readonly restError: UpstreamRestError;
  readonly operationId: OperationId;

  constructor(message: string, error: UpstreamError & { upstream: UpstreamRestError }) {
    super(message);
    this.restError = { ...error.upstream };
    this.operationId = error.operationId;
  }
}

/** 400: the upstream found the body invalid (a rule the gateway cannot check, such as an unknown account). */
export class ValidationError extends WriteRefusedError {
  override readonly name = 'ValidationError';
}

/** 403.3: the token only has the read-only scope. */
export class ReadOnlyScopeError extends WriteRefusedError {
  override readonly name = 'ReadOnlyScopeError';
}

/** 404.1 / 404.2: the plan or the entity to change does not exist (or is not visible to the token). */
export class NotFoundError extends WriteRefusedError {
  override readonly name = 'NotFoundError';
}

/** 409 on a single create: the account already has a transaction with this import id. */
export class DuplicateImportIdError extends WriteRefusedError {
  override readonly name = 'DuplicateImportIdError';
  readonly importId: string | null;

  constructor(
    message: string,
    error: UpstreamError & { upstream: UpstreamRestError },
    importId: string | null,
  ) {
    super(message, error);
    this.importId = importId;
  }
}

export interface WriteFailureOptions {
  /**
   * Every transaction the write creates carries an import id, so sending the same write again
   * cannot create a second copy: the upstream refuses an import id already on the account.
   */
  safeToRetryWithSameImportId?: boolean;
  /**
   * Set (to the import id, or null) by a single transaction create: its 409 is then a
   * DuplicateImportIdError. Any other 409 stays a CONFLICT GraphQL error.
   */
  importId?: string | null;
}

function hasRestError(
  error: UpstreamError,
): error is UpstreamError & { upstream: UpstreamRestError } {
  return error.kind === 'http' && error.upstream !== null;
}

/** Private: the typed refusal for an upstream answer, or undefined when it is not one. */
function refusalOf(
  error: UpstreamError,
  options: WriteFailureOptions,
): WriteRefusedError | undefined {
  if (!hasRestError(error)) return undefined;
  const rest = error.upstream;
  const said = `${rest.id} ${rest.name}: ${rest.detail}`;
  switch (error.status) {
    case 400:
      return new ValidationError(
        `The upstream refused ${error.operationId} as invalid (${said})`,
        error,
      );
    case 403:
      return rest.id === '403.3'
        ? new ReadOnlyScopeError(
            `This token is read-only; ${error.operationId} needs write access (${said})`,
            error,
          )
        : undefined;
    case 404:
      return new NotFoundError(`Not found for ${error.operationId} (${said})`, error);
    case 409:
      return options.importId !== undefined
        ? new DuplicateImportIdError(
            `The account already has a transaction with this import id (${said})`,
            error,
            options.importId ?? null,
          )
        : undefined;
    default:
      return undefined;
  }
}

/**
 * What a failed write throws: a typed refusal, or a GraphQL error. Writes are sent once and never
 * retried; when the outcome is unknown (timeout, dropped connection or 5xx after sending) the
 * error says so in `extensions.outcomeUnknown`, and `extensions.safeToRetryWithSameImportId`
 * says whether resending it as it was is safe.
 */
export function writeFailure(error: unknown, options: WriteFailureOptions = {}): Error {
  if (!isUpstreamError(error)) return error instanceof Error ? error : new Error(String(error));
  const refusal = refusalOf(error, options);
  if (refusal) return refusal;
  const base = toGraphQLError(error);
  if (!error.outcomeUnknown) return base;
  const safe = options.safeToRetryWithSameImportId === true;
  const advice = safe
    ? ' Sending it again with the same importId is safe: the upstream refuses a second ' +
      'transaction with an importId already on the account.'
    : ' Do not resend it blindly: read the plan again (Cache-Control: no-cache) to see whether ' +
      'it was applied.';
  return copyError(base, {
    message: `${base.message}${advice}`,
    extensions: { ...base.extensions, outcomeUnknown: true, safeToRetryWithSameImportId: safe },
  });
}
