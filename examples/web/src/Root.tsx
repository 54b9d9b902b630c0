import { ApolloProvider } from '@apollo/client/react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { App } from './App.js';
import { forgetStored, openSessionClient, type SessionClient } from './client.js';
import type { Gateway } from './gateway.js';
import { OutboxContext } from './Outbox.js';
import { type SignedOutReason, SignIn } from './SignIn.js';
import {
  DEFAULT_LOGIN_URL,
  fetchSession,
  rememberedSession,
  rememberSession,
  type Session,
  signInHref,
  signOut,
} from './session.js';

type SignedIn = Extract<Session, { signedIn: true }>;

type Screen =
  | { readonly kind: 'checking' }
  | { readonly kind: 'signedOut'; readonly loginUrl: string; readonly reason: SignedOutReason }
  | { readonly kind: 'signedIn'; readonly session: SignedIn; readonly client: SessionClient }
  | { readonly kind: 'unreachable'; readonly message: string };

/**
 * Asks the gateway who is signed in, then shows the dashboard with a client of that session,
 * or the sign-in screen. Offline (the request does not get through), the session kept from the
 * last visit opens the dashboard from the persisted cache. Whenever the session ends (signed out here or elsewhere, or ended by
 * the gateway), the client and everything it cached go, and the sign-in screen comes back.
 */
export function Root({ gateway }: { gateway: Gateway }) {
  const [screen, setScreen] = useState<Screen>({ kind: 'checking' });
  // The live session's client; a client no longer here has nothing more to say.
  const live = useRef<SessionClient | null>(null);

  const load = useCallback(
    async (signal?: AbortSignal) => {
      setScreen({ kind: 'checking' });
      try {
        let session: Session;
        try {
          session = await fetchSession(gateway, signal);
        } catch (error) {
          // A fetch that could not reach the gateway rejects with a TypeError.
          const kept = error instanceof TypeError ? rememberedSession() : null;
          if (!kept) throw error;
          session = kept;
        }
        if (signal?.aborted) return;
        if (!session.signedIn) {
          forgetStored();
          setScreen({ kind: 'signedOut', loginUrl: session.loginUrl, reason: 'new' });
          return;
        }
        rememberSession(session);
        let client: SessionClient | null = null;
        client = await openSessionClient(gateway, (loginUrl) => {
          if (client === null || live.current !== client) return;
          const ended = client;
          live.current = null;
          setScreen({ kind: 'signedOut', loginUrl, reason: 'ended' });
          // Once its screen is gone: queries in flight settle first.
          setTimeout(() => ended.dispose(), 0);
        });
        if (signal?.aborted) {
          client.close();
          return;
        }
        live.current = client;
        setScreen({ kind: 'signedIn', session, client });
      } catch (error) {
        if (signal?.aborted) return;
        setScreen({ kind: 'unreachable', message: (error as Error).message });
      }
    },
    [gateway],
  );

  useEffect(() => {
    const controller = new AbortController();
    void load(controller.signal);
    return () => controller.abort();
  }, [load]);

  const end = useCallback(async () => {
    const client = live.current;
    // Signing out closes this page's socket too (4401): no news to this page.
    live.current = null;
    try {
      await signOut(gateway);
    } catch (error) {
      live.current = client;
      throw error;
    }
    setScreen({ kind: 'signedOut', loginUrl: DEFAULT_LOGIN_URL, reason: 'signedOut' });
    setTimeout(() => client?.dispose(), 0);
  }, [gateway]);

  switch (screen.kind) {
    case 'checking':
      return <p className="status">Checking who is signed in…</p>;
    case 'unreachable':
      return (
        <main className="sign-in">
          <section className="card" role="alert" data-testid="unreachable">
            <h1>Cannot reach the gateway</h1>
            <p>{screen.message}</p>
            <button type="button" onClick={() => void load()}>
              Try again
            </button>
          </section>
        </main>
      );
    case 'signedOut':
      return (
        <SignIn
          href={signInHref(gateway, screen.loginUrl, window.location)}
          reason={screen.reason}
        />
      );
    case 'signedIn':
      return (
        <ApolloProvider client={screen.client.apollo}>
          <OutboxContext.Provider value={screen.client}>
            <App plans={screen.session.plans} onSignOut={end} />
          </OutboxContext.Provider>
        </ApolloProvider>
      );
  }
}
