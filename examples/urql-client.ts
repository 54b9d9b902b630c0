import { Client, fetchExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';

/** urql with its default options (short queries go as GET) and the normalized cache. */
export function createUrqlClient(options: { url: string; token: string; fetch?: typeof fetch }) {
  return new Client({
    url: options.url,
    fetchOptions: () => ({ headers: { authorization: `Bearer ${options.token}` } }),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    exchanges: [
      cacheExchange({
        // Objects without an id are part of their parent.
        keys: { CurrencyFormat: () => null, DateFormat: () => null, PlanSettings: () => null },
        resolvers: {
          Plan: { transactions: relayPagination() },
          Account: { transactions: relayPagination() },
        },
      }),
      fetchExchange,
    ],
  });
}
