import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { cacheConfig } from '@plans-gateway/client-kit/apollo';
import type { DocumentNode } from 'graphql';

/**
 * Apollo Client for a gateway that runs only the manifest's operations (TRUSTED_DOCUMENTS and
 * TRUSTED_DOCUMENTS_ONLY=on). Each request names its operation by the hash graphql-codegen's
 * client preset wrote into the manifest and into the document (`__meta__.hash`): a hash Apollo
 * computes itself, over the text it prints, is not in the manifest and is refused.
 */
export function createTrustedApolloClient(options: {
  uri: string;
  token: string;
  fetch?: typeof fetch;
}): ApolloClient {
  const persistedQueries = new PersistedQueryLink({
    generateHash: manifestHash,
    // The gateway never runs a text in this mode: sending one after a refusal is pointless.
    retry: () => false,
    useGETForHashedQueries: true,
  });
  const http = new HttpLink({
    uri: options.uri,
    headers: { authorization: `Bearer ${options.token}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return new ApolloClient({
    link: persistedQueries.concat(http),
    cache: new InMemoryCache(cacheConfig()),
  });
}

/** The client preset's hash of a document (`persistedDocuments` in its codegen config). */
function manifestHash(document: DocumentNode): string {
  const hash: unknown = (document as { __meta__?: { hash?: unknown } }).__meta__?.hash;
  if (typeof hash !== 'string')
    throw new Error(
      'This document has no manifest hash: use the client preset’s generated documents',
    );
  return hash;
}
