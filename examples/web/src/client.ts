import type { ErrorLike } from '@apollo/client';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { CombinedGraphQLErrors, ServerError } from '@apollo/client/errors';
import { ErrorLink } from '@apollo/client/link/error';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { cacheConfig, persistCache, sendWithApollo } from '@plans-gateway/client-kit/apollo';
import {
  type CursorStore,
  openWriteQueue,
  type WriteQueue,
} from '@plans-gateway/client-kit/offline';
import { CloseCode, createClient as createWsClient } from 'graphql-ws';
import type { Gateway } from './gateway.js';
import { DEFAULT_LOGIN_URL } from './session.js';

/** A signed-in session's client, and how to let go of it when the session ends. */
export interface SessionClient {
  readonly apollo: ApolloClient;
  /** Writes, queued in order and sent once each (offline, they wait for the network). */
  readonly queue: WriteQueue;
  /** Where each plan's cache is at (`changes` cursors), saved with the cache. */
  readonly cursors: CursorStore;
  /** Closes the WebSocket; what is stored stays for the next visit. */
  close(): void;
  /** Closes, and forgets every cached row and queued write: nothing of this session stays. */
  dispose(): void;
}

/** Where this app keeps things in the browser's storage: the names all start with it. */
export const STORAGE_PREFIX = 'plans-gateway:';

/**
 * Apollo Client over the gateway: queries and mutations over HTTP, subscriptions over
 * graphql-ws, one normalized cache configured by the client kit (possible types, pagination of
 * every connection). Mutation payloads' `changes` and subscription events carry rows with ids,
 * so the cache updates every panel that shows them.
 *
 * Credentials are the gateway's session cookie (`credentials: 'include'`; browsers send cookies
 * on WebSocket upgrades by themselves). `onSessionEnded` runs, with where to sign in again, when
 * an answer says the session is gone: `UNAUTHENTICATED` over either transport, a 401, or the
 * socket closed as Unauthorized (4401) because the person signed out elsewhere.
 *
 * Offline first (the client kit): the cache is kept in localStorage and restored before the
 * first query, so the screens open with what they showed last, without the network; writes go
 * through the kit's queue, each with its own Idempotency-Key, replayed once when back online.
 */
export async function openSessionClient(
  gateway: Gateway,
  onSessionEnded: (loginUrl: string) => void,
): Promise<SessionClient> {
  // Operations go as JSON POSTs: a request a page on another site cannot send without a CORS
  // preflight, so the gateway's CSRF prevention admits it with the cookie.
  const http = new HttpLink({ uri: gateway.graphql, credentials: 'include' });
  const socket = createWsClient({
    url: gateway.webSocket,
    on: {
      closed: (event) => {
        if (isCloseEvent(event) && event.code === CloseCode.Unauthorized)
          onSessionEnded(DEFAULT_LOGIN_URL);
      },
    },
  });
  const ended = new ErrorLink(({ error }) => {
    const loginUrl = signInAfter(error);
    if (loginUrl !== null) onSessionEnded(loginUrl);
  });
  const isSubscription = ({ query }: ApolloLink.Operation) => {
    const definition = getMainDefinition(query);
    return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
  };
  // Automatic persisted queries: an operation goes as its hash (the text only once, when the
  // gateway does not know it yet), so a resume or a screen's query does not carry its ~1 KB
  // document each time. Still a JSON POST (not GET): the cookie's CSRF rule above.
  const hashed = new PersistedQueryLink({ sha256, useGETForHashedQueries: false });
  const cache = new InMemoryCache(cacheConfig());
  const persisted = await persistCache(cache, {
    storage: localStorage,
    key: `${STORAGE_PREFIX}cache`,
  });
  const apollo = new ApolloClient({
    link: ApolloLink.from([
      ended,
      ApolloLink.split(isSubscription, new GraphQLWsLink(socket), hashed.concat(http)),
    ]),
    cache,
  });
  const queue = await openWriteQueue({
    storage: localStorage,
    key: `${STORAGE_PREFIX}writes`,
    send: sendWithApollo(apollo),
  });
  const close = () => {
    void socket.dispose();
    persisted.stop();
    apollo.stop();
  };
  return {
    apollo,
    queue,
    cursors: persisted.cursors,
    close,
    dispose() {
      close();
      void apollo.clearStore();
      forgetStored();
    },
  };
}

/** The hex SHA-256 of a document's text, by the browser's Web Crypto (a secure context). */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Forgets what this app kept in the browser: the cache, the cursors, the queue, the session. */
export function forgetStored(): void {
  for (const key of Object.keys(localStorage))
    if (key.startsWith(STORAGE_PREFIX)) localStorage.removeItem(key);
}

/** Where to sign in again, when `error` says the session ended; else null. */
function signInAfter(error: ErrorLike): string | null {
  if (CombinedGraphQLErrors.is(error)) {
    const refusal = error.errors.find((e) => e.extensions?.code === 'UNAUTHENTICATED');
    if (!refusal) return null;
    const signIn = refusal.extensions?.signIn as { url?: unknown } | undefined;
    return typeof signIn?.url === 'string' ? signIn.url : DEFAULT_LOGIN_URL;
  }
  return ServerError.is(error) && error.statusCode === 401 ? DEFAULT_LOGIN_URL : null;
}

function isCloseEvent(event: unknown): event is { code: number } {
  return typeof event === 'object' && event !== null && 'code' in event;
}
