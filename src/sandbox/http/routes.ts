/**
 * The one place that maps method + path (relative to `/v1`) to the interface's operationId.
 * Path parameters are written `{name}` as in the interface description.
 */
import type { OperationId } from '../../upstream/types.js';

export interface RouteDefinition {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  operationId: OperationId;
}

const plan = '/plans/{plan_id}';

export const ROUTES: readonly RouteDefinition[] = [
  { method: 'GET', path: '/user', operationId: 'getUser' },
  { method: 'GET', path: '/plans', operationId: 'getPlans' },
  { method: 'GET', path: plan, operationId: 'getPlanById' },
  { method: 'GET', path: `${plan}/settings`, operationId: 'getPlanSettingsById' },

  { method: 'GET', path: `${plan}/accounts`, operationId: 'getAccounts' },
  { method: 'POST', path: `${plan}/accounts`, operationId: 'createAccount' },
  { method: 'GET', path: `${plan}/accounts/{account_id}`, operationId: 'getAccountById' },

  { method: 'GET', path: `${plan}/categories`, operationId: 'getCategories' },
  { method: 'POST', path: `${plan}/categories`, operationId: 'createCategory' },
  { method: 'GET', path: `${plan}/categories/{category_id}`, operationId: 'getCategoryById' },
  { method: 'PATCH', path: `${plan}/categories/{category_id}`, operationId: 'updateCategory' },
  {
    method: 'GET',
    path: `${plan}/months/{month}/categories/{category_id}`,
    operationId: 'getMonthCategoryById',
  },
  {
    method: 'PATCH',
    path: `${plan}/months/{month}/categories/{category_id}`,
    operationId: 'updateMonthCategory',
  },
  { method: 'POST', path: `${plan}/category_groups`, operationId: 'createCategoryGroup' },
  {
    method: 'PATCH',
    path: `${plan}/category_groups/{category_group_id}`,
    operationId: 'updateCategoryGroup',
  },

  { method: 'GET', path: `${plan}/payees`, operationId: 'getPayees' },
  { method: 'POST', path: `${plan}/payees`, operationId: 'createPayee' },
  { method: 'GET', path: `${plan}/payees/{payee_id}`, operationId: 'getPayeeById' },
  { method: 'PATCH', path: `${plan}/payees/{payee_id}`, operationId: 'updatePayee' },
  { method: 'GET', path: `${plan}/payee_locations`, operationId: 'getPayeeLocations' },
  {
    method: 'GET',
    path: `${plan}/payee_locations/{payee_location_id}`,
    operationId: 'getPayeeLocationById',
  },
  {
    method: 'GET',
    path: `${plan}/payees/{payee_id}/payee_locations`,
    operationId: 'getPayeeLocationsByPayee',
  },

  { method: 'GET', path: `${plan}/months`, operationId: 'getPlanMonths' },
  { method: 'GET', path: `${plan}/months/{month}`, operationId: 'getPlanMonth' },

  { method: 'GET', path: `${plan}/money_movements`, operationId: 'getMoneyMovements' },
  {
    method: 'GET',
    path: `${plan}/months/{month}/money_movements`,
    operationId: 'getMoneyMovementsByMonth',
  },
  { method: 'GET', path: `${plan}/money_movement_groups`, operationId: 'getMoneyMovementGroups' },
  {
    method: 'GET',
    path: `${plan}/months/{month}/money_movement_groups`,
    operationId: 'getMoneyMovementGroupsByMonth',
  },

  { method: 'GET', path: `${plan}/transactions`, operationId: 'getTransactions' },
  { method: 'POST', path: `${plan}/transactions`, operationId: 'createTransaction' },
  { method: 'PATCH', path: `${plan}/transactions`, operationId: 'updateTransactions' },
  { method: 'POST', path: `${plan}/transactions/import`, operationId: 'importTransactions' },
  {
    method: 'GET',
    path: `${plan}/transactions/{transaction_id}`,
    operationId: 'getTransactionById',
  },
  {
    method: 'PUT',
    path: `${plan}/transactions/{transaction_id}`,
    operationId: 'updateTransaction',
  },
  {
    method: 'DELETE',
    path: `${plan}/transactions/{transaction_id}`,
    operationId: 'deleteTransaction',
  },
  {
    method: 'GET',
    path: `${plan}/accounts/{account_id}/transactions`,
    operationId: 'getTransactionsByAccount',
  },
  {
    method: 'GET',
    path: `${plan}/categories/{category_id}/transactions`,
    operationId: 'getTransactionsByCategory',
  },
  {
    method: 'GET',
    path: `${plan}/payees/{payee_id}/transactions`,
    operationId: 'getTransactionsByPayee',
  },
  {
    method: 'GET',
    path: `${plan}/months/{month}/transactions`,
    operationId: 'getTransactionsByMonth',
  },

  {
    method: 'GET',
    path: `${plan}/scheduled_transactions`,
    operationId: 'getScheduledTransactions',
  },
  {
    method: 'POST',
    path: `${plan}/scheduled_transactions`,
    operationId: 'createScheduledTransaction',
  },
  {
    method: 'GET',
    path: `${plan}/scheduled_transactions/{scheduled_transaction_id}`,
    operationId: 'getScheduledTransactionById',
  },
  {
    method: 'PUT',
    path: `${plan}/scheduled_transactions/{scheduled_transaction_id}`,
    operationId: 'updateScheduledTransaction',
  },
  {
    method: 'DELETE',
    path: `${plan}/scheduled_transactions/{scheduled_transaction_id}`,
    operationId: 'deleteScheduledTransaction',
  },
];

/** Operations that change data: refused for read-only tokens. */
export function isWriteMethod(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
}
