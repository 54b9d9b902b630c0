/** createAccount: REST `POST /plans/{plan_id}/accounts`. */
import { type Account as AccountAnswer, SAVE_ACCOUNT_TYPES } from '@plans-gateway/rest-contract';
import { builder } from '../builder.js';
import { describedValues } from '../enum-values.js';
import { WRITE_ERRORS } from '../errors.js';
import {
  changesField,
  type PayloadBase,
  payloadBase,
  planField,
  planIdArg,
  resultOf,
  scoped,
  writeCursorField,
} from '../payloads.js';
import { Milliunits } from '../scalars.js';
import { ACCOUNT_TYPE_DESCRIPTIONS, Account } from './account.js';

export const SaveAccountTypeEnum = builder.enumType('SaveAccountType', {
  description: 'The account types an account can be created with.',
  values: describedValues(SAVE_ACCOUNT_TYPES, ACCOUNT_TYPE_DESCRIPTIONS),
});

export const CreateAccountInput = builder.inputType('CreateAccountInput', {
  description: 'A new account (REST `SaveAccount`).',
  fields: (t) => ({
    name: t.string({ required: true, description: 'The account name; at most 200 characters.' }),
    type: t.field({
      type: SaveAccountTypeEnum,
      required: true,
      description: 'otherAsset and otherLiability make a tracking account.',
    }),
    balance: t.field({ type: Milliunits, required: true, description: 'The starting balance.' }),
  }),
});

interface AccountPayloadShape extends PayloadBase {
  readonly saved: AccountAnswer;
}

export const CreateAccountPayload = builder
  .objectRef<AccountPayloadShape>('CreateAccountPayload')
  .implement({
    description: 'What `createAccount` saved, read after the write.',
    fields: (t) => ({
      account: t.field({
        type: Account,
        description: 'The new account, with its transfer payee and its starting balance.',
        resolve: (p) => scoped(p.saved, p.planId),
      }),
      plan: planField(t),
      changes: changesField(t),
      writeCursor: writeCursorField(t),
    }),
  });

builder.mutationField('createAccount', (t) =>
  t.field({
    type: CreateAccountPayload,
    nullable: true,
    description: 'Creates an account with a starting balance.',
    errors: resultOf('CreateAccount', WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      input: t.arg({
        type: CreateAccountInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, input }, ctx) => {
      const outcome = await ctx.writes.run('createAccount', { planId, body: { account: input } });
      return { ...payloadBase(outcome), saved: outcome.data.account };
    },
  }),
);
