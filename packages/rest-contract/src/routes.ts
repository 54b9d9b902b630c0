/**
 * What a caller passes to each operation and how it becomes a request. The route table itself
 * (`ROUTES`: method, path template, query parameter names, body) is generated from the
 * description; here its wire names (`plan_id`, `last_knowledge_of_server`) become the camelCase
 * names callers use (`planId`, `lastKnowledgeOfServer`), at the type level and at run time.
 */
import type { operations } from './generated/openapi.js';
import { ROUTES } from './generated/operations.js';
import type { OperationId, RequestBody, ResponseData } from './types.js';

export { ROUTES };

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export const OPERATION_IDS = Object.keys(ROUTES) as OperationId[];

type CamelCase<Name extends string> = Name extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : Name;

/** Private: `last_knowledge_of_server` → `lastKnowledgeOfServer`. */
function camelCase(name: string): string {
  return name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

type Route<Op extends OperationId> = (typeof ROUTES)[Op];

type PathParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? CamelCase<Name> | PathParamNames<Rest>
  : never;

/** Private: the query parameters of an operation, by wire name, as the description types them. */
type WireQuery<Op extends OperationId> = [
  NonNullable<operations[Op]['parameters']['query']>,
] extends [never]
  ? Record<never, never>
  : NonNullable<operations[Op]['parameters']['query']>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * What one operation takes besides the call options: its path parameters (required strings),
 * its query parameters (optional) and, for writes with a body, `body`.
 */
export type Params<Op extends OperationId> = Simplify<
  { readonly [K in PathParamNames<Route<Op>['path']>]: string } & {
    readonly [K in keyof WireQuery<Op> & string as CamelCase<K>]?: WireQuery<Op>[K];
  } & (Op extends keyof RequestBody ? { readonly body: RequestBody[Op] } : unknown)
>;

/** The rest parameters of a method: none, optional params or required params. */
export type ParamsArgs<Op extends OperationId> = [keyof Params<Op>] extends [never]
  ? []
  : // biome-ignore lint/complexity/noBannedTypes: `{}` is the type every all-optional params object extends
    {} extends Params<Op>
    ? [params?: Params<Op>]
    : [params: Params<Op>];

/**
 * `importTransactions` answers 200 when nothing was imported and 201 when something was; the
 * status is the only way to tell them apart, so it travels beside the REST data.
 */
export type ImportTransactionsResult = ResponseData['importTransactions'] & {
  /** The HTTP status of the answer: 201 when transactions were imported, 200 when none. */
  status: 200 | 201;
};

export type OperationResult<Op extends OperationId> = Op extends 'importTransactions'
  ? ImportTransactionsResult
  : ResponseData[Op];

// ---------------------------------------------------------------------------------------------
// Building a request target

export interface RequestTarget {
  readonly method: HttpMethod;
  /** Path and query relative to the origin, base path included (e.g. `/v1/plans/x/accounts`). */
  readonly path: string;
  /** The JSON body to send, already serialized; `undefined` for none. */
  readonly body: string | undefined;
}

/**
 * Fills the path template of `operationId` from `params` and appends its query string.
 * Only the query names listed in the table are read, so nothing else a caller slips into
 * `params` (an `access_token`, say) can ever reach the URL. Throws a TypeError naming the
 * parameter when one is missing or invalid.
 */
export function buildRequestTarget(
  operationId: OperationId,
  basePath: string,
  params: Readonly<Record<string, unknown>> | undefined,
): RequestTarget {
  const route = ROUTES[operationId];
  const values = params ?? {};

  const path = route.path.replace(/\{(\w+)\}/g, (_match, wire: string) => {
    const name = camelCase(wire);
    return encodePathSegment(operationId, name, values[name]);
  });

  const query = new URLSearchParams();
  for (const wire of route.query) {
    const name = camelCase(wire);
    const value = values[name];
    if (value === undefined || value === null) continue;
    query.set(wire, encodeQueryValue(operationId, wire, name, value));
  }
  const search = query.size > 0 ? `?${query.toString()}` : '';

  let body: string | undefined;
  if (route.body) {
    const payload = values.body;
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
      throw new TypeError(`${operationId}: params.body must be an object`);
    }
    body = JSON.stringify(payload);
  }

  return { method: route.method, path: `${basePath}${path}${search}`, body };
}

// Private: ids and aliases (`last-used`, `default`, `current`) are unreserved characters and pass
// through unchanged; anything else is percent-encoded so it stays inside its segment.
function encodePathSegment(operationId: OperationId, name: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(`${operationId}: params.${name} must be a non-empty string`);
  }
  if (value === '.' || value === '..') {
    throw new TypeError(`${operationId}: params.${name} must not be a dot segment`);
  }
  return encodeURIComponent(value);
}

// Private: query values are checked against their declared type so a wrong value fails here,
// naming the parameter, instead of becoming a confusing 400 upstream.
function encodeQueryValue(
  operationId: OperationId,
  wire: (typeof ROUTES)[OperationId]['query'][number],
  name: string,
  value: unknown,
): string {
  switch (wire) {
    case 'last_knowledge_of_server':
      if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
        return String(value);
      }
      throw new TypeError(`${operationId}: params.${name} must be a non-negative integer`);
    case 'include_accounts':
      if (typeof value === 'boolean') return String(value);
      throw new TypeError(`${operationId}: params.${name} must be a boolean`);
    case 'since_date':
    case 'until_date':
    case 'type':
      if (typeof value === 'string' && value.length > 0) return value;
      throw new TypeError(`${operationId}: params.${name} must be a non-empty string`);
  }
}
