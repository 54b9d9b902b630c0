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
import type { Gateway } from '../gateway/gateway.js';
import { prepareOperation } from '../server/run-operation.js';
import type { Clock } from '../time/clock.js';
import type { ToolCatalog } from './catalog.js';
import { ArgumentError } from './money.js';
import { quoted } from './quote.js';
import type { Caller, ToolRunner } from './tool-runner.js';
import { createUpdateQueue, type NotificationPacing } from './updates.js';

/** What changed in a plan, as far as the resources care. */
const CHANGES = `subscription McpPlanChanges($planId: PlanId!) {
  planChanged(planId: $planId) {
    origin
    complete
    accounts { id }
    months { month }
    monthCategories { month }
    categories { id }
    deleted { accountIds categoryIds }
  }
}`;

interface PlanChangeEvent {
  origin: 'SYNC' | 'WRITE' | 'REPLAY';
  complete: boolean;
  accounts: unknown[];
  months: { month: string }[];
  monthCategories: { month: string }[];
  categories: unknown[];
  deleted: { accountIds: unknown[]; categoryIds: unknown[] };
}

/** A resource named by a URI. */
type ResourceRef =
  | { kind: 'overview'; planId: string }
  | { kind: 'budget'; planId: string; month: string };

/** What a session may hold: resource URIs per plan and in all, notification bytes unread. */
export interface SubscriptionLimits {
  readonly perPlan: number;
  readonly perSession: number;
  /** `SUBSCRIPTION_PENDING_KB`, as for a GraphQL subscriber. */
  readonly pendingBytes: number;
}

/** The stream a session's notifications go out on. */
export interface SessionStream extends NotificationPacing {
  /** Ends it once what it holds is written (Streamable HTTP: the GET stream; stdio: nothing). */
  end(): void;
}

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
    now: Clock;
    onError: (error: unknown) => void;
    limits: SubscriptionLimits;
    stream: SessionStream;
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
  const { gateway, runner, catalog, caller, now, onError, limits, stream } = parts;
  const feeds = new Map<string, PlanFeed>();
  let closed = false;

  const endAll = () => {
    for (const feed of feeds.values()) feed.stop();
    feeds.clear();
  };
  const updates = createUpdateQueue({
    pacing: stream,
    send: (uri) => mcp.server.sendResourceUpdated({ uri }),
    pendingBytes: limits.pendingBytes,
    onError,
    overflow(bytes) {
      // The reader stayed behind: its subscriptions end (their hub slots and pollers go at
      // once), and the reason is the last message of the stream, as SUBSCRIBER_TOO_SLOW is.
      endAll();
      const kib = (n: number) => Math.ceil(n / 1024);
      gateway.logger?.warn(
        { pendingKib: kib(bytes) },
        'mcp: resource updates ended, the client did not read them',
      );
      void mcp.server
        .sendLoggingMessage({
          level: 'error',
          logger: 'resources',
          data: `Resource updates ended: ${kib(bytes)} KiB of notifications waited for this client, more than the ${kib(limits.pendingBytes)} KiB a session may leave unread (SUBSCRIPTION_PENDING_KB). Every resource subscription of this session ended; read the notifications as they come, and subscribe again.`,
        })
        .catch(() => {})
        .finally(() => stream.end());
    },
  });

  // Private: the plan's feed, opened now if the session has none: one planChanged
  // subscription through the admission path, its events turned into notifications.
  const feedOf = (planKey: string, who: Caller): PlanFeed => {
    const existing = feeds.get(planKey);
    if (existing) return existing;
    const feed: PlanFeed = { resources: new Map(), stop: () => {}, ready: Promise.resolve() };
    feeds.set(planKey, feed);
    const forget = () => {
      if (feeds.get(planKey) === feed) feeds.delete(planKey);
    };
    feed.ready = (async () => {
      const prepared = await prepareOperation(gateway, {
        query: CHANGES,
        variables: { planId: planKey },
        operationName: 'McpPlanChanges',
        presented: who.presented,
        origin: who.origin ?? null,
        ownOrigins: who.ownOrigins ?? [],
        path: '/mcp',
        own: true,
      });
      if (!prepared.ok) throw new McpError(ErrorCode.InvalidRequest, messages(prepared.errors));
      const events = await prepared.subscribe();
      if (!(Symbol.asyncIterator in events))
        throw new McpError(ErrorCode.InvalidRequest, messages(events.errors ?? []));
      if (feeds.get(planKey) !== feed) {
        // Unsubscribed, or the session closed, while it opened.
        void events.return?.();
        return;
      }
      feed.stop = () => void events.return?.();
      // What writes not yet shown in full concern, told with the change that completes them.
      const owed = new Set<string>();
      void (async () => {
        for await (const event of events) {
          if (event.errors?.length) {
            await mcp.server
              .sendLoggingMessage({
                level: 'warning',
                data: `Updates of ${planKey} ended: ${messages(event.errors)}`,
              })
              .catch(() => {});
            break;
          }
          const change = (event.data as { planChanged?: PlanChangeEvent } | null | undefined)
            ?.planChanged;
          // A write through the gateway the replica cannot show in full at once is published
          // twice: its REST answer (WRITE: the rows written), then the delta that follows it
          // (SYNC: the balances and totals they moved, which is what the resources show).
          // Notifying with the second tells of each write once, when a read shows all of it.
          // A write applied whole in one trip is one complete WRITE change: no SYNC follows.
          if (!change || feeds.get(planKey) !== feed) continue;
          for (const uri of concerned(feed.resources, change, now())) owed.add(uri);
          if (change.origin === 'WRITE' && !change.complete) continue;
          // In the order of the subscriptions, as `concerned` gives them.
          updates.notify([...feed.resources.keys()].filter((uri) => owed.has(uri)));
          owed.clear();
        }
      })()
        .catch(onError)
        .finally(forget);
    })();
    feed.ready.catch(forget);
    return feed;
  };

  mcp.server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const uri = request.params.uri;
    const ref = parseUri(uri);
    if (feeds.get(ref.planId)?.resources.has(uri)) return {};
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
    // Checked as MonthSelector above: `current` or a date, whose month is what is watched.
    const month = ref.kind === 'budget' ? monthOf(ref.month) : undefined;
    if (month && month !== 'current') await checkMonth(ref.planId, month, who);
    if (closed) throw new McpError(ErrorCode.ConnectionClosed, 'The session is closing.');

    // The bounds, counted after the awaits above so that concurrent requests cannot pass them.
    const existing = feeds.get(ref.planId);
    if (existing?.resources.has(uri)) return {};
    if ((existing?.resources.size ?? 0) >= limits.perPlan)
      throw new McpError(
        ErrorCode.InvalidRequest,
        `This session already subscribes to ${limits.perPlan} resources of plan ${ref.planId} (MCP_SUBSCRIPTIONS_PER_PLAN): unsubscribe one first.`,
      );
    const total = [...feeds.values()].reduce((sum, feed) => sum + feed.resources.size, 0);
    if (total >= limits.perSession)
      throw new McpError(
        ErrorCode.InvalidRequest,
        `This session already subscribes to ${limits.perSession} resources (MCP_SUBSCRIPTIONS_PER_SESSION): unsubscribe one first.`,
      );
    const feed = feedOf(ref.planId, who);
    feed.resources.set(uri, month ? { kind: 'budget', month } : { kind: 'overview' });
    try {
      await feed.ready;
    } catch (error) {
      feed.resources.delete(uri);
      throw error;
    }
    return {};
  });

  // Private: a month outside the plan's months is refused (it has no budget to watch).
  const checkMonth = async (planId: string, month: string, who: Caller) => {
    const months = await runner.planMonths(planId, who);
    if (!months || (month >= months.first && month <= months.last)) return;
    throw new McpError(
      ErrorCode.InvalidParams,
      `Argument "month": ${month.slice(0, 7)} is not a month of plan ${planId}, which has ${months.first.slice(0, 7)} to ${months.last.slice(0, 7)}.`,
    );
  };

  mcp.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    const uri = request.params.uri;
    const ref = parseUri(uri);
    const feed = feeds.get(ref.planId);
    if (feed?.resources.delete(uri) && feed.resources.size === 0) {
      feeds.delete(ref.planId);
      feed.stop();
    }
    return {};
  });

  return {
    close() {
      closed = true;
      updates.close();
      endAll();
    },
  };
}

