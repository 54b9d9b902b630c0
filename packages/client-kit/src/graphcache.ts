/**
 * urql's graphcache for the gateway: `cacheExchange({ ...cacheConfig() })`.
 *
 * - `keys`: a `null` key for each type without an `id` (it is embedded in its parent); without
 *   them graphcache warns about each one (`CurrencyFormat`, `DateFormat`, `PlanSettings`, the
 *   payloads...).
 * - `resolvers`: `relayPagination()` on every connection field, so pages merge into one list.
 * - `updates`: `Query.changes` applies what changed (`changesUpdates`).
 *
 * Offline first (docs/clients.md, "Offline and resume"): `offlineExchange` with the default
 * IndexedDB storage (or `storageAdapter` over AsyncStorage) keeps the cache, `resumer` brings it up
 * to date with one `changes` request, `sendWithUrql` sends the write queue's writes.
 */
import { type Client, type CombinedError, gql, type OperationResult } from '@urql/core';
import type {
  Cache,
  KeyingConfig,
  ResolverConfig,
  SerializedEntries,
  SerializedRequest,
  StorageAdapter,
  UpdatesConfig,
} from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import { embeddedTypes, paginatedFields } from './index.js';
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
  atOrBefore,
  fixableArguments,
  fixList,
  type PlacedKey,
  type TransactionMoves,
  transactionCursor,
  transactionKey,
} from './transaction-lists.js';
import type { SendWrite } from './write-queue.js';

/** A null key for every embedded type: graphcache keeps it inside its parent. */
export function keys(): KeyingConfig {
  return Object.fromEntries(embeddedTypes.map((typename) => [typename, () => null]));
}

/** relayPagination on every connection field. */
export function resolvers(): ResolverConfig {
  const config: ResolverConfig = {};
  for (const { type, field } of paginatedFields()) {
    config[type] = { ...config[type], [field]: relayPagination() };
  }
  return config;
}

/** What `cacheExchange(...)` (or `offlineExchange`) takes: keys, resolvers, `changes` updates. */
export function cacheConfig(): {
  keys: KeyingConfig;
  resolvers: ResolverConfig;
  updates: UpdatesConfig;
} {
  return { keys: keys(), resolvers: resolvers(), updates: changesUpdates() };
}

/** The plan's fields that list each type: where a page's new or deleted objects show. */
const PLAN_LISTS: Readonly<Record<string, readonly string[]>> = {
  Account: ['accounts'],
  Payee: ['payees'],
  CategoryGroup: ['categoryGroups'],
  Category: ['categories'],
  Month: ['months'],
  Transaction: ['transactions'],
  ScheduledTransaction: ['scheduledTransactions'],
};

/**
 * Applies a page of `changes` to graphcache, from the `Query.changes` updater (`changesUpdates`):
 * graphcache has written the changed objects already (they are normalized like any result); here
 * the deleted ones are invalidated and taken out of the plan's plain lists, and the transaction
 * lists are kept right in place when the page says where each transaction was before
 * (`transactionsBefore`): the plan's and each account's newest-first connections with no other
 * filter, every loaded page of them (transaction-lists.ts). Any other plan list or connection
 * that is missing one of the page's objects (made elsewhere), or still holds a deleted one, and
 * any other transactions connection of an account a transaction joined or left, is invalidated:
 * the screens showing it read it again, in the gateway's order and filters.
 */
export function applyChanges(cache: Cache, page: ChangesPage): void {
  const plan = { __typename: 'Plan', id: page.planId };
  const moves = transactionMovesOf(page);
  const fixed = fixTransactionLists(cache, page, moves);
  const fields = cache.inspectFields(plan).filter((field) => !fixed.has(field.fieldKey));
  const touched = new Map<string, { added: Set<string>; removed: Set<string> }>();
  const touch = (typename: string) => {
    const entry = touched.get(typename) ?? { added: new Set<string>(), removed: new Set<string>() };
    touched.set(typename, entry);
    return entry;
  };
  for (const [list, typename] of Object.entries(CHANGED_LISTS)) {
    for (const entity of page.changes[list as keyof typeof CHANGED_LISTS] ?? []) {
      const key = cache.keyOfEntity({ ...entity, __typename: typename });
      if (key) touch(typename).added.add(key);
    }
  }
  for (const entity of deletedEntities(page)) {
    const key = cache.keyOfEntity(entity);
    if (key) touch(entity.__typename).removed.add(key);
  }
  for (const [typename, { added, removed }] of touched) {
    for (const field of fields) {
      if (!(PLAN_LISTS[typename] ?? []).includes(field.fieldName)) continue;
      const value = cache.resolve(plan, field.fieldKey);
      if (Array.isArray(value)) {
        const keys = value.filter((item): item is string => typeof item === 'string');
        if ([...added].some((key) => !keys.includes(key))) cache.invalidate(plan, field.fieldKey);
        else if (keys.some((key) => removed.has(key)))
          cache.link(
            plan,
            field.fieldName,
            field.arguments ?? {},
            keys.filter((key) => !removed.has(key)),
          );
      } else if (typeof value === 'string') {
        const nodes = connectionNodes(cache, value);
        if ([...added].some((key) => !nodes.has(key)) || [...removed].some((key) => nodes.has(key)))
          cache.invalidate(plan, field.fieldKey);
      }
    }
    for (const key of removed) cache.invalidate(key);
  }
}

