import { gql } from '@urql/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PlanHeaderDocument, TransactionsPageDocument } from '../../examples/generated/graphql.js';
import { createUrqlClient } from '../../examples/urql-client.js';
import { type Stack, startStack } from '../support/stack.js';
import { recordingFetch } from './support/recorders.js';

describe('urql with graphcache and default options', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('sends a short query as GET without a CSRF header, and it runs', async () => {
    const wire = recordingFetch();
    const client = createUrqlClient({ url: stack.url, token: stack.token, fetch: wire.fetch });
    const result = await client.query(PlanHeaderDocument, {}).toPromise();
    expect(result.error).toBeUndefined();
    expect(result.data?.plan?.accounts.length).toBeGreaterThan(0);
    expect(wire.requests.map((r) => r.method)).toEqual(['GET']);
    expect(wire.requests[0]!.params.query).toContain('PlanHeader');
  });

  it('answers the same query from its normalized cache, and pages with relayPagination', async () => {
    const wire = recordingFetch();
    const client = createUrqlClient({ url: stack.url, token: stack.token, fetch: wire.fetch });
    await client.query(PlanHeaderDocument, {}).toPromise();
    const again = await client.query(PlanHeaderDocument, {}).toPromise();
    expect(again.data?.plan?.name).toBeTruthy();
    expect(wire.requests).toHaveLength(1);

    const first = await client.query(TransactionsPageDocument, { first: 2 }).toPromise();
    const after = first.data?.plan?.transactions.pageInfo.endCursor;
    const second = await client.query(TransactionsPageDocument, { first: 2, after }).toPromise();
    // relayPagination merges the second page into the list the first query holds.
    expect(second.data?.plan?.transactions.edges).toHaveLength(4);
  });

  it('keys every type through the client kit: no warning for objects without an id', async () => {
    const warnings: string[] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
      warnings.push(args.map(String).join(' '));
    });
    try {
      const client = createUrqlClient({ url: stack.url, token: stack.token });
      const result = await client
        .query(
          gql`
            query Formats {
              plan(id: "last-used") {
                id
                currencyFormat { isoCode }
                dateFormat { format }
                settings { dateFormat { format } currencyFormat { isoCode } }
                transactions(first: 1) { totalCount pageInfo { hasNextPage } nodes { id } }
              }
            }
          `,
          {},
        )
        .toPromise();
      expect(result.error).toBeUndefined();
      expect(result.data?.plan?.settings.currencyFormat.isoCode).toBeTruthy();
    } finally {
      warn.mockRestore();
    }
    expect(warnings).toEqual([]);
  });
});
