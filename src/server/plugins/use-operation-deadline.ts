import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../../schema/context.js';

/**
 * The operation deadline (`src/operation/deadline.ts`) bounds queries and mutations; a
 * subscription has none: it lives as long as its client keeps it, and each event is answered
 * from the replica the poller just brought up to date. Once a query or mutation has answered,
 * its timer goes; an incremental answer (@defer, @stream) keeps it until the deadline.
 */
export function useOperationDeadline(): Plugin<GatewayContext> {
  return {
    onSubscribe({ args }) {
      args.contextValue.deadline?.lift();
    },
    onExecute({ args }) {
      return {
        onExecuteDone({ result }) {
          if (!isAsyncIterable(result)) args.contextValue.deadline?.end();
        },
      };
    },
  };
}