/** Arguments that choose a page rather than a list (relayPagination merges their pages). */
const PAGING = new Set(['first', 'after', 'last', 'before']);

/** One loaded page of a stored transactions connection. */
interface StoredPage {
  readonly fieldKey: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly connection: string;
  readonly edges: { readonly cursor: string; readonly id: string; readonly key: PlacedKey }[];
  readonly hasNextPage: boolean;
  readonly endCursor: string | null;
}

/**
 * Private: fixes the plan's and each concerned account's newest-first transaction connections in
 * place, page by page (relayPagination keeps each `first`/`after` page on its own and chains them
 * by cursor), and invalidates the accounts' other transactions connections; answers the plan's
 * field keys it fixed, which the generic rule then leaves alone.
 */
function fixTransactionLists(
  cache: Cache,
  page: ChangesPage,
  moves: TransactionMoves | undefined,
): Set<string> {
  const fixed = new Set<string>();
  const accounts = new Set<string>();
  for (const row of page.changes.transactions ?? []) {
    const account = (row as { account?: { id?: unknown } }).account;
    if (typeof account?.id === 'string') accounts.add(account.id);
  }
  for (const accountId of moves?.accountBefore.values() ?? []) accounts.add(accountId);
  const owners: { entity: { __typename: string; id: string }; accountId: string | undefined }[] = [
    { entity: { __typename: 'Plan', id: page.planId }, accountId: undefined },
    ...[...accounts].map((id) => ({ entity: { __typename: 'Account', id }, accountId: id })),
  ];
  for (const owner of owners) {
    const isPlan = owner.accountId === undefined;
    const groups = new Map<string, { fieldKey: string; args: Record<string, unknown> }[]>();
    for (const field of cache.inspectFields(owner.entity)) {
      if (field.fieldName !== 'transactions') continue;
      const args = field.arguments ?? {};
      const list = Object.fromEntries(Object.entries(args).filter(([name]) => !PAGING.has(name)));
      const group = JSON.stringify(Object.entries(list).sort(([a], [b]) => (a < b ? -1 : 1)));
      groups.set(group, [...(groups.get(group) ?? []), { fieldKey: field.fieldKey, args }]);
    }
    for (const fields of groups.values()) {
      const done =
        moves !== undefined &&
        (moves.changed.length > 0 || moves.deleted.length > 0) &&
        fixGroup(cache, owner.entity, owner.accountId, fields, moves);
      if (done || (isPlan && moves !== undefined)) {
        // Fixed, or (the plan's, with nothing to fix or unfixable) left to the generic rule.
        if (isPlan && done) for (const field of fields) fixed.add(field.fieldKey);
        continue;
      }
      if (!isPlan) for (const field of fields) cache.invalidate(owner.entity, field.fieldKey);
    }
  }
  return fixed;
}

