/**
 * An immutable sorted list stored as a list of chunks, for the transaction indexes.
 *
 * Reads: binary search for a position in O(log n), then walking from it touches only the rows
 * walked. Writes make a new version: the chunks a change lands in are copied and re-merged, the
 * others are shared, and the chunk directory (n / CHUNK entries) is rebuilt. A delta of k rows
 * therefore costs O(k log n + touched chunks * CHUNK + n / CHUNK) instead of copying n rows, and
 * a reader holding the previous version never sees the change. (Measured on a 100,000-row
 * replica: about 0.3 ms for a one-transaction delta, 6-8 ms for 100, against 0.8 s to rebuild.)
 *
 * Weights: a list built or edited with a `Weigh` function keeps, per chunk, the running total of
 * its rows' weights (shared with the chunk), so `weightBetween` sums any range in O(log n)
 * without visiting a row. The hybrid lists count their rows this way (a split weighs as many
 * lines as it has in the category). A row's weight is taken when its chunk is built: a caller
 * whose row weighs differently without being another object (its split lines changed) removes
 * and inserts it again. Without a `Weigh`, every row weighs 1 and nothing is stored.
 */

export type Compare<T> = (a: T, b: T) => number;

/** What a row counts for in `weightBetween`. */
export type Weigh<T> = (row: T) => number;

/** Rows per chunk after a bulk build or a split. */
const CHUNK = 256;
/** A chunk that grows past this is split. */
const MAX_CHUNK = 2 * CHUNK;
/** A touched chunk below this is merged into its left neighbour when they fit together. */
const MIN_CHUNK = CHUNK / 4;
/** Up to this many changes in one chunk are spliced in; more are merged in one pass. */
const SPLICE_LIMIT = 16;
/** Past this share of changed rows a rebuild by merge is cheaper than chunk surgery. */
const REBUILD_RATIO = 1 / 8;

export class SortedRows<T> {
  readonly size: number;
  private readonly _chunks: readonly (readonly T[])[];
  /** `_starts[i]` is the position of the first row of chunk i. */
  private readonly _starts: readonly number[];
  /** With a `Weigh`: per chunk, the weight of its first k rows at index k (length + 1 entries). */
  private readonly _weights: readonly Float64Array[] | undefined;
  /** With a `Weigh`: the weight of every chunk before chunk i. */
  private readonly _weightStarts: readonly number[] | undefined;

  private constructor(chunks: readonly (readonly T[])[], weights?: readonly Float64Array[]) {
    this._chunks = chunks;
    const starts: number[] = [];
    let size = 0;
    for (const chunk of chunks) {
      starts.push(size);
      size += chunk.length;
    }
    this._starts = starts;
    this.size = size;
    this._weights = weights;
    if (weights) {
      const weightStarts: number[] = [];
      let total = 0;
      for (const running of weights) {
        weightStarts.push(total);
        total += running[running.length - 1]!;
      }
      this._weightStarts = weightStarts;
    }
  }

  static empty<T>(): SortedRows<T> {
    return new SortedRows<T>([]);
  }

  /** Builds from rows already sorted by the index's order (not checked). */
  static fromSorted<T>(rows: readonly T[], weigh?: Weigh<T>): SortedRows<T> {
    const chunks: T[][] = [];
    for (let i = 0; i < rows.length; i += CHUNK) chunks.push(rows.slice(i, i + CHUNK));
    return new SortedRows(
      chunks,
      weigh ? chunks.map((chunk) => runningWeights(chunk, weigh)) : undefined,
    );
  }

