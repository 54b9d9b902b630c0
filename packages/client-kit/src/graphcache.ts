/**
 * urql's graphcache for the gateway: `cacheExchange({ ...cacheConfig() })`.
 *
 * - `keys`: a `null` key for each type without an `id` (it is embedded in its parent); without
 *   them graphcache warns about each one (`CurrencyFormat`, `DateFormat`, `PlanSettings`, the
 *   payloads...).
 * - `resolvers`: `relayPagination()` on every connection field, so pages merge into one list.
 */
import type { KeyingConfig, ResolverConfig } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import { embeddedTypes, paginatedFields } from './index.js';

/** A null key for every embedded type: graphcache keeps it inside its parent. */
export function keys(): KeyingConfig {
  return Object.fromEntries(embeddedTypes.map((typename) => [typename, () => null]));
}

/** relayPagination on every connection field. */
export function resolvers(): ResolverConfig {
  const config: ResolverConfig = {};
  for (const { type, field } of paginatedFields()) {
    config[type] = { ...config[type], [field]: relayPagination() };
  }
  return config;
}

/** What `cacheExchange(...)` takes: keys and resolvers. */
export function cacheConfig(): { keys: KeyingConfig; resolvers: ResolverConfig } {
  return { keys: keys(), resolvers: resolvers() };
}
