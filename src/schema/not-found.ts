import { gatewayError } from '../errors/codes.js';

/**
 * A lookup by id that the replica cannot answer. REST would say 404.2 for the same request, so
 * the field resolves to null beside a NOT_FOUND error, as an upstream 404 would.
 */
export function orNotFound<T>(value: T | undefined, what: string, id: string): T {
  if (value !== undefined) return value;
  throw gatewayError(`No ${what} with id ${JSON.stringify(id)} in this plan`, 'NOT_FOUND');
}
