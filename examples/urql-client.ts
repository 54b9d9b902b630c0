import { cacheConfig } from '@plans-gateway/client-kit/graphcache';
import { Client, fetchExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';

/** urql with its default options (short queries go as GET) and the normalized cache. */
export function createUrqlClient(options: { url: string; token: string; fetch?: typeof fetch }) {
  return new Client({
    url: options.url,
    fetchOptions: () => ({ headers: { authorization: `Bearer ${options.token}` } }),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    exchanges: [
      // The client kit's keys (objects without an id are part of their parent) and pagination.
      cacheExchange(cacheConfig()),
      fetchExchange,
    ],
  });
}
