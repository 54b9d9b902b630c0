import type { DocumentNode, GraphQLError, GraphQLSchema } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import type {
  Admission,
  AdmittedCost,
  OperationRequest,
  Verdict,
} from '../../admission/admission.js';
import { ownOriginsOf } from '../../admission/origin.js';
import { copyError, gatewayError } from '../../errors/codes.js';
import type { Credentials } from '../../operation/credentials.js';
import { SIGN_IN_PATH } from '../../sign-in/grants.js';
import { asksExplain, type Explain } from './explain.js';

export interface UseAdmissionOptions {
  /** The request id of a request (see use-request-id.ts), for the report of a refusal. */
  requestIdOf: (request: Request) => string;
  /**
   * The schema this yoga instance runs, when not the one admission was made with (the subgraph
   * endpoint's). @default admission's
   */
  schema?: GraphQLSchema;
  /**
   * Browser sign-in is on: an UNAUTHENTICATED answer to a request with a session cookie or with
   * no credentials at all (a page signed out) says where to sign in (`extensions.signIn`).
   * @default false
   */
  signIn?: boolean;
  /**
   * `X-Plans-Explain: 1`: an admitted operation is answered with `extensions.explain` (its price,
   * the upstream calls it would make now, the token's budget) and not run. @default not offered
   */
  explain?: Explain;
}

/**
 * yoga's side of the admission path (HTTP POST and GET, SSE): every operation of a request (each
 * one of a batch) is admitted before yoga parses it, and runs with the document and the
 * credentials admission made (the context takes them from the operation's initial context).
 * The hook runs last among the parameter hooks, so what it admits is what yoga checked and what
 * automatic persisted queries resolved; a hash-only request gets its text first (yoga refuses a
 * request without one).
 *
 * A document's passing validation is remembered with it: the documents come from the admission's
 * bounded cache, so this keeps nothing the cache does not. A document that fails validation
 * leaves the cache.
 */
export function useAdmission(
  admission: Admission,
  { requestIdOf, schema, signIn = false, explain }: UseAdmissionOptions,
): Plugin<{ credentials?: Credentials | null; admittedCost?: AdmittedCost | null }> {
  const operationOf = (request: Request, params: GraphQLParams): OperationRequest => ({
    ...requestOperation(admission, request, params, requestIdOf),
    ...(schema ? { schema } : {}),
  });
  const admitted = new WeakMap<
    GraphQLParams,
    { document: DocumentNode; credentials: Credentials | null; cost?: AdmittedCost | null }
  >();
  const valid = new WeakSet<DocumentNode>();
  return {
    onParams({ params, request, setParams, paramsHandler, setParamsHandler }) {
      const resolved = admission.resolve(params.query, params.extensions);
      if ('refused' in resolved) {
        // Refused as `admit` refuses it (status, report), at the trusted-documents stage, before
        // credentials (so at once); thrown, since yoga's own check after this hook would refuse
        // a request without text for the wrong reason.
        const verdict = admission.admit(operationOf(request, params));
        if (verdict instanceof Promise) throw resolved.refused;
        throw verdict.admitted ? resolved.refused : verdict.error;
      }
      if (typeof resolved.query === 'string' && resolved.query !== params.query)
        setParams({ ...params, query: resolved.query });
      setParamsHandler((payload) => {
        const run = (verdict: Verdict) => {
          if (!verdict.admitted) return { errors: [verdict.error] };
          // Admitted (auth, limits, origin), then explained instead of run: nothing executes.
          if (explain && asksExplain(request))
            // Nothing runs to find a missing token later: an explanation needs one now.
            return verdict.credentials === null
              ? { errors: [explainNeedsToken()] }
              : {
                  data: null,
                  extensions: { explain: explain(request, verdict, payload.params) },
                };
          admitted.set(payload.params, verdict);
          return paramsHandler(payload);
        };
        // A session's or a gateway token's credentials are a look-up (stage 5 waits for it);
        // an upstream token is admitted in the same turn, as before sign-in.
        const verdict = admission.admit(operationOf(request, payload.params));
        return verdict instanceof Promise ? verdict.then(run) : run(verdict);
      });
    },
    onParse({ context, extendContext, setParsedDocument }) {
      const params = (context as { params?: GraphQLParams }).params;
      const verdict = params && admitted.get(params);
      // Fail closed: nothing reaches execution without passing admission.
      if (!verdict) throw gatewayError('The operation was not admitted.', 'INTERNAL_SERVER_ERROR');
      setParsedDocument(verdict.document);
      extendContext({ credentials: verdict.credentials, admittedCost: verdict.cost ?? null });
    },
    onExecutionResult({ request, result, setResult }) {
      // A session whose grant ended mid-operation (the upstream refused its token), or a page
      // signed out: the browser is told where to sign in, as stage 5 tells it.
      if (!signIn || !result || !('errors' in result)) return;
      const presented = admission.presentedBy(request);
      if (presented !== undefined && presented.kind !== 'session') return;
      const { errors } = result;
      if (!errors?.some((error) => error.extensions?.code === 'UNAUTHENTICATED')) return;
      setResult({ ...result, errors: errors.map(withSignIn) });
    },
    onValidate({ params: { documentAST }, setResult }) {
      if (valid.has(documentAST)) {
        setResult([]);
        return;
      }
      return (validation) => {
        if (validation.valid) valid.add(documentAST);
        else admission.forget(documentAST);
      };
    },
  };
}

function explainNeedsToken(): GraphQLError {
  return gatewayError(
    'No access token: an explanation (X-Plans-Explain) is about a token; send `Authorization: Bearer <token>`.',
    'UNAUTHENTICATED',
    { extensions: { http: { status: 401 } } },
  );
}

function withSignIn(error: GraphQLError): GraphQLError {
  if (error.extensions.code !== 'UNAUTHENTICATED' || error.extensions.signIn) return error;
  return copyError(error, { extensions: { ...error.extensions, signIn: { url: SIGN_IN_PATH } } });
}

function requestOperation(
  admission: Admission,
  request: Request,
  params: GraphQLParams,
  requestIdOf: (request: Request) => string,
): OperationRequest {
  return {
    query: params.query,
    variables: params.variables,
    operationName: params.operationName,
    extensions: params.extensions,
    presented: admission.presentedBy(request),
    origin: request.headers.get('origin'),
    ownOrigins: [new URL(request.url).origin, ...ownOriginsOf(request.headers.get('host'))],
    requestId: requestIdOf(request),
  };
}
