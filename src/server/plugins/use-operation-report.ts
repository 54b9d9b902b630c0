import { type ExecutionResult, type GraphQLError, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { AdmittedCost } from '../../admission/admission.js';
import type { GatewayContext } from '../../schema/context.js';
import type { OperationOutcome } from '../../telemetry/metrics.js';
import {
  type OperationReport,
  type OperationReportSink,
  refusalReport,
} from '../../telemetry/operation-report.js';
import { type Clock, monotonicNow } from '../../time/clock.js';

export interface OperationReportOptions {
  /** The request id of a request (see use-request-id.ts). */
  requestIdOf: (request: Request) => string;
  sinks: readonly OperationReportSink[];
  /** Whether the upstream has accepted a token, by digest (the token gate). @default never */
  isAccepted?: (tokenKey: string) => boolean;
  /** Monotonic clock in ms. @default monotonicNow */
  now?: Clock;
}

/**
 * One report per GraphQL operation: when it finishes executing (also ending its trace span), or
 * when validation refuses it (the admission path reports its own refusals). The operation is found with
 * `getOperationAST`, so an anonymous or unnamed-but-selected operation is reported as graphql-js
 * would run it.
 */
export function useOperationReport({
  requestIdOf,
  sinks,
  isAccepted = () => false,
  now = monotonicNow,
}: OperationReportOptions): Plugin<GatewayContext> {
  const emit = (report: OperationReport) => {
    for (const sink of sinks) {
      try {
        sink(report);
      } catch {
        // An observer's failure must never fail the operation it observes.
      }
    }
  };
  return {
    onValidate({ params, context }) {
      return ({ valid, result }) => {
        if (valid) return;
        emit(
          refusalReport(
            requestIdOf(context.request),
            params.documentAST,
            params.options?.operationName,
            codesOf(result),
          ),
        );
      };
    },
    onExecute({ args }) {
      const started = now();
      const context = args.contextValue;
      const operation = getOperationAST(args.document, args.operationName);
      const described = {
        name: operation?.name?.value ?? null,
        type: operation?.operation ?? null,
      };
      context.span?.describe(described);
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result) return;
          const cost = context.meter.cost();
          const errorCodes = codesOf(result.errors ?? []);
          context.span?.end({ errorCodes, stale: cost.stale.length > 0 });
          emit({
            requestId: context.requestId,
            traceId: context.span?.traceId ?? null,
            operationName: described.name,
            operationType: described.type,
            outcome: outcomeOf(result, errorCodes),
            verified: context.credentials !== null && isAccepted(context.credentials.tokenKey),
            durationMs: Math.round((now() - started) * 100) / 100,
            upstreamCalls: cost.calls,
            upstreamOperations: { ...cost.operations },
            cacheHits: cost.cacheHits,
            stale: [...cost.stale],
            errorCodes,
            ...wouldRefuse(context),
          });
        },
      };
    },
  };
}

function codesOf(errors: readonly (Error | GraphQLError)[]): string[] {
  return errors.map((e) =>
    String(('extensions' in e ? e.extensions?.code : undefined) ?? 'GRAPHQL_VALIDATION_FAILED'),
  );
}

function outcomeOf(result: ExecutionResult, errorCodes: readonly string[]): OperationOutcome {
  if (errorCodes.length === 0) return 'ok';
  const data = result.data;
  const empty = !data || Object.values(data).every((value) => value === null);
  return empty ? 'error' : 'partial';
}

/** `measure` mode: the cost limit would have refused this operation (admission priced it). */
function wouldRefuse(context: GatewayContext): Pick<OperationReport, 'wouldRefuse'> {
  const cost = (context as GatewayContext & { admittedCost?: AdmittedCost | null }).admittedCost;
  return cost?.overLimit
    ? { wouldRefuse: { limit: 'cost', value: cost.estimated, max: cost.max } }
    : {};
}
