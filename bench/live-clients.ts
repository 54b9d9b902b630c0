/**
 * Subscribers for the subscriptions benchmark: the real `graphql-sse` (distinct connections
 * mode) and `graphql-ws` clients, each calling back with the time (monotonic clock) it received
 * every event.
 */
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';

export type Transport = 'SSE' | 'WS';

export interface LiveEvent {
  readonly at: number;
  readonly data: unknown;
  readonly errors?: unknown;
}

export interface LiveClient {
  subscribe(
    query: string,
    variables: Record<string, unknown>,
    onEvent: (event: LiveEvent) => void,
  ): () => void;
  close(): Promise<void>;
}

export function createLiveClient(
  transport: Transport,
  urls: { http: string; ws: string },
  token: string,
): LiveClient {
  const sink = (onEvent: (event: LiveEvent) => void) => ({
    next: (value: { data?: unknown; errors?: unknown }) =>
      onEvent({ at: performance.now(), data: value.data, errors: value.errors }),
    error: (error: unknown) => onEvent({ at: performance.now(), data: null, errors: [error] }),
    complete: () => {},
  });
  if (transport === 'SSE') {
    const client = createSseClient({
      url: urls.http,
      headers: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    return {
      subscribe: (query, variables, onEvent) =>
        client.subscribe({ query, variables }, sink(onEvent)),
      async close() {
        client.dispose();
      },
    };
  }
  const client = createWsClient({
    url: urls.ws,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: true,
  });
  return {
    subscribe: (query, variables, onEvent) => client.subscribe({ query, variables }, sink(onEvent)),
    close: () => client.dispose() as Promise<void>,
  };
}
