/**
 * Pages of hybrid rows (the REST by-category and by-payee lists): each matching transaction of
 * the replica's category or payee index expands into a row for the whole transaction when it
 * matches itself and a row for each matching line of a split.
 *
 * Cost: a page reads its parents from the index in chunks, from the cursor on, and stops once
 * the page is full, so it costs O(log n + page) whatever the size of the category or payee
 * (with a `type` filter, the rows the filter skips on the way are read too). Nothing is built
 * for rows outside the page: no row object, no cursor. `totalCount` comes from the row counts
 * the index keeps per transaction (`PlanSnapshot.hybridCount`): O(log n), no row visited.
 * With a `type` filter it walks the whole window instead, which is why such a list is priced
 * like a walk (`src/schema/cost.ts`). `hasNextPage` and `hasPreviousPage` walk to the next
 * matching row. All three are computed on first read only.
 *
 * Order: parents in the requested order, and inside a parent its whole row first, then its
 * lines in their order, in either direction (as REST lists them). A row's place is its
 * parent's (date, id) and its index inside the parent: -1 for the whole row, the line's index
 * otherwise. A cursor names a row by (date, row id); a row gone since then still names its
 * place in the parents' order, so paging goes on from there.
 */
import { compareTransactions } from '../../replica/plan-state.js';
import type {
  HybridMatch,
  PlanSnapshot,
  SubTransactionRow,
  TransactionQuery,
  TransactionRow,
  TransactionSeekKey,
} from '../../replica/types.js';
import { DEFAULT_PAGE_SIZE } from '../connections.js';

/**
 * A row of the by-category and by-payee lists: a whole transaction, or one subtransaction of a
 * split shown with its parent's date, account and status (REST `HybridTransaction`).
 */
export interface HybridRow {
  readonly plan_id: string;
  readonly parent: TransactionRow;
  readonly sub: SubTransactionRow | null;
}

interface Position {
  readonly key: TransactionSeekKey;
  /** -1 for the whole transaction, else the line's index; x.5 is the gap after row x. */
  readonly index: number;
}

interface Placed {
  readonly row: HybridRow;
  readonly position: Position;
}

/** Either end of the list, for the page flags of an empty page. */
type End = 'start' | 'end';

export interface HybridPage {
  readonly edges: readonly { readonly cursor: string; readonly node: HybridRow }[];
  readonly totalCount: number;
  readonly pageInfo: {
    readonly hasNextPage: boolean;
    readonly hasPreviousPage: boolean;
    readonly startCursor: string | null;
    readonly endCursor: string | null;
  };
}

const FIRST_CHUNK = 16;
const MAX_CHUNK = 512;

/**
 * One page of `match`'s hybrid rows under `filters` (dates, `type`, `order`) and `window`
 * (`first` / `last` / `after` / `before`, as `pageWindow` checked them).
 */
export function hybridPage(
  plan: PlanSnapshot,
  match: HybridMatch,
  filters: TransactionQuery,
  window: Pick<TransactionQuery, 'first' | 'last' | 'after' | 'before'>,
  encode: (key: TransactionSeekKey) => string,
): HybridPage {
  const list = new HybridList(plan, match, filters);
  const after = window.after ? list.positionOf(window.after) : undefined;
  const before = window.before ? list.positionOf(window.before) : undefined;
  let placed: Placed[] = [];
  let anchor: Position | End;
  if (window.last !== undefined && window.first === undefined) {
    const last = window.last;
    if (last > 0) {
      list.backward(before ?? 'end', (p) => {
        if (after && list.compare(p.position, after) <= 0) return false;
        placed.push(p);
        return placed.length < last;
      });
    }
    placed.reverse();
    anchor = before ? { key: before.key, index: before.index - 0.5 } : 'end';
  } else {
    const first = window.first ?? DEFAULT_PAGE_SIZE;
    if (first > 0) {
      list.forward(after ?? 'start', (p) => {
        if (before && list.compare(p.position, before) >= 0) return false;
        placed.push(p);
        return placed.length < first;
      });
    }
    if (window.last !== undefined && placed.length > window.last)
      placed = placed.slice(placed.length - window.last);
    anchor = after ? { key: after.key, index: after.index + 0.5 } : 'start';
  }

  const edges = placed.map(({ row }) => ({
    cursor: encode({ date: row.parent.date, id: row.sub ? row.sub.id : row.parent.id }),
    node: row,
  }));
  const lastPlace = placed.at(-1)?.position ?? anchor;
  const firstPlace = placed[0]?.position ?? anchor;
  const exists = (walk: (visit: (p: Placed) => boolean) => void): boolean => {
    let found = false;
    walk(() => {
      found = true;
      return false;
    });
    return found;
  };
  return lazy(edges, {
    totalCount: () => list.count(),
    hasNextPage: () => lastPlace !== 'end' && exists((visit) => list.forward(lastPlace, visit)),
    hasPreviousPage: () =>
      firstPlace !== 'start' && exists((visit) => list.backward(firstPlace, visit)),
  });
}

