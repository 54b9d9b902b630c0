/**
 * The route table: for every operationId of the REST interface, its HTTP method, its path
 * template (relative to the `/v1` base) and which query parameters it accepts. The client's 44
 * methods and their parameter types are all derived from this one table.
 */
import type {
  IsoDate,
  OperationId,
  RequestBody,
  ResponseData,
  TransactionListType,
} from './types.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Query parameters by their camelCase name, with the type the caller passes. */
export interface QueryParams {
  /** Delta request: only entities changed since this `server_knowledge`. */
  lastKnowledgeOfServer: number;
  sinceDate: IsoDate;
  untilDate: IsoDate;
  type: TransactionListType;
  includeAccounts: boolean;
}
export type QueryParamName = keyof QueryParams;

const QUERY_WIRE_NAMES: Record<QueryParamName, string> = {
  lastKnowledgeOfServer: 'last_knowledge_of_server',
  sinceDate: 'since_date',
  untilDate: 'until_date',
  type: 'type',
  includeAccounts: 'include_accounts',
};

export interface RouteSpec {
  readonly method: HttpMethod;
  /** `{name}` marks a path parameter, named as the caller passes it (camelCase). */
  readonly path: string;
  readonly query?: readonly QueryParamName[];
  /** The operation sends a JSON body (`params.body`). */
  readonly body?: true;
}

const DELTA = ['lastKnowledgeOfServer'] as const;
const TRANSACTION_LIST = ['sinceDate', 'untilDate', 'type', 'lastKnowledgeOfServer'] as const;

export const ROUTES = {
  getUser: { method: 'GET', path: '/user' },
  getPlans: { method: 'GET', path: '/plans', query: ['includeAccounts'] },
  getPlanById: { method: 'GET', path: '/plans/{planId}', query: DELTA },
  getPlanSettingsById: { method: 'GET', path: '/plans/{planId}/settings' },
  getAccounts: { method: 'GET', path: '/plans/{planId}/accounts', query: DELTA },
  createAccount: { method: 'POST', path: '/plans/{planId}/accounts', body: true },
  getAccountById: { method: 'GET', path: '/plans/{planId}/accounts/{accountId}' },
  getCategories: { method: 'GET', path: '/plans/{planId}/categories', query: DELTA },
  createCategory: { method: 'POST', path: '/plans/{planId}/categories', body: true },
  getCategoryById: { method: 'GET', path: '/plans/{planId}/categories/{categoryId}' },
  updateCategory: { method: 'PATCH', path: '/plans/{planId}/categories/{categoryId}', body: true },
  getMonthCategoryById: {
    method: 'GET',
    path: '/plans/{planId}/months/{month}/categories/{categoryId}',
  },
  updateMonthCategory: {
    method: 'PATCH',
    path: '/plans/{planId}/months/{month}/categories/{categoryId}',
    body: true,
  },
  createCategoryGroup: { method: 'POST', path: '/plans/{planId}/category_groups', body: true },
  updateCategoryGroup: {
    method: 'PATCH',
    path: '/plans/{planId}/category_groups/{categoryGroupId}',
    body: true,
  },
  getPayees: { method: 'GET', path: '/plans/{planId}/payees', query: DELTA },
  createPayee: { method: 'POST', path: '/plans/{planId}/payees', body: true },
  getPayeeById: { method: 'GET', path: '/plans/{planId}/payees/{payeeId}' },
  updatePayee: { method: 'PATCH', path: '/plans/{planId}/payees/{payeeId}', body: true },
  getPayeeLocations: { method: 'GET', path: '/plans/{planId}/payee_locations' },
  getPayeeLocationById: {
    method: 'GET',
    path: '/plans/{planId}/payee_locations/{payeeLocationId}',
  },
  getPayeeLocationsByPayee: {
    method: 'GET',
    path: '/plans/{planId}/payees/{payeeId}/payee_locations',
  },
  getPlanMonths: { method: 'GET', path: '/plans/{planId}/months', query: DELTA },
  getPlanMonth: { method: 'GET', path: '/plans/{planId}/months/{month}' },
  getMoneyMovements: { method: 'GET', path: '/plans/{planId}/money_movements' },
  getMoneyMovementsByMonth: {
    method: 'GET',
    path: '/plans/{planId}/months/{month}/money_movements',
  },
  getMoneyMovementGroups: { method: 'GET', path: '/plans/{planId}/money_movement_groups' },
  getMoneyMovementGroupsByMonth: {
    method: 'GET',
    path: '/plans/{planId}/months/{month}/money_movement_groups',
  },
  getTransactions: { method: 'GET', path: '/plans/{planId}/transactions', query: TRANSACTION_LIST },
  createTransaction: { method: 'POST', path: '/plans/{planId}/transactions', body: true },
  updateTransactions: { method: 'PATCH', path: '/plans/{planId}/transactions', body: true },
  importTransactions: { method: 'POST', path: '/plans/{planId}/transactions/import' },
  getTransactionById: { method: 'GET', path: '/plans/{planId}/transactions/{transactionId}' },
  updateTransaction: {
    method: 'PUT',
    path: '/plans/{planId}/transactions/{transactionId}',
    body: true,
  },
  deleteTransaction: { method: 'DELETE', path: '/plans/{planId}/transactions/{transactionId}' },
  getTransactionsByAccount: {
    method: 'GET',
    path: '/plans/{planId}/accounts/{accountId}/transactions',
    query: TRANSACTION_LIST,
  },
  getTransactionsByCategory: {
    method: 'GET',
    path: '/plans/{planId}/categories/{categoryId}/transactions',
    query: TRANSACTION_LIST,
  },
  getTransactionsByPayee: {
    method: 'GET',
    path: '/plans/{planId}/payees/{payeeId}/transactions',
    query: TRANSACTION_LIST,
  },
  getTransactionsByMonth: {
    method: 'GET',
    path: '/plans/{planId}/months/{month}/transactions',
    query: TRANSACTION_LIST,
  },
  getScheduledTransactions: {
    method: 'GET',
    path: '/plans/{planId}/scheduled_transactions',
    query: DELTA,
  },
  createScheduledTransaction: {
    method: 'POST',
    path: '/plans/{planId}/scheduled_transactions',
    body: true,
  },
  getScheduledTransactionById: {
    method: 'GET',
    path: '/plans/{planId}/scheduled_transactions/{scheduledTransactionId}',
  },
  updateScheduledTransaction: {
    method: 'PUT',
    path: '/plans/{planId}/scheduled_transactions/{scheduledTransactionId}',
    body: true,
  },
  deleteScheduledTransaction: {
    method: 'DELETE',
    path: '/plans/{planId}/scheduled_transactions/{scheduledTransactionId}',
  },
} as const satisfies Record<OperationId, RouteSpec>;

