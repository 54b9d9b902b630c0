/**
 * Relay's global object identification: `Node`, `node(id:)` and `nodes(ids:)`.
 *
 * Ids are not encoded: a REST entity's `id` is its REST id (UUIDs, unique across types), so an id
 * moves freely between REST and GraphQL. Objects the graph derives get ids of their own that
 * cannot collide with a REST id: `<category id>:<month>` (MonthCategory), `<plan id>:<month>`
 * (Month) and `<transaction or subtransaction id>:hybrid` (HybridTransaction). Every id therefore
 * names one object of one type, and `node(id:)` finds it among the token's plans.
 */
import type { PlanSnapshot } from '../replica/types.js';
import { builder } from './builder.js';
import type { GatewayContext } from './context.js';
import { badUserInput } from './input-checks.js';
import type { PlanShape } from './models.js';

/** Every type implementing `Node`. */
export type NodeTypeName =
  | 'Plan'
  | 'User'
  | 'Account'
  | 'Payee'
  | 'PayeeLocation'
  | 'CategoryGroup'
  | 'Category'
  | 'MonthCategory'
  | 'Month'
  | 'Transaction'
  | 'SubTransaction'
  | 'HybridTransaction'
  | 'ScheduledTransaction'
  | 'ScheduledSubTransaction'
  | 'MoneyMovement'
  | 'MoneyMovementGroup';

/** Where `node(id:)` notes the type it found, on its own copy of the row. */
export const NODE_TYPE = Symbol('NodeType');

/** A found object: a copy of its row, carrying its type name for `resolveType`. */
type Found = object & { readonly [NODE_TYPE]: NodeTypeName };

/** `nodes(ids:)` takes at most this many ids; each may cost a plan read when cold. */
export const MAX_NODE_IDS = 100;

/** The `id` description of every type whose id is its REST id. */
export const REST_ID_DESCRIPTION =
  'The REST id (a UUID): unique across every type of the graph, so it moves freely between ' +
  'REST and GraphQL.';

/**
 * The `planId` description of every type found in a plan: part of the key a supergraph router
 * resolves it by without searching the token's plans (`entities.ts`, docs/federation.md).
 */
export const PLAN_ID_DESCRIPTION =
  'The UUID of the plan it belongs to: part of its key as a federation entity, which finds it ' +
  "without searching the token's plans.";

export const HYBRID_SUFFIX = ':hybrid';
const MONTH_KEY = /^(.+):(\d{4}-\d{2}-01)$/;

export const Node = builder.interfaceRef<object>('Node').implement({
  description:
    'An object with an id that names it, and nothing else, across the whole graph ' +
    "(Relay's global object identification). Fetch it again with `node(id:)`.",
  resolveType: (value) => (NODE_TYPE in value ? String(value[NODE_TYPE]) : null),
  fields: (t) => ({
    id: t.id({
      description:
        'Unique across every type of the graph. For REST entities, the REST id itself; derived ' +
        'objects have ids of their own (see each type).',
    }),
  }),
});

function as(type: NodeTypeName, row: object): Found {
  return { ...row, [NODE_TYPE]: type };
}

/** A row as the graph object of `type`, for fields typed `Node` (a write conflict's `current`). */
export function asNode(type: NodeTypeName, row: object): object {
  return as(type, row);
}

/** Private: the plan ids of the token, the default plan first (where most ids live). */
async function planIdsOf(ctx: GatewayContext): Promise<string[]> {
  const { plans, defaultPlan } = await ctx.loaders.plans();
  const ids = plans.map((plan) => plan.id);
  return defaultPlan ? [defaultPlan.id, ...ids.filter((id) => id !== defaultPlan.id)] : ids;
}