/** Private: the rows of one category or payee under the filters, walked from any place. */
class HybridList {
  /** Category rows without a category: none can exist, so nothing is walked. */
  private readonly _empty: boolean;
  private readonly _parents: TransactionQuery;
  private readonly _descending: boolean;

  constructor(
    private readonly _plan: PlanSnapshot,
    private readonly _match: HybridMatch,
    private readonly _filters: TransactionQuery,
  ) {
    const { type: _type, first: _f, last: _l, after: _a, before: _b, ...parents } = _filters;
    this._parents = { ...parents, ..._match };
    this._descending = (_filters.order ?? 'DATE_DESC') === 'DATE_DESC';
    this._empty = 'categoryId' in _match && _filters.type === 'uncategorized';
  }

  /** Order of two places in the list's order. */
  compare(a: Position, b: Position): number {
    const byParent = compareTransactions(a.key, b.key);
    if (byParent !== 0) return this._descending ? -byParent : byParent;
    return a.index - b.index;
  }

  /** The place a cursor names (see the header comment for rows gone since). */
  positionOf(key: TransactionSeekKey): Position {
    const parent = this._plan.transaction(key.id);
    if (parent && parent.date === key.date) return { key, index: -1 };
    const sub = this._plan.subtransaction(key.id);
    if (sub) {
      const index = this._plan
        .subtransactionsOf(sub.transaction_id)
        .findIndex((s) => s.id === sub.id);
      if (index >= 0) return { key: { date: key.date, id: sub.transaction_id }, index };
    }
    return { key, index: -1 };
  }

  /** Visits the rows after `from` in list order until `visit` returns false. */
  forward(from: Position | End, visit: (placed: Placed) => boolean): void {
    if (this._empty || from === 'end') return;
    let after: TransactionSeekKey | undefined;
    if (from !== 'start') {
      for (const placed of this.rowsAt(from.key))
        if (placed.position.index > from.index && !visit(placed)) return;
      after = from.key;
    }
    for (let chunk = FIRST_CHUNK; ; chunk = Math.min(chunk * 2, MAX_CHUNK)) {
      const { rows } = this._plan.transactions({
        ...this._parents,
        ...(after ? { after } : {}),
        first: chunk,
      });
      for (const parent of rows)
        for (const placed of this.rowsOf(parent)) if (!visit(placed)) return;
      const last = rows.at(-1);
      if (rows.length < chunk || !last) return;
      after = { date: last.date, id: last.id };
    }
  }

  /** Visits the rows before `from`, last first, until `visit` returns false. */
  backward(from: Position | End, visit: (placed: Placed) => boolean): void {
    if (this._empty || from === 'start') return;
    let before: TransactionSeekKey | undefined;
    if (from !== 'end') {
      for (const placed of this.rowsAt(from.key).reverse())
        if (placed.position.index < from.index && !visit(placed)) return;
      before = from.key;
    }
    for (let chunk = FIRST_CHUNK; ; chunk = Math.min(chunk * 2, MAX_CHUNK)) {
      const { rows } = this._plan.transactions({
        ...this._parents,
        ...(before ? { before } : {}),
        last: chunk,
      });
      for (let i = rows.length - 1; i >= 0; i--) {
        const placed = this.rowsOf(rows[i]!);
        for (let j = placed.length - 1; j >= 0; j--) if (!visit(placed[j]!)) return;
      }
      const first = rows[0];
      if (rows.length < chunk || !first) return;
      before = { date: first.date, id: first.id };
    }
  }

