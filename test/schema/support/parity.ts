/**
 * One plan read two ways, for the per-domain schema tests (test/schema/<domain>.test.ts): from
 * the sandbox's REST interface and from the gateway over it. Each file compares one domain: the
 * fields that mirror REST (`expectMirrors`), and the links the graph adds, which must name the
 * rows REST names by id (`expectLink`).
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { ResponseData } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, expect } from 'vitest';
import { type Stack, startStack } from '../../support/stack.js';

export interface Parity {
  /** The first sandbox user's plan, which every read of the suite is about. */
  readonly planId: string;
  /** The `data` of a REST GET at the sandbox; the operationId types it. */
  rest<Op extends keyof ResponseData>(operation: Op, path: string): Promise<ResponseData[Op]>;
  /** The `data` of a GraphQL answer, which must have no errors; `planId` is always sent. */
  graph<Data, Variables = Record<string, unknown>>(
    query: string | TypedDocumentNode<Data, Variables>,
    variables?: Omit<Variables, 'planId'>,
  ): Promise<Data>;
}

/**
 * A stack for the file's tests: started before them, closed after. No socket (`yoga.fetch`) and
 * no rate limit, since neither is what these suites are about.
 */
export function paritySuite(): Parity {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack({ serve: 'fetch', sandbox: { rateLimit: false } });
  });
  afterAll(() => stack?.close());
  const started = (): Stack => {
    if (!stack) throw new Error('paritySuite: its stack starts in beforeAll');
    return stack;
  };
  return {
    get planId() {
      return started().planId;
    },
    async rest(_operation, path) {
      const response = await started().rest<{ data: never }>(path);
      expect(response.status, `GET ${path}`).toBe(200);
      return response.body.data;
    },
    async graph<Data, Variables>(
      query: string | TypedDocumentNode<Data, Variables>,
      variables?: Omit<Variables, 'planId'>,
    ) {
      const s = started();
      const response = await s.gql<Data, Record<string, unknown>>(
        query as string | TypedDocumentNode<Data, Record<string, unknown>>,
        { planId: s.planId, ...variables },
      );
      expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
      expect(response.body.data, 'data').toBeTruthy();
      return response.body.data as Data;
    },
  };
}

/** REST rows by id, to look up what an id names. */
export function byId<Row extends { id: string }>(rows: readonly Row[]): ReadonlyMap<string, Row> {
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * A link of the graph (`transaction.payee`, `account.transferPayee`, ...) is the row its REST id
 * names: null exactly when the id is, else that row, with REST's name for it.
 */
export function expectLink(
  link: { id: string; name?: string } | null | undefined,
  id: string | null | undefined,
  rows: ReadonlyMap<string, { name: string }>,
  where: string,
): void {
  if (id === null || id === undefined) {
    expect(link ?? null, `${where}: no id, so no link`).toBeNull();
    return;
  }
  const row = rows.get(id);
  expect(row, `${where}: REST has no row ${id}`).toBeDefined();
  expect(link, `${where} is null beside its id ${id}`).toBeTruthy();
  expect(link?.id, `${where}.id`).toBe(id);
  if (link?.name !== undefined) expect(link.name, `${where}.name`).toBe(row?.name);
}

/** The rows that plan rows name by id (accounts, payees, categories), as REST lists them. */
export async function namedRowsOf(parity: Parity) {
  const { planId } = parity;
  const [accounts, payees, categories] = await Promise.all([
    parity.rest('getAccounts', `/plans/${planId}/accounts`),
    parity.rest('getPayees', `/plans/${planId}/payees`),
    parity.rest('getCategories', `/plans/${planId}/categories`),
  ]);
  return {
    accounts: byId(accounts.accounts),
    payees: byId(payees.payees),
    categories: byId(categories.category_groups.flatMap((group) => group.categories)),
  };
}
