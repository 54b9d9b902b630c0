/** createPayee and updatePayee: REST `POST /plans/{plan_id}/payees`, `PATCH .../payees/{payee_id}`. */
import type { Payee as PayeeAnswer } from '@plans-gateway/rest-contract';
import { builder } from '../builder.js';
import { WRITE_ERRORS } from '../errors.js';
import {
  changesField,
  type PayloadBase,
  payloadBase,
  planField,
  planIdArg,
  resultOf,
  scoped,
  serverKnowledgeField,
  writeCursorField,
} from '../payloads.js';
import { conflictGuard, GUARDED_WRITE_ERRORS, ifUnchangedSinceArg } from '../write-conflict.js';
import { Payee } from './payee.js';
import { checkPayee } from './rules.js';

export const CreatePayeeInput = builder.inputType('CreatePayeeInput', {
  description: 'The body of `createPayee`, as the REST body has it.',
  fields: (t) => ({ name: t.string({ required: true, description: 'At most 500 characters.' }) }),
});

export const UpdatePayeeInput = builder.inputType('UpdatePayeeInput', {
  description: 'The body of `updatePayee`, as the REST body has it.',
  fields: (t) => ({ name: t.string({ description: 'The new name; at most 500 characters.' }) }),
});

interface PayeePayloadShape extends PayloadBase {
  readonly saved: PayeeAnswer;
  readonly serverKnowledge: number;
}

/** A payee write's answer is its whole effect (names elsewhere are read from the payee), so it is the row. */
function payeePayload(name: string, description: string) {
  return builder.objectRef<PayeePayloadShape>(name).implement({
    description,
    fields: (t) => ({
      payee: t.field({
        type: Payee,
        description: 'The payee as saved.',
        resolve: (p) => scoped(p.saved, p.planId),
      }),
      serverKnowledge: serverKnowledgeField(t),
      plan: planField(t),
      changes: changesField(t),
      writeCursor: writeCursorField(t),
    }),
  });
}

export const CreatePayeePayload = payeePayload(
  'CreatePayeePayload',
  'What `createPayee` saved, read after the write.',
);
export const UpdatePayeePayload = payeePayload(
  'UpdatePayeePayload',
  'What `updatePayee` saved, read after the write.',
);

builder.mutationField('createPayee', (t) =>
  t.field({
    type: CreatePayeePayload,
    nullable: true,
    description: 'Creates a payee (REST `POST /plans/{plan_id}/payees`).',
    errors: resultOf('CreatePayee', WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      input: t.arg({
        type: CreatePayeeInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, input }, ctx) => {
      checkPayee(input, 'input');
      const outcome = await ctx.writes.run('createPayee', {
        planId,
        body: { payee: { name: input.name } },
      });
      return {
        ...payloadBase(outcome),
        saved: outcome.data.payee,
        serverKnowledge: outcome.data.server_knowledge,
      };
    },
  }),
);

builder.mutationField('updatePayee', (t) =>
  t.field({
    type: UpdatePayeePayload,
    nullable: true,
    description: 'Renames a payee; transactions show the new name.',
    errors: resultOf('UpdatePayee', GUARDED_WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      ifUnchangedSince: ifUnchangedSinceArg(t.arg),
      payeeId: t.arg({ type: 'UUID', required: true, description: 'The REST id of the payee.' }),
      input: t.arg({
        type: UpdatePayeeInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, payeeId, input, ifUnchangedSince }, ctx) => {
      checkPayee(input, 'input');
      const guard = conflictGuard(ctx, planId, ifUnchangedSince, () => [
        { key: { kind: 'payee', id: payeeId }, attempted: input },
      ]);
      const outcome = await ctx.writes.run(
        'updatePayee',
        { planId, payeeId, body: { payee: { name: input.name ?? undefined } } },
        { guard },
      );
      return {
        ...payloadBase(outcome),
        saved: outcome.data.payee,
        serverKnowledge: outcome.data.server_knowledge,
      };
    },
  }),
);
