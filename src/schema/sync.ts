/**
 * `Query.changes` (issue 35): what changed in a plan since a client's cursor, in the shapes
 * `planChanged` delivers, in bounded pages, from the change log the gateway keeps (src/live/
 * sync.ts). Offline-first clients call it on start and on reconnect instead of reloading their
 * screens.
 */

import { gatewayError } from '../errors/codes.js';
import { MAX_EVENT_ROWS } from '../live/parts.js';
import { ReloadRequiredError } from '../live/sync.js';
import { InvalidCursorError } from '../live/sync-cursor.js';
import type { PlanChange } from '../replica/changes.js';
import { builder } from './builder.js';
import type { FieldPrice } from './cost.js';
import { ErrorInterface } from './errors.js';
import { PlanIdScalar } from './scalars.js';
import { PlanChangeType } from './subscriptions.js';

interface ChangesPageShape {
  readonly planId: string;
  readonly change: PlanChange;
  readonly cursor: string;
  readonly hasMore: boolean;
}

const ChangesPageType = builder.objectRef<ChangesPageShape>('ChangesPage').implement({
  description:
    'What changed after a cursor: the entities as they are now, the ids of those deleted, and the cursor to ask from next.',
  fields: (t) => ({
    planId: t.id({ description: 'The plan UUID.', resolve: (p) => p.planId }),
    changes: t.field({
      type: PlanChangeType,
      description:
        'The changes of this page, as `planChanged` delivers them (origin REPLAY). Apply them as upserts, then remove what `deleted` names.',
      resolve: (p) => p.change,
    }),
    cursor: t.string({
      description:
        'Where this page leaves you: keep it (with the cache it describes) and pass it as `since` next time. Opaque, and valid only for this token and plan.',
      resolve: (p) => p.cursor,
    }),
    hasMore: t.boolean({
      description:
        'The changes did not fit one page (at most 500 rows and 256 KiB of row data): ask again at once with `cursor`.',
      resolve: (p) => p.hasMore,
    }),
  }),
});

builder.objectType(ReloadRequiredError, {
  name: 'ReloadRequired',
  description:
    'The gateway cannot say exactly what changed since the cursor (too old for its change log, issued before a restart or by another instance, or the plan was reloaded): reload the screens you show, then go on from `cursor`. Never a partial delta.',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    planId: t.exposeID('planId', { description: 'The plan UUID.' }),
    cursor: t.exposeString('cursor', {
      description: 'The current cursor: reload, then pass it as `since`.',
    }),
  }),
});

/** Private: priced like the rows a page may hold, as a subscription replay's events are. */
function changesCost(args: { since?: string | null }): FieldPrice {
  return {
    field: 1,
    multiplier: 1,
    page: { fields: ['changes'], size: args.since == null ? 1 : MAX_EVENT_ROWS },
  };
}

builder.queryFields((t) => ({
  changes: t.field({
    type: ChangesPageType,
    description:
      'What changed in the plan since `since`, for offline-first clients: one small request on start and on reconnect instead of reloading every screen. Without `since`: no rows and the current cursor (ask it in the same request as the screens you load, and keep it). Costs no upstream call while the plan\'s copy is fresh, one delta otherwise. See docs/clients.md, "Offline and resume".',
    errors: {
      types: [ReloadRequiredError],
      directResult: true as const,
      union: {
        name: 'ChangesResult',
        description: 'What `changes` answers: a page of changes, or "reload".',
      },
    },
    args: {
      planId: t.arg({
        type: PlanIdScalar,
        required: true,
        description: 'A plan UUID, `last-used` or `default`.',
      }),
      since: t.arg.string({
        required: false,
        description: 'A cursor from an earlier `changes` answer (or `ReloadRequired`).',
      }),
    },
    complexity: changesCost,
    resolve: async (_root, { planId, since }, ctx) => {
      const result = await ctx.live.changes(planId, since ?? undefined).catch((error: unknown) => {
        if (error instanceof InvalidCursorError)
          throw gatewayError(error.message, 'BAD_USER_INPUT', {
            extensions: { argument: 'since' },
          });
        throw error;
      });
      if (result.kind === 'reload') throw new ReloadRequiredError(result.planId, result.cursor);
      return result;
    },
  }),
}));
