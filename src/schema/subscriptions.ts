/**
 * Live updates: `Subscription` fields fed by the replica's delta syncs (src/live). Each event
 * carries graph objects as the replica holds them after the change, so a client selects what it
 * needs exactly as in a query, links included.
 */
import { GraphQLError } from 'graphql';
import { MAX_EVENT_ROWS } from '../live/parts.js';
import type {
  ChangeOrigin,
  PlanChange,
  PlanDeletions,
  TransactionPlace,
} from '../replica/changes.js';
import type { AccountRow, TransactionRow } from '../replica/types.js';
import { Account } from './account/account.js';
import type { FieldBuilder } from './amounts.js';
import { builder } from './builder.js';
import { Category, CategoryGroup, MonthCategory } from './category/category.js';
import type { GatewayContext } from './context.js';
import { type FieldPrice, LIST_COST_MULTIPLIER } from './cost.js';
import { Month } from './month.js';
import { Payee } from './payee/payee.js';
import { Plan } from './plan.js';
import { PlanIdScalar } from './scalars.js';
import { ScheduledTransaction } from './scheduled-transaction/scheduled-transaction.js';
import { Transaction } from './transaction/transaction.js';

const ORIGINS = ['SYNC', 'WRITE', 'REPLAY'] as const satisfies readonly ChangeOrigin[];

export const PlanChangeOriginEnum = builder.enumType('PlanChangeOrigin', {
  description: 'What brought a change to the gateway.',
  values: {
    SYNC: { description: 'A delta request: a poll, or the sync of any query or mutation.' },
    WRITE: {
      description:
        'A write through this gateway, published at once from its REST answer; the delta that ' +
        'follows it (a SYNC change) brings the balances and totals it moved.',
    },
    REPLAY: {
      description: 'What a subscription that gave `since` missed, delivered before anything else.',
    },
  } satisfies Record<(typeof ORIGINS)[number], { description: string }>,
});

/** What every change event says about itself. */
interface ChangeHeader {
  readonly planId: string;
  readonly origin: ChangeOrigin;
  readonly serverKnowledge: number;
  readonly continues?: boolean;
}

interface TransactionsChangeShape extends ChangeHeader {
  readonly transactions: readonly TransactionRow[];
  readonly removedTransactionIds: readonly string[];
}

interface AccountBalancesChangeShape extends ChangeHeader {
  readonly accounts: readonly AccountRow[];
}

const PlanDeletionsType = builder.objectRef<PlanDeletions>('PlanDeletions').implement({
  description: 'Entities the change removed, by id (months by date).',
  fields: (t) => ({
    accountIds: t.idList({ description: 'Accounts deleted.', resolve: (d) => [...d.accountIds] }),
    categoryGroupIds: t.idList({
      description: 'Category groups deleted.',
      resolve: (d) => [...d.categoryGroupIds],
    }),
    categoryIds: t.idList({
      description: 'Categories deleted.',
      resolve: (d) => [...d.categoryIds],
    }),
    months: t.field({
      type: ['Date'],
      description: 'Months deleted (their first days).',
      resolve: (d) => [...d.months],
    }),
    payeeIds: t.idList({ description: 'Payees deleted.', resolve: (d) => [...d.payeeIds] }),
    transactionIds: t.idList({
      description: 'Transactions deleted.',
      resolve: (d) => [...d.transactionIds],
    }),
    scheduledTransactionIds: t.idList({
      description: 'Scheduled transactions deleted.',
      resolve: (d) => [...d.scheduledTransactionIds],
    }),
  }),
});

const TransactionPlaceType = builder.objectRef<TransactionPlace>('TransactionPlace').implement({
  description: 'Where a transaction was filed: what account and category filters look at.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The transaction UUID.' }),
    accountId: t.exposeID('accountId', { description: 'Its account.' }),
    categoryIds: t.idList({
      description: "Its category and its split lines' categories.",
      resolve: (place) => [...place.categoryIds],
    }),
  }),
});

