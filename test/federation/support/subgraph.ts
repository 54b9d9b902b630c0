/** Clients of a gateway's subgraph endpoint (`/subgraph`), over the stack's own `fetch`. */
import { type GraphQLResponse, gqlAt } from '../../support/graphql.js';
import type { ServedGateway } from '../../support/stack.js';

/** The subgraph endpoint beside a gateway's `/graphql`. */
export function subgraphUrl(served: Pick<ServedGateway, 'url'>): string {
  return served.url.replace(/\/graphql$/, '/subgraph');
}

/** A representation as a router sends it: `__typename` and the key fields. */
export type Representation = Record<string, unknown>;

/** `_entities` over `representations` (sent as `$representations`, as routers do). */
export function entities<Item = Record<string, unknown> | null>(
  served: Pick<ServedGateway, 'url' | 'fetch'>,
  representations: readonly unknown[],
  selection: string,
  token: string | null,
): Promise<GraphQLResponse<{ _entities: Item[] }>> {
  return gqlAt<{ _entities: Item[] }>(
    subgraphUrl(served),
    `query Entities($representations: [_Any!]!) { _entities(representations: $representations) { ${selection} } }`,
    { representations },
    token,
    {},
    served.fetch,
  );
}

/** POSTs any operation to the subgraph endpoint. */
export function subgraphGql<Data = Record<string, unknown>>(
  served: Pick<ServedGateway, 'url' | 'fetch'>,
  query: string,
  variables: Record<string, unknown>,
  token: string | null,
): Promise<GraphQLResponse<Data>> {
  return gqlAt<Data>(subgraphUrl(served), query, variables, token, {}, served.fetch);
}
