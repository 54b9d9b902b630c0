import type { StaleReason } from '../replica/types.js';
import { ReplicaDataError } from '../replica/validate.js';
import { OperationDeadlineError } from './deadline-error.js';
import { gatewayErrorCode, isUpstreamError } from './upstream-error.js';

/**
 * Which failures may be answered from an older copy (replica or REST cache) instead of an
 * error: the upstream being busy, down or slower than the operation's deadline says nothing
 * about the caller's right to the data it already holds, and an answer with wrongly typed
 * fields (`ReplicaDataError`) is refused at the boundary, the older copy staying.
 * Authorization and not-found answers (401, 403, 404) never are: they may mean the token lost
 * access.
 */
export function classifyFailure(error: unknown): StaleReason | null {
  if (error instanceof ReplicaDataError) return 'UPSTREAM_ERROR';
  if (error instanceof OperationDeadlineError) return 'UPSTREAM_UNAVAILABLE';
  if (!isUpstreamError(error)) return null;
  switch (gatewayErrorCode(error)) {
    case 'RATE_LIMITED':
      return 'RATE_LIMITED';
    case 'UPSTREAM_UNAVAILABLE':
      return 'UPSTREAM_UNAVAILABLE';
    case 'UPSTREAM_ERROR':
      return 'UPSTREAM_ERROR';
    default:
      return null;
  }
}
