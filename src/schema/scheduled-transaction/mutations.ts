/**
 * Scheduled transaction mutations: createScheduledTransaction, updateScheduledTransaction (a
 * REST PUT: `accountId` and `date` are always sent), deleteScheduledTransaction.
 */
import type {
  SaveScheduledTransaction,
  ScheduledTransactionDetail,
} from '@plans-gateway/rest-contract';
import { builder } from '../builder.js';
import { WRITE_ERRORS } from '../errors.js';
import { notNull } from '../input-checks.js';
import {
  changesField,
  type InputFields,
  type PayloadBase,
  payloadBase,
  planField,
  planIdArg,
  resultOf,
  scoped,
  writeCursorField,
} from '../payloads.js';
import { Milliunits } from '../scalars.js';
import { FlagColorEnum } from '../transaction/enums.js';
import { conflictGuard, GUARDED_WRITE_ERRORS, ifUnchangedSinceArg } from '../write-conflict.js';
import { checkScheduled } from './rules.js';
import { FrequencyEnum, ScheduledTransaction } from './scheduled-transaction.js';

/** REST `SaveScheduledTransaction`; creating a split is not supported by the interface. */
function scheduledFields(t: InputFields) {
  return {
    accountId: t.field({
      type: 'UUID',
      required: true,
      description: 'The REST id of the account.',
    }),
    date: t.field({
      type: 'Date',
      required: true,
      description: 'The next occurrence: after today (UTC) and at most 5 years ahead.',
    }),
    amount: t.field({ type: Milliunits, description: 'Negative for outflows.' }),
    payeeId: t.field({
      type: 'UUID',
      description: "An account's `transferPayeeId` makes it a transfer.",
    }),
    payeeName: t.string({ description: 'Used when `payeeId` is null. At most 200 characters.' }),
    categoryId: t.field({ type: 'UUID', description: 'Not a credit card payment category.' }),
    memo: t.string({ description: 'At most 500 characters.' }),
    flagColor: t.field({ type: FlagColorEnum, description: 'Null removes the flag.' }),
    frequency: t.field({ type: FrequencyEnum, description: 'How often it repeats.' }),
  };
}

export const CreateScheduledTransactionInput = builder.inputType(
  'CreateScheduledTransactionInput',
  {
    description: 'The body of `createScheduledTransaction`, as the REST body has it.',
    fields: (t) => scheduledFields(t),
  },
);

export const UpdateScheduledTransactionInput = builder.inputType(
  'UpdateScheduledTransactionInput',
  {
    description:
      'The whole scheduled transaction (a REST PUT); optional fields left out keep their value.',
    fields: (t) => scheduledFields(t),
  },
);

interface ScheduledInput {
  accountId: string;
  date: string;
  amount?: number | null;
  payeeId?: string | null;
  payeeName?: string | null;
  categoryId?: string | null;
  memo?: string | null;
  flagColor?: SaveScheduledTransaction['flag_color'];
  frequency?: SaveScheduledTransaction['frequency'] | null;
}

/** Rules for both create and update; `currentDate` is the held `dateNext` on update. */
function check(input: ScheduledInput, today: string, currentDate?: string): void {
  notNull(input.amount, 'input.amount');
  notNull(input.frequency, 'input.frequency');
  checkScheduled(input, 'input', today, currentDate);
}

function toSaveScheduled(input: ScheduledInput): SaveScheduledTransaction {
  return {
    account_id: input.accountId,
    date: input.date,
    amount: input.amount ?? undefined,
    payee_id: input.payeeId,
    payee_name: input.payeeName,
    category_id: input.categoryId,
    memo: input.memo,
    flag_color: input.flagColor,
    frequency: input.frequency ?? undefined,
  };
}

interface ScheduledPayloadShape extends PayloadBase {
  readonly saved: ScheduledTransactionDetail;
}

function scheduledPayload(name: string, description: string, savedDescription: string) {
  return builder.objectRef<ScheduledPayloadShape>(name).implement({
    description,
    fields: (t) => ({
      scheduledTransaction: t.field({
        type: ScheduledTransaction,
        description: savedDescription,
        resolve: (p) => scoped(p.saved, p.planId),
      }),
      plan: planField(t),
      changes: changesField(t),
      writeCursor: writeCursorField(t),
    }),
  });
}

