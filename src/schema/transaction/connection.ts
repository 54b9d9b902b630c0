import type { IsoDate, TransactionListType } from '@plans-gateway/rest-contract';
import type { TransactionOrder, TransactionQuery, TransactionRow } from '../../replica/types.js';
import { Account } from '../account/account.js';
import type { FieldBuilder } from '../amounts.js';
import { builder } from '../builder.js';
import { encodeCursor, type PageArgs, pageWindow } from '../connections.js';
import type { GatewayContext } from '../context.js';
import { COUNT_COST, transactionListCost } from '../cost.js';
import { badUserInput, maxLength } from '../input-checks.js';
import { Month } from '../month.js';
import { Plan } from '../plan.js';
import { MonthSelectorScalar } from '../scalars.js';
import { TransactionOrderEnum, TransactionTypeFilterEnum } from './enums.js';
import { Transaction } from './transaction.js';

export interface TransactionFilterArgs {
  accountId?: string | null;
  categoryId?: string | null;
  payeeId?: string | null;
  month?: string | null;
  sinceDate?: string | null;
  untilDate?: string | null;
  type?: TransactionListType | null;
  search?: string | null;
  order?: TransactionOrder | null;
}

/** Longest text a `search` argument takes. */
export const MAX_SEARCH_LENGTH = 200;

function later(a: IsoDate | undefined, b: IsoDate): IsoDate {
  return a === undefined || b > a ? b : a;
}

function earlier(a: IsoDate | undefined, b: IsoDate): IsoDate {
  return a === undefined || b < a ? b : a;
}

/** Turns filter arguments into a replica query; `month` narrows the date bounds. */
export function filterQuery(
  args: TransactionFilterArgs,
  currentMonth: () => IsoDate,
): TransactionQuery {
  const query: TransactionQuery = { order: args.order ?? 'DATE_DESC' };
  if (args.accountId) query.accountId = args.accountId;
  if (args.categoryId) query.categoryId = args.categoryId;
  if (args.payeeId) query.payeeId = args.payeeId;
  if (args.type) query.type = args.type;
  if (args.search != null) query.search = args.search;
  if (args.sinceDate) query.sinceDate = args.sinceDate;
  if (args.untilDate) query.untilDate = args.untilDate;
  if (args.month) {
    const month = args.month === 'current' ? currentMonth() : args.month;
    query.sinceDate = later(query.sinceDate, month);
    query.untilDate = earlier(query.untilDate, lastDayOfMonth(month));
  }
  return query;
}

export const TransactionConnection = builder.connectionObject(
  {
    type: Transaction,
    name: 'TransactionConnection',
    description: 'A page of `Transaction` items with its cursors (Relay connection).',
    fields: (t) => ({
      totalCount: t.int({
        // May walk the whole filtered window, one row at a time.
        complexity: COUNT_COST,
        description: 'Transactions matching the filters, on every page.',
        resolve: (connection) => connection.totalCount,
      }),
    }),
  },
  { name: 'TransactionEdge', description: 'One item of a `Transaction` page, with its cursor.' },
);

/** A page's edge; its cursor encoded on first read (a dashboard lists rows, not cursors). */
function edgeOf(row: TransactionRow): { readonly cursor: string; readonly node: TransactionRow } {
  let cursor: string | undefined;
  return {
    get cursor() {
      cursor ??= encodeCursor(row);
      return cursor;
    },
    node: row,
  };
}

async function resolveTransactions(
  ctx: GatewayContext,
  planId: string,
  args: TransactionFilterArgs & PageArgs,
) {
  const window = pageWindow(args);
  // Before the plan is read: a refused argument costs no upstream call.
  if (args.search != null) checkSearch(args.search);
  const plan = await ctx.loaders.plan(planId);
  const page = plan.transactions({ ...filterQuery(args, () => plan.currentMonth()), ...window });
  const edges = page.rows.map(edgeOf);
  // The page computes its counts on first read (they may walk the window), and cursors are
  // encoded when read: each is paid for only when the client selected it.
  return {
    edges,
    get totalCount() {
      return page.totalCount;
    },
    pageInfo: {
      get hasNextPage() {
        return page.hasNextPage;
      },
      get hasPreviousPage() {
        return page.hasPreviousPage;
      },
      get startCursor() {
        return edges[0]?.cursor ?? null;
      },
      get endCursor() {
        return edges.at(-1)?.cursor ?? null;
      },
    },
  };
}

