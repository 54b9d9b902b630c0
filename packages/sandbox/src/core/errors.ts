/**
 * The interface's error table, and the one error type handlers throw. The dispatcher turns an
 * ApiError into `{ error: { id, name, detail } }` with its status; anything else becomes a 500.
 */
import type { ErrorDetail } from '@plans-gateway/rest-contract';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly id: string,
    readonly errorName: string,
    readonly detail: string,
  ) {
    super(`${id} ${errorName}: ${detail}`);
    this.name = 'ApiError';
  }

  toBody(): { error: ErrorDetail } {
    return { error: { id: this.id, name: this.errorName, detail: this.detail } };
  }
}

export const badRequest = (detail: string) => new ApiError(400, '400', 'bad_request', detail);
export const notAuthorized = (detail: string) => new ApiError(401, '401', 'not_authorized', detail);
export const unauthorizedScope = (detail: string) =>
  new ApiError(403, '403.3', 'unauthorized_scope', detail);
export const notFound = (detail: string) => new ApiError(404, '404.1', 'not_found', detail);
export const resourceNotFound = (detail: string) =>
  new ApiError(404, '404.2', 'resource_not_found', detail);
export const conflict = (detail: string) => new ApiError(409, '409', 'conflict', detail);
export const tooManyRequests = (detail: string) =>
  new ApiError(429, '429', 'too_many_requests', detail);
export const internalError = (detail: string) =>
  new ApiError(500, '500', 'internal_server_error', detail);
export const serviceUnavailable = (detail: string) =>
  new ApiError(503, '503', 'service_unavailable', detail);
export const subscriptionLapsed = (detail: string) =>
  new ApiError(403, '403.1', 'subscription_lapsed', detail);
export const trialExpired = (detail: string) => new ApiError(403, '403.2', 'trial_expired', detail);
export const dataLimitReached = (detail: string) =>
  new ApiError(403, '403.4', 'data_limit_reached', detail);