export const OPERATION_IDS = Object.keys(ROUTES) as OperationId[];

// ---------------------------------------------------------------------------------------------
// Types derived from the table

type Route<Op extends OperationId> = (typeof ROUTES)[Op];

type PathParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParamNames<Rest>
  : never;

type QueryNames<Op extends OperationId> =
  Route<Op> extends { readonly query: readonly (infer Name)[] } ? Name & QueryParamName : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * What one operation takes besides the call options: its path parameters (required strings),
 * its query parameters (optional) and, for writes with a body, `body`.
 */
export type Params<Op extends OperationId> = Simplify<
  { readonly [K in PathParamNames<Route<Op>['path']>]: string } & {
    readonly [K in QueryNames<Op>]?: QueryParams[K];
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

// The table and the REST contract must agree on which operations carry a body.
type OpsWithBody = {
  [Op in OperationId]: Route<Op> extends { readonly body: true } ? Op : never;
}[OperationId];
type Equal<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
/** @public A compile-time check only: exported so that it is not an unused local. */
export type BodyRoutesMatchRequestBody = Assert<Equal<OpsWithBody, keyof RequestBody>>;

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
  const route: RouteSpec = ROUTES[operationId];
  const values = params ?? {};

  const path = route.path.replace(/\{(\w+)\}/g, (_match, name: string) =>
    encodePathSegment(operationId, name, values[name]),
  );

  const query = new URLSearchParams();
  for (const name of route.query ?? []) {
    const value = values[name];
    if (value === undefined || value === null) continue;
    query.set(QUERY_WIRE_NAMES[name], encodeQueryValue(operationId, name, value));
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
function encodeQueryValue(operationId: OperationId, name: QueryParamName, value: unknown): string {
  switch (name) {
    case 'lastKnowledgeOfServer':
      if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
        return String(value);
      }
      throw new TypeError(`${operationId}: params.${name} must be a non-negative integer`);
    case 'includeAccounts':
      if (typeof value === 'boolean') return String(value);
      throw new TypeError(`${operationId}: params.${name} must be a boolean`);
    case 'sinceDate':
    case 'untilDate':
    case 'type':
      if (typeof value === 'string' && value.length > 0) return value;
      throw new TypeError(`${operationId}: params.${name} must be a non-empty string`);
  }
}