/** Private: one list's loaded pages, fixed and written back; false when it cannot be. */
function fixGroup(
  cache: Cache,
  owner: { __typename: string; id: string },
  accountId: string | undefined,
  fields: readonly { fieldKey: string; args: Record<string, unknown> }[],
  moves: TransactionMoves,
): boolean {
  const listArgs = Object.fromEntries(
    Object.entries(fields[0]?.args ?? {}).filter(([name]) => !PAGING.has(name)),
  );
  if (!fixableArguments(listArgs)) return false;
  const pages: StoredPage[] = [];
  for (const field of fields) {
    if (field.args.last !== undefined || field.args.before !== undefined) return false;
    const read = storedPage(cache, owner, field.fieldKey, field.args);
    if (read === undefined) return false;
    pages.push(read);
  }
  // The pages in the order relayPagination reads them: the first, then each one `after` the last.
  const chain: StoredPage[] = [];
  let next = pages.find((p) => p.args.after === undefined);
  while (next !== undefined) {
    chain.push(next);
    const end = next.endCursor;
    next = end === null ? undefined : pages.find((p) => p.args.after === end);
  }
  if (chain.length !== pages.length || chain.length === 0) return false;
  const last = chain.at(-1)!;
  const result = fixList(
    {
      accountId,
      edges: chain.flatMap((p) => p.edges.map((edge) => ({ edge, row: edge.key }))),
      hasNextPage: last.hasNextPage,
      endCursor: last.endCursor,
    },
    moves,
  );
  if (result.kind === 'drop') return false;
  const rows = result.edges.map((item) =>
    'kept' in item
      ? { cursor: item.kept.cursor, id: item.kept.id, key: item.kept.key }
      : { cursor: transactionCursor(item.added), id: item.added.id, key: item.added },
  );
  // Each row goes to the page whose range holds it: up to that page's end cursor, which the
  // next page was asked `after` (it stays, even when its row has gone: a cursor is a place).
  const ends = chain.map((p) => (p === last ? undefined : transactionKey(p.endCursor ?? '')));
  if (ends.some((end, index) => end === undefined && chain[index] !== last)) return false;
  let from = 0;
  chain.forEach((p, index) => {
    const end = ends[index];
    let to = from;
    while (to < rows.length && (end === undefined || atOrBefore(rows[to]!.key, end))) to += 1;
    const own = rows.slice(from, to);
    from = to;
    writePage(cache, owner, p, own, {
      endCursor: p === last ? result.endCursor : p.endCursor,
      countChange: result.countChange,
    });
  });
  return true;
}

/** Private: a stored page, with each edge's row read from its cursor; undefined when unreadable. */
function storedPage(
  cache: Cache,
  owner: { __typename: string; id: string },
  fieldKey: string,
  args: Readonly<Record<string, unknown>>,
): StoredPage | undefined {
  const connection = cache.resolve(owner, fieldKey);
  if (typeof connection !== 'string') return undefined;
  const edgeKeys = cache.resolve(connection, 'edges');
  if (!Array.isArray(edgeKeys)) return undefined;
  const edges: StoredPage['edges'][number][] = [];
  for (const edgeKey of edgeKeys) {
    if (typeof edgeKey !== 'string') return undefined;
    const cursor = cache.resolve(edgeKey, 'cursor');
    const node = cache.resolve(edgeKey, 'node');
    const id = typeof node === 'string' ? cache.resolve(node, 'id') : undefined;
    const date = typeof node === 'string' ? cache.resolve(node, 'date') : undefined;
    if (typeof id !== 'string') return undefined;
    // An edge's cursor is where its row was when loaded (docs/graph.md); without one, its date,
    // which graphcache may have changed already (it wrote the page before this updater): only
    // the rows the page touched, which leave their place anyway, and the page's last row, whose
    // old place the end cursor keeps.
    const key =
      typeof cursor === 'string'
        ? transactionKey(cursor)
        : typeof date === 'string'
          ? { id, date }
          : undefined;
    if (key?.id !== id) return undefined;
    edges.push({ cursor: typeof cursor === 'string' ? cursor : transactionCursor(key), id, key });
  }
  const pageInfo = cache.resolve(connection, 'pageInfo');
  if (typeof pageInfo !== 'string') return undefined;
  const hasNextPage = cache.resolve(pageInfo, 'hasNextPage');
  const endCursor = cache.resolve(pageInfo, 'endCursor') ?? edges.at(-1)?.cursor ?? null;
  if (typeof hasNextPage !== 'boolean' || (endCursor !== null && typeof endCursor !== 'string'))
    return undefined;
  const end = endCursor === null ? undefined : transactionKey(endCursor);
  const last = edges.at(-1);
  if (last !== undefined && end?.id === last.id)
    edges[edges.length - 1] = { ...last, cursor: endCursor!, key: end };
  return { fieldKey, args, connection, edges, hasNextPage, endCursor };
}

