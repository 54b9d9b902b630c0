import { resolveArrayConnection } from '@pothos/plugin-relay';
import type { TransactionQuery, TransactionSeekKey } from '../replica/types.js';
import { badUserInput } from './input-checks.js';

/** @default page size when neither `first` nor `last` is given. */
export const DEFAULT_PAGE_SIZE = 50;
/** Larger pages are refused rather than silently cut, so a client never mistakes a cut for the end. */
export const MAX_PAGE_SIZE = 500;

export interface PageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

/** Cursors are opaque to clients; inside they hold the row's sort key so paging is stable under inserts. */
export function encodeCursor(key: TransactionSeekKey): string {
  return Buffer.from(JSON.stringify([key.date, key.id])).toString('base64url');
}

export function decodeCursor(field: string, cursor: string): TransactionSeekKey {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === 'string' &&
      /^\d{4}-\d{2}-\d{2}$/.test(parsed[0]) &&
      typeof parsed[1] === 'string'
    ) {
      return { date: parsed[0], id: parsed[1] };
    }
  } catch {
    // fall through to the input error
  }
  throw badUserInput(field, 'is not a cursor issued by this connection');
}

/** Validates Relay paging arguments before any data is read. */
export function pageWindow(
  args: PageArgs,
): Pick<TransactionQuery, 'first' | 'last' | 'after' | 'before'> {
  for (const name of ['first', 'last'] as const) {
    const value = args[name];
    if (value !== null && value !== undefined && (value < 0 || value > MAX_PAGE_SIZE)) {
      throw badUserInput(name, `must be between 0 and ${MAX_PAGE_SIZE}; got ${value}`);
    }
  }
  const window: Pick<TransactionQuery, 'first' | 'last' | 'after' | 'before'> = {};
  if (args.after) window.after = decodeCursor('after', args.after);
  if (args.before) window.before = decodeCursor('before', args.before);
  if (args.first !== null && args.first !== undefined) window.first = args.first;
  if (args.last !== null && args.last !== undefined) window.last = args.last;
  if (window.first === undefined && window.last === undefined) window.first = DEFAULT_PAGE_SIZE;
  return window;
}

/** A connection over a short in-memory list (scheduled transactions, money movements). */
export async function arrayConnection<T>(args: PageArgs, rows: readonly T[]) {
  for (const name of ['first', 'last'] as const) {
    const value = args[name];
    if (value !== null && value !== undefined && (value < 0 || value > MAX_PAGE_SIZE)) {
      throw badUserInput(name, `must be between 0 and ${MAX_PAGE_SIZE}; got ${value}`);
    }
  }
  const connection = resolveArrayConnection(
    { args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE },
    [...rows],
  );
  return { ...connection, totalCount: rows.length };
}
