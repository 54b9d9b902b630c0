import { createHash } from 'node:crypto';
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../examples/apollo-client.js';
import {
  PlanHeaderDocument,
  RenamePayeeDocument,
  TransactionsPageDocument,
} from '../../examples/generated/graphql.js';
import { type Stack, startStack } from '../support/stack.js';
import { recordingFetch } from './support/recorders.js';

const MISSING_PAYEE = '00000000-0000-4000-8000-000000000000';

describe('Apollo Client 4 (InMemoryCache, relayStylePagination, persisted queries)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('sends the hash first and the text only on a miss, then the hash alone', async () => {
    const wire = recordingFetch();
    const client = createApolloClient({ uri: stack.url, token: stack.token, fetch: wire.fetch });
    const first = await client.query({ query: TransactionsPageDocument, variables: { first: 2 } });
    expect(first.data?.plan?.transactions.edges).toHaveLength(2);

    const [hashOnly, withText] = wire.requests;
    expect(wire.requests).toHaveLength(2);
    expect(hashOnly!.method).toBe('GET');
    expect(hashOnly!.params.query).toBeUndefined();
    expect(withText!.method).toBe('POST');
    expect(withText!.params.query).toContain('query TransactionsPage');
    // Both name the document by the SHA-256 of the text the second one carries (APQ).
    const hash = createHash('sha256').update(withText!.params.query!).digest('hex');
    for (const sent of wire.requests) {
      expect(sent.params.extensions).toMatchObject({
        persistedQuery: { version: 1, sha256Hash: hash },
      });
    }

    // A second client (another device) needs no text at all: the gateway registered it.
    const again = recordingFetch();
    const other = createApolloClient({ uri: stack.url, token: stack.token, fetch: again.fetch });
    await other.query({ query: TransactionsPageDocument, variables: { first: 2 } });
    expect(again.requests).toHaveLength(1);
    expect(again.requests[0]!.params.query).toBeUndefined();
  });

  it('merges pages into one list with relayStylePagination', async () => {
    const client = createApolloClient({ uri: stack.url, token: stack.token });
    const watched = client.watchQuery({ query: TransactionsPageDocument, variables: { first: 3 } });
    const firstPage = await watched.refetch();
    const cursor = firstPage.data?.plan?.transactions.pageInfo.endCursor;
    expect(cursor).toBeTruthy();
    await watched.fetchMore({ variables: { first: 3, after: cursor } });
    const merged = client.readQuery({ query: TransactionsPageDocument, variables: { first: 3 } });
    const ids = merged?.plan?.transactions.edges.map((edge) => edge.node.id) ?? [];
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
  });

  it('normalizes by id: an object read by two queries is one cache entry', async () => {
    const client = createApolloClient({ uri: stack.url, token: stack.token });
    const header = await client.query({ query: PlanHeaderDocument });
    const account = header.data!.plan!.accounts[0]!;
    const cached = client.cache.extract() as Record<string, { name?: string }>;
    expect(cached[`Account:${account.id}`]?.name).toBe(account.name);
  });

  it('keeps `... on Error { message }` thanks to the generated possibleTypes', async () => {
    const client = createApolloClient({ uri: stack.url, token: stack.token });
    const result = await client.mutate({
      mutation: RenamePayeeDocument,
      variables: { payeeId: MISSING_PAYEE, name: 'Nobody' },
    });
    expect(result.data?.updatePayee).toMatchObject({
      __typename: 'NotFoundError',
      message: expect.stringContaining(MISSING_PAYEE),
    });

    // The same mutation through a cache without possibleTypes loses the message.
    const bare = new ApolloClient({
      link: new HttpLink({ uri: stack.url, headers: { authorization: `Bearer ${stack.token}` } }),
      cache: new InMemoryCache(),
    });
    const lost = await bare.mutate({
      mutation: RenamePayeeDocument,
      variables: { payeeId: MISSING_PAYEE, name: 'Nobody' },
    });
    expect(lost.data?.updatePayee).not.toHaveProperty('message');
  });
});
