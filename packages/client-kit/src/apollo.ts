/**
 * Apollo Client's InMemoryCache for the gateway: `new InMemoryCache(cacheConfig())`.
 *
 * - `possibleTypes`: without them Apollo drops `... on Error { message }` on mutation results.
 * - Every connection field pages with `relayStylePagination`, one list per combination of its
 *   other arguments (filters, order).
 * - Objects with an `id` are entities keyed by `__typename:id` (Apollo's default, and the REST id
 *   or the composite key the gateway builds); the others stay inside their parent.
 *
 * Offline first (docs/clients.md, "Offline and resume"): `persistCache` keeps the cache in a
 * storage, `resumer` brings it up to date with one `changes` request (`applyChanges` writes a
 * page), `sendWithApollo` sends the write queue's writes (`@plans-gateway/client-kit/offline`).
 */
import type {
  ApolloCache,
  ApolloClient,
  DocumentNode,
  InMemoryCacheConfig,
  Reference,
  TypePolicies,
} from '@apollo/client';
import { gql } from '@apollo/client';
import { CombinedGraphQLErrors } from '@apollo/client/errors';
import { relayStylePagination } from '@apollo/client/utilities';
import { paginatedFields, possibleTypes } from './index.js';
import {
  CHANGED_LISTS,
  CHANGES_QUERY,
  type ChangesPage,
  type ChangesResult,
  type CursorStore,
  deletedEntities,
  type ResumeOutcome,
  resumeFrom,
  transactionMovesOf,
} from './offline.js';
import { oneAtATime } from './one-at-a-time.js';
import type { KeyValueStorage } from './storage.js';
import {
  fixableArguments,
  fixList,
  type TransactionMoves,
  transactionCursor,
} from './transaction-lists.js';
import type { SendWrite } from './write-queue.js';

/** Type policies: the connection fields' pagination. Extend them with your own. */
export function typePolicies(): TypePolicies {
  const policies: TypePolicies = {};
  for (const { type, field, keyArgs } of paginatedFields()) {
    const fields = policies[type]?.fields ?? {};
    policies[type] = { fields: { ...fields, [field]: relayStylePagination([...keyArgs]) } };
  }
  return policies;
}

/** What `new InMemoryCache(...)` takes: possible types and type policies. */
export function cacheConfig(): Pick<InMemoryCacheConfig, 'possibleTypes' | 'typePolicies'> {
  return {
    possibleTypes: Object.fromEntries(
      Object.entries(possibleTypes).map(([name, members]) => [name, [...members]]),
    ),
    typePolicies: typePolicies(),
  };
}

/** Where a new entity of a page appears in lists: the plan's fields that hold its type. */
const PLAN_LISTS: Readonly<Record<string, readonly string[]>> = {
  Account: ['accounts'],
  Payee: ['payees'],
  CategoryGroup: ['categoryGroups'],
  Category: ['categories'],
  Month: ['months'],
  Transaction: ['transactions'],
  ScheduledTransaction: ['scheduledTransactions'],
};

const changesDocuments = new Map<string, DocumentNode>();
/** `CHANGES_QUERY` (or an app's own text) parsed once. */
function changesDocument(query: string | DocumentNode = CHANGES_QUERY): DocumentNode {
  if (typeof query !== 'string') return query;
  const parsed = changesDocuments.get(query) ?? gql(query);
  changesDocuments.set(query, parsed);
  return parsed;
}

/**
 * Applies a page of `changes` to Apollo's normalized cache, in one batch (watchers see it once):
 * the changed objects are written (merged into what the cache holds), the deleted ones evicted
 * (lists and connections skip them at once: Apollo drops dangling references), and the
 * transaction lists are kept right in place when the page says where each transaction was before
 * (`transactionsBefore`): newest-first lists of the plan or of an account, with no other filter
 * (transaction-lists.ts). Any other list that gains an object it did not hold (made elsewhere) is
 * dropped from the cache, so the screens that show it read it again in the gateway's order and
 * filters.
 *
 * `query` is the document the page was selected with (default: the kit's `CHANGES_QUERY`).
 */
export function applyChanges(
  cache: ApolloCache,
  page: ChangesPage,
  options: { query?: string | DocumentNode } = {},
): void {
  const planRef = cache.identify({ __typename: 'Plan', id: page.planId });
  const moves = transactionMovesOf(page);
  const grown = new Set<string>();
  for (const [list, typename] of Object.entries(CHANGED_LISTS)) {
    for (const entity of page.changes[list as keyof typeof CHANGED_LISTS] ?? []) {
      const id = cache.identify({ ...entity, __typename: typename });
      if (id === undefined || isCached(cache, typename, id)) continue;
      for (const field of PLAN_LISTS[typename] ?? []) grown.add(`${planRef}\u0000${field}`);
      const account = (entity as { account?: { id?: unknown } }).account;
      if (typename === 'Transaction' && typeof account?.id === 'string')
        grown.add(`${cache.identify({ __typename: 'Account', id: account.id })}\u0000transactions`);
    }
  }
  cache.batch({
    update(c) {
      // Before the page is written: the lists' rows are placed by the dates they had.
      const fixed = moves ? fixTransactionLists(c, page.planId, moves) : new Set<string>();
      c.writeQuery({
        query: changesDocument(options.query),
        variables: { planId: page.planId },
        data: { changes: page },
      });
      // The page itself is not kept: its objects now live under their own ids.
      c.evict({ id: 'ROOT_QUERY', fieldName: 'changes' });
      for (const entity of deletedEntities(page)) c.evict({ id: c.identify(entity) });
      for (const entry of grown) {
        const [id, fieldName] = entry.split('\u0000') as [string, string];
        if (fieldName === 'transactions') dropUnfixed(c, id, fixed);
        else c.evict({ id, fieldName });
      }
    },
  });
}

