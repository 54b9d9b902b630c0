/**
 * `ifUnchangedSince` and `WriteConflict` (issue 35): a mutation that overwrites or deletes rows
 * may carry a `changes` cursor; when the change log shows one of its rows changed after it, the
 * write is refused before anything is sent upstream, with the row as the plan holds it now and
 * what the write asked for (src/live/write-conflicts.ts). Without the argument nothing changes.
 */
import type { ArgBuilder } from '@pothos/core';
import { gatewayError } from '../errors/codes.js';
import { InvalidCursorError } from '../live/sync-cursor.js';
import { type RowKey, WriteConflictError } from '../live/write-conflicts.js';
import type { PlanSnapshot } from '../replica/types.js';
import { builder } from './builder.js';
import type { GatewayContext } from './context.js';
import { ErrorInterface, WRITE_ERRORS } from './errors.js';
import { asNode, Node } from './node.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

builder.objectType(WriteConflictError, {
  name: 'WriteConflict',
  description:
    'The write was refused, and nothing was sent upstream: a row it overwrites or deletes changed elsewhere after the cursor given in `ifUnchangedSince` (or the gateway could no longer tell, and refused rather than overwrite). Show `current` beside `attempted`, then send the write again with `cursor` (or drop it). See docs/clients.md, "Offline and resume".',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    planId: t.exposeID('planId', { description: 'The plan UUID.' }),
    id: t.exposeID('id', {
      description:
        "The graph's id of the row that changed (a MonthCategory's is `<category id>:<month>`); with several, the first.",
    }),
    current: t.field({
      type: Node,
      nullable: true,
      description: 'The row as the plan holds it now; null when it was deleted elsewhere.',
      resolve: (conflict) => conflict.current,
    }),
    attempted: t.field({
      type: 'JSON',
      description:
        "What this write asked for that row, in the graph's input field names: the mutation's `input` as sent (for `updateTransactions`, the listed transaction's entry), `{\"delete\": true}` for a delete.",
      resolve: (conflict) => conflict.attempted,
    }),
    cursor: t.exposeString('cursor', {
      description:
        'The current cursor: ask `changes(since:)` from your old one to bring your copy up to date, then send the write again with this one.',
    }),
  }),
});

/** The typed failures of a mutation that takes `ifUnchangedSince`. */
export const GUARDED_WRITE_ERRORS = [...WRITE_ERRORS, WriteConflictError];

/** `ifUnchangedSince`: the cursor the client's copy of the rows is current at. */
export function ifUnchangedSinceArg(arg: ArgBuilder<Types>) {
  return arg.string({
    required: false,
    description:
      "A cursor from `changes` (or a `WriteConflict`, or the `writeCursor` of this client's last write of the same row): refuse the write with a `WriteConflict`, sending nothing upstream, when a row it changes was changed after it. Omitted: the write overwrites as always.",
  });
}

/** A row the write changes, and what it asked for that row. */
export interface GuardedRow {
  readonly key: RowKey;
  readonly attempted: unknown;
}

/** The write guard for `ifUnchangedSince` (none without it), to pass as `run`'s `guard`. */
export function conflictGuard(
  ctx: GatewayContext,
  planId: string,
  since: string | null | undefined,
  rows: (at: PlanSnapshot) => readonly GuardedRow[],
): (() => Promise<void>) | undefined {
  if (since == null) return undefined;
  return async () => {
    let guarded: readonly GuardedRow[] = [];
    const check = await ctx.live
      .unchangedSince(planId, since, (at) => {
        guarded = rows(at);
        return guarded.map((row) => row.key);
      })
      .catch((error: unknown) => {
        if (error instanceof InvalidCursorError)
          throw gatewayError(
            'ifUnchangedSince: this cursor was not issued by this gateway for this token and plan (or was altered): take one from `changes(planId)` (or a WriteConflict) and send the write with it.',
            'BAD_USER_INPUT',
            { extensions: { argument: 'ifUnchangedSince' } },
          );
        throw error;
      });
    const [first] = check.changed;
    if (first === undefined) return;
    const attempted = guarded.find((row) => row.key === first)?.attempted ?? {};
    throw new WriteConflictError(
      check.at.planId,
      graphIdOf(first),
      currentOf(check.at, first),
      attempted,
      check.cursor,
      check.changed.length,
    );
  };
}

/** Private: the graph's id of a row. */
function graphIdOf(key: RowKey): string {
  return key.kind === 'monthCategory' ? `${key.id}:${key.month}` : key.id;
}

/** Private: the row as the graph object the plan holds now, or null when it is gone. */
function currentOf(at: PlanSnapshot, key: RowKey): object | null {
  switch (key.kind) {
    case 'transaction': {
      const row = at.transaction(key.id);
      return row ? asNode('Transaction', row) : null;
    }
    case 'scheduledTransaction': {
      const row = at.scheduledTransaction(key.id);
      return row ? asNode('ScheduledTransaction', row) : null;
    }
    case 'category': {
      const row = at.category(key.id);
      return row ? asNode('Category', row) : null;
    }
    case 'payee': {
      const row = at.payee(key.id);
      return row ? asNode('Payee', row) : null;
    }
    case 'account': {
      const row = at.account(key.id);
      return row ? asNode('Account', row) : null;
    }
    case 'monthCategory': {
      const row = at.category(key.id, key.month);
      return row && row.month === key.month ? asNode('MonthCategory', row) : null;
    }
  }
}