/** Private: writes a page's rows back under its own arguments, with its count and page info. */
function writePage(
  cache: Cache,
  owner: { __typename: string; id: string },
  page: StoredPage,
  rows: readonly { cursor: string; id: string }[],
  options: { endCursor: string | null; countChange: number },
): void {
  const totalCount = cache.resolve(page.connection, 'totalCount');
  const hasNodes = Array.isArray(cache.resolve(page.connection, 'nodes'));
  const pageInfo = cache.resolve(page.connection, 'pageInfo') as string;
  const names = Object.keys(page.args);
  const call = names.length > 0 ? `(${names.map((name) => `${name}: $${name}`).join(', ')})` : '';
  const fragment = `fragment KitTransactionsPage on ${owner.__typename} { id transactions${call} {
    __typename ${typeof totalCount === 'number' ? 'totalCount' : ''}
    edges { __typename cursor node { __typename id } }
    ${hasNodes ? 'nodes { __typename id }' : ''}
    pageInfo { __typename hasNextPage hasPreviousPage startCursor endCursor }
  } }`;
  const node = (id: string) => ({ __typename: 'Transaction', id });
  cache.writeFragment(
    gql(fragment),
    {
      ...owner,
      transactions: {
        __typename: 'TransactionConnection',
        ...(typeof totalCount === 'number' ? { totalCount: totalCount + options.countChange } : {}),
        edges: rows.map((row) => ({
          __typename: 'TransactionEdge',
          cursor: row.cursor,
          node: node(row.id),
        })),
        ...(hasNodes ? { nodes: rows.map((row) => node(row.id)) } : {}),
        pageInfo: {
          __typename: 'PageInfo',
          hasNextPage: page.hasNextPage,
          hasPreviousPage: cache.resolve(pageInfo, 'hasPreviousPage') === true,
          startCursor: rows[0]?.cursor ?? cache.resolve(pageInfo, 'startCursor') ?? null,
          endCursor: options.endCursor,
        },
      },
    },
    page.args,
  );
}

/** The entity keys a stored connection's edges point at. */
function connectionNodes(cache: Cache, connection: string): Set<string> {
  const edges = cache.resolve(connection, 'edges');
  const nodes = new Set<string>();
  if (Array.isArray(edges))
    for (const edge of edges) {
      const node = typeof edge === 'string' ? cache.resolve(edge, 'node') : null;
      if (typeof node === 'string') nodes.add(node);
    }
  return nodes;
}

/**
 * The updater that applies what `changes` answers as it is written: a page (`applyChanges`), or
 * `ReloadRequired`, which invalidates every root field, so the screens shown read again.
 * `cacheConfig()` includes it; spread it into your own `updates` if you pass those.
 */
export function changesUpdates(
  options: {
    /** Told each answer's cursor as graphcache writes it (`persistedCursors` uses it). */
    written?: (planId: string, cursor: string) => void;
  } = {},
): UpdatesConfig {
  return {
    Query: {
      changes: (parent, args, cache) => {
        const result = (parent as { changes?: ChangesResult | null }).changes;
        if (result && typeof args.planId === 'string')
          options.written?.(args.planId, result.cursor);
        if (result?.__typename === 'ChangesPage') applyChanges(cache, result);
        else if (result?.__typename === 'ReloadRequired')
          for (const field of cache.inspectFields('Query'))
            if (field.fieldName !== 'changes') cache.invalidate('Query', field.fieldKey);
      },
    },
  };
}

/**
 * What `resume()` runs over urql: one `changes` request from the stored cursor (more while
 * `hasMore`), through graphcache, whose `changesUpdates` apply each page. Pair it with
 * `resumeOnReconnect`.
 */
export function resumer(
  client: Client,
  options: { planId: string; cursors: CursorStore; query?: string },
): () => Promise<ResumeOutcome> {
  const query = options.query ?? CHANGES_QUERY;
  return oneAtATime(client, () =>
    resumeFrom({
      planId: options.planId,
      cursors: options.cursors,
      fetch: async (variables) => {
        const { data, error } = await client
          .query<{ changes: ChangesResult }>(query, variables, { requestPolicy: 'network-only' })
          .toPromise();
        if (error || !data) throw error ?? new Error('changes: no data in the answer');
        return data.changes;
      },
      apply: () => {}, // changesUpdates applied it as graphcache wrote it.
      reload: async () => {},
    }),
  );
}

/** Marks the write queue's mutations, so `offlineExchange` lets their network errors through. */
const QUEUED_WRITE = 'plansGatewayQueuedWrite';

/**
 * What `offlineExchange` takes as `isOfflineError`: its own rule, except for the write queue's
 * writes, which the queue keeps and replays itself (with their idempotency keys) instead of
 * graphcache's queue (which would replay them without).
 */
export function isOfflineError(error: CombinedError | undefined, result: OperationResult): boolean {
  if (result.operation.context[QUEUED_WRITE]) return false;
  const network = error?.networkError;
  if (!network || error.response) return false;
  const { navigator } = globalThis as { navigator?: { onLine?: boolean } };
  const offline = navigator?.onLine === false;
  return offline || /request failed|failed to fetch|network\s?error/i.test(network.message);
}

