/**
 * Keeping a cached transactions list right after a page of `changes`, without reading it again
 * (docs/clients.md, "Offline and resume"). Only a list whose answer the kit can know exactly is
 * fixed: newest first (the default order) with no filter but its own account (the plan's list,
 * an account's list). New rows take their place among the loaded ones, moved and deleted rows
 * leave, `totalCount` follows, and the loaded window stays a window: a row older than the last
 * loaded one, while more pages follow, is only counted (the next page brings it).
 *
 * Membership before the page comes from `transactionsBefore` (where each changed or deleted
 * transaction was filed before; none: made since the cursor). Without it (the gateway resent the
 * whole plan) nothing is fixed: the list is dropped and read again.
 */

/** A transaction as a page of changes brings it: enough to place it in a list. */
export interface PlacedTransaction {
  readonly id: string;
  readonly date: string;
  readonly accountId: string;
}

/** What a page says about transactions, for the lists. */
export interface TransactionMoves {
  /** Changed or new, as they are now. */
  readonly changed: readonly PlacedTransaction[];
  readonly deleted: readonly string[];
  /** Account each changed or deleted transaction was in before the page; absent: new. */
  readonly accountBefore: ReadonlyMap<string, string>;
}

/** A list's loaded edges, each with its row's key when the cache can read it. */
export interface LoadedList<Edge> {
  /** The plan's list (undefined) or one account's. */
  readonly accountId: string | undefined;
  readonly edges: readonly { readonly edge: Edge; readonly row: PlacedKey | undefined }[];
  readonly hasNextPage: boolean;
  /** Where the next page starts (the last loaded row's cursor). */
  readonly endCursor: string | null;
}

export type PlacedKey = Pick<PlacedTransaction, 'id' | 'date'>;

export type FixedList<Edge> =
  | { readonly kind: 'drop' }
  | {
      readonly kind: 'fixed';
      /** Kept edges and new rows, newest first. */
      readonly edges: readonly ({ readonly kept: Edge } | { readonly added: PlacedTransaction })[];
      readonly countChange: number;
      readonly startCursor: string | null;
      readonly endCursor: string | null;
    };

/**
 * A transaction edge's cursor, as the gateway issues it: the row's (date, id) seek key, base64url
 * JSON (docs/graph.md, "Transactions"). The kit gives new rows the cursor the gateway would.
 */
export function transactionCursor(row: PlacedKey): string {
  const text = JSON.stringify([row.date, row.id]);
  const base64 = btoa(text);
  return base64.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Newest first: a positive number when `a` comes before `b`. */
function newerFirst(a: PlacedKey, b: PlacedKey): number {
  if (a.date !== b.date) return a.date > b.date ? 1 : -1;
  if (a.id === b.id) return 0;
  return a.id > b.id ? 1 : -1;
}

/** Whether a list of these arguments (cache key arguments, paging ones left out) can be fixed. */
export function fixableArguments(args: Readonly<Record<string, unknown>>): boolean {
  return Object.entries(args).every(
    ([name, value]) => value === undefined || (name === 'order' && value === 'DATE_DESC'),
  );
}

export function fixList<Edge>(list: LoadedList<Edge>, moves: TransactionMoves): FixedList<Edge> {
  const inList = (accountId: string | undefined) =>
    accountId !== undefined && (list.accountId === undefined || accountId === list.accountId);
  const touched = new Set([...moves.changed.map((row) => row.id), ...moves.deleted]);
  if (list.edges.some(({ row }) => row === undefined)) return { kind: 'drop' };
  const loaded = list.edges.map(({ row }) => row!);
  // The loaded window ends at the last loaded row (its key is where the next page starts, even
  // when that row has gone since).
  const boundary = list.hasNextPage ? loaded.at(-1) : undefined;
  if (list.hasNextPage && boundary === undefined) return { kind: 'drop' };

  let countChange = 0;
  // A loaded row is counted in the list's total whatever `transactionsBefore` says: the list
  // may have been read after the page's cursor (a screen read again after a write), or the
  // page applied before (a resume that starts again from a cursor not saved yet).
  const loadedIds = new Set(loaded.map((key) => key.id));
  for (const id of touched) {
    const now = moves.changed.find((row) => row.id === id);
    const was = loadedIds.has(id) || inList(moves.accountBefore.get(id));
    const is = !moves.deleted.includes(id) && inList(now?.accountId);
    countChange += Number(is) - Number(was);
  }
  const kept = list.edges.filter(({ row }) => !touched.has(row!.id));
  const added = moves.changed.filter(
    (row) =>
      !moves.deleted.includes(row.id) &&
      inList(row.accountId) &&
      (boundary === undefined || atOrBefore(row, boundary)),
  );
  const merged = [
    ...kept.map(({ edge, row }) => ({ key: row!, item: { kept: edge } })),
    ...added.map((row) => ({ key: row as PlacedKey, item: { added: row } })),
  ].sort((a, b) => newerFirst(b.key, a.key));
  const first = merged[0]?.key;
  const last = merged.at(-1)?.key;
  return {
    kind: 'fixed',
    edges: merged.map(({ item }) => item),
    countChange,
    startCursor: first ? transactionCursor(first) : null,
    endCursor: list.hasNextPage ? list.endCursor : last ? transactionCursor(last) : null,
  };
}

/** The seek key a transaction edge's cursor holds (`transactionCursor`'s inverse); undefined when it holds none. */
export function transactionKey(cursor: string): PlacedKey | undefined {
  try {
    const base64 = cursor.replaceAll('-', '+').replaceAll('_', '/');
    const parsed: unknown = JSON.parse(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === 'string' &&
      typeof parsed[1] === 'string'
    )
      return { date: parsed[0], id: parsed[1] };
  } catch {
    // Not a transaction cursor: the list is not placed.
  }
  return undefined;
}

/** Whether `row` sits at or before `boundary` in a newest-first list (within that page). */
export function atOrBefore(row: PlacedKey, boundary: PlacedKey): boolean {
  return newerFirst(row, boundary) >= 0;
}
