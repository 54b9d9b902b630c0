/**
 * The cookies of browser sign-in, named once: the session's (read by the admission path's
 * `presented.ts` and set by `/auth/callback`) and the sign-in's (binds a `state` to the browser
 * that began it). Host-only (no `Domain`), HttpOnly, SameSite=Lax, Secure over https.
 */

export const SESSION_COOKIE = 'plans_session';
export const SIGN_IN_COOKIE = 'plans_sign_in';

/** The value of cookie `name` in a `Cookie` header, if any. */
export function cookieValue(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/** A `Set-Cookie` value; `maxAgeSeconds` 0 removes it. */
export function setCookie(
  name: string,
  value: string,
  { path, maxAgeSeconds, secure }: { path: string; maxAgeSeconds: number; secure: boolean },
): string {
  return `${name}=${value}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