/** Private: an entity of the plan export with this REST id. */
function inSnapshot(plan: PlanSnapshot, id: string): Found | null {
  const hit =
    (plan.account(id) && as('Account', plan.account(id)!)) ||
    (plan.payee(id) && as('Payee', plan.payee(id)!)) ||
    (plan.payeeLocation(id) && as('PayeeLocation', plan.payeeLocation(id)!)) ||
    (plan.categoryGroup(id) && as('CategoryGroup', plan.categoryGroup(id)!)) ||
    (plan.category(id) && as('Category', plan.category(id)!)) ||
    (plan.transaction(id) && as('Transaction', plan.transaction(id)!)) ||
    (plan.subtransaction(id) && as('SubTransaction', plan.subtransaction(id)!)) ||
    (plan.scheduledTransaction(id) && as('ScheduledTransaction', plan.scheduledTransaction(id)!));
  if (hit) return hit;
  for (const scheduled of plan.scheduledTransactions()) {
    const line = plan.scheduledSubtransactionsOf(scheduled.id).find((sub) => sub.id === id);
    if (line) return as('ScheduledSubTransaction', line);
  }
  return null;
}

/** Private: a HybridTransaction row for a transaction or split line id. */
function hybridIn(plan: PlanSnapshot, id: string): Found | null {
  const whole = plan.transaction(id);
  if (whole) return as('HybridTransaction', { plan_id: whole.plan_id, parent: whole, sub: null });
  const sub = plan.subtransaction(id);
  const parent = sub && plan.transaction(sub.transaction_id);
  return sub && parent ? as('HybridTransaction', { plan_id: parent.plan_id, parent, sub }) : null;
}

/** Private: a plan month, or a category in a month. */
function monthIn(plan: PlanSnapshot, base: string, month: string): Found | null {
  if (base === plan.planId) {
    const row = plan.month(month);
    return row ? as('Month', row) : null;
  }
  const row = plan.category(base, month);
  return row && row.month === month ? as('MonthCategory', row) : null;
}

/**
 * The object an id names among the token's plans, or null. Plans are searched one by one (the
 * default first) and the search stops at the first hit; money movements, which are not in the
 * plan export, are looked up last.
 */
export async function findNode(ctx: GatewayContext, id: string): Promise<Found | null> {
  const planIds = await planIdsOf(ctx);
  const month = MONTH_KEY.exec(id);
  const hybrid = id.endsWith(HYBRID_SUFFIX) ? id.slice(0, -HYBRID_SUFFIX.length) : null;
  if (!month && !hybrid && planIds.includes(id)) {
    const plan: PlanShape = { id, summary: null };
    return as('Plan', plan);
  }
  for (const planId of planIds) {
    const plan = await ctx.loaders.plan(planId);
    const hit = month
      ? monthIn(plan, month[1]!, month[2]!)
      : hybrid
        ? hybridIn(plan, hybrid)
        : inSnapshot(plan, id);
    if (hit) return hit;
  }
  if (month || hybrid) return null;
  const user = await ctx.loaders.user();
  if (user.id === id) return as('User', user);
  for (const planId of planIds) {
    const movement = (await ctx.loaders.moneyMovements(planId)).find((m) => m.id === id);
    if (movement) return as('MoneyMovement', movement);
    const group = (await ctx.loaders.moneyMovementGroups(planId)).find((g) => g.id === id);
    if (group) return as('MoneyMovementGroup', group);
  }
  return null;
}

builder.queryFields((t) => ({
  node: t.field({
    type: Node,
    nullable: true,
    description:
      "Any object by its id, among the token's plans: null when no object has that id. Relay " +
      'refetches with it (`@refetchable`).',
    args: {
      id: t.arg.id({ required: true, description: 'An `id` the graph handed out.' }),
    },
    resolve: (_root, { id }, ctx) => findNode(ctx, id),
  }),
  nodes: t.field({
    type: [Node],
    nullable: { list: false, items: true },
    description: `Objects by id, in the order asked (null where no object has the id); at most ${MAX_NODE_IDS} ids.`,
    args: {
      ids: t.arg.idList({ required: true, description: 'Ids the graph handed out.' }),
    },
    resolve: async (_root, { ids }, ctx) => {
      if (ids.length > MAX_NODE_IDS) {
        throw badUserInput('ids', `takes at most ${MAX_NODE_IDS} ids; got ${ids.length}`);
      }
      return Promise.all(ids.map((id) => findNode(ctx, String(id))));
    },
  }),
}));
