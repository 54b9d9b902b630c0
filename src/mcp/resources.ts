/**
 * Resources: a plan's overview (`plans://{planId}/overview`) and a month's budget
 * (`plans://{planId}/months/{month}/budget`, `month` a date or `current`), read through the tools
 * of the same name. `resources/subscribe` notifies `notifications/resources/updated` when one
 * changes: per session and plan, one GraphQL subscription (`planChanged`) through the admission
 * path, a consumer of the live hub like any other (src/live): the one poller of the (token,
 * plan), within the subscriptions' budget share, and a subscriber slot of the token.
 */
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  McpError,
  type ReadResourceResult,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ExecutionResult } from 'graphql';
import type { Gateway } from '../server/gateway.js';
import { prepareOperation } from '../server/run-operation.js';
import type { ToolCatalog } from './catalog.js';
import { ArgumentError } from './money.js';
import { quoted } from './quote.js';
import type { Caller, ToolRunner } from './tool-runner.js';

/** What changed in a plan, as far as the resources care. */
const CHANGES = `subscription McpPlanChanges($planId: PlanId!) {
  planChanged(planId: $planId) {
    accounts { id }
    months { month }
    monthCategories { month }
    categories { id }
    transactions { id }
    deleted { accountIds categoryIds transactionIds }
  }
}`;

interface PlanChangeEvent {
  accounts: unknown[];
  months: { month: string }[];
  monthCategories: { month: string }[];
  categories: unknown[];
  transactions: unknown[];
  deleted: { accountIds: unknown[]; categoryIds: unknown[]; transactionIds: unknown[] };
}

/** A resource named by a URI. */
type ResourceRef =
  | { kind: 'overview'; planId: string }
  | { kind: 'budget'; planId: string; month: string };

export interface ResourceSubscriptions {
  /** Ends every subscription of the session. */
  close(): void;
}

/** Registers the two resource templates and the subscribe handlers on a session's server. */
export function registerResources(
  mcp: McpServer,
  parts: {
    gateway: Gateway;
    catalog: ToolCatalog;
    runner: ToolRunner;
    caller: (extra: { authInfo?: AuthInfo | undefined }) => Caller;
    now: () => number;
    onError: (error: unknown) => void;
  },
): ResourceSubscriptions {
  const { catalog, runner, caller } = parts;
  const read = async (
    toolName: string,
    uri: URL,
    args: Record<string, unknown>,
    who: Caller,
  ): Promise<ReadResourceResult> => {
    const tool = catalog.tools.get(toolName);
    if (!tool) throw new McpError(ErrorCode.InternalError, `No tool ${toolName}`);
    let variables: Record<string, unknown>;
    try {
      variables = await runner.variables(tool, args, who);
    } catch (error) {
      if (error instanceof ArgumentError)
        throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    }
    const outcome = await runner.run(tool, variables, who);
    if (!outcome.ok) throw new McpError(ErrorCode.InternalError, outcome.message);
    return {
      contents: [
        { uri: uri.href, mimeType: 'application/json', text: JSON.stringify(outcome.data) },
      ],
    };
  };
  const listPlans = async (who: Caller) => {
    const tool = catalog.tools.get('list_plans');
    if (!tool) return [];
    const outcome = await runner.run(tool, {}, who);
    if (!outcome.ok) throw new McpError(ErrorCode.InternalError, outcome.message);
    return (outcome.data as { plans: { id: string; name: string }[] }).plans;
  };

  mcp.registerResource(
    'plan-overview',
    new ResourceTemplate('plans://{planId}/overview', {
      list: async (extra) => ({
        resources: (await listPlans(caller(extra))).map((plan) => ({
          uri: `plans://${plan.id}/overview`,
          name: `${plan.name}: overview`,
          mimeType: 'application/json',
        })),
      }),
    }),
    {
      title: 'Plan overview',
      description:
        "A plan's accounts with their balances and this month's totals (Ready to Assign, income, assigned, activity), as the plan_overview tool answers. Subscribe to hear when they change.",
      mimeType: 'application/json',
    },
    (uri, variables, extra) =>
      read('plan_overview', uri, { planId: one(variables.planId) }, caller(extra)),
  );
  mcp.registerResource(
    'month-budget',
    new ResourceTemplate('plans://{planId}/months/{month}/budget', {
      list: async (extra) => ({
        resources: (await listPlans(caller(extra))).map((plan) => ({
          uri: `plans://${plan.id}/months/current/budget`,
          name: `${plan.name}: this month's budget`,
          mimeType: 'application/json',
        })),
      }),
    }),
    {
      title: 'Month budget',
      description:
        "A month's budget by category (assigned, activity, available, goals) and Ready to Assign, as the month_budget tool answers; `month` is a date (any day of the month) or `current`. Subscribe to hear when it changes.",
      mimeType: 'application/json',
    },
    (uri, variables, extra) =>
      read(
        'month_budget',
        uri,
        { planId: one(variables.planId), month: one(variables.month) },
        caller(extra),
      ),
  );

  return subscriptions(mcp, parts);
}

