/**
 * The client kit's transaction lists kept right in place after a page of changes (issue 35):
 * the rule on its own, over every case a page can bring; test/clients/offline.test.ts checks a
 * fixed list against what the gateway answers for the same window.
 */
import {
  fixableArguments,
  fixList,
  type LoadedList,
  type TransactionMoves,
  transactionCursor,
} from '@plans-gateway/client-kit/offline';
import { describe, expect, it } from 'vitest';

const row = (id: string, date: string) => ({ id, date });
/** A loaded list of rows, newest first, its edges the row ids. */
function loaded(
  rows: { id: string; date: string }[],
  options: { accountId?: string; hasNextPage?: boolean } = {},
): LoadedList<string> {
  return {
    accountId: options.accountId,
    edges: rows.map((r) => ({ edge: r.id, row: r })),
    hasNextPage: options.hasNextPage ?? false,
    endCursor: rows.length > 0 ? transactionCursor(rows.at(-1)!) : null,
  };
}
const moves = (partial: Partial<TransactionMoves>): TransactionMoves => ({
  changed: [],
  deleted: [],
  accountBefore: new Map(),
  ...partial,
});
const ids = (result: ReturnType<typeof fixList<string>>) =>
  result.kind === 'fixed'
    ? result.edges.map((item) => ('kept' in item ? item.kept : `+${item.added.id}`))
    : 'drop';

const SHOWN = [row('c', '2026-03-03'), row('b', '2026-03-02'), row('a', '2026-03-01')];

describe('fixList', () => {
  it('places a new row among the loaded ones by date, then id, and counts it', () => {
    const result = fixList(
      loaded(SHOWN),
      moves({ changed: [{ id: 'bb', date: '2026-03-02', accountId: 'x' }] }),
    );
    expect(ids(result)).toEqual(['c', '+bb', 'b', 'a']);
    expect(result).toMatchObject({ countChange: 1 });
  });

  it('does not count again a row the list holds already (read after the cursor, or the page applied twice)', () => {
    const page = moves({ changed: [{ id: 'bb', date: '2026-03-02', accountId: 'x' }] });
    const held = [row('c', '2026-03-03'), row('bb', '2026-03-02'), ...SHOWN.slice(1)];
    const result = fixList(loaded(held), page);
    expect(ids(result)).toEqual(['c', '+bb', 'b', 'a']);
    expect(result).toMatchObject({ countChange: 0 });
  });

  it('only counts a new row older than the loaded window while more pages follow', () => {
    const list = loaded(SHOWN, { hasNextPage: true });
    const result = fixList(
      list,
      moves({ changed: [{ id: 'z', date: '2026-01-01', accountId: 'x' }] }),
    );
    expect(ids(result)).toEqual(['c', 'b', 'a']);
    expect(result).toMatchObject({ countChange: 1, endCursor: list.endCursor });
  });

  it('moves an edited row to its new date, and takes deleted rows out of the count', () => {
    const result = fixList(
      loaded(SHOWN),
      moves({
        changed: [{ id: 'a', date: '2026-03-04', accountId: 'x' }],
        deleted: ['b', 'never-held'],
        accountBefore: new Map([
          ['a', 'x'],
          ['b', 'x'],
        ]),
      }),
    );
    expect(ids(result)).toEqual(['+a', 'c']);
    expect(result).toMatchObject({ countChange: -1 });
  });

  it("keeps an account's list to its account: rows leave and join it as they move", () => {
    const list = loaded(SHOWN, { accountId: 'x' });
    const result = fixList(
      list,
      moves({
        changed: [
          { id: 'b', date: '2026-03-02', accountId: 'y' },
          { id: 'n', date: '2026-03-05', accountId: 'x' },
          { id: 'm', date: '2026-03-05', accountId: 'y' },
        ],
        accountBefore: new Map([['b', 'x']]),
      }),
    );
    expect(ids(result)).toEqual(['+n', 'c', 'a']);
    expect(result).toMatchObject({ countChange: 0 });
  });

  it('gives up on a list whose rows it cannot place', () => {
    const list: LoadedList<string> = { ...loaded(SHOWN), edges: [{ edge: 'c', row: undefined }] };
    expect(fixList(list, moves({ deleted: ['a'] }))).toEqual({ kind: 'drop' });
  });
});

describe('the lists the kit fixes', () => {
  it('are newest first with no filter', () => {
    expect(fixableArguments({})).toBe(true);
    expect(fixableArguments({ order: 'DATE_DESC' })).toBe(true);
    expect(fixableArguments({ order: 'DATE_ASC' })).toBe(false);
    expect(fixableArguments({ categoryId: 'c' })).toBe(false);
    expect(fixableArguments({ search: 'coffee' })).toBe(false);
  });

  it("give new rows the gateway's own cursors (docs/graph.md: base64url of [date, id])", () => {
    const key = { id: '0f3c9b02-5720-4b5a-b02a-b46f6f2b228d', date: '2024-06-01' };
    const cursor = transactionCursor(key);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))).toEqual([
      key.date,
      key.id,
    ]);
    // test/clients/offline.test.ts compares them with the gateway's, edge by edge.
  });
});