/** A stored transactions connection, as relayStylePagination keeps it. */
interface StoredConnection {
  readonly edges?: readonly { readonly cursor?: string; readonly node?: Reference }[];
  readonly pageInfo?: { readonly hasNextPage?: boolean; readonly endCursor?: string | null };
  readonly totalCount?: number;
  readonly [field: string]: unknown;
}

/** The cache key arguments in a stored field's name (`transactions:{"order":"DATE_ASC"}`). */
function keyArguments(storeFieldName: string, fieldName: string): Record<string, unknown> | null {
  const rest = storeFieldName.slice(fieldName.length);
  if (rest === '') return {};
  try {
    const parsed: unknown = JSON.parse(rest.startsWith(':') ? rest.slice(1) : rest.slice(1, -1));
    return typeof parsed === 'object' && parsed !== null
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Private: fixes the plan's and each cached account's newest-first transaction lists in place;
 * answers the store field names (by entity) it fixed, so `dropUnfixed` leaves them.
 */
function fixTransactionLists(
  cache: ApolloCache,
  planId: string,
  moves: TransactionMoves,
): Set<string> {
  const fixed = new Set<string>();
  if (moves.changed.length === 0 && moves.deleted.length === 0) return fixed;
  const owners: { id: string | undefined; accountId: string | undefined }[] = [
    { id: cache.identify({ __typename: 'Plan', id: planId }), accountId: undefined },
  ];
  // Only the accounts a transaction left or entered: the others' lists are as they were.
  const accounts = new Set([
    ...moves.changed.map((row) => row.accountId),
    ...moves.accountBefore.values(),
  ]);
  for (const accountId of accounts)
    owners.push({ id: cache.identify({ __typename: 'Account', id: accountId }), accountId });
  for (const owner of owners) {
    if (owner.id === undefined) continue;
    cache.modify({
      id: owner.id,
      fields: {
        transactions(stored: unknown, { storeFieldName, fieldName, readField, DELETE }) {
          const value = stored as StoredConnection;
          const args = keyArguments(storeFieldName, fieldName);
          if (args === null || !fixableArguments(args) || !Array.isArray(value?.edges))
            return value;
          const edges = value.edges.map((edge) => {
            const id = readField<string>('id', edge.node);
            const date = readField<string>('date', edge.node);
            return {
              edge,
              row: typeof id === 'string' && typeof date === 'string' ? { id, date } : undefined,
            };
          });
          const result = fixList(
            {
              accountId: owner.accountId,
              edges,
              hasNextPage: value.pageInfo?.hasNextPage === true,
              endCursor: value.pageInfo?.endCursor ?? null,
            },
            moves,
          );
          if (result.kind === 'drop') return DELETE;
          fixed.add(`${owner.id}\u0000${storeFieldName}`);
          return {
            ...value,
            edges: result.edges.map((item) =>
              'kept' in item
                ? item.kept
                : {
                    __typename: 'TransactionEdge',
                    cursor: transactionCursor(item.added),
                    node: {
                      __ref: cache.identify({ __typename: 'Transaction', id: item.added.id })!,
                    },
                  },
            ),
            pageInfo: {
              ...value.pageInfo,
              startCursor: result.startCursor,
              endCursor: result.endCursor,
            },
            ...(typeof value.totalCount === 'number'
              ? { totalCount: value.totalCount + result.countChange }
              : {}),
          };
        },
      },
    });
  }
  return fixed;
}

/** Private: drops `id`'s transaction lists that were not fixed in place. */
function dropUnfixed(cache: ApolloCache, id: string, fixed: ReadonlySet<string>): void {
  cache.modify({
    id,
    fields: {
      transactions: (value, { storeFieldName, DELETE }) =>
        fixed.has(`${id}\u0000${storeFieldName}`) ? value : DELETE,
    },
  });
}

function isCached(cache: ApolloCache, typename: string, id: string): boolean {
  const fragment = changesDocument(`fragment KitCached on ${typename} { id }`);
  return cache.readFragment({ id, fragment }) !== null;
}

/**
 * What `resume()` runs: one `changes` request from the stored cursor (more while `hasMore`), each
 * page applied to `client.cache`; on `ReloadRequired`, the active queries are read again. With no
 * stored cursor it only asks for the current one (call it before the screens' first queries, so
 * nothing made between them is missed). Pair it with `resumeOnReconnect`.
 */
export function resumer(
  client: ApolloClient,
  options: { planId: string; cursors: CursorStore; query?: string | DocumentNode },
): () => Promise<ResumeOutcome> {
  const query = changesDocument(options.query);
  return oneAtATime(client, () =>
    resumeFrom({
      planId: options.planId,
      cursors: options.cursors,
      fetch: async (variables) => {
        const { data } = await client.query<{ changes: ChangesResult }>({
          query,
          variables,
          fetchPolicy: 'no-cache',
        });
        if (!data) throw new Error('changes: no data in the answer');
        return data.changes;
      },
      apply: (page) => applyChanges(client.cache, page, { query }),
      reload: () => client.refetchQueries({ include: 'active' }),
    }),
  );
}

/** What `persistCache` answers. */
export interface PersistedCache {
  /** The cursors the saved cache is at, saved with it in one item: never one without the other. */
  readonly cursors: CursorStore;
  /** Saves now (it also saves when the page is hidden or unloaded). */
  save(): Promise<void>;
  /** Forgets what was saved (sign-out). */
  purge(): Promise<void>;
  /** Stops saving. */
  stop(): void;
}

/**
 * Keeps `cache` in `storage`: restores what was saved (before the first query, so screens open
 * from it), then saves after writes, at most every `debounceMs`, and when the page is hidden.
 * Its `cursors` (for `resumer`) are saved in the same item as the cache, so a saved cache is
 * always resumed from the cursor it is at.
 *
 * apollo3-cache-persist, the usual library, supports Apollo Client 3 only (peer
 * `@apollo/client ^3`): this is the same idea (extract, restore, save on write) for Apollo 4.
 */
export async function persistCache(
  cache: ApolloCache,
  options: { storage: KeyValueStorage; key?: string; debounceMs?: number },
): Promise<PersistedCache> {
  const key = options.key ?? 'plans-gateway:apollo-cache';
  let cursors: Record<string, string> = {};
  const saved = await options.storage.getItem(key);
  if (saved) {
    try {
      const parsed = JSON.parse(saved) as { cache?: unknown; cursors?: Record<string, string> };
      cache.restore(parsed.cache as Parameters<ApolloCache['restore']>[0]);
      cursors = { ...parsed.cursors };
    } catch {
      await options.storage.removeItem(key); // A damaged copy: start from the network.
    }
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const save = async () => {
    clearTimeout(timer);
    timer = undefined;
    if (!stopped)
      await options.storage.setItem(key, JSON.stringify({ cache: cache.extract(), cursors }));
  };
  const schedule = () => {
    if (stopped || timer !== undefined) return;
    timer = setTimeout(() => void save(), options.debounceMs ?? 300);
  };
  // Every change to an InMemoryCache goes through one of these.
  const methods = ['write', 'evict', 'modify', 'restore', 'reset'] as const;
  const originals = methods.map((name) => [name, cache[name]] as const);
  for (const [name, original] of originals) {
    Object.assign(cache, {
      [name]: (...args: unknown[]) => {
        const result = (original as (...a: unknown[]) => unknown).apply(cache, args);
        schedule();
        return result;
      },
    });
  }
  // A reload or a closed tab within the debounce: saved then (localStorage writes at once).
  const page = pageEvents();
  const onHide = () => {
    if (timer !== undefined) void save();
  };
  page?.addEventListener('pagehide', onHide);
  return {
    cursors: {
      get: async (planId) => cursors[planId] ?? null,
      set: async (planId, cursor) => {
        cursors = { ...cursors, [planId]: cursor };
        schedule();
      },
    },
    save,
    async purge() {
      clearTimeout(timer);
      timer = undefined;
      cursors = {};
      await options.storage.removeItem(key);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      page?.removeEventListener('pagehide', onHide);
      for (const [name, original] of originals) Object.assign(cache, { [name]: original });
    },
  };
}

interface PageEvents {
  addEventListener(type: 'pagehide', listener: () => void): void;
  removeEventListener(type: 'pagehide', listener: () => void): void;
}

function pageEvents(): PageEvents | undefined {
  const candidate = globalThis as Partial<PageEvents>;
  return typeof candidate.addEventListener === 'function' ? (candidate as PageEvents) : undefined;
}

/**
 * How the write queue sends a write through Apollo Client: `client.mutate` with the
 * `Idempotency-Key` header (HttpLink sends `context.headers`), so its answer updates the cache
 * as any mutation's does.
 */
export function sendWithApollo(client: ApolloClient): SendWrite {
  return async (write) => {
    try {
      const { data, error } = await client.mutate<Record<string, unknown>>({
        mutation: changesDocument(write.query),
        variables: { ...write.variables },
        context: { headers: { 'Idempotency-Key': write.key } },
        errorPolicy: 'all',
      });
      if (error && CombinedGraphQLErrors.is(error) && !data) return { kind: 'failed', error };
      if (error && !data) return { kind: 'unreachable', error };
      return { kind: 'answered', data: data ?? {} };
    } catch (error) {
      return { kind: 'unreachable', error };
    }
  };
}
