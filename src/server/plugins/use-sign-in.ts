import type { Plugin } from 'graphql-yoga';
import type { BrowserSignIn } from '../../sign-in/browser.js';

/**
 * Browser sign-in's endpoints (`/auth/login`, `/auth/callback`, `/auth/session`,
 * `/auth/logout`; src/sign-in/browser.ts) on the gateway's port, after the door (request id,
 * headers, the origin check) and before anything GraphQL. yoga's CORS answers their preflights
 * and adds its headers, as for `/graphql`.
 */
export function useSignIn(browser: BrowserSignIn): Plugin {
  return {
    async onRequest({ request, endResponse }) {
      const answer = browser.handle(request);
      if (answer) endResponse(await answer);
    },
  };
}
