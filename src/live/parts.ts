/**
 * Bounded events. What a subscriber is owed (a replay, or the live changes merged while it was
 * not reading) is a stream of items: rows, deleted ids, and marks saying which knowledge the
 * items so far bring the subscriber to. `ChangeParts` cuts the stream into events of at most
 * `rows` rows and `bytes` bytes of row data each, one event at a time, as the subscriber asks:
 * a large replay becomes several events without ever being built whole, and a subscriber that
 * does not read holds one paused cursor, not the rows.
 *
 * Each event is a `PlanChange`: its `serverKnowledge` is the last mark its items reached (a
 * knowledge the subscriber may resume from: everything changed up to it has been delivered),
 * the last event's is the stream's end (the current knowledge), and every event but the last
 * has `continues: true`. Items come in knowledge order, so events do too.
 */

import { stringifyExactJson } from '@plans-gateway/rest-contract';
import type {
  ChangeOrigin,
  PlanChange,
  PlanDeletions,
  TransactionPlace,
} from '../replica/changes.js';
import { noDeletions } from '../replica/changes.js';
import type {
  AccountRow,
  CategoryGroupRow,
  CategoryRow,
  MonthRow,
  PayeeRow,
  ScheduledTransactionRow,
  SubTransactionRow,
  TransactionRow,
} from '../replica/types.js';

/** The most rows one event may hold: what subscriptions are priced for (`src/schema/cost.ts`). */
export const MAX_EVENT_ROWS = 500;

/** @default 500 rows (the largest page of a connection) and 256 KiB of row data per event */
export const DEFAULT_EVENT_LIMITS: EventLimits = { rows: MAX_EVENT_ROWS, bytes: 256 * 1024 };

/** The bounds of one event. */
export interface EventLimits {
  /** Rows per event: entities, each split line and each deleted id count one. */
  readonly rows: number;
  /** Bytes of row data per event: the rows' JSON, deleted ids included. */
  readonly bytes: number;
}

/** Rows of a change besides transactions, by the `PlanChange` field that holds them. */
interface RowsByField {
  accounts: AccountRow;
  categoryGroups: CategoryGroupRow;
  categories: CategoryRow;
  months: MonthRow;
  monthCategories: CategoryRow;
  payees: PayeeRow;
  scheduledTransactions: ScheduledTransactionRow;
}
type RowField = keyof RowsByField;

/** One thing an event carries, or a mark. */
export type ChangeItem =
  | { readonly [F in RowField]: { kind: 'row'; field: F; row: RowsByField[F] } }[RowField]
  | {
      readonly kind: 'transaction';
      readonly row: TransactionRow;
      readonly lines: readonly SubTransactionRow[];
      /** Where it was filed before (for views filtered by account or category). */
      readonly before?: TransactionPlace | undefined;
    }
  | {
      readonly kind: 'gone';
      readonly field: keyof PlanDeletions;
      readonly id: string;
      readonly before?: TransactionPlace | undefined;
    }
  /** Everything changed up to `knowledge` is in the items before this mark. */
  | { readonly kind: 'reached'; readonly knowledge: number };

/** JSON bytes of rows, each measured once (rows are immutable and shared by every subscriber). */
export class RowSizes {
  private readonly _sizes = new WeakMap<object, number>();

  of(row: object): number {
    let size = this._sizes.get(row);
    if (size === undefined) {
      size = stringifyExactJson(row).length; // a sum past 2^53 is a bigint
      this._sizes.set(row, size);
    }
    return size;
  }

  /** An item's rows and bytes. */
  ofItem(item: ChangeItem): { rows: number; bytes: number } {
    switch (item.kind) {
      case 'row':
        return { rows: 1, bytes: this.of(item.row) };
      case 'transaction': {
        let bytes = this.of(item.row);
        for (const line of item.lines) bytes += this.of(line);
        return { rows: 1 + item.lines.length, bytes };
      }
      case 'gone':
        return { rows: 1, bytes: item.id.length + 3 };
      case 'reached':
        return { rows: 0, bytes: 0 };
    }
  }

  /** The bytes of a whole change (what a subscriber holds while it has not taken it). */
  ofChange(change: PlanChange): number {
    let bytes = 0;
    for (const item of itemsOfChange(change)) bytes += this.ofItem(item).bytes;
    return bytes;
  }
}

/** What the events of one stream say about themselves. */
export interface PartsHeader {
  readonly planId: string;
  readonly origin: ChangeOrigin;
  /** The knowledge the subscriber is at before the first event. */
  readonly from: number;
  /** The knowledge the last event brings it to. */
  readonly to: number;
  /** `previousServerKnowledge` of the first event. */
  readonly previous: number | null;
  /** A WRITE change's own knowledge (`PlanChange.writeServerKnowledge`), on each of its events. */
  readonly write?: number;
  /** A complete WRITE change (`PlanChange.complete`), on each of its events. */
  readonly complete?: true;
  /** The stream resends the whole plan (`PlanChange.wholePlan`). */
  readonly wholePlan?: boolean;
}

/** One event cut from a stream. */
export interface Part {
  readonly change: PlanChange;
  /** The stream's last event. */
  readonly last: boolean;
}

export class ChangeParts {
  private _peeked: ChangeItem | undefined;
  private _reached: number;
  private _previous: number | null;
  private _done = false;

