import type { Plugin } from 'graphql-yoga';
import { isUsableToken, presentedToken, unusableToken } from '../../contracts/credentials.js';
import type { ErrorCode } from '../../contracts/error-codes.js';

/**
 * A request whose token could never be sent upstream (non-ASCII, spaces, over the length limit)
 * is answered 401 `UNAUTHENTICATED` at once, before any other plugin reads the token (HTTP
 * caching fingerprints requests by it) and before anything runs.
 */
export function useTokenCheck(): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      const token = presentedToken(request);
      if (token === undefined || isUsableToken(token)) return;
      const error = unusableToken();
      endResponse(
        new fetchAPI.Response(
          JSON.stringify({
            errors: [
              {
                message: error.message,
                extensions: { code: 'UNAUTHENTICATED' satisfies ErrorCode },
              },
            ],
          }),
          {
            status: 401,
            headers: {
              'content-type': 'application/json; charset=utf-8',
              'www-authenticate': 'Bearer error="invalid_token"',
            },
          },
        ),
      );
    },
  };
}
