/**
 * Offline first, whatever the client library (issue 35): where a client keeps what it knows (a
 * `KeyValueStorage`: the browser's localStorage, React Native's AsyncStorage, anything with the
 * same three methods), the shapes of a `changes` answer, and an ordered queue of writes that
 * survives reloads and replays each write exactly once with its own `Idempotency-Key`.
 *
 * The Apollo and graphcache entry points (`@plans-gateway/client-kit/apollo`, `/graphcache`)
 * build on it: they apply `changes` pages to their caches and send the queued writes.
 */

import type { KeyValueStorage } from './storage.js';
import type { PlacedTransaction, TransactionMoves } from './transaction-lists.js';

export { type KeyValueStorage, memoryStorage } from './storage.js';
export {
  fixableArguments,
  fixList,
  type LoadedList,
  type TransactionMoves,
  transactionCursor,
} from './transaction-lists.js';
export {
  openWriteQueue,
  type QueuedWrite,
  type QueueEvent,
  resultOf,
  type SendResult,
  type SendWrite,
  type WriteConflict,
  type WriteQueue,
  type WriteQueueState,
} from './write-queue.js';

/**
 * The `changes` query the kit sends: every entity with the fields screens show, the deleted ids,
 * the next cursor. An app whose screens select other fields passes its own document with the
 * same `... on ChangesPage` / `... on ReloadRequired` shape.
 */
export const CHANGES_QUERY = `query PlanChangesSince($planId: PlanId!, $since: String) {
  changes(planId: $planId, since: $since) {
    __typename
    ... on ChangesPage {
      planId cursor hasMore
      changes {
        planId serverKnowledge
        accounts { id name type onBudget closed note balance balanceFormatted clearedBalance unclearedBalance deleted }
        payees { id name transferAccountId deleted }
        categoryGroups { id name hidden deleted }
        categories { id categoryGroupId categoryGroupName name hidden note budgeted activity balance deleted }
        months { id month note income budgeted activity toBeBudgeted toBeBudgetedFormatted ageOfMoney deleted }
        monthCategories { id categoryId name hidden categoryGroupName budgeted activity balance }
        transactions {
          id date amount amountFormatted memo cleared approved flagColor payeeName categoryName
          accountName transferAccountId deleted account { id name } payee { id name } category { id name }
        }
        scheduledTransactions { id dateFirst dateNext frequency amount memo payeeName categoryName accountName deleted }
        deleted { accountIds categoryGroupIds categoryIds months payeeIds scheduledTransactionIds transactionIds }
        transactionsBefore { id accountId }
      }
    }
    ... on ReloadRequired { message planId cursor }
  }
}`;

/** An entity of a page: its type and id, and whatever else the document selected. */
export interface ChangedEntity {
  readonly __typename?: string;
  readonly id: string;
  readonly [field: string]: unknown;
}

/** The ids a page deletes, per kind (the `PlanDeletions` type). */
export interface PlanDeletions {
  readonly accountIds: readonly string[];
  readonly categoryGroupIds: readonly string[];
  readonly categoryIds: readonly string[];
  readonly months: readonly string[];
  readonly payeeIds: readonly string[];
  readonly scheduledTransactionIds: readonly string[];
  readonly transactionIds: readonly string[];
}

/** `ChangesPage`, as the kit's document (or an app's with the same shape) selects it. */
export interface ChangesPage {
  readonly __typename: 'ChangesPage';
  readonly planId: string;
  readonly cursor: string;
  readonly hasMore: boolean;
  readonly changes: {
    readonly accounts?: readonly ChangedEntity[];
    readonly payees?: readonly ChangedEntity[];
    readonly categoryGroups?: readonly ChangedEntity[];
    readonly categories?: readonly ChangedEntity[];
    readonly months?: readonly ChangedEntity[];
    readonly monthCategories?: readonly ChangedEntity[];
    readonly transactions?: readonly ChangedEntity[];
    readonly scheduledTransactions?: readonly ChangedEntity[];
    readonly deleted: Partial<PlanDeletions>;
    /**
     * Where changed and deleted transactions were before (none: new); null when the gateway
     * cannot tell. Select `transactionsBefore { id accountId }` (and each transaction's `date`
     * and `account { id }`) for the kit to fix transaction lists in place.
     */
    readonly transactionsBefore?:
      | readonly { readonly id: string; readonly accountId: string }[]
      | null;
  };
}

/** `ReloadRequired`: the screens are read again, then the kit goes on from `cursor`. */
export interface ReloadRequired {
  readonly __typename: 'ReloadRequired';
  readonly message: string;
  readonly planId: string;
  readonly cursor: string;
}

export type ChangesResult = ChangesPage | ReloadRequired;

/** The list fields of a page, with the type of the entities each holds. */
export const CHANGED_LISTS = {
  accounts: 'Account',
  payees: 'Payee',
  categoryGroups: 'CategoryGroup',
  categories: 'Category',
  months: 'Month',
  monthCategories: 'MonthCategory',
  transactions: 'Transaction',
  scheduledTransactions: 'ScheduledTransaction',
} as const;

