/**
 * The seam between browser sign-in (grants, the upstream's consent) and the gateway's own
 * authorization server (its tokens for mobile apps and MCP clients): what one offers the other.
 */
import type { Credentials } from '../operation/credentials.js';

/** One person's consent to the upstream, held by the gateway; sessions and gateway tokens point at it. */
export interface Grant {
  readonly id: string;
  /** The upstream's user id (from `/user`). */
  readonly userId: string;
}

/** Why a sign-in through the upstream's consent was started; the callback finishes it accordingly. */
export type SignInPurpose =
  | { readonly kind: 'session'; readonly returnTo: string }
  | { readonly kind: 'authorization'; readonly requestId: string };

export interface GrantBook {
  /** The grant's credentials now: its upstream token refreshed ahead of expiry, once per cluster. */
  credentials(grantId: string): Promise<Credentials>;
  get(grantId: string): Promise<Grant | undefined>;
  /** Ends the grant everywhere: its sessions, gateway tokens and upstream refresh token. */
  end(grantId: string): Promise<void>;
  /** Called (on every instance) when a grant ends; returns the unsubscribe. */
  onEnded(listener: (grantId: string) => void): () => void;
}

export interface UpstreamSignIn {
  /** Where to send the browser to start the upstream's consent for this purpose. */
  begin(purpose: SignInPurpose): Promise<URL>;
}

/**
 * What the callback calls when a sign-in begun for `{ kind: 'authorization' }` comes back: with
 * the new grant, or with the OAuth error the upstream gave. Answers where to send the browser.
 */
export type CompleteAuthorization = (
  requestId: string,
  outcome: { readonly grant: Grant } | { readonly error: string },
) => Promise<URL>;
