import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../../schema/context.js';

export interface SubgraphCacheHintsOptions {
  /** The replicas' max-age (`MAX_AGE_SECONDS`): how long an answer may be reused. */
  maxAgeMs: number;
}

/** What one request's operations allow a router to do with the answer. */
interface Hint {
  /** Seconds an answer stays within the replicas' max-age; null: it must not be kept. */
  maxAgeSeconds: number | null;
}

/**
 * `Cache-Control` on `/subgraph`'s answers, for routers' response and entity caches
 * (docs/federation.md#cache-hints). What the replica guarantees, and no more:
 * - `private`: an answer is one token's data (a router must key it by the token);
 * - `max-age`: what is left of the replicas' max-age for the oldest replica read (an answer
 *   kept that long is no older than one the gateway would give), floored to whole seconds;
 * - `no-store` for a mutation or a subscription (never replayed), an answer with errors or
 *   answered stale (the next one may succeed), and any request whose operations did not all run.
 *
 * A batch is hinted by its most restrictive operation. Only the subgraph yoga runs it; every
 * other answer keeps the door's `no-store`.
 */
export function useSubgraphCacheHints({
  maxAgeMs,
}: SubgraphCacheHintsOptions): Plugin<GatewayContext> {
  const hints = new WeakMap<Request, Hint>();
  const narrow = (request: Request | undefined, maxAgeSeconds: number | null) => {
    if (!request) return;
    const before = hints.get(request);
    const seconds =
      before === undefined
        ? maxAgeSeconds
        : before.maxAgeSeconds === null || maxAgeSeconds === null
          ? null
          : Math.min(before.maxAgeSeconds, maxAgeSeconds);
    hints.set(request, { maxAgeSeconds: seconds });
  };
  return {
    onExecute({ args }) {
      const context = args.contextValue;
      const request = (context as GatewayContext & { request?: Request }).request;
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== 'query') {
        narrow(request, null);
        return;
      }
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result) {
            narrow(request, null);
            return;
          }
          const cost = context.meter.cost();
          if ((result.errors?.length ?? 0) > 0 || cost.stale.length > 0) {
            narrow(request, null);
            return;
          }
          const left = maxAgeMs - (cost.replicaAgeMs ?? 0);
          narrow(request, Math.max(0, Math.floor(left / 1000)));
        },
      };
    },
    onSubscribe({ args }) {
      narrow((args.contextValue as GatewayContext & { request?: Request }).request, null);
    },
    onResponse({ request, response }) {
      const hint = hints.get(request);
      const seconds = hint?.maxAgeSeconds ?? null;
      response.headers.set(
        'cache-control',
        seconds === null || seconds === 0 ? 'no-store' : `private, max-age=${seconds}`,
      );
    },
  };
}