/**
 * How the write queue sends a write through urql: `client.mutation` with the `Idempotency-Key`
 * header, so graphcache applies its answer. `fetchOptions`: those of the client (an operation's
 * replace the client's), e.g. `{ credentials: 'include' }`.
 */
export function sendWithUrql(
  client: Client,
  options: { fetchOptions?: RequestInit } = {},
): SendWrite {
  return async (write) => {
    const result = await client
      .mutation<Record<string, unknown>>(
        write.query,
        { ...write.variables },
        {
          fetchOptions: {
            ...options.fetchOptions,
            headers: { ...headersOf(options.fetchOptions), 'Idempotency-Key': write.key },
          },
          [QUEUED_WRITE]: true,
        },
      )
      .toPromise();
    if (result.data) return { kind: 'answered', data: result.data };
    if (result.error?.networkError || !result.error)
      return { kind: 'unreachable', error: result.error };
    return { kind: 'failed', error: result.error };
  };
}

function headersOf(init: RequestInit | undefined): Record<string, string> {
  return Object.fromEntries(new Headers(init?.headers).entries());
}

/**
 * graphcache's storage in a `KeyValueStorage`, for React Native (AsyncStorage) or any place
 * without IndexedDB; in a browser, `makeDefaultStorage` from
 * `@urql/exchange-graphcache/default-storage` (IndexedDB) is the one to use. It has all that
 * `offlineExchange` needs to answer from the cache when offline: the data, graphcache's own
 * queue of mutations sent outside the kit's queue, and `onOnline` (React Native: from NetInfo;
 * default: the `online` event where there is one).
 */
export function storageAdapter(
  storage: KeyValueStorage,
  options: { key?: string; onOnline?: (replay: () => void) => void } = {},
): StorageAdapter {
  const key = options.key ?? 'plans-gateway:graphcache';
  let entries: SerializedEntries | null = null;
  const load = async (): Promise<SerializedEntries> => {
    if (entries) return entries;
    const saved = await storage.getItem(key);
    entries = saved ? (JSON.parse(saved) as SerializedEntries) : {};
    return entries;
  };
  return {
    readData: load,
    async writeData(delta) {
      const all = await load();
      for (const [entry, value] of Object.entries(delta)) {
        if (value === undefined) delete all[entry];
        else all[entry] = value;
      }
      await storage.setItem(key, JSON.stringify(all));
    },
    async readMetadata() {
      const saved = await storage.getItem(`${key}:mutations`);
      return saved ? (JSON.parse(saved) as SerializedRequest[]) : [];
    },
    writeMetadata(requests) {
      void storage.setItem(`${key}:mutations`, JSON.stringify(requests));
    },
    onOnline(replay) {
      if (options.onOnline) options.onOnline(replay);
      else
        (
          globalThis as { addEventListener?: (type: string, listener: () => void) => void }
        ).addEventListener?.('online', replay);
    },
  };
}

/**
 * Cursors that never run ahead of the persisted cache. graphcache saves its data in batches,
 * after a result is written; a cursor saved at once could describe a page the storage does not
 * hold yet (a reload then would skip it for good). Here a cursor is noted as graphcache writes
 * its `changes` answer (`updates`), and saved in `cursors` only once the `writeData` that holds
 * that answer has finished (`storage`). A cursor not saved yet only makes the next resume start
 * earlier, which is harmless (a page applies again the same). Pass all three on:
 * `offlineExchange({ ...cacheConfig(), updates, storage, isOfflineError })` and
 * `resumer(client, { planId, cursors })`.
 */
export function persistedCursors(options: { storage: StorageAdapter; cursors: CursorStore }): {
  storage: StorageAdapter;
  cursors: CursorStore;
  updates: UpdatesConfig;
} {
  const noted = new Map<string, string>();
  return {
    updates: changesUpdates({ written: (planId, cursor) => noted.set(planId, cursor) }),
    storage: {
      ...options.storage,
      async writeData(delta) {
        // What was noted so far was written before this batch was taken: the batch holds it.
        const held = [...noted];
        noted.clear();
        await options.storage.writeData(delta);
        for (const [planId, cursor] of held) await options.cursors.set(planId, cursor);
      },
    },
    cursors: {
      get: (planId) => options.cursors.get(planId),
      // Saved by `storage.writeData`, once the answer it describes is stored.
      set: async () => {},
    },
  };
}
