import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { gatewayError } from '../../errors/codes.js';
import type { GatewayContext } from '../../schema/context.js';
import {
  CALLBACK_PROTOCOL,
  CALLBACK_PROTOCOL_HEADER,
  type CallbackSubscriptions,
  readCallbackRequest,
} from '../callback-subscriptions.js';

/**
 * `/subgraph`'s subscriptions by HTTP callback (src/server/callback-subscriptions.ts): a request
 * whose `extensions.subscription` names a callback runs as any (this hook wraps admission's
 * handler, so it passes the one admission path, then runs in yoga); a subscription's events go
 * to the callback URL once its `check` passed, and the router is answered `{"data":null}`. A
 * query or mutation that names one is answered as usual. What is wrong with the extension, the
 * callback URL or its check is answered BAD_REQUEST, naming it, and nothing runs or stays.
 */
export function useCallbackSubscriptions(callbacks: CallbackSubscriptions): Plugin<GatewayContext> {
  // The operations that are subscriptions, and their callers, by their params (yoga's context
  // holds the same object).
  const subscriptions = new WeakMap<object, string | undefined>();
  const callbackRequests = new WeakSet<Request>();
  return {
    onParams({ params, request, paramsHandler, setParamsHandler }) {
      const asked = readCallbackRequest(params.extensions, callbacks.settings);
      if (asked === undefined) return;
      callbackRequests.add(request);
      setParamsHandler(async (payload) => {
        if ('problem' in asked) return { errors: [gatewayError(asked.problem, 'BAD_REQUEST')] };
        const place = callbacks.reserve();
        if (!('release' in place)) return { errors: [place] };
        const result = await paramsHandler(payload);
        if (!isAsyncIterable(result) || !subscriptions.has(payload.params)) {
          place.release();
          return result;
        }
        const tokenKey = subscriptions.get(payload.params);
        const events = result as AsyncIterableIterator<ExecutionResult>;
        const refused = await callbacks.start(place, asked, events, tokenKey);
        return refused ? { errors: [refused] } : { data: null };
      });
    },
    onSubscribe({ args }) {
      const { params, credentials } = args.contextValue as GatewayContext & { params?: object };
      if (params) subscriptions.set(params, credentials?.tokenKey);
    },
    onResponse({ request, response }) {
      if (callbackRequests.has(request)) {
        response.headers.set(CALLBACK_PROTOCOL_HEADER, CALLBACK_PROTOCOL);
      }
    },
  };
}
