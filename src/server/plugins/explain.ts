/**
 * Explain before running (`X-Plans-Explain: 1` on `/graphql` and `/subgraph`): an admitted
 * operation is answered with what running it would take, and is not run. Routers' dry runs price
 * an operation without executing it; this adds what only the gateway knows: the upstream calls it
 * would make now and the token's remaining upstream budget.
 *
 * - `cost`: admission's price (`estimated`, `max`, `mode`), as `extensions.cost` names it;
 * - `upstream.plans`: each plan the operation names (`plan(id:)` and every `planId:` argument,
 *   literal, variable or the variable's default), with what its replica would cost now: `none`
 *   (held and within the request's max-age: 0 calls), `delta` (held but older: 1 call) or `full`
 *   (not held: the plan is loaded cold, 1 call); `upstream.calls` sums them, and `writes` counts
 *   a mutation's root fields (each sends one write);
 * - `upstream.notCounted`: root fields that read outside the plan replicas (the plan list, the
 *   user), whose calls depend on the REST cache;
 * - `budget`: the request ledger's view of the token's upstream quota (`limit`, `used`,
 *   `remaining`, `resetsAt`).
 *
 * Reading the replicas' state (`peek`) and the ledger calls nothing upstream.
 */
import {
  type DocumentNode,
  getOperationAST,
  Kind,
  type ValueNode,
  valueFromASTUntyped,
  visit,
} from 'graphql';
import type { AdmittedCost } from '../../admission/admission.js';
import type { Credentials } from '../../operation/credentials.js';
import type { ReplicaStore } from '../../replica/types.js';
import type { RequestLedger } from '../../upstream/request-ledger.js';
import type { FreshnessOf } from '../freshness.js';

/** The request header that asks for an explanation instead of an answer. */
export const EXPLAIN_HEADER = 'x-plans-explain';

export interface Explanation {
  readonly cost: AdmittedCost | null;
  readonly upstream: {
    readonly calls: number;
    readonly writes: number;
    readonly plans: readonly { planId: string; sync: 'none' | 'delta' | 'full'; calls: number }[];
    readonly notCounted: readonly string[];
  };
  readonly budget: {
    readonly limit: number;
    readonly used: number;
    readonly remaining: number;
    /** ISO 8601, as the graph's `rateLimit.resetsAt`: when the oldest request counted leaves the window. */
    readonly resetsAt: string | null;
  } | null;
}

export type Explain = (
  request: Request,
  admitted: {
    readonly document: DocumentNode;
    readonly credentials: Credentials | null;
    readonly cost?: AdmittedCost | null;
  },
  params: {
    readonly operationName?: string | null | undefined;
    readonly variables?: Readonly<Record<string, unknown>> | null | undefined;
  },
) => Explanation;

/** Whether `request` asks for an explanation (`X-Plans-Explain: 1` or `true`). */
export function asksExplain(request: Request): boolean {
  const value = request.headers.get(EXPLAIN_HEADER)?.trim().toLowerCase();
  return value === '1' || value === 'true';
}

/** Root fields that read a plan replica (or write to a plan) rather than the REST cache. */
const PLAN_ROOTS = new Set(['plan', 'node', 'nodes', '_entities']);

export function createExplain(options: {
  readonly replicas: Pick<ReplicaStore, 'peek'>;
  readonly ledger: Pick<RequestLedger, 'usage'>;
  readonly freshnessOf: FreshnessOf;
}): Explain {
  const { replicas, ledger, freshnessOf } = options;
  return (request, admitted, params) => {
    const tokenKey = admitted.credentials?.tokenKey;
    const { maxAgeMs } = freshnessOf(request);
    const operation = getOperationAST(admitted.document, params.operationName ?? undefined);
    const planIds = plansNamed(admitted.document, params.variables ?? {});
    const plans = planIds.map((planId) => {
      const held = tokenKey === undefined ? undefined : replicas.peek(tokenKey, planId);
      const sync: 'none' | 'delta' | 'full' = !held
        ? 'full'
        : held.ageMs < maxAgeMs
          ? 'none'
          : 'delta';
      return { planId, sync, calls: sync === 'none' ? 0 : 1 };
    });
    const roots =
      operation?.selectionSet.selections.flatMap((s) =>
        s.kind === Kind.FIELD && !s.name.value.startsWith('__') ? [s.name.value] : [],
      ) ?? [];
    const writes = operation?.operation === 'mutation' ? roots.length : 0;
    const notCounted =
      operation?.operation === 'query' ? roots.filter((name) => !PLAN_ROOTS.has(name)) : [];
    const usage = tokenKey === undefined ? undefined : ledger.usage(tokenKey);
    return {
      cost: admitted.cost ?? null,
      upstream: {
        calls: plans.reduce((sum, plan) => sum + plan.calls, 0) + writes,
        writes,
        plans,
        notCounted: [...new Set(notCounted)],
      },
      budget: usage
        ? {
            limit: usage.limit,
            used: usage.used,
            remaining: usage.remaining,
            resetsAt: usage.resetsAt === null ? null : new Date(usage.resetsAt).toISOString(),
          }
        : null,
    };
  };
}

/**
 * Private: the plan ids a document names, in order: `plan(id:)` and every `planId:` argument
 * (a variable's value, else its default). Aliases (`last-used`) are kept as given: the replica
 * store resolves them as a read would.
 */
function plansNamed(
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>>,
): string[] {
  const defaults = new Map<string, ValueNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.OPERATION_DEFINITION)
      for (const variable of definition.variableDefinitions ?? [])
        if (variable.defaultValue)
          defaults.set(variable.variable.name.value, variable.defaultValue);
  const found = new Set<string>();
  const argumentValue = (node: ValueNode): unknown => {
    if (node.kind === Kind.VARIABLE) {
      const name = node.name.value;
      if (variables[name] !== undefined) return variables[name];
      const fallback = defaults.get(name);
      return fallback ? valueFromASTUntyped(fallback) : undefined;
    }
    return valueFromASTUntyped(node, variables);
  };
  visit(document, {
    Field(field) {
      for (const argument of field.arguments ?? []) {
        const named =
          argument.name.value === 'planId' ||
          (field.name.value === 'plan' && argument.name.value === 'id');
        if (!named) continue;
        const value = argumentValue(argument.value);
        if (typeof value === 'string') found.add(value);
      }
    },
  });
  return [...found];
}
