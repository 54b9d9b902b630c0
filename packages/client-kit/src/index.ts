/**
 * What a client of the Plans GraphQL gateway configures once, read from the gateway's schema by
 * `npm run codegen` (src/generated): plain data, no dependency. Ready configurations built from
 * it: `@plans-gateway/client-kit/apollo` (Apollo Client's InMemoryCache) and
 * `@plans-gateway/client-kit/graphcache` (urql's normalized cache).
 */
import { connectionFields, embeddedTypes } from './generated/cache-shape.js';
import generatedPossibleTypes from './generated/possible-types.js';

export { connectionFields, embeddedTypes } from './generated/cache-shape.js';
export { scalars } from './generated/scalars.js';

/** Per union or interface, its member types: what a cache needs to match `... on` fragments. */
export const possibleTypes: Readonly<Record<string, readonly string[]>> =
  generatedPossibleTypes.possibleTypes;

/** The types without an `id` of their own: a normalized cache keeps them inside their parent. */
export type EmbeddedType = (typeof embeddedTypes)[number];

/** Whether a normalized cache keys objects of `typename` by their `id` (else: embedded). */
export function isEntityType(typename: string): boolean {
  return !(embeddedTypes as readonly string[]).includes(typename);
}

/** Each paginated field: its type, its name, and the arguments that pick the list. */
export function paginatedFields(): { type: string; field: string; keyArgs: readonly string[] }[] {
  return Object.entries(connectionFields).flatMap(([type, fields]) =>
    Object.entries(fields).map(([field, keyArgs]) => ({ type, field, keyArgs })),
  );
}