/** A subscribed resource: a plan's overview, or a month's budget (`current` or `YYYY-MM-01`). */
type Resource = { kind: 'overview' } | { kind: 'budget'; month: string };

/** Private: one plan's subscription in a session, and the URIs it notifies. */
interface PlanFeed {
  readonly resources: Map<string, Resource>;
  /** Settles once the planChanged subscription is open (or failed to open). */
  ready: Promise<void>;
  stop: () => void;
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

function monthOf(selector: string): string {
  return selector === 'current' ? selector : `${selector.slice(0, 7)}-01`;
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `Resource URI part ${quoted(part)} is not valid.`);
  }
}

/**
 * Private: the subscribed URIs a change of their plan concerns, worked out once per change:
 * the overview on changed accounts or months (what it shows: balances and this month's
 * totals); a month's budget on a change of that month or of any category.
 */
function concerned(
  resources: ReadonlyMap<string, Resource>,
  change: PlanChangeEvent,
  now: number,
): string[] {
  const overview =
    change.accounts.length > 0 || change.months.length > 0 || change.deleted.accountIds.length > 0;
  const everyMonth = change.categories.length > 0 || change.deleted.categoryIds.length > 0;
  const months = new Set([
    ...change.months.map((m) => m.month),
    ...change.monthCategories.map((c) => c.month),
  ]);
  const current = `${new Date(now).toISOString().slice(0, 7)}-01`;
  const uris: string[] = [];
  for (const [uri, resource] of resources) {
    const hit =
      resource.kind === 'overview'
        ? overview
        : everyMonth || months.has(resource.month === 'current' ? current : resource.month);
    if (hit) uris.push(uri);
  }
  return uris;
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function messages(errors: ExecutionResult['errors'] | readonly { message: string }[]): string {
  return (errors ?? []).map((error) => error.message).join(' ');
}