export const CreateScheduledTransactionPayload = scheduledPayload(
  'CreateScheduledTransactionPayload',
  'What `createScheduledTransaction` saved, read after the write.',
  'The new scheduled transaction.',
);
export const UpdateScheduledTransactionPayload = scheduledPayload(
  'UpdateScheduledTransactionPayload',
  'What `updateScheduledTransaction` saved, read after the write.',
  'The scheduled transaction as saved.',
);
export const DeleteScheduledTransactionPayload = scheduledPayload(
  'DeleteScheduledTransactionPayload',
  'What `deleteScheduledTransaction` saved, read after the write.',
  'The deleted scheduled transaction as it was, with `deleted: true`.',
);

builder.mutationField('createScheduledTransaction', (t) =>
  t.field({
    type: CreateScheduledTransactionPayload,
    nullable: true,
    description: 'Schedules a transaction (REST `POST /plans/{plan_id}/scheduled_transactions`).',
    errors: resultOf('CreateScheduledTransaction', WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      input: t.arg({
        type: CreateScheduledTransactionInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, input }, ctx) => {
      check(input, ctx.writes.today());
      const outcome = await ctx.writes.run('createScheduledTransaction', {
        planId,
        body: { scheduled_transaction: toSaveScheduled(input) },
      });
      return { ...payloadBase(outcome), saved: outcome.data.scheduled_transaction };
    },
  }),
);

builder.mutationField('updateScheduledTransaction', (t) =>
  t.field({
    type: UpdateScheduledTransactionPayload,
    nullable: true,
    description: 'Replaces a scheduled transaction (REST `PUT .../scheduled_transactions/{id}`).',
    errors: resultOf('UpdateScheduledTransaction', GUARDED_WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      ifUnchangedSince: ifUnchangedSinceArg(t.arg),
      scheduledTransactionId: t.arg({
        type: 'UUID',
        required: true,
        description: 'The REST id of the scheduled transaction.',
      }),
      input: t.arg({
        type: UpdateScheduledTransactionInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, scheduledTransactionId, input, ifUnchangedSince }, ctx) => {
      // Keeping the date is fine even when it is today: only a new date must lie ahead.
      const held = ctx.writes.peek(planId)?.scheduledTransaction(scheduledTransactionId);
      check(input, ctx.writes.today(), held?.date_next);
      const guard = conflictGuard(ctx, planId, ifUnchangedSince, () => [
        { key: { kind: 'scheduledTransaction', id: scheduledTransactionId }, attempted: input },
      ]);
      const outcome = await ctx.writes.run(
        'updateScheduledTransaction',
        { planId, scheduledTransactionId, body: { scheduled_transaction: toSaveScheduled(input) } },
        { guard },
      );
      return { ...payloadBase(outcome), saved: outcome.data.scheduled_transaction };
    },
  }),
);

builder.mutationField('deleteScheduledTransaction', (t) =>
  t.field({
    type: DeleteScheduledTransactionPayload,
    nullable: true,
    description: 'Deletes a scheduled transaction (REST `DELETE .../scheduled_transactions/{id}`).',
    errors: resultOf('DeleteScheduledTransaction', GUARDED_WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      ifUnchangedSince: ifUnchangedSinceArg(t.arg),
      scheduledTransactionId: t.arg({
        type: 'UUID',
        required: true,
        description: 'The REST id of the scheduled transaction.',
      }),
    },
    resolve: async (_root, { planId, scheduledTransactionId, ifUnchangedSince }, ctx) => {
      const guard = conflictGuard(ctx, planId, ifUnchangedSince, () => [
        {
          key: { kind: 'scheduledTransaction', id: scheduledTransactionId },
          attempted: { delete: true },
        },
      ]);
      const outcome = await ctx.writes.run(
        'deleteScheduledTransaction',
        { planId, scheduledTransactionId },
        { guard },
      );
      return { ...payloadBase(outcome), saved: outcome.data.scheduled_transaction };
    },
  }),
);