/** Private: the fields every change event has. */
function headerFields<Shape extends ChangeHeader>(t: FieldBuilder<Shape>) {
  return {
    planId: t.id({ description: 'The plan UUID.', resolve: (c) => c.planId }),
    plan: t.field({
      type: Plan,
      description: 'The plan as it is after the change.',
      resolve: (c) => ({ id: c.planId, summary: null }),
    }),
    origin: t.field({
      type: PlanChangeOriginEnum,
      description: 'What brought the change: a poll, a write through the gateway, or a replay.',
      resolve: (c) => c.origin,
    }),
    serverKnowledge: t.field({
      type: 'SafeInt',
      description:
        'The knowledge this event brings you up to. Keep the latest and pass it as `since` when ' +
        'you subscribe again: what you missed comes first.',
      resolve: (c) => c.serverKnowledge,
    }),
    continues: t.boolean({
      description:
        'More events of this change follow: a replay, or a change too large for one event, is ' +
        'split into events of at most 500 rows and 256 KiB of data (the gateway may set less). ' +
        'Apply each as upserts, in order; the last has `continues: false` and brings ' +
        '`serverKnowledge` to the knowledge of the whole change. A split REPLAY raises ' +
        '`serverKnowledge` as it goes, so a client that drops mid-replay resumes from the last ' +
        'one it got.',
      resolve: (c) => c.continues === true,
    }),
  };
}

/**
 * Private: the price of a subscription field: the lists of its events count like the rows of a
 * page, 10 for live events (as any list) and `MAX_EVENT_ROWS` with `since`, since a replay is
 * delivered in events of up to that many rows: each costs what a page of them costs in a query.
 */
function eventCost(lists: readonly string[]) {
  return (args: { since?: number | null }): FieldPrice => ({
    field: 1,
    multiplier: 1,
    page: { fields: lists, size: args.since == null ? LIST_COST_MULTIPLIER : MAX_EVENT_ROWS },
  });
}

/** Private: a list of an event's rows; `eventCost` multiplies it. */
const EVENT_LIST = { field: 1, multiplier: 1 } as const;

export const PlanChangeType = builder.objectRef<PlanChange>('PlanChange').implement({
  description:
    "One change of a plan: the entities it touched, as they are after it, and the ids of those it removed. Events may repeat an entity (a write's own event, then the delta confirming it); apply them as upserts.",
  fields: (t) => ({
    ...headerFields(t),
    previousServerKnowledge: t.field({
      type: 'SafeInt',
      nullable: true,
      description: 'The knowledge before the change, when known.',
      resolve: (c) => c.previousServerKnowledge,
    }),
    writeServerKnowledge: t.field({
      type: 'SafeInt',
      nullable: true,
      description:
        "A WRITE event: the knowledge the upstream gave the write, each write its own. `serverKnowledge` stays the replica's (resume from it): what the write moved elsewhere (balances, month totals) and others' changes before it come in the SYNC event after it, unless the event is `complete`. Null for other events, and for writes whose answer carries no knowledge.",
      resolve: (c) => c.writeServerKnowledge ?? null,
    }),
    complete: t.boolean({
      description:
        "A WRITE event that already carries everything its write moved (balances, activity, month totals): the gateway applied it from the product's arithmetic in one trip, and no SYNC event repeats it (the next poll confirms it and sends only what differs). False for a WRITE event whose SYNC event follows, and for other events.",
      resolve: (c) => c.complete === true,
    }),
    accounts: t.field({
      complexity: EVENT_LIST,
      type: [Account],
      description: 'Accounts that changed, as they are now.',
      resolve: (c) => [...c.accounts],
    }),
    categoryGroups: t.field({
      complexity: EVENT_LIST,
      type: [CategoryGroup],
      description: 'Category groups that changed, with their changed categories.',
      resolve: (c) => [...c.categoryGroups],
    }),
    categories: t.field({
      complexity: EVENT_LIST,
      type: [Category],
      description: 'With the amounts of the current month.',
      resolve: (c) => [...c.categories],
    }),
    months: t.field({
      complexity: EVENT_LIST,
      type: [Month],
      description: 'Months whose totals or category amounts changed.',
      resolve: (c) => [...c.months],
    }),
    monthCategories: t.field({
      complexity: EVENT_LIST,
      type: [MonthCategory],
      description: 'Categories whose amounts changed in a month (assignments, activity, balances).',
      resolve: (c) => [...c.monthCategories],
    }),
    payees: t.field({
      complexity: EVENT_LIST,
      type: [Payee],
      description: 'Payees that changed.',
      resolve: (c) => [...c.payees],
    }),
    transactions: t.field({
      complexity: EVENT_LIST,
      type: [Transaction],
      description: 'Transactions that changed, as they are now.',
      resolve: (c) => [...c.transactions],
    }),
    scheduledTransactions: t.field({
      complexity: EVENT_LIST,
      type: [ScheduledTransaction],
      description: 'Scheduled transactions that changed.',
      resolve: (c) => [...c.scheduledTransactions],
    }),
    deleted: t.field({
      type: PlanDeletionsType,
      description: 'Ids of what was deleted.',
      resolve: (c) => c.deleted,
    }),
    transactionsBefore: t.field({
      complexity: EVENT_LIST,
      type: [TransactionPlaceType],
      nullable: true,
      description:
        'Where the changed and deleted transactions were filed before the change, for those that existed before it: a changed transaction without one is new, so a client can keep its lists and their counts right without reading them again. Null when the change resends the whole plan and cannot tell.',
      resolve: (c) => (c.wholePlan ? null : c.transactionsBefore.filter((p) => !p.unseen)),
    }),
  }),
});

