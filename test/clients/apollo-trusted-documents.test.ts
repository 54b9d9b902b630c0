/**
 * Apollo Client against a gateway that runs only the manifest's operations
 * (TRUSTED_DOCUMENTS_ONLY): the snippet of docs/clients.md (examples/apollo-trusted-documents.ts)
 * sends the manifest's hash and runs; Apollo's own hashing (the APQ setup) is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../examples/apollo-client.js';
import { createTrustedApolloClient } from '../../examples/apollo-trusted-documents.js';
import { PlanHeaderDocument, RenamePayeeDocument } from '../../examples/generated/graphql.js';
import { loadDocumentManifest } from '../../src/admission/trusted-documents.js';
import { type Stack, startStack } from '../support/stack.js';
import { recordingFetch } from './support/recorders.js';

const MANIFEST = new URL('../../examples/generated/persisted-documents.json', import.meta.url)
  .pathname;
const manifestHashOf = (document: unknown) =>
  (document as { __meta__: { hash: string } }).__meta__.hash;

describe('Apollo Client with trusted documents only', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      config: { trustedDocuments: { manifestPath: MANIFEST, only: true } },
    });
  });
  afterAll(() => stack.close());

  it('runs a query by the manifest hash, in one GET without the text', async () => {
    const wire = recordingFetch();
    const client = createTrustedApolloClient({
      uri: stack.url,
      token: stack.token,
      fetch: wire.fetch,
    });
    const result = await client.query({ query: PlanHeaderDocument });
    expect(result.data?.plan?.name).toBeTruthy();
    expect(result.data?.plan?.accounts.length).toBeGreaterThan(0);

    const hash = manifestHashOf(PlanHeaderDocument);
    expect(loadDocumentManifest(MANIFEST).has(hash)).toBe(true);
    expect(wire.requests).toHaveLength(1);
    expect(wire.requests[0]).toMatchObject({
      method: 'GET',
      params: { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } },
    });
    expect(wire.requests[0]!.params.query).toBeUndefined();
  });

  it('runs a mutation by the manifest hash', async () => {
    const client = createTrustedApolloClient({ uri: stack.url, token: stack.token });
    const result = await client.mutate({
      mutation: RenamePayeeDocument,
      variables: { payeeId: '00000000-0000-4000-8000-000000000000', name: 'Nobody' },
    });
    expect(result.data?.updatePayee).toMatchObject({ __typename: 'NotFoundError' });
  });

  it('refuses Apollo’s own hashing (automatic persisted queries) in this mode', async () => {
    const client = createApolloClient({ uri: stack.url, token: stack.token });
    const refused = await client.query({ query: PlanHeaderDocument }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(JSON.stringify(refused)).toMatch(/PERSISTED_QUERY_(ONLY|NOT_IN_LIST)/);
  });
});
