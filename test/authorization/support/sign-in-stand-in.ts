/**
 * A TEST STAND-IN for browser sign-in's side of the seam (`src/sign-in/ports.ts`), until the real
 * grants and upstream client are merged: an `UpstreamSignIn` that sends the browser to the real
 * sandbox's OAuth consent as its demo client (`sandbox-demo-client`), a `/auth/callback` on a
 * loopback port of its own that exchanges the code with the sandbox and asks `/user` whose it is,
 * and a `GrantBook` in memory that hands out the upstream token it got. Nothing is refreshed here:
 * the tests of the authorization server never outlive an upstream token.
 *
 * The contract it keeps is the real one's: `begin({ kind: 'authorization', requestId })` answers
 * the consent URL; the callback calls the `CompleteAuthorization` it was given with the new grant
 * (or the upstream's error) and 303s where it answers; `end` forgets the grant and tells
 * `onEnded`'s listeners.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Credentials } from '../../../src/operation/credentials.js';
import type {
  CompleteAuthorization,
  Grant,
  GrantBook,
  SignInPurpose,
  UpstreamSignIn,
} from '../../../src/sign-in/ports.js';

const CLIENT_ID = 'sandbox-demo-client';
const CLIENT_SECRET = 'sandbox-demo-secret';

export interface SignInStandIn {
  readonly grants: GrantBook;
  readonly signIn: UpstreamSignIn;
  /** Where the callback sends authorizations (the authorization server's `complete`). */
  completeWith(complete: CompleteAuthorization): void;
  /** Grants held now. */
  held(): number;
  heldIds(): string[];
  /** The upstream access token of a grant (to check it never reaches a client). */
  upstreamTokenOf(grantId: string): string | undefined;
  close(): Promise<void>;
}

interface HeldGrant {
  readonly grant: Grant;
  readonly upstreamToken: string;
}

export async function startSignInStandIn(sandboxOrigin: string): Promise<SignInStandIn> {
  const held = new Map<string, HeldGrant>();
  const pending = new Map<string, SignInPurpose>();
  const listeners = new Set<(grantId: string) => void>();
  let complete: CompleteAuthorization | undefined;
  let callbackUrl = '';

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in.invalid');
    const answer = (status: number, headers: Record<string, string>, body = '') => {
      response.writeHead(status, headers);
      response.end(body);
    };
    if (url.pathname !== '/auth/callback') return answer(404, {}, 'not found');
    const purpose = pending.get(url.searchParams.get('state') ?? '');
    if (purpose?.kind !== 'authorization' || !complete) return answer(400, {}, 'unknown state');
    pending.delete(url.searchParams.get('state') ?? '');
    const { requestId } = purpose;
    const finish = complete;
    void (async () => {
      const error = url.searchParams.get('error');
      if (error !== null) return finish(requestId, { error });
      const grant = await grantFor(url.searchParams.get('code') ?? '');
      return finish(requestId, { grant });
    })().then(
      (location) => answer(303, { location: location.href }),
      (failure: unknown) => answer(500, {}, String(failure)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth/callback`;

  const grantFor = async (code: string): Promise<Grant> => {
    const token = await fetch(new URL('/oauth/token', sandboxOrigin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uri: callbackUrl,
      }).toString(),
    });
    if (token.status !== 200) throw new Error(`sandbox token exchange: ${token.status}`);
    const { access_token: upstreamToken } = (await token.json()) as { access_token: string };
    const user = await fetch(new URL('/v1/user', sandboxOrigin), {
      headers: { authorization: `Bearer ${upstreamToken}` },
    });
    const { data } = (await user.json()) as { data: { user: { id: string } } };
    const grant: Grant = { id: randomUUID(), userId: data.user.id };
    held.set(grant.id, { grant, upstreamToken });
    return grant;
  };

  const grants: GrantBook = {
    async credentials(grantId): Promise<Credentials> {
      const found = held.get(grantId);
      if (!found) throw new Error('no such grant');
      return {
        token: found.upstreamToken,
        tokenKey: `grant:${createHash('sha256').update(grantId).digest('hex')}`,
      };
    },
    async get(grantId) {
      return held.get(grantId)?.grant;
    },
    async end(grantId) {
      if (!held.delete(grantId)) return;
      for (const listener of listeners) listener(grantId);
    },
    onEnded(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };

  return {
    grants,
    signIn: {
      async begin(purpose) {
        const state = randomUUID();
        pending.set(state, purpose);
        const url = new URL('/oauth/authorize', sandboxOrigin);
        url.searchParams.set('client_id', CLIENT_ID);
        url.searchParams.set('redirect_uri', callbackUrl);
        url.searchParams.set('response_type', 'code');
        url.searchParams.set('state', state);
        return url;
      },
    },
    completeWith(given) {
      complete = given;
    },
    held: () => held.size,
    heldIds: () => [...held.keys()],
    upstreamTokenOf: (grantId) => held.get(grantId)?.upstreamToken,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