const TransactionsChangeType = builder
  .objectRef<TransactionsChangeShape>('TransactionsChange')
  .implement({
    description: 'Transactions of a plan, or of one account or category, that changed.',
    fields: (t) => ({
      ...headerFields(t),
      transactions: t.field({
        complexity: EVENT_LIST,
        type: [Transaction],
        description: 'Created or changed, and matching the filters.',
        resolve: (c) => [...c.transactions],
      }),
      removedTransactionIds: t.idList({
        description:
          'Deleted, or no longer matching the filters (moved to another account or category).',
        resolve: (c) => [...c.removedTransactionIds],
      }),
    }),
  });

const AccountBalancesChangeType = builder
  .objectRef<AccountBalancesChangeShape>('AccountBalancesChange')
  .implement({
    description: 'Accounts whose balances (or other fields) changed.',
    fields: (t) => ({
      ...headerFields(t),
      accounts: t.field({
        complexity: EVENT_LIST,
        type: [Account],
        description: 'Accounts whose balances changed, as they are now.',
        resolve: (c) => [...c.accounts],
      }),
    }),
  });

/** Private: an event about to be resolved: an error ends the subscription, else links read the replica as it is now. */
function delivered<Shape extends ChangeHeader>(
  payload: Shape | GraphQLError,
  ctx: GatewayContext,
): Shape {
  if (payload instanceof GraphQLError) throw payload;
  ctx.live.prime(payload.planId);
  return payload;
}

/** Private: whether a transaction filed at `place` is in the view the filters describe. */
function inView(
  place: Pick<TransactionPlace, 'accountId' | 'categoryIds'>,
  accountId: string | null | undefined,
  categoryId: string | null | undefined,
): boolean {
  return (
    (accountId == null || place.accountId === accountId) &&
    (categoryId == null || place.categoryIds.includes(categoryId))
  );
}

/**
 * The part of a change a `transactionsChanged(accountId, categoryId)` subscriber sees; null when
 * none, unless `required` (the last event of a split change: the client must see it end).
 */
