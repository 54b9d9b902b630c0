/**
 * The one place that maps method + path (relative to `/v1`) to the interface's operationId: the
 * contract's operation table, generated from the interface description. Path parameters are
 * written `{name}` as in the description.
 */
import {
  type HttpMethod,
  OPERATION_IDS,
  ROUTES as OPERATIONS,
  type OperationId,
} from '@plans-gateway/rest-contract';

export interface RouteDefinition {
  method: HttpMethod;
  path: string;
  operationId: OperationId;
}

export const ROUTES: readonly RouteDefinition[] = OPERATION_IDS.map((operationId) => ({
  method: OPERATIONS[operationId].method,
  path: OPERATIONS[operationId].path,
  operationId,
}));

/** Operations that change data: refused for read-only tokens. */
export function isWriteMethod(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
}