/** Each kind of deleted id, with its type (a month's id is `<plan id>:<first day>`). */
export const DELETED_IDS = {
  accountIds: 'Account',
  categoryGroupIds: 'CategoryGroup',
  categoryIds: 'Category',
  months: 'Month',
  payeeIds: 'Payee',
  scheduledTransactionIds: 'ScheduledTransaction',
  transactionIds: 'Transaction',
} as const;

/**
 * What a page says about transactions, for fixing lists in place; undefined when it cannot be
 * told (no `transactionsBefore`, or a changed transaction without its date or account).
 */
export function transactionMovesOf(page: ChangesPage): TransactionMoves | undefined {
  const before = page.changes.transactionsBefore;
  if (!Array.isArray(before)) return undefined;
  const changed: PlacedTransaction[] = [];
  for (const row of page.changes.transactions ?? []) {
    const account = (row as { account?: { id?: unknown } }).account;
    if (typeof row.date !== 'string' || typeof account?.id !== 'string') return undefined;
    changed.push({ id: row.id, date: row.date, accountId: account.id });
  }
  return {
    changed,
    deleted: page.changes.deleted.transactionIds ?? [],
    accountBefore: new Map(before.map((place) => [place.id, place.accountId])),
  };
}

/** The deleted objects of a page as cache identities. */
export function deletedEntities(page: ChangesPage): { __typename: string; id: string }[] {
  const deleted = page.changes.deleted;
  return Object.entries(DELETED_IDS).flatMap(([kind, typename]) =>
    (deleted[kind as keyof PlanDeletions] ?? []).map((id) => ({
      __typename: typename,
      id: kind === 'months' ? `${page.planId}:${id}` : id,
    })),
  );
}

/** Where a client keeps the cursor its cache is at, per plan. */
export interface CursorStore {
  get(planId: string): Promise<string | null>;
  set(planId: string, cursor: string): Promise<void>;
}

/** Cursors in `storage`, one item per plan under `prefix`. */
export function storedCursors(
  storage: KeyValueStorage,
  prefix = 'plans-gateway:cursor:',
): CursorStore {
  return {
    get: async (planId) => (await storage.getItem(prefix + planId)) ?? null,
    set: async (planId, cursor) => {
      await storage.setItem(prefix + planId, cursor);
    },
  };
}

/**
 * Runs one resume: pages of `changes` from the stored cursor (the current cursor alone when
 * there is none), each applied before the next is asked, the cursor stored after each. `fetch`
 * sends the query; `apply` writes a page into the cache; `reload` reads the screens again.
 */
export async function resumeFrom(options: {
  planId: string;
  cursors: CursorStore;
  fetch: (variables: { planId: string; since?: string }) => Promise<ChangesResult>;
  apply: (page: ChangesPage) => void | Promise<void>;
  reload: () => Promise<unknown>;
}): Promise<ResumeOutcome> {
  const { planId, cursors } = options;
  let since = await cursors.get(planId);
  const started = since === null;
  let pages = 0;
  let applied = 0;
  for (;;) {
    const result = await options.fetch(since === null ? { planId } : { planId, since });
    if (result.__typename === 'ReloadRequired') {
      await options.reload();
      await cursors.set(planId, result.cursor);
      return { kind: 'reloaded', cursor: result.cursor, pages };
    }
    pages += 1;
    if (!started) {
      await options.apply(result);
      applied += pageSize(result);
    }
    await cursors.set(planId, result.cursor);
    since = result.cursor;
    if (!result.hasMore)
      return { kind: started ? 'started' : 'resumed', cursor: result.cursor, pages, applied };
  }
}

export type ResumeOutcome =
  | { kind: 'resumed' | 'started'; cursor: string; pages: number; applied: number }
  | { kind: 'reloaded'; cursor: string; pages: number };

function pageSize(page: ChangesPage): number {
  return (
    Object.keys(CHANGED_LISTS).reduce(
      (sum, list) => sum + (page.changes[list as keyof typeof CHANGED_LISTS]?.length ?? 0),
      0,
    ) + deletedEntities(page).length
  );
}

/**
 * Calls `resume` now and whenever the page comes back online (`online` on `target`, the window
 * in a browser; a React Native app calls it from NetInfo instead). Returns what stops it.
 */
export function resumeOnReconnect(
  resume: () => Promise<unknown>,
  target: OnlineEvents | undefined = browserWindow(),
): () => void {
  const run = () => {
    resume().catch(() => {
      // Offline again, or the gateway unreachable: the next `online` tries again.
    });
  };
  target?.addEventListener('online', run);
  run();
  return () => target?.removeEventListener('online', run);
}

/** What announces `online`: the browser's window. */
export interface OnlineEvents {
  addEventListener(type: 'online', listener: () => void): void;
  removeEventListener(type: 'online', listener: () => void): void;
}

function browserWindow(): OnlineEvents | undefined {
  const candidate = globalThis as Partial<OnlineEvents>;
  return typeof candidate.addEventListener === 'function' ? (candidate as OnlineEvents) : undefined;
}
