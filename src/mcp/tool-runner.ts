/**
 * Runs tools: each call is one GraphQL operation through `prepareOperation` (src/server): the
 * admission path, then the gateway's yoga instance with the caller's token, so a tool call gets
 * the limits, cost, token gate, replicas, loaders and budget of any GraphQL request, and the same
 * log line and metrics. Before that, and without any upstream call, the arguments are checked:
 * an unknown argument, a wrong type, an amount that is not exact, a plan the token does not have.
 * A write is never retried: when its outcome is unknown, the tool error says what to check.
 */

import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { PLAN_ALIASES } from '@plans-gateway/rest-contract';
import { type ExecutionResult, type GraphQLError, type GraphQLSchema, Kind } from 'graphql';
import type { Presented } from '../admission/presented.js';
import type { McpConfig } from '../config/config.js';
import { cleanError } from '../errors/use-error-hygiene.js';
import type { Gateway } from '../gateway/gateway.js';
import { prepareOperation } from '../server/run-operation.js';
import { resourceLinks, shapedAnswer } from './answer-shaping.js';
import { readOperation, type ToolCatalog } from './catalog.js';
import { variablesFromArguments } from './input-schema.js';
import { ArgumentError, argumentErrors } from './money.js';
import { givesNames, type Matched, type Named, type PlanNames, resolveNames } from './names.js';
import { foldAnswer } from './output-shape.js';
import { quoted } from './quote.js';
import { type ToolDefinition, toolFromDocument } from './tool-definition.js';
import { runWrite } from './write-effects.js';

/** Who calls, as the transport knows it. */
export interface Caller {
  /** The credential presented (HTTP: the request's; stdio: the environment's token). */
  readonly presented: Presented | undefined;
  readonly origin?: string | null;
  readonly ownOrigins?: readonly string[];
}

/** An operation's outcome for MCP: its folded data, or what went wrong in words. */
export type Outcome =
  | { readonly ok: true; readonly data: Record<string, unknown>; readonly notes: string[] }
  | { readonly ok: false; readonly message: string };

/**
 * Asks the user to confirm a write that overwrites or deletes (MCP elicitation); undefined when
 * the client cannot be asked.
 */
export type Confirm = (message: string) => Promise<boolean>;

const PLANS = 'query McpPlanIds { plans { id firstMonth lastMonth } }';

/** The months a plan has, as `YYYY-MM-01` dates (inclusive). */
export interface PlanMonths {
  readonly first: string;
  readonly last: string;
}

/** A call's variables, checked, and the names it gave for ids with what they matched. */
export interface Checked {
  readonly variables: Record<string, unknown>;
  readonly matched: readonly Matched[];
}

export interface ToolRunner {
  /** The tools `tools/list` shows: writes only when they are on. */
  list(): Tool[];
  call(
    name: string,
    args: Readonly<Record<string, unknown>>,
    caller: Caller,
    confirm?: Confirm,
  ): Promise<CallToolResult>;
  /** Runs a tool's operation with variables already checked (resources read through this). */
  run(tool: ToolDefinition, variables: Record<string, unknown>, caller: Caller): Promise<Outcome>;
  /**
   * Checks the arguments of a tool, as `call` does, names of accounts, categories and payees
   * resolved to their ids; throws one ArgumentError naming every invalid argument.
   */
  checked(
    tool: ToolDefinition,
    args: Readonly<Record<string, unknown>>,
    caller: Caller,
  ): Promise<Checked>;
  /** `checked(...).variables`. */
  variables(
    tool: ToolDefinition,
    args: Readonly<Record<string, unknown>>,
    caller: Caller,
  ): Promise<Record<string, unknown>>;
  /**
   * The months of a plan the token has (for an alias, the span of all its plans); undefined when
   * the plan list cannot be read.
   */
  planMonths(planId: string, caller: Caller): Promise<PlanMonths | undefined>;
}