const DESCRIPTION =
  'Transactions, newest first unless `order` says otherwise. Filters combine; `month` narrows ' +
  '`sinceDate`/`untilDate` to that month. Unlike REST, no default `sinceDate` applies: page ' +
  'instead. A category or payee filter also matches splits through their subtransactions.';

function filterArgs<Shape>(t: FieldBuilder<Shape>, omit: readonly ('accountId' | 'month')[] = []) {
  const args = {
    accountId: t.arg({ type: 'UUID', description: 'Only transactions of this account.' }),
    categoryId: t.arg({
      type: 'UUID',
      description: 'Only transactions of this category (split lines included).',
    }),
    payeeId: t.arg({
      type: 'UUID',
      description: 'Only transactions of this payee (split lines included).',
    }),
    month: t.arg({
      type: MonthSelectorScalar,
      description: 'A month: `current` or any day in it.',
    }),
    sinceDate: t.arg({ type: 'Date', description: 'On or after this date.' }),
    untilDate: t.arg({ type: 'Date', description: 'On or before this date.' }),
    type: t.arg({
      type: TransactionTypeFilterEnum,
      description: 'Only `uncategorized` or `unapproved` transactions.',
    }),
    search: t.arg.string({
      description: `Only transactions whose memo, payee name or category name (or a split line's) contains this text, ignoring case; at most ${MAX_SEARCH_LENGTH} characters. Checked row by row within the other filters' window, so it costs ${COUNT_COST} more.`,
    }),
    order: t.arg({
      type: TransactionOrderEnum,
      defaultValue: 'DATE_DESC',
      description: 'Newest first (the default) or oldest first.',
    }),
  };
  for (const name of omit) delete (args as Partial<typeof args>)[name];
  return args;
}

builder.objectFields(Plan, (t) => ({
  transactions: t.connection(
    {
      type: Transaction,
      description: DESCRIPTION,
      args: filterArgs(t),
      complexity: transactionListCost,
      resolve: (plan, args, ctx) => resolveTransactions(ctx, plan.id, args),
    },
    TransactionConnection,
  ),
}));

builder.objectFields(Account, (t) => ({
  transactions: t.connection(
    {
      type: Transaction,
      description: DESCRIPTION,
      args: filterArgs(t, ['accountId']),
      complexity: transactionListCost,
      resolve: (account, args, ctx) =>
        resolveTransactions(ctx, account.plan_id, { ...args, accountId: account.id }),
    },
    TransactionConnection,
  ),
}));

builder.objectFields(Month, (t) => ({
  transactions: t.connection(
    {
      type: Transaction,
      description: DESCRIPTION,
      args: filterArgs(t, ['month']),
      complexity: transactionListCost,
      resolve: (month, args, ctx) =>
        resolveTransactions(ctx, month.plan_id, { ...args, month: month.month }),
    },
    TransactionConnection,
  ),
}));

/** Private: a `search` argument checked (BAD_USER_INPUT naming it) before anything runs. */
function checkSearch(text: string): void {
  maxLength(text, MAX_SEARCH_LENGTH, 'search');
  if (text.trim() === '') throw badUserInput('search', 'must hold some text to look for');
}

/** The last day of the month that starts on `month` (`YYYY-MM-01`). */
function lastDayOfMonth(month: IsoDate): IsoDate {
  const year = Number(month.slice(0, 4));
  const mon = Number(month.slice(5, 7));
  const last = new Date(Date.UTC(year, mon, 0)).getUTCDate();
  return `${month.slice(0, 7)}-${String(last).padStart(2, '0')}`;
}
