import type { Plugin } from 'graphql-yoga';
import { logInternalError } from '../../errors/internal-errors.js';
import type { Logger } from '../../telemetry/logger.js';

/** The body of a request hook's failure: what any other internal error answers. */
const UNEXPECTED = JSON.stringify({
  errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
});

/**
 * `plugin` with its `onRequest` hook guarded. A throw there reaches whatwg-node's adapter, which
 * answers the error's stack as `text/plain` (the install path with it) and logs nothing: here it
 * is answered as any internal error is (500, JSON, "Unexpected error.") and logged as one (its
 * class and frames, never its message). What the hooks of the door read is bounded before they
 * read it (admission's stage 1); this is for the failure nobody foresaw.
 */
export function guardRequestHook<P extends Plugin<never>>(
  plugin: P,
  logger: Logger | undefined,
): P {
  const { onRequest } = plugin;
  if (!onRequest) return plugin;
  const guarded: typeof onRequest = (payload) => {
    const answer = (error: unknown) => {
      logInternalError(logger, error, 'request hook failed (answered 500 "Unexpected error.")');
      payload.endResponse(
        new payload.fetchAPI.Response(UNEXPECTED, {
          status: 500,
          headers: { 'content-type': 'application/json; charset=utf-8' },
        }),
      );
    };
    try {
      const running = onRequest(payload);
      return running instanceof Promise ? running.catch(answer) : running;
    } catch (error) {
      answer(error);
    }
  };
  return { ...plugin, onRequest: guarded };
}
