/**
 * The product refuses some users: a lapsed subscription (403.1) or an expired trial (403.2) shuts
 * the user out of the interface, and a user at the abuse-prevention data limits (403.4) can read
 * and change data but not add more. Every POST of the interface adds records (transactions, an
 * import, accounts, categories, category groups, payees, scheduled transactions), so those are the
 * requests 403.4 refuses.
 */
import type { AccountState } from '../core/api.js';
import {
  type ApiError,
  dataLimitReached,
  subscriptionLapsed,
  trialExpired,
} from '../core/errors.js';

export const ACCOUNT_STATES: readonly AccountState[] = [
  'active',
  'subscription_lapsed',
  'trial_expired',
  'data_limit_reached',
];

export function isAccountState(value: unknown): value is AccountState {
  return (ACCOUNT_STATES as readonly unknown[]).includes(value);
}

/** 403.1 / 403.2 when the user may not use the interface at all; `null` otherwise. */
export function accessRefusal(state: AccountState): ApiError | null {
  if (state === 'subscription_lapsed')
    return subscriptionLapsed('The subscription of this account has lapsed');
  if (state === 'trial_expired') return trialExpired('The free trial of this account has expired');
  return null;
}

/** 403.4 when the user is at the data limits and the request would add data; `null` otherwise. */
export function dataLimitRefusal(state: AccountState, method: string): ApiError | null {
  return state === 'data_limit_reached' && method === 'POST'
    ? dataLimitReached('This request would exceed the data limits of this account')
    : null;
}
