/**
 * A GraphQL client over HTTP: the global `fetch` for a gateway on a loopback port, or a gateway's
 * `yoga.fetch` when no socket is needed.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';

export interface GraphQLResponse<Data = Record<string, unknown>> {
  status: number;
  body: {
    data?: Data | null;
    errors?: Array<{
      message: string;
      path?: (string | number)[];
      extensions?: Record<string, unknown>;
    }>;
    extensions?: Record<string, unknown>;
  };
  headers: Headers;
}

export interface GqlOptions {
  /** Token to send as a bearer header; `null` sends none. @default the first sandbox user's token */
  token?: string | null;
  headers?: Record<string, string>;
}

export async function gqlAt<Data>(
  url: string,
  document: string | TypedDocumentNode<Data, never>,
  variables: unknown,
  token: string | null,
  headers: Record<string, string> = {},
  fetchImpl: (url: string, init: RequestInit) => Promise<Response> = fetch,
): Promise<GraphQLResponse<Data>> {
  const response = await fetchImpl(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify({
      query: typeof document === 'string' ? document : print(document),
      variables,
    }),
  });
  return {
    status: response.status,
    body: (await response.json()) as GraphQLResponse<Data>['body'],
    headers: response.headers,
  };
}
