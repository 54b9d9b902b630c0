/**
 * Request building: what one call sends, built once and reused by its retries. The token is
 * checked before anything else, and travels only in the `authorization` header.
 */
import {
  buildRequestTarget,
  type OperationId,
  type RequestTarget,
} from '@plans-gateway/rest-contract';
import { tokenKey as digestToken } from './token-key.js';

/** Shorter tokens are not redacted from upstream text: replacing them would garble it. */
const MIN_REDACTED_TOKEN_LENGTH = 8;

/** Everything one attempt sends; built once per call and reused by its retries. */
export interface OutgoingRequest extends RequestTarget {
  readonly headers: Readonly<Record<string, string>>;
  readonly tokenKey: string;
}

export interface HeaderSettings {
  readonly userAgent: string;
  /** Ask for gzip / br bodies. */
  readonly compression: boolean;
}

export interface BuiltRequest {
  readonly outgoing: OutgoingRequest;
  /** Removes the caller's token from text the upstream sent back. */
  readonly redact: (text: string) => string;
}

/** Throws a TypeError for a token that cannot be sent, or params the route cannot take. */
export function buildOutgoingRequest(
  operationId: OperationId,
  token: unknown,
  knownKey: string | undefined,
  basePath: string,
  params: Readonly<Record<string, unknown>> | undefined,
  settings: HeaderSettings,
): BuiltRequest {
  const valid = requireToken(operationId, token);
  const target = buildRequestTarget(operationId, basePath, params);
  const headers: Record<string, string> = {
    authorization: `Bearer ${valid}`,
    accept: 'application/json',
    'user-agent': settings.userAgent,
  };
  if (settings.compression) headers['accept-encoding'] = 'gzip, br';
  if (target.body !== undefined) headers['content-type'] = 'application/json';
  const redact =
    valid.length >= MIN_REDACTED_TOKEN_LENGTH
      ? (text: string) => text.replaceAll(valid, '[redacted]')
      : (text: string) => text;
  const tokenKey = knownKey ?? digestToken(valid);
  return { outgoing: { ...target, headers, tokenKey }, redact };
}

// Private: a token must be sendable as a header value as is; the message never echoes it.
function requireToken(operationId: OperationId, token: unknown): string {
  if (typeof token !== 'string' || token.length === 0) {
    throw new TypeError(`${operationId}: call.token must be a non-empty access token`);
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new TypeError(`${operationId}: call.token contains characters not allowed in a token`);
  }
  return token;
}
