/**
 * Subscribers over the real `graphql-sse` and `graphql-ws` clients that collect what they
 * receive, for the live-update suites.
 */
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';

export interface Received<Data> {
  readonly data?: Data | null;
  readonly errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
}

/** What one subscription received, in order, and ways to wait for more. */
export interface Subscriber<Data> {
  readonly received: Received<Data>[];
  /** Resolves with the first received result (from the start) that satisfies `test`. */
  until(test: (result: Received<Data>) => boolean, what?: string): Promise<Received<Data>>;
  /** Resolves once the server completed the subscription (or it errored). */
  readonly finished: Promise<{ error?: unknown }>;
  stop(): void;
}

function collector<Data>(
  start: (sink: {
    next(value: Received<Data>): void;
    error(error: unknown): void;
    complete(): void;
  }) => () => void,
): Subscriber<Data> {
  const received: Received<Data>[] = [];
  const waiters: (() => void)[] = [];
  let finish: (outcome: { error?: unknown }) => void = () => {};
  const finished = new Promise<{ error?: unknown }>((resolve) => {
    finish = resolve;
  });
  let over = false;
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  const dispose = start({
    next(value) {
      received.push(value);
      wake();
    },
    error(error) {
      over = true;
      finish({ error });
      wake();
    },
    complete() {
      over = true;
      finish({});
      wake();
    },
  });
  return {
    received,
    finished,
    async until(test, what = 'a matching event') {
      for (;;) {
        const found = received.find(test);
        if (found) return found;
        if (over) {
          throw new Error(
            `the subscription ended before ${what}; received ${JSON.stringify(received)}`,
          );
        }
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    stop: () => dispose(),
  };
}

export interface Transport {
  subscribe<Data>(query: string, variables?: Record<string, unknown>): Subscriber<Data>;
  close(): Promise<void>;
}

/** GraphQL over SSE, `graphql-sse`'s distinct connections mode (yoga's built-in transport). */
export function sseClient(url: string, token: string | null): Transport {
  const client = createSseClient({
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
  });
  return {
    subscribe: <Data>(query: string, variables: Record<string, unknown> = {}) =>
      collector<Data>((sink) => client.subscribe<Data>({ query, variables }, sink)),
    async close() {
      client.dispose();
    },
  };
}

/** GraphQL over WebSocket with `graphql-ws`, the token in `connectionParams`. */
export function wsClient(
  url: string,
  token: string | null,
  options: { onClose?: (code: number, reason: string) => void } = {},
): Transport {
  const client = createWsClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: true,
    on: {
      closed: (event) => {
        const { code, reason } = event as { code: number; reason: string };
        options.onClose?.(code, String(reason));
      },
    },
  });
  return {
    subscribe: <Data>(query: string, variables: Record<string, unknown> = {}) =>
      collector<Data>((sink) => client.subscribe<Data>({ query, variables }, sink)),
    async close() {
      await client.dispose();
    },
  };
}