/** Private: `resources/subscribe` and `unsubscribe`: one plan feed per plan per session. */
function subscriptions(
  mcp: McpServer,
  parts: Parameters<typeof registerResources>[1],
): ResourceSubscriptions {
  const { gateway, runner, catalog, caller, now, onError } = parts;
  const feeds = new Map<string, { uris: Set<string>; stop: () => void }>();
  let closed = false;

  mcp.server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const uri = request.params.uri;
    const ref = parseUri(uri);
    const who = caller(extra);
    const tool = catalog.tools.get(ref.kind === 'overview' ? 'plan_overview' : 'month_budget');
    if (!tool) throw new McpError(ErrorCode.InternalError, 'No resource tool');
    try {
      await runner.variables(
        tool,
        ref.kind === 'overview' ? { planId: ref.planId } : { planId: ref.planId, month: ref.month },
        who,
      );
    } catch (error) {
      if (error instanceof ArgumentError)
        throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    }
    const existing = feeds.get(ref.planId);
    if (existing) {
      existing.uris.add(uri);
      return {};
    }
    const prepared = await prepareOperation(gateway, {
      query: CHANGES,
      variables: { planId: ref.planId },
      operationName: 'McpPlanChanges',
      token: who.token,
      origin: who.origin ?? null,
      ownOrigins: who.ownOrigins ?? [],
      path: '/mcp',
      own: true,
    });
    if (!prepared.ok) throw new McpError(ErrorCode.InvalidRequest, messages(prepared.errors));
    const stream = await prepared.subscribe();
    if (!(Symbol.asyncIterator in stream))
      throw new McpError(ErrorCode.InvalidRequest, messages(stream.errors ?? []));
    if (closed || feeds.has(ref.planId)) {
      void stream.return?.();
      feeds.get(ref.planId)?.uris.add(uri);
      return {};
    }
    const entry = { uris: new Set([uri]), stop: () => void stream.return?.() };
    feeds.set(ref.planId, entry);
    void (async () => {
      for await (const event of stream) {
        if (event.errors?.length) {
          await mcp.server
            .sendLoggingMessage({
              level: 'warning',
              data: `Updates of ${ref.planId} ended: ${messages(event.errors)}`,
            })
            .catch(() => {});
          break;
        }
        const change = (event.data as { planChanged?: PlanChangeEvent } | null | undefined)
          ?.planChanged;
        if (!change) continue;
        for (const subscribed of entry.uris)
          if (concerns(parseUri(subscribed), change, now()))
            await mcp.server.sendResourceUpdated({ uri: subscribed });
      }
    })()
      .catch(onError)
      .finally(() => {
        if (feeds.get(ref.planId) === entry) feeds.delete(ref.planId);
      });
    return {};
  });

  mcp.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    const uri = request.params.uri;
    const ref = parseUri(uri);
    const entry = feeds.get(ref.planId);
    if (entry?.uris.delete(uri) && entry.uris.size === 0) {
      feeds.delete(ref.planId);
      entry.stop();
    }
    return {};
  });

  return {
    close() {
      closed = true;
      for (const entry of feeds.values()) entry.stop();
      feeds.clear();
    },
  };
}

/** Private: a resource URI, or InvalidParams naming what is wrong with it. */
function parseUri(uri: string): ResourceRef {
  const overview = /^plans:\/\/([^/]+)\/overview$/.exec(uri);
  if (overview?.[1]) return { kind: 'overview', planId: decoded(overview[1]) };
  const budget = /^plans:\/\/([^/]+)\/months\/([^/]+)\/budget$/.exec(uri);
  if (budget?.[1] && budget[2])
    return { kind: 'budget', planId: decoded(budget[1]), month: decoded(budget[2]) };
  throw new McpError(
    ErrorCode.InvalidParams,
    `Unknown resource ${quoted(uri)}: the resources are plans://{planId}/overview and plans://{planId}/months/{month}/budget.`,
  );
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `Resource URI part ${quoted(part)} is not valid.`);
  }
}

/** Private: whether a change of the plan concerns the resource. */
function concerns(ref: ResourceRef, change: PlanChangeEvent, now: number): boolean {
  if (ref.kind === 'overview')
    return (
      change.accounts.length > 0 ||
      change.months.length > 0 ||
      change.transactions.length > 0 ||
      change.deleted.accountIds.length > 0
    );
  const month =
    ref.month === 'current'
      ? `${new Date(now).toISOString().slice(0, 7)}-01`
      : `${ref.month.slice(0, 7)}-01`;
  return (
    change.months.some((m) => m.month === month) ||
    change.monthCategories.some((c) => c.month === month) ||
    change.categories.length > 0 ||
    change.deleted.categoryIds.length > 0
  );
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function messages(errors: ExecutionResult['errors'] | readonly { message: string }[]): string {
  return (errors ?? []).map((error) => error.message).join(' ');
}
