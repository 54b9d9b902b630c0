/**
 * One GraphQL operation run for a transport that is not yoga's own HTTP handling (MCP tool calls
 * and resource subscriptions, and any later one): the admission path first
 * (`admission.admit`), then the gateway's yoga instance (`getEnveloped`): validation, the
 * operation's context (its loaders, meter, deadline, write pipeline, live hub), masked execution
 * and the operation report, exactly as over HTTP. Nothing here keeps state between operations.
 *
 * The context takes the credentials admission made, as they are; the request made for the
 * operation (yoga builds a context from one) carries its id, never a credential.
 */
import { randomUUID } from 'node:crypto';
import type { DocumentNode, ExecutionArgs, ExecutionResult, GraphQLError } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Admission } from '../admission/admission.js';
import type { Presented } from '../admission/presented.js';
import { gatewayError } from '../errors/codes.js';
import type { Credentials } from '../operation/credentials.js';
import type { GatewayContext } from '../schema/context.js';
import type { OperationInitialContext } from './operation-context.js';

/** The gateway's yoga server: no server context of its own, the `GatewayContext` per operation. */
export type GatewayYoga = YogaServerInstance<Record<string, never>, GatewayContext>;

/**
 * What running an operation needs of a gateway: its admission path and its yoga instance (a
 * `Gateway` is one; createGateway's own parts, such as webhooks, hand over these two alone).
 */
export interface OperationRunner {
  readonly admission: Admission;
  readonly yoga: GatewayYoga;
}

/** An operation as a transport received it, with who sends it. */
export interface OperationCall {
  readonly query: string;
  readonly variables?: Readonly<Record<string, unknown>> | undefined;
  readonly operationName?: string | undefined;
  /**
   * The credential the caller presented, read once by its transport (`src/admission/presented.ts`);
   * undefined: none (what needs one fails with UNAUTHENTICATED).
   */
  readonly presented: Presented | undefined;
  /** `Origin` of the request that carried it; null when not from a browser. */
  readonly origin?: string | null;
  /** The gateway's own origins as the client reached it. */
  readonly ownOrigins?: readonly string[];
  /** Correlates the operation's log line. @default a new UUID */
  readonly requestId?: string;
  /** Where the request is said to arrive (shows in nothing but yoga's request URL). */
  readonly path?: string;
  /**
   * The gateway's own document (a curated MCP tool, a manifest operation), never text a client
   * sent: admitted under trusted documents without a hash. @default false
   */
  readonly own?: boolean;
}

/** An operation admitted and validated, ready to execute or subscribe. */
export interface PreparedOperation {
  readonly ok: true;
  readonly document: DocumentNode;
  readonly credentials: Credentials | null;
  readonly args: ExecutionArgs;
  /** Its one result (an incremental answer, `@defer` or `@stream`, is refused: see below). */
  execute(): Promise<ExecutionResult>;
  /** A subscription's events (or one result, when it failed before its first event). */
  subscribe(): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;
}

/** An operation refused by admission or validation: its errors, nothing ran. */
export interface RefusedOperation {
  readonly ok: false;
  readonly errors: readonly GraphQLError[];
}

/**
 * Admits and validates one operation and builds its context; `execute` or `subscribe` runs it.
 * A refusal is reported by admission like any (one log line, `/metrics`); a document validation
 * refuses is dropped from the document cache, as over HTTP.
 */
export async function prepareOperation(
  gateway: OperationRunner,
  call: OperationCall,
): Promise<PreparedOperation | RefusedOperation> {
  const requestId = call.requestId ?? randomUUID();
  const verdict = await gateway.admission.admit({
    query: call.query,
    variables: call.variables ?? null,
    operationName: call.operationName ?? null,
    presented: call.presented,
    origin: call.origin ?? null,
    ownOrigins: call.ownOrigins ?? [],
    requestId,
    own: call.own ?? false,
  });
  if (!verdict.admitted) return { ok: false, errors: [verdict.error] };
  const request = new Request(`http://operation.invalid${call.path ?? '/graphql'}`, {
    // The operation's log line carries the id admission reported a refusal with.
    headers: { 'x-request-id': requestId },
  });
  // The price admission made: extensions.cost and measure mode's wouldRefuse read it.
  const initial: OperationInitialContext = {
    request,
    credentials: verdict.credentials,
    admittedCost: verdict.cost ?? null,
  };
  const enveloped = gateway.yoga.getEnveloped({
    ...initial,
    params: {
      query: verdict.query,
      variables: call.variables ?? {},
      operationName: call.operationName,
    },
  });
  const errors = enveloped.validate(enveloped.schema, verdict.document);
  if (errors.length > 0) {
    gateway.admission.forget(verdict.document);
    return { ok: false, errors };
  }
  const contextValue = await enveloped.contextFactory();
  const args: ExecutionArgs = {
    schema: enveloped.schema,
    document: verdict.document,
    variableValues: call.variables ?? undefined,
    operationName: call.operationName,
    contextValue,
  };
  return {
    ok: true,
    document: verdict.document,
    credentials: verdict.credentials,
    args,
    async execute() {
      const result = (await enveloped.execute(args)) as ExecutionResult | AsyncIterable<unknown>;
      if (!(Symbol.asyncIterator in result)) return result;
      // These transports answer once: an incremental answer is ended, not streamed.
      await (result as AsyncIterableIterator<unknown>).return?.();
      return {
        errors: [
          gatewayError(
            '@defer and @stream need a streaming transport (HTTP or WebSocket).',
            'BAD_REQUEST',
          ),
        ],
      };
    },
    subscribe: async () =>
      (await enveloped.subscribe(args)) as AsyncIterableIterator<ExecutionResult> | ExecutionResult,
  };
}