  /**
   * Builds from rows already sorted by the index's order and their weights (`weights[i]` is
   * what `rows[i]` weighs), for a bulk build that knows them without calling a `Weigh` per row.
   */
  static fromSortedWeights<T>(rows: readonly T[], weights: ArrayLike<number>): SortedRows<T> {
    const chunks: T[][] = [];
    const running: Float64Array[] = [];
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK);
      const sums = new Float64Array(chunk.length + 1);
      for (let k = 0; k < chunk.length; k++) sums[k + 1] = sums[k]! + weights[i + k]!;
      chunks.push(chunk);
      running.push(sums);
    }
    return new SortedRows(chunks, running);
  }

  /**
   * The total weight of the rows at positions [from, to) (their count without a `Weigh`), in
   * O(log n) whatever the range.
   */
  weightBetween(from: number, to: number): number {
    const lo = Math.max(0, from);
    const hi = Math.min(this.size, to);
    if (hi <= lo) return 0;
    if (!this._weights) return hi - lo;
    return this._weightBefore(hi) - this._weightBefore(lo);
  }

  at(position: number): T | undefined {
    if (position < 0 || position >= this.size) return undefined;
    const chunkIndex = this._chunkOf(position);
    return this._chunks[chunkIndex]![position - this._starts[chunkIndex]!];
  }

  /**
   * The first position whose row is not `isBefore`; `isBefore` must be true for a prefix of the
   * list and false after it (the usual lower-bound contract). O(log n) calls of `isBefore`.
   */
  partitionPoint(isBefore: (row: T) => boolean): number {
    const chunks = this._chunks;
    let lo = 0;
    let hi = chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = chunks[mid]!;
      if (isBefore(chunk[chunk.length - 1]!)) lo = mid + 1;
      else hi = mid;
    }
    if (lo === chunks.length) return this.size;
    const chunk = chunks[lo]!;
    let low = 0;
    let high = chunk.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (isBefore(chunk[mid]!)) low = mid + 1;
      else high = mid;
    }
    return this._starts[lo]! + low;
  }

  /**
   * Walks from `from` one step at a time (`step` 1 forward, -1 backward) while positions stay
   * inside the list and `visit` returns true.
   */
  walk(from: number, step: 1 | -1, visit: (row: T, position: number) => boolean): void {
    if (from < 0 || from >= this.size) return;
    let chunkIndex = this._chunkOf(from);
    let offset = from - this._starts[chunkIndex]!;
    let position = from;
    for (;;) {
      const chunk = this._chunks[chunkIndex]!;
      while (offset >= 0 && offset < chunk.length) {
        if (!visit(chunk[offset]!, position)) return;
        offset += step;
        position += step;
      }
      chunkIndex += step;
      if (chunkIndex < 0 || chunkIndex >= this._chunks.length) return;
      offset = step === 1 ? 0 : this._chunks[chunkIndex]!.length - 1;
    }
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (const chunk of this._chunks) yield* chunk;
  }

  /**
   * Starts a new version ordered by `compare` (which must be the order this list is in),
   * weighing its rows with `weigh` when given.
   */
  edit(compare: Compare<T>, weigh?: Weigh<T>): SortedRowsDraft<T> {
    return new SortedRowsDraft(this, compare, weigh);
  }

  /** @internal Used by the draft. */
  _internals(): {
    chunks: readonly (readonly T[])[];
    weights: readonly Float64Array[] | undefined;
  } {
    return { chunks: this._chunks, weights: this._weights };
  }

  /** @internal Used by the draft. */
  static _fromChunks<T>(
    chunks: readonly (readonly T[])[],
    weights?: readonly Float64Array[],
  ): SortedRows<T> {
    return new SortedRows(chunks, weights);
  }

  /** Private: the weight of the rows before `position` (0 < position <= size). */
  private _weightBefore(position: number): number {
    if (position >= this.size) {
      const last = this._chunks.length - 1;
      const running = this._weights![last]!;
      return this._weightStarts![last]! + running[running.length - 1]!;
    }
    const chunkIndex = this._chunkOf(position);
    return (
      this._weightStarts![chunkIndex]! +
      this._weights![chunkIndex]![position - this._starts[chunkIndex]!]!
    );
  }

  /** Private: the chunk holding `position` (which must be in range). */
  private _chunkOf(position: number): number {
    const starts = this._starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= position) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/**
 * Collects removals (by identity: pass the exact row object the list holds) and insertions,
 * then builds the next version in one pass per touched chunk.
 */
export class SortedRowsDraft<T> {
  private readonly _removals: T[] = [];
  private readonly _inserts: T[] = [];

  /** @internal Use `SortedRows.edit()`. */
  constructor(
    private readonly _base: SortedRows<T>,
    private readonly _compare: Compare<T>,
    private readonly _weigh: Weigh<T> | undefined,
  ) {}

  remove(row: T): void {
    this._removals.push(row);
  }

  insert(row: T): void {
    this._inserts.push(row);
  }

