import { type DefinitionNode, Kind } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';

/** One structured line per operation. */
export interface OperationLogEntry {
  operationName: string | null;
  operationType: string | null;
  durationMs: number;
  upstreamCalls: number;
  cacheHits: number;
  stale: boolean;
  errorCodes: string[];
}

export type OperationLogger = (entry: OperationLogEntry) => void;

/**
 * Logs what each operation cost, never what it carried: no variables, no headers, no token,
 * not even its digest.
 */
export function useOperationLog(
  log: OperationLogger,
  now: () => number = performance.now.bind(performance),
): Plugin<GatewayContext> {
  return {
    onExecute({ args }) {
      const started = now();
      const definition = args.document.definitions.find(
        (d: DefinitionNode) => d.kind === Kind.OPERATION_DEFINITION,
      );
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result) return;
          const cost = args.contextValue.meter.cost();
          log({
            operationName:
              args.operationName ??
              (definition && 'name' in definition ? (definition.name?.value ?? null) : null),
            operationType: definition && 'operation' in definition ? definition.operation : null,
            durationMs: Math.round((now() - started) * 100) / 100,
            upstreamCalls: cost.calls,
            cacheHits: cost.cacheHits,
            stale: cost.stale.length > 0,
            errorCodes: (result.errors ?? []).map((e) => String(e.extensions?.code ?? 'UNKNOWN')),
          });
        },
      };
    },
  };
}