  constructor(
    private readonly _items: Iterator<ChangeItem>,
    readonly header: PartsHeader,
    private readonly _sizes: RowSizes,
  ) {
    this._reached = header.from;
    this._previous = header.previous;
  }

  /** The next event within `limits` (at least one item), or undefined when all were taken. */
  next(limits: EventLimits): Part | undefined {
    if (this._done) return undefined;
    const event = new EventBuilder();
    for (let item = this._take(); item !== undefined; item = this._take()) {
      if (item.kind === 'reached') {
        this._reached = Math.max(this._reached, item.knowledge);
        continue;
      }
      const { rows, bytes } = this._sizes.ofItem(item);
      if (!event.empty && (event.rows + rows > limits.rows || event.bytes + bytes > limits.bytes)) {
        this._peeked = item;
        break;
      }
      event.add(item, rows, bytes);
    }
    const last = this._atEnd();
    if (event.empty && last) {
      this._done = true;
      return undefined;
    }
    if (last) this._done = true;
    const serverKnowledge = last ? this.header.to : this._reached;
    const change = event.build({
      planId: this.header.planId,
      origin: this.header.origin,
      serverKnowledge,
      previousServerKnowledge: this._previous,
      ...(this.header.write === undefined ? {} : { writeServerKnowledge: this.header.write }),
      ...(this.header.complete ? { complete: true } : {}),
      ...(this.header.wholePlan ? { wholePlan: true } : {}),
      ...(last ? {} : { continues: true }),
    });
    this._previous = serverKnowledge;
    return { change, last };
  }

  // Private: the next item, the one put back first.
  private _take(): ChangeItem | undefined {
    const peeked = this._peeked;
    if (peeked !== undefined) {
      this._peeked = undefined;
      return peeked;
    }
    const next = this._items.next();
    return next.done ? undefined : next.value;
  }

  // Private: whether nothing but marks is left (those are taken, so the last event reaches them).
  private _atEnd(): boolean {
    for (let item = this._take(); item !== undefined; item = this._take()) {
      if (item.kind !== 'reached') {
        this._peeked = item;
        return false;
      }
      this._reached = Math.max(this._reached, item.knowledge);
    }
    return true;
  }
}

/** The items of a change already built (live changes): its rows, then its deletions. */
export function* itemsOfChange(change: PlanChange): Generator<ChangeItem> {
  for (const row of change.accounts) yield { kind: 'row', field: 'accounts', row };
  for (const row of change.categoryGroups) yield { kind: 'row', field: 'categoryGroups', row };
  for (const row of change.categories) yield { kind: 'row', field: 'categories', row };
  for (const row of change.months) yield { kind: 'row', field: 'months', row };
  for (const row of change.monthCategories) yield { kind: 'row', field: 'monthCategories', row };
  for (const row of change.payees) yield { kind: 'row', field: 'payees', row };
  for (const row of change.scheduledTransactions) {
    yield { kind: 'row', field: 'scheduledTransactions', row };
  }
  const before = new Map(change.transactionsBefore.map((place) => [place.id, place] as const));
  const lines = new Map<string, SubTransactionRow[]>();
  for (const line of change.subtransactions) {
    const list = lines.get(line.transaction_id);
    if (list) list.push(line);
    else lines.set(line.transaction_id, [line]);
  }
  for (const row of change.transactions) {
    yield { kind: 'transaction', row, lines: lines.get(row.id) ?? [], before: before.get(row.id) };
  }
  for (const [field, ids] of Object.entries(change.deleted) as [
    keyof PlanDeletions,
    readonly string[],
  ][]) {
    for (const id of ids) yield { kind: 'gone', field, id, before: before.get(id) };
  }
}

/** Private: the rows of one event as they are added. */
class EventBuilder {
  rows = 0;
  bytes = 0;
  private readonly _rows: { [F in RowField]: RowsByField[F][] } = {
    accounts: [],
    categoryGroups: [],
    categories: [],
    months: [],
    monthCategories: [],
    payees: [],
    scheduledTransactions: [],
  };
  private readonly _transactions: TransactionRow[] = [];
  private readonly _lines: SubTransactionRow[] = [];
  private readonly _before: TransactionPlace[] = [];
  private readonly _gone: { [F in keyof PlanDeletions]: string[] } = noDeletions();

  get empty(): boolean {
    return this.rows === 0;
  }

  add(item: Exclude<ChangeItem, { kind: 'reached' }>, rows: number, bytes: number): void {
    this.rows += rows;
    this.bytes += bytes;
    if (item.kind === 'row') {
      (this._rows[item.field] as object[]).push(item.row);
    } else if (item.kind === 'transaction') {
      this._transactions.push(item.row);
      this._lines.push(...item.lines);
      if (item.before) this._before.push(item.before);
    } else {
      this._gone[item.field].push(item.id);
      if (item.before) this._before.push(item.before);
    }
  }

  build(
    meta: Pick<
      PlanChange,
      | 'planId'
      | 'origin'
      | 'serverKnowledge'
      | 'previousServerKnowledge'
      | 'writeServerKnowledge'
      | 'complete'
      | 'wholePlan'
      | 'continues'
    >,
  ): PlanChange {
    return {
      ...meta,
      ...this._rows,
      transactions: this._transactions,
      subtransactions: this._lines,
      transactionsBefore: this._before,
      deleted: this._gone,
    };
  }
}
