import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { cacheConfig } from '@plans-gateway/client-kit/apollo';

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
    // The client kit's possible types (without them Apollo drops `... on Error { message }` on
    // mutation results) and pagination of every connection.
    cache: new InMemoryCache(cacheConfig()),
    // `@defer`: the gateway answers in parts (multipart/mixed).
    incrementalHandler: new Defer20220824Handler(),
  });
}

/** Web Crypto: the same code runs in browsers, React Native (with a polyfill) and Node. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
