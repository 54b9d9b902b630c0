import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { relayStylePagination } from '@apollo/client/utilities';
import generated from '../client-kit/possible-types.js';

/** Filters of the transaction lists: each combination is a list of its own in the cache. */
const TRANSACTION_FILTERS = ['categoryId', 'payeeId', 'month', 'sinceDate', 'untilDate', 'type'];

export function createApolloClient(options: {
  uri: string;
  token: string;
  fetch?: typeof fetch;
}): ApolloClient {
  const persistedQueries = new PersistedQueryLink({
    sha256,
    // Hash-only requests go as GET: short, and revalidated with ETag by the browser's cache.
    useGETForHashedQueries: true,
  });
  const http = new HttpLink({
    uri: options.uri,
    headers: { authorization: `Bearer ${options.token}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return new ApolloClient({
    link: persistedQueries.concat(http),
    cache: new InMemoryCache({
      // Without it, Apollo drops `... on Error { message }` on mutation results.
      possibleTypes: generated.possibleTypes,
      typePolicies: {
        Plan: {
          fields: { transactions: relayStylePagination(['accountId', ...TRANSACTION_FILTERS]) },
        },
        Account: { fields: { transactions: relayStylePagination(TRANSACTION_FILTERS) } },
      },
    }),
    // `@defer`: the gateway answers in parts (multipart/mixed).
    incrementalHandler: new Defer20220824Handler(),
  });
}

/** Web Crypto: the same code runs in browsers, React Native (with a polyfill) and Node. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
