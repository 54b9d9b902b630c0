/**
 * Write conflicts (issue 35): a write sent with `ifUnchangedSince` (a `changes` cursor) is
 * refused when a row it overwrites or deletes changed after that cursor, so an offline client's
 * queued edit never silently overwrites an edit made elsewhere meanwhile.
 *
 * "Changed" is read from the (token, plan) change log that feeds `changes` (change-log.ts): the
 * row's key is in an entry newer than the cursor. Rows are compared whole, as the log keeps
 * them: a category whose activity moved because a transaction of it changed counts as changed.
 * When the log cannot tell (the cursor is older than it reaches, it has a gap, or an entry
 * stands for "everything"), every row counts as changed: a refusal the client can resolve is
 * safer than an overwrite nobody sees.
 */

import type { IsoDate } from '@plans-gateway/rest-contract';
import type { ChangeKeys } from '../replica/changes.js';
import type { PlanSnapshot, SavedEntities } from '../replica/types.js';
import type { ChangeLog } from './change-log.js';
import type { CursorState } from './sync-cursor.js';

/** A row a write overwrites or deletes. */
export type RowKey =
  | {
      readonly kind: 'transaction' | 'scheduledTransaction' | 'category' | 'payee' | 'account';
      readonly id: string;
    }
  | { readonly kind: 'monthCategory'; readonly id: string; readonly month: IsoDate };

/** A row as a write's cursor names it (`CursorState.rows`). */
export function rowId(key: RowKey): string {
  return key.kind === 'monthCategory'
    ? `monthCategory:${key.id}:${key.month}`
    : `${key.kind}:${key.id}`;
}

/** @default a write's cursor names at most 100 rows; a larger write answers none */
export const MAX_WRITTEN_ROWS = 100;

/**
 * The rows a write's answer carried, as its cursor names them; undefined when the answer gave no
 * `server_knowledge` (accounts, scheduled transactions: nothing says where the write landed) or
 * names too many rows.
 */
export function writtenRows(saved: SavedEntities): readonly string[] | undefined {
  if (saved.serverKnowledge === undefined) return undefined;
  const ids = (kind: Exclude<RowKey['kind'], 'monthCategory'>, rows?: readonly { id: string }[]) =>
    (rows ?? []).map((row) => rowId({ kind, id: row.id }));
  const rows = [
    ...ids('transaction', saved.transactions),
    ...ids('scheduledTransaction', saved.scheduledTransactions),
    ...ids('category', saved.categories),
    ...ids('payee', saved.payees),
    ...ids('account', saved.accounts),
    ...(saved.monthCategories ?? []).map(({ month, category }) =>
      rowId({ kind: 'monthCategory', id: category.id, month }),
    ),
  ];
  return rows.length > 0 && rows.length <= MAX_WRITTEN_ROWS ? rows : undefined;
}

/**
 * The rows of `rows` that changed after `state`, by the log, with the plan as read at `at`. A
 * write's cursor (`state.rows`) speaks for its own rows only: any other row counts as changed,
 * for the client may not have seen what changed it before that write.
 */
export function changedRows(
  at: PlanSnapshot,
  log: ChangeLog | undefined,
  state: CursorState,
  rows: readonly RowKey[],
): RowKey[] {
  const covered = state.rows;
  if (covered === undefined) return changedAfter(at, log, state.since, rows);
  const changed = new Set(
    changedAfter(
      at,
      log,
      state.since,
      rows.filter((row) => covered.includes(rowId(row))),
    ),
  );
  return rows.filter((row) => changed.has(row) || !covered.includes(rowId(row)));
}

/** Private: the rows of `rows` in a log entry newer than `since` (all, when the log cannot tell). */
function changedAfter(
  at: PlanSnapshot,
  log: ChangeLog | undefined,
  since: number,
  rows: readonly RowKey[],
): RowKey[] {
  // A cursor at or ahead of the replica: nothing the replica holds is newer than it.
  if (since >= at.serverKnowledge) return [];
  const entries = log?.entriesAfter(since);
  if (
    log === undefined ||
    entries === undefined ||
    log.knowledge < at.serverKnowledge ||
    entries.some((entry) => entry.everything)
  ) {
    return [...rows];
  }
  return rows.filter((row) => entries.some(({ keys }) => touched(keys, row)));
}

/** Private: whether a log entry's keys hold the row. */
function touched(keys: ChangeKeys, row: RowKey): boolean {
  if (row.kind === 'monthCategory')
    return keys.monthCategories.get(row.month)?.has(row.id) === true;
  const ids: Record<typeof row.kind, ReadonlySet<string>> = {
    transaction: keys.transactions,
    scheduledTransaction: keys.scheduledTransactions,
    category: keys.categories,
    payee: keys.payees,
    account: keys.accounts,
  };
  return ids[row.kind].has(row.id);
}

/** What the write guard learnt: the plan as read, the current cursor, and the changed rows. */
export interface ConflictCheck {
  readonly at: PlanSnapshot;
  readonly cursor: string;
  readonly changed: readonly RowKey[];
}

/**
 * A write refused because a row it overwrites or deletes changed after the client's cursor
 * (a typed result of the mutation, not a GraphQL error). Nothing was sent upstream.
 */
export class WriteConflictError extends Error {
  override readonly name = 'WriteConflictError';
  readonly code = 'GW_ERR_WRITE_CONFLICT';
  constructor(
    readonly planId: string,
    /** The graph's id of the row (a MonthCategory's is `<category id>:<month>`). */
    readonly id: string,
    /** The row as the plan holds it now, tagged as a graph `Node`; null when it is gone. */
    readonly current: object | null,
    /** What the write asked for, in the graph's input field names. */
    readonly attempted: unknown,
    /** The current cursor: apply `changes(since:)` from the old one, decide, retry with this. */
    readonly cursor: string,
    /** How many rows of the write conflicted (a bulk update may have several). */
    conflicted: number,
  ) {
    super(
      conflicted > 1
        ? `${conflicted} rows this write changes were changed elsewhere after the cursor given in ifUnchangedSince (this is the first): nothing was written. Compare, then send the write again with \`cursor\`.`
        : 'The row this write changes was changed elsewhere after the cursor given in ifUnchangedSince: nothing was written. Compare `current` with `attempted`, then send the write again with `cursor`.',
    );
  }
}
