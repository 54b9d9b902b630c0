/**
 * One operation sent over each transport a client can use, with what came back reduced to the
 * same shape: the error codes, and how the carrier answered (HTTP status, WebSocket close code).
 * Real clients where they exist: `fetch` for POST and GET, `graphql-sse` for SSE, `graphql-ws`
 * over `ws` for WebSocket.
 */
import { createClient as createSseClient, NetworkError } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';

export const TRANSPORTS = ['post', 'get', 'sse', 'ws'] as const;
export type TransportName = (typeof TRANSPORTS)[number];

export interface Operation {
  query: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
  /** Bearer token; null sends none. */
  token: string | null;
  /** A browser's `Origin`, if any. */
  origin?: string;
}

export interface Outcome {
  /**
   * `extensions.code` of every error received, in order, with the limit of an
   * OPERATION_TOO_COMPLEX (`OPERATION_TOO_COMPLEX:depth`).
   */
  codes: string[];
  /** The HTTP status (the upgrade's, for a WebSocket refused before it opened). */
  status?: number;
  /** How the server closed the WebSocket, if it did. */
  closed?: number;
  /** Whether data came (a field resolved). */
  data: boolean;
}

type Errors = readonly { extensions?: Record<string, unknown> }[] | undefined;
const codesOf = (errors: Errors) =>
  (errors ?? []).map((error) => {
    const code = String(error.extensions?.code ?? 'none');
    const limit = error.extensions?.limit;
    return typeof limit === 'string' ? `${code}:${limit}` : code;
  });

/** The errors of an answer body: JSON, or an event stream's `data:` lines. */
function errorsIn(text: string): string[] {
  try {
    return codesOf((JSON.parse(text) as { errors?: Errors }).errors);
  } catch {
    return text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .flatMap((line) => codesOf((JSON.parse(line.slice(6)) as { errors?: Errors }).errors));
  }
}

const headersOf = (operation: Operation): Record<string, string> => ({
  ...(operation.token ? { authorization: `Bearer ${operation.token}` } : {}),
  ...(operation.origin ? { origin: operation.origin } : {}),
});

async function fromHttp(response: Response): Promise<Outcome> {
  const text = await response.text();
  let body: { data?: unknown; errors?: Errors } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // A carrier's refusal (431 from node) may not be JSON.
  }
  return {
    codes: codesOf(body.errors),
    status: response.status,
    data: hasData(body.data),
  };
}

function hasData(data: unknown): boolean {
  return typeof data === 'object' && data !== null && Object.values(data).some((v) => v !== null);
}

export function postOperation(url: string, operation: Operation): Promise<Outcome> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...headersOf(operation),
    },
    body: JSON.stringify({
      query: operation.query,
      variables: operation.variables,
      extensions: operation.extensions,
    }),
  }).then(fromHttp);
}

export function getOperation(url: string, operation: Operation): Promise<Outcome> {
  const target = new URL(url);
  target.searchParams.set('query', operation.query);
  if (operation.variables)
    target.searchParams.set('variables', JSON.stringify(operation.variables));
  if (operation.extensions)
    target.searchParams.set('extensions', JSON.stringify(operation.extensions));
  return fetch(target, {
    headers: {
      accept: 'application/json',
      'x-graphql-yoga-csrf': 'test',
      ...headersOf(operation),
    },
  }).then(fromHttp);
}

/** What a subscribing client sends: the operation without its credentials. */
function requestOf(operation: Omit<Operation, 'token' | 'origin'>) {
  return {
    query: operation.query,
    ...(operation.variables ? { variables: operation.variables } : {}),
    ...(operation.extensions ? { extensions: operation.extensions } : {}),
  };
}

/** Adds what one result of a subscribing client carries to `outcome`. */
function collect(outcome: Outcome, result: { data?: unknown; errors?: Errors }): void {
  outcome.codes.push(...codesOf(result.errors));
  if (hasData(result.data)) outcome.data = true;
}

/** GraphQL over SSE with `graphql-sse` (distinct connections mode, yoga's built-in). */
export function sseOperation(url: string, operation: Operation): Promise<Outcome> {
  const client = createSseClient({ url, headers: headersOf(operation), retryAttempts: 0 });
  const outcome: Outcome = { codes: [], data: false };
  return new Promise<Outcome>((resolve) => {
    client.subscribe(requestOf(operation), {
      next: (result) => collect(outcome, result),
      error(error: unknown) {
        // A refusal answered with an error status: its event stream still names the code.
        if (error instanceof NetworkError && error.response) {
          const response = error.response;
          outcome.status = response.status;
          void response.text().then((text: string) => {
            outcome.codes.push(...errorsIn(text));
            resolve(outcome);
          });
          return;
        }
        outcome.codes.push(`client error: ${String(error)}`);
        resolve(outcome);
      },
      complete() {
        outcome.status ??= 200;
        resolve(outcome);
      },
    });
  }).finally(() => client.dispose());
}

/** A `graphql-ws` client whose every close by the server is recorded. */
export interface WsConnection {
  send(operation: Omit<Operation, 'token' | 'origin'>): Promise<Outcome>;
  /** Close codes seen so far (the client's own final 1000 excluded). */
  readonly closes: number[];
  close(): Promise<void>;
}

/** GraphQL over WebSocket with `graphql-ws`, the token in `connectionParams`. */
export function wsConnection(
  url: string,
  { token, origin }: Pick<Operation, 'token' | 'origin'>,
): WsConnection {
  const closes: number[] = [];
  let disposing = false;
  class BrowserLike extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, origin ? { origin } : {});
    }
  }
  const client = createWsClient({
    url,
    webSocketImpl: BrowserLike,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
    on: {
      closed: (event) => {
        if (!disposing) closes.push((event as { code: number }).code);
      },
    },
  });
  return {
    closes,
    send(operation) {
      const outcome: Outcome = { codes: [], data: false };
      return new Promise<Outcome>((resolve) => {
        client.subscribe(requestOf(operation), {
          next: (result) => collect(outcome, result),
          error(error: unknown) {
            if (Array.isArray(error)) outcome.codes.push(...codesOf(error as Errors));
            else if (typeof error === 'object' && error !== null && 'code' in error)
              outcome.closed = Number((error as { code: unknown }).code);
            else outcome.codes.push(`client error: ${String(error)}`);
            resolve(outcome);
          },
          complete: () => resolve(outcome),
        });
      });
    },
    async close() {
      disposing = true;
      await client.dispose();
    },
  };
}

/** A WebSocket upgrade as a browser on `origin` sends it: its HTTP answer if refused. */
export function upgradeFrom(url: string, origin: string): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    const socket = new WebSocket(url, 'graphql-transport-ws', { origin });
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      response.on('end', () => {
        const body = JSON.parse(text) as { errors?: Errors };
        resolve({ codes: codesOf(body.errors), status: response.statusCode ?? 0, data: false });
      });
    });
    socket.once('open', () => {
      socket.terminate();
      resolve({ codes: [], status: 101, data: false });
    });
    socket.once('error', () => {});
  });
}
