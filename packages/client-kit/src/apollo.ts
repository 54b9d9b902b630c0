/**
 * Apollo Client's InMemoryCache for the gateway: `new InMemoryCache(cacheConfig())`.
 *
 * - `possibleTypes`: without them Apollo drops `... on Error { message }` on mutation results.
 * - Every connection field pages with `relayStylePagination`, one list per combination of its
 *   other arguments (filters, order).
 * - Objects with an `id` are entities keyed by `__typename:id` (Apollo's default, and the REST id
 *   or the composite key the gateway builds); the others stay inside their parent.
 */
import type { InMemoryCacheConfig, TypePolicies } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import { paginatedFields, possibleTypes } from './index.js';

/** Type policies: the connection fields' pagination. Extend them with your own. */
export function typePolicies(): TypePolicies {
  const policies: TypePolicies = {};
  for (const { type, field, keyArgs } of paginatedFields()) {
    const fields = policies[type]?.fields ?? {};
    policies[type] = { fields: { ...fields, [field]: relayStylePagination([...keyArgs]) } };
  }
  return policies;
}

/** What `new InMemoryCache(...)` takes: possible types and type policies. */
export function cacheConfig(): Pick<InMemoryCacheConfig, 'possibleTypes' | 'typePolicies'> {
  return {
    possibleTypes: Object.fromEntries(
      Object.entries(possibleTypes).map(([name, members]) => [name, [...members]]),
    ),
    typePolicies: typePolicies(),
  };
}
