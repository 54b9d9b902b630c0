import type { Gateway } from './gateway.js';

/**
 * The gateway's browser sign-in (its `/auth` endpoints): the gateway signs the person in with the
 * upstream and keeps the tokens; the page only holds an HttpOnly session cookie it cannot read,
 * sent with `credentials: 'include'`. No token ever reaches the page, its address or its storage.
 */
export interface Plan {
  readonly id: string;
  readonly name: string;
}

export type Session =
  | {
      readonly signedIn: true;
      readonly user: { readonly id: string };
      readonly plans: readonly Plan[];
      readonly expiresAt: string;
    }
  | { readonly signedIn: false; readonly loginUrl: string };

/** Where sign-in starts when the gateway said nothing else. */
export const DEFAULT_LOGIN_URL = '/auth/login';

/**
 * Sent with the sign-out: a header a page on another site cannot add without a CORS preflight,
 * so nobody else's page can sign the person out.
 */
const CSRF_HEADER = { 'x-requested-with': 'plans-gateway' } as const;

/** Who is signed in. Throws, saying what the gateway answered, when it did not answer as one. */
export async function fetchSession(gateway: Gateway, signal?: AbortSignal): Promise<Session> {
  const response = await fetch(gateway.session, {
    credentials: 'include',
    headers: { accept: 'application/json' },
    ...(signal ? { signal } : {}),
  });
  if (!response.ok)
    throw new Error(
      `${gateway.session} answered ${response.status}${response.status === 404 ? ': this gateway has no sign-in' : ''}.`,
    );
  const body = (await response.json()) as Partial<Record<string, unknown>>;
  if (body.signedIn === true && Array.isArray(body.plans)) return body as Session;
  if (body.signedIn === false)
    return {
      signedIn: false,
      loginUrl: typeof body.loginUrl === 'string' ? body.loginUrl : DEFAULT_LOGIN_URL,
    };
  throw new Error(`${gateway.session} answered something other than a session.`);
}

/**
 * The address that signs in and comes back to this page: the gateway's login URL with
 * `return_to`, the page as it is now without its fragment.
 */
export function signInHref(gateway: Gateway, loginUrl: string, page: Location): string {
  const login = new URL(loginUrl, gateway.base);
  const back = new URL(page.href);
  back.hash = '';
  login.searchParams.set('return_to', back.href);
  return login.href;
}

/** Ends the session at the gateway (everywhere: its other tabs and sockets too). */
export async function signOut(gateway: Gateway): Promise<void> {
  const response = await fetch(gateway.logout, {
    method: 'POST',
    credentials: 'include',
    headers: CSRF_HEADER,
  });
  if (!response.ok) throw new Error(`${gateway.logout} answered ${response.status}.`);
}

const REMEMBERED = 'plans-gateway:session';

/**
 * Keeps who is signed in (their id and plans: no token, none reaches the page), so the app opens
 * offline with the screens it had. Forgotten at sign-out and when the session ends.
 */
export function rememberSession(session: Extract<Session, { signedIn: true }>): void {
  localStorage.setItem(REMEMBERED, JSON.stringify(session));
}

/** The session kept by `rememberSession`, if any. */
export function rememberedSession(): Extract<Session, { signedIn: true }> | null {
  try {
    const kept = JSON.parse(localStorage.getItem(REMEMBERED) ?? 'null') as Session | null;
    return kept?.signedIn === true && Array.isArray(kept.plans) ? kept : null;
  } catch {
    return null;
  }
}
