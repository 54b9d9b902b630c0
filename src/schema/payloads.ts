/**
 * What every mutation payload shares: the plan it changed and the result union options. Saved
 * entities are answered as the write's REST answer carried them, at once; their links (an
 * account's balance, a category's activity, a new payee) read the plan, which waits for the
 * write's delta sync. A mutation whose selection reads only the saved entities' own fields thus
 * answers after one upstream round trip (see src/writes/pipeline.ts).
 */
import type { ArgBuilder } from '@pothos/core';
import type { PlanScoped } from '../replica/types.js';
import type { WriteOperationId } from '../writes/effects.js';
import type { WriteOutcome } from '../writes/pipeline.js';
import { changesBetween } from '../writes/write-changes.js';
import type { FieldBuilder } from './amounts.js';
import type { builder } from './builder.js';
import { Plan } from './plan.js';
import { PlanIdScalar } from './scalars.js';
import { WriteChangesType } from './write-changes.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
/** What an input type's `fields` callback receives, for field lists shared by several inputs. */
export type InputFields = PothosSchemaTypes.InputFieldBuilder<Types, 'InputObject'>;

export interface PayloadBase {
  /** The concrete plan id when known, else the id or alias the client sent. */
  readonly planId: string;
  /** The replica before and after the write, what `changes` compares; absent when none was held. */
  readonly replicas?: WriteOutcome<WriteOperationId>['replicas'];
  /** The entities the write's answer carried, what `cursor` covers. */
  readonly written?: WriteOutcome<WriteOperationId>['saved'];
}

export function payloadBase(outcome: WriteOutcome<WriteOperationId>): PayloadBase {
  return {
    planId: outcome.planId,
    ...(outcome.replicas ? { replicas: outcome.replicas } : {}),
    ...(outcome.saved ? { written: outcome.saved } : {}),
  };
}

/** A REST answer entity as a replica row of the plan. */
export function scoped<T extends object>(row: T, planId: string): T & PlanScoped {
  return { ...row, plan_id: planId };
}

/** `plan`: the changed plan, to read anything else back in the same round-trip. */
export function planField<Shape extends PayloadBase>(t: FieldBuilder<Shape>) {
  return t.field({
    type: Plan,
    description: 'The plan the mutation changed, as it is after the write.',
    resolve: (payload) => ({ id: payload.planId, summary: null }),
  });
}

/** `changes`: what the write changed, for normalized caches (write-changes.ts). */
export function changesField<Shape extends PayloadBase>(t: FieldBuilder<Shape>) {
  return t.field({
    type: WriteChangesType,
    nullable: true,
    description:
      'The accounts, categories, month categories and months the write changed, as they are after it. Null when the gateway held no replica of the plan before the write (nothing to compare with: query what you show).',
    // The delta brings the derived figures: this field waits for it.
    resolve: async ({ replicas }) => {
      const after = await replicas?.after;
      return replicas && after && after.planId === replicas.before.planId
        ? changesBetween(replicas.before, after)
        : null;
    },
  });
}

/** `writeCursor`: the write's own cursor, for the next guarded write of the same rows (hub.ts). */
export function writeCursorField<Shape extends PayloadBase>(t: FieldBuilder<Shape>) {
  return t.string({
    nullable: true,
    description:
      'A cursor for `ifUnchangedSince` that covers this write, for the rows it changed: a later write of them guarded by it conflicts only when they changed elsewhere after this write (a write of other rows, with it, always conflicts). Not a `changes` cursor: your copy of the rest of the plan is where it was. For a write whose REST answer says no `server_knowledge` (accounts, scheduled transactions) it waits for the write\'s delta, and is null unless that delta shows nothing but this write happened; null too for a plan given by alias the gateway had not resolved. See docs/clients.md, "Offline and resume".',
    resolve: async ({ planId, written, replicas }, _args, ctx) => {
      if (written === undefined) return null;
      if (written.serverKnowledge !== undefined) return ctx.live.writeCursor(planId, written);
      const knowledge = await oneStepKnowledge(replicas);
      return knowledge === undefined
        ? null
        : ctx.live.writeCursor(planId, { ...written, serverKnowledge: knowledge });
    },
  });
}

/**
 * Private: where a write whose answer gave no knowledge landed, when its delta tells: the replica
 * after it exactly one step past the one before it (nothing but this write happened upstream,
 * the rule of the one-trip writes in src/writes/pipeline.ts); undefined otherwise.
 */
async function oneStepKnowledge(replicas: PayloadBase['replicas']): Promise<number | undefined> {
  if (replicas === undefined) return undefined;
  const after = await replicas.after;
  const { before } = replicas;
  return after?.planId === before.planId && after.serverKnowledge === before.serverKnowledge + 1
    ? after.serverKnowledge
    : undefined;
}

/** `serverKnowledge`, for writes whose REST answer carries it. */
export function serverKnowledgeField<Shape extends PayloadBase & { serverKnowledge: number }>(
  t: FieldBuilder<Shape>,
) {
  return t.field({
    type: 'SafeInt',
    description: "The plan's `server_knowledge` right after the write, as the REST answer gave it.",
    resolve: (payload) => payload.serverKnowledge,
  });
}

/** Errors-plugin options: the payload itself joins the union (no wrapper object). */
export function resultOf(name: string, types: (new (...args: never[]) => Error)[]) {
  const mutation = `${name.charAt(0).toLowerCase()}${name.slice(1)}`;
  return {
    types,
    directResult: true as const,
    union: {
      name: `${name}Result`,
      description: `What \`${mutation}\` answers: its payload, or a typed error.`,
    },
  };
}

/** `planId`: which plan to change. */
export function planIdArg(arg: ArgBuilder<Types>) {
  return arg({
    type: PlanIdScalar,
    required: true,
    description: 'A plan UUID, `last-used` or `default`.',
  });
}