export function transactionsView(
  change: PlanChange,
  accountId?: string | null,
  categoryId?: string | null,
  required = false,
): TransactionsChangeShape | null {
  const before = new Map(change.transactionsBefore.map((place) => [place.id, place] as const));
  const wasInView = (id: string) => {
    const place = before.get(id);
    // Without a record of where it was, a removal is reported anyway: unknown ids are harmless.
    return place === undefined || inView(place, accountId, categoryId);
  };
  const lineCategories = new Map<string, string[]>();
  for (const sub of change.subtransactions) {
    if (sub.category_id === null) continue;
    const ids = lineCategories.get(sub.transaction_id);
    if (ids) ids.push(sub.category_id);
    else lineCategories.set(sub.transaction_id, [sub.category_id]);
  }
  const transactions: TransactionRow[] = [];
  const removed: string[] = [];
  for (const row of change.transactions) {
    const categoryIds = [...(lineCategories.get(row.id) ?? [])];
    if (row.category_id !== null) categoryIds.push(row.category_id);
    if (inView({ accountId: row.account_id, categoryIds }, accountId, categoryId)) {
      transactions.push(row);
    } else if (before.has(row.id) && wasInView(row.id)) {
      removed.push(row.id);
    }
  }
  for (const id of change.deleted.transactionIds) if (wasInView(id)) removed.push(id);
  if (transactions.length === 0 && removed.length === 0 && !required) return null;
  return {
    planId: change.planId,
    origin: change.origin,
    serverKnowledge: change.serverKnowledge,
    ...(change.continues ? { continues: true } : {}),
    transactions,
    removedTransactionIds: removed,
  };
}

builder.subscriptionFields((t) => {
  const planIdArg = () =>
    t.arg({
      type: PlanIdScalar,
      required: true,
      description: 'A plan UUID, `last-used` or `default`.',
    });
  const sinceArg = () =>
    t.arg({
      type: 'SafeInt',
      required: false,
      description:
        'A `serverKnowledge` you hold (from a query or an earlier event): what changed after it ' +
        'comes first, as REPLAY events (several for a large replay, see `continues`; 0 replays ' +
        'the whole plan). Priced like reading those rows: each list of an event counts 500.',
    });
  return {
    planChanged: t.field({
      type: PlanChangeType,
      description:
        "Every change of the plan, as the gateway learns it: a poll of the upstream (one per token and plan, shared by all of the token's subscriptions, paced within the token's quota), the sync of any query, or a write through the gateway (at once).",
      args: { planId: planIdArg(), since: sinceArg() },
      complexity: eventCost([
        'accounts',
        'categoryGroups',
        'categories',
        'months',
        'monthCategories',
        'payees',
        'transactions',
        'scheduledTransactions',
      ]),
      subscribe: (_root, args, ctx) =>
        ctx.live.open(args.planId, {
          ...(args.since == null ? {} : { since: args.since }),
          select: (change) => change,
        }),
      resolve: (payload, _args, ctx) => delivered(payload, ctx),
    }),
    transactionsChanged: t.field({
      type: TransactionsChangeType,
      description:
        'Transactions created, changed or deleted, optionally only those of one account and/or one category (a split counts for the categories of its lines).',
      args: {
        planId: planIdArg(),
        accountId: t.arg({
          type: 'UUID',
          required: false,
          description: 'Only transactions of this account.',
        }),
        categoryId: t.arg({
          type: 'UUID',
          required: false,
          description: 'Only transactions of this category.',
        }),
        since: sinceArg(),
      },
      complexity: eventCost(['transactions']),
      subscribe: (_root, args, ctx) =>
        ctx.live.open(args.planId, {
          ...(args.since == null ? {} : { since: args.since }),
          select: (change, required) =>
            transactionsView(change, args.accountId, args.categoryId, required),
        }),
      resolve: (payload, _args, ctx) => delivered(payload, ctx),
    }),
    accountBalancesChanged: t.field({
      type: AccountBalancesChangeType,
      description:
        'Accounts whose balances changed (a new transaction, a cleared one, a transfer).',
      args: { planId: planIdArg(), since: sinceArg() },
      complexity: eventCost(['accounts']),
      subscribe: (_root, args, ctx) =>
        ctx.live.open(args.planId, {
          ...(args.since == null ? {} : { since: args.since }),
          select: (change, required): AccountBalancesChangeShape | null =>
            change.accounts.length === 0 && !required
              ? null
              : {
                  planId: change.planId,
                  origin: change.origin,
                  serverKnowledge: change.serverKnowledge,
                  ...(change.continues ? { continues: true } : {}),
                  accounts: change.accounts,
                },
        }),
      resolve: (payload, _args, ctx) => delivered(payload, ctx),
    }),
  };
});
