/** Readers of a gateway answer: its data, and what its extensions say about upstream work. */
import type { GraphQLResponse } from '../../support/graphql.js';

/** Fails with the errors in the message when the response carries any. */
export function dataOf<T>(response: GraphQLResponse<T>): T {
  if (response.body.errors?.length) {
    throw new Error(`unexpected GraphQL errors: ${JSON.stringify(response.body.errors)}`);
  }
  if (!response.body.data) throw new Error(`no data in the response (HTTP ${response.status})`);
  return response.body.data;
}

export interface UpstreamExtension {
  calls: number;
  operations: Record<string, number>;
  cacheHits: number;
  replicaAgeMs: number | null;
}

export interface StaleExtension {
  source: string;
  reason: string;
  ageMs: number;
}

export function upstreamOf(response: GraphQLResponse<unknown>): UpstreamExtension {
  return response.body.extensions?.upstream as UpstreamExtension;
}

export function staleOf(response: GraphQLResponse<unknown>): StaleExtension[] | undefined {
  return response.body.extensions?.stale as StaleExtension[] | undefined;
}