  /** Private: the rows of the parent at `key`, when it is still there and inside the dates. */
  private rowsAt(key: TransactionSeekKey): Placed[] {
    const parent = this._plan.transaction(key.id);
    if (!parent || parent.date !== key.date) return [];
    const { sinceDate, untilDate } = this._filters;
    if ((sinceDate && parent.date < sinceDate) || (untilDate && parent.date > untilDate)) return [];
    return this.rowsOf(parent);
  }

  /**
   * Every row under the filters: from the index's row counts, or without them (a `type`
   * filter) by walking the whole window, without building a row.
   */
  count(): number {
    if (this._empty) return 0;
    const { type, sinceDate, untilDate } = this._filters;
    if (!type) {
      return this._plan.hybridCount(this._match, {
        ...(sinceDate ? { sinceDate } : {}),
        ...(untilDate ? { untilDate } : {}),
      });
    }
    let total = 0;
    let after: TransactionSeekKey | undefined;
    for (;;) {
      const { rows } = this._plan.transactions({
        ...this._parents,
        ...(after ? { after } : {}),
        first: MAX_CHUNK,
      });
      for (const parent of rows) this.eachRow(parent, () => (total += 1));
      const last = rows.at(-1);
      if (rows.length < MAX_CHUNK || !last) return total;
      after = { date: last.date, id: last.id };
    }
  }

  /** Private: a transaction's rows, whole row first (see the header comment). */
  private rowsOf(parent: TransactionRow): Placed[] {
    const key = { date: parent.date, id: parent.id };
    const rows: Placed[] = [];
    this.eachRow(parent, (sub, index) =>
      rows.push({ row: { plan_id: parent.plan_id, parent, sub }, position: { key, index } }),
    );
    return rows;
  }

  /** Private: calls `row` for the whole row (null, -1) and each line that match, in order. */
  private eachRow(
    parent: TransactionRow,
    row: (sub: SubTransactionRow | null, index: number) => void,
  ): void {
    const { type } = this._filters;
    const match = this._match;
    const subs = this._plan.subtransactionsOf(parent.id);
    const whole =
      'categoryId' in match
        ? subs.length === 0 && parent.category_id === match.categoryId
        : parent.payee_id === match.payeeId;
    if (whole && (!type || this._plan.hasType(parent, type))) row(null, -1);
    for (let index = 0; index < subs.length; index++) {
      const sub = subs[index]!;
      const lineMatches =
        'categoryId' in match
          ? sub.category_id === match.categoryId
          : sub.payee_id === match.payeeId;
      const typeOk =
        type === 'unapproved'
          ? !parent.approved
          : type === 'uncategorized'
            ? sub.category_id === null
            : true;
      if (lineMatches && typeOk) row(sub, index);
    }
  }
}

/** Private: a page whose counts are computed on first read and remembered. */
function lazy(
  edges: HybridPage['edges'],
  compute: { totalCount: () => number; hasNextPage: () => boolean; hasPreviousPage: () => boolean },
): HybridPage {
  let totalCount: number | undefined;
  let hasNextPage: boolean | undefined;
  let hasPreviousPage: boolean | undefined;
  return {
    edges,
    get totalCount() {
      totalCount ??= compute.totalCount();
      return totalCount;
    },
    pageInfo: {
      get hasNextPage() {
        hasNextPage ??= compute.hasNextPage();
        return hasNextPage;
      },
      get hasPreviousPage() {
        hasPreviousPage ??= compute.hasPreviousPage();
        return hasPreviousPage;
      },
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