export function createToolRunner(
  gateway: Gateway,
  schema: GraphQLSchema,
  catalog: ToolCatalog,
  config: Pick<McpConfig, 'writes'>,
): ToolRunner {
  const execute = async (
    query: string,
    operationName: string,
    variables: Record<string, unknown>,
    caller: Caller,
  ) => {
    const prepared = await prepareOperation(gateway, {
      query,
      variables,
      operationName,
      presented: caller.presented,
      origin: caller.origin ?? null,
      ownOrigins: caller.ownOrigins ?? [],
      path: '/mcp',
      own: true,
    });
    if (!prepared.ok) return { errors: prepared.errors } satisfies ExecutionResult;
    return prepared.execute();
  };

  // Private: the token's plans (the list is cached with the max-age, so this costs an upstream
  // call once per max-age at most); undefined when it cannot be read.
  const plansOf = async (caller: Caller) => {
    const result = await execute(PLANS, 'McpPlanIds', {}, caller);
    return (
      result.data as
        | { plans?: { id: string; firstMonth: string; lastMonth: string }[] }
        | null
        | undefined
    )?.plans;
  };

  // Private: a plan id the token does not have is refused before the operation runs.
  const checkPlan = async (variables: Record<string, unknown>, caller: Caller) => {
    const planId = variables.planId;
    if (typeof planId !== 'string' || PLAN_ALIASES.has(planId)) return;
    const plans = await plansOf(caller);
    if (!plans || plans.some((plan) => plan.id === planId)) return;
    throw new ArgumentError(
      'planId',
      `this token has no plan ${JSON.stringify(planId)}; list_plans gives the plans and their ids (or use "last-used").`,
    );
  };

  const namesTool = toolFromDocument(
    schema,
    readOperation('names/plan-names.graphql'),
    'src/mcp/operations/names/plan-names.graphql',
  );

  // Private: the plan's names, read only when a call gives a name for an id.
  const namesOf = async (planId: unknown, caller: Caller): Promise<PlanNames | string> => {
    const outcome = await runner.run(
      namesTool,
      typeof planId === 'string' ? { planId } : {},
      caller,
    );
    if (!outcome.ok) return outcome.message;
    return planNames((outcome.data as unknown as NamesAnswer).plan);
  };

  const runner: ToolRunner = {
    list: () =>
      [...catalog.tools.values()]
        .filter((tool) => config.writes || !tool.writes)
        .map((tool) => ({
          name: tool.name,
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema as Tool['inputSchema'],
          outputSchema: tool.outputSchema as Tool['outputSchema'],
          annotations: tool.annotations,
        })),

    async checked(tool, args, caller) {
      let given: Readonly<Record<string, unknown>> = args;
      let matched: Matched[] = [];
      const refused: ArgumentError[] = [];
      if (givesNames(args)) {
        const names = await namesOf(args.planId, caller);
        if (typeof names === 'string') {
          refused.push(
            new ArgumentError(
              'planId',
              `the names of its accounts, categories and payees could not be read (${names}); give ids instead, or check planId with list_plans.`,
            ),
          );
        } else {
          const resolved = resolveNames(args, names);
          given = resolved.args;
          matched = resolved.matched;
          refused.push(...resolved.errors);
        }
      }
      let variables: Record<string, unknown> = {};
      try {
        variables = variablesFromArguments(schema, tool.operation, tool.variables, given);
      } catch (error) {
        if (!(error instanceof ArgumentError)) throw error;
        // A refused name is also not a UUID: graphql-js would say so again.
        const named = new Set(refused.map((e) => /^[^.[]+/.exec(e.argument)?.[0]));
        refused.push(...error.all.filter((e) => !named.has(/^[^.[]+/.exec(e.argument)?.[0])));
      }
      if (refused.length > 0) throw argumentErrors(refused);
      await checkPlan(variables, caller);
      return { variables, matched };
    },

    async variables(tool, args, caller) {
      return (await runner.checked(tool, args, caller)).variables;
    },

    async planMonths(planId, caller) {
      const plans = (await plansOf(caller))?.filter(
        (plan) => PLAN_ALIASES.has(planId) || plan.id === planId,
      );
      // Dates as `YYYY-MM-DD` sort as text.
      const first = plans?.map((plan) => plan.firstMonth).sort()[0];
      const last = plans
        ?.map((plan) => plan.lastMonth)
        .sort()
        .at(-1);
      return first && last ? { first, last } : undefined;
    },

    async run(tool, variables, caller) {
      const result = await execute(tool.query, tool.operationName, variables, caller);
      return outcomeOf(schema, tool, result);
    },

    async call(name, args, caller, confirm) {
      const tool = catalog.tools.get(name);
      if (!tool) {
        const names = runner
          .list()
          .map((t) => t.name)
          .join(', ');
        return toolError(`Unknown tool ${quoted(name)}. The tools are: ${names}.`);
      }
      if (tool.writes && !config.writes)
        return toolError(
          `${name} writes to the plan, and this server is read-only: the gateway's operator enables write tools with MCP_WRITES=on. Nothing was changed.`,
        );
      let variables: Record<string, unknown>;
      let matched: readonly Matched[];
      try {
        ({ variables, matched } = await runner.checked(tool, args, caller));
      } catch (error) {
        if (error instanceof ArgumentError) return toolError(error.message);
        throw error;
      }
      const outcome = await runWrite(runner, tool, variables, caller, confirm, args);
      if (!outcome.ok) return toolError(outcome.message);
      const shaped = shapedAnswer(tool, variables, outcome.data);
      const data = matched.length > 0 ? { ...shaped, matched } : shaped;
      return {
        content: [
          { type: 'text', text: JSON.stringify(data) },
          ...outcome.notes.map((text) => ({ type: 'text' as const, text })),
          ...resourceLinks(tool, variables, data),
        ],
        structuredContent: data,
      };
    },
  };
  return runner;
}

interface NamesAnswer {
  readonly plan: {
    readonly accounts: readonly { id: string; name: string; closed: boolean; deleted: boolean }[];
    readonly categories: readonly {
      id: string;
      name: string;
      categoryGroupName: string;
      deleted: boolean;
    }[];
    readonly payees: readonly {
      id: string;
      name: string;
      deleted: boolean;
      transferAccountId: string | null;
    }[];
  } | null;
}

/**
 * Private: what names may match. Deleted ones are left out; a transfer payee also answers to
 * its account's name ("Savings" for "Transfer : Savings").
 */
function planNames(plan: NamesAnswer['plan']): PlanNames | string {
  if (!plan) return 'the plan could not be read';
  const accounts = plan.accounts.filter((a) => !a.deleted);
  const payees: Named[] = [];
  for (const payee of plan.payees) {
    if (payee.deleted) continue;
    payees.push({ id: payee.id, name: payee.name });
    const account = accounts.find((a) => a.id === payee.transferAccountId);
    if (account)
      payees.push({
        id: payee.id,
        name: account.name,
        where: `transfer to or from ${account.name}`,
      });
  }
  return {
    account: accounts.map((a) => ({
      id: a.id,
      name: a.name,
      ...(a.closed ? { where: 'closed' } : {}),
    })),
    category: plan.categories
      .filter((c) => !c.deleted)
      .map((c) => ({ id: c.id, name: c.name, where: c.categoryGroupName })),
    payee: payees,
  };
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * Private: an execution result as MCP sees it. No data: the errors, in words. A mutation that
 * answered with a typed error (`... on Error { message }`): that error. Data beside errors (a
 * nullable field failed): the data, with the errors as notes. A stale answer says how old it is.
 */
function outcomeOf(schema: GraphQLSchema, tool: ToolDefinition, result: ExecutionResult): Outcome {
  const outcome = rawOutcome(schema, tool, result);
  return outcome.ok ? outcome : { ok: false, message: inToolWords(outcome.message, tool) };
}

/**
 * `message` with the GraphQL root fields of the tool's operation named as the tool: a
 * model can call `assign_to_category`, not `updateMonthCategory`.
 */
export function inToolWords(message: string, tool: ToolDefinition): string {
  let text = message;
  for (const selection of tool.operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue;
    const field = selection.name.value;
    if (field === 'plan' || field === 'plans') continue;
    text = text.replace(new RegExp(`\`?\\b${field}\\b\`?`, 'g'), tool.name);
  }
  return text;
}

function rawOutcome(schema: GraphQLSchema, tool: ToolDefinition, result: ExecutionResult): Outcome {
  const errors = result.errors ?? [];
  if (!result.data) return { ok: false, message: describeErrors(errors, tool) };
  const data = foldAnswer(result.data, tool.shape) as Record<string, unknown>;
  if (tool.writes) {
    const refused = typedError(schema, data);
    if (refused) return { ok: false, message: refused };
    if (errors.length > 0) return { ok: false, message: describeErrors(errors, tool) };
  }
  // A partial answer reads as a whole one to a model (`{"plan": null}` is "no plan"): an error
  // saying what to do instead.
  if (errors.length > 0)
    return {
      ok: false,
      message: `Part of the answer could not be read, so none is given: ${describeErrors(errors, tool)} Try again; if it persists, ask for less (a narrower date range, a smaller \`first\`).`,
    };
  const notes: string[] = [];
  const stale = (
    result.extensions as { stale?: { source: string; reason: string; ageMs: number }[] } | undefined
  )?.stale;
  for (const part of stale ?? [])
    notes.push(
      `Answered from data ${Math.round(part.ageMs / 1000)} s old (${part.source}): the upstream could not be asked (${part.reason}).`,
    );
  return { ok: true, data, notes };
}

// Private: the typed error a mutation answered with (a result whose type implements `Error`).
function typedError(schema: GraphQLSchema, data: Record<string, unknown>): string | null {
  const errorInterface = schema.getType('Error');
  for (const value of Object.values(data)) {
    if (typeof value !== 'object' || value === null) continue;
    const { __typename: typename, message } = value as { __typename?: unknown; message?: unknown };
    if (typeof typename !== 'string') continue;
    const type = schema.getType(typename);
    const implementsError =
      type !== undefined &&
      errorInterface !== undefined &&
      'getInterfaces' in type &&
      type.getInterfaces().some((i) => i.name === errorInterface.name);
    if (implementsError)
      return `${typename}: ${typeof message === 'string' ? message : 'the write was refused'} Nothing was changed.`;
  }
  return null;
}

/** Private: errors in words, with their codes; an unknown write outcome says what to check. */
function describeErrors(errors: readonly GraphQLError[], tool: ToolDefinition): string {
  if (errors.length === 0) return 'The operation answered nothing.';
  return errors
    .map((error) => {
      const { code, outcomeUnknown, safeToRetryWithSameImportId } = error.extensions as {
        code?: string;
        outcomeUnknown?: boolean;
        safeToRetryWithSameImportId?: boolean;
      };
      const coded = `${cleanError(error).message}${code ? ` (${code})` : ''}`;
      if (!outcomeUnknown) return coded;
      const check =
        tool.name === 'create_transaction'
          ? 'Before trying again, look for it with search_transactions (its account, date and payee)'
          : 'Before trying again, read the affected transactions or category with search_transactions or month_budget';
      const retry = safeToRetryWithSameImportId
        ? ' Sending it again with the same importId is safe: the plan refuses a duplicate.'
        : '';
      return `${coded} The write may or may not have been applied: it was not retried. ${check}.${retry}`;
    })
    .join(' ');
}