  finish(): SortedRows<T> {
    const base = this._base;
    const compare = this._compare;
    if (this._removals.length === 0 && this._inserts.length === 0) return base;
    const inserts = [...this._inserts].sort(compare);
    const removals = new Set(this._removals);
    if (removals.size !== this._removals.length) {
      throw new Error('SortedRowsDraft: the same row was removed twice');
    }
    if (base.size === 0 || removals.size + inserts.length > base.size * REBUILD_RATIO) {
      return this._rebuild(inserts, removals);
    }

    const { chunks, weights } = base._internals();
    // Route every change by the original chunk bounds: chunk i owns the keys in
    // (last of chunk i-1, last of chunk i]; the final chunk also owns everything above.
    const chunkFor = (row: T): number => {
      let lo = 0;
      let hi = chunks.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const chunk = chunks[mid]!;
        if (compare(chunk[chunk.length - 1]!, row) < 0) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const removalsByChunk = new Map<number, Set<T>>();
    for (const row of removals) {
      const index = chunkFor(row);
      let set = removalsByChunk.get(index);
      if (!set) {
        set = new Set();
        removalsByChunk.set(index, set);
      }
      set.add(row);
    }
    const insertsByChunk = new Map<number, T[]>();
    for (const row of inserts) {
      const index = chunkFor(row);
      let list = insertsByChunk.get(index);
      if (!list) {
        list = [];
        insertsByChunk.set(index, list);
      }
      list.push(row);
    }

    const next: BuiltChunk<T>[] = [];
    for (let index = 0; index < chunks.length; index += 1) {
      const chunk = chunks[index]!;
      const removeHere = removalsByChunk.get(index);
      const insertHere = insertsByChunk.get(index);
      if (!removeHere && !insertHere) {
        next.push({ rows: chunk, running: weights?.[index] });
        continue;
      }
      pushNormalised(next, applyToChunk(chunk, removeHere, insertHere, compare));
    }
    const weigh = this._weigh;
    return SortedRows._fromChunks(
      next.map((chunk) => chunk.rows),
      weigh ? next.map((chunk) => chunk.running ?? runningWeights(chunk.rows, weigh)) : undefined,
    );
  }

  /** Private: rebuilds every chunk by one linear merge; for bulk loads and large deltas. */
  private _rebuild(inserts: readonly T[], removals: ReadonlySet<T>): SortedRows<T> {
    const kept: T[] = [];
    for (const row of this._base) if (!removals.has(row)) kept.push(row);
    if (this._base.size - kept.length !== removals.size) {
      throw new Error('SortedRowsDraft: a row to remove is not in the list');
    }
    return SortedRows.fromSorted(mergeSorted(kept, inserts, this._compare), this._weigh);
  }
}

/** Private: a chunk of the next version, with its running weights when they can be kept. */
interface BuiltChunk<T> {
  readonly rows: readonly T[];
  running: Float64Array | undefined;
}

/** Private: the running total of `rows`' weights: entry k is the weight of the first k rows. */
function runningWeights<T>(rows: readonly T[], weigh: Weigh<T>): Float64Array {
  const running = new Float64Array(rows.length + 1);
  for (let i = 0; i < rows.length; i++) running[i + 1] = running[i]! + weigh(rows[i]!);
  return running;
}

/**
 * Private: a chunk with its changes applied. A few changes use binary search and splice on a
 * copy (native copies, O(log CHUNK) comparisons each); many use one filter-and-merge pass.
 */
function applyToChunk<T>(
  chunk: readonly T[],
  removals: ReadonlySet<T> | undefined,
  inserts: readonly T[] | undefined,
  compare: Compare<T>,
): readonly T[] {
  const changes = (removals?.size ?? 0) + (inserts?.length ?? 0);
  if (changes > SPLICE_LIMIT) {
    let kept: readonly T[] = chunk;
    if (removals) {
      kept = chunk.filter((row) => !removals.has(row));
      if (chunk.length - kept.length !== removals.size) {
        throw new Error('SortedRowsDraft: a row to remove is not in the list');
      }
    }
    return inserts ? mergeSorted(kept, inserts, compare) : kept;
  }
  const rows = chunk.slice();
  for (const row of removals ?? []) {
    const at = lowerBound(rows, row, compare);
    if (rows[at] !== row) throw new Error('SortedRowsDraft: a row to remove is not in the list');
    rows.splice(at, 1);
  }
  for (const row of inserts ?? []) rows.splice(lowerBound(rows, row, compare), 0, row);
  return rows;
}

/** Private: the first position in sorted `rows` whose row is not before `target`. */
function lowerBound<T>(rows: readonly T[], target: T, compare: Compare<T>): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(rows[mid]!, target) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Private: appends a rebuilt chunk, splitting it when too big and merging it when too small
 * (weights of the chunks it makes are computed afterwards).
 */
function pushNormalised<T>(target: BuiltChunk<T>[], rows: readonly T[]): void {
  if (rows.length === 0) return;
  if (rows.length > MAX_CHUNK) {
    for (let i = 0; i < rows.length; i += CHUNK) {
      target.push({ rows: rows.slice(i, i + CHUNK), running: undefined });
    }
    return;
  }
  const previous = target[target.length - 1];
  if (rows.length < MIN_CHUNK && previous && previous.rows.length + rows.length <= MAX_CHUNK) {
    target[target.length - 1] = { rows: previous.rows.concat(rows), running: undefined };
    return;
  }
  target.push({ rows, running: undefined });
}

/** Private: merges two sorted arrays into a new sorted array. */
function mergeSorted<T>(left: readonly T[], right: readonly T[], compare: Compare<T>): T[] {
  if (right.length === 0) return [...left];
  if (left.length === 0) return [...right];
  const out = new Array<T>(left.length + right.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < left.length && j < right.length) {
    out[k++] = compare(left[i]!, right[j]!) <= 0 ? left[i++]! : right[j++]!;
  }
  while (i < left.length) out[k++] = left[i++]!;
  while (j < right.length) out[k++] = right[j++]!;
  return out;
}
