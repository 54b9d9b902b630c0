/** createCategoryGroup and updateCategoryGroup (rename): REST `.../category_groups`. */

import type { CategoryGroup as CategoryGroupAnswer } from '@plans-gateway/rest-contract';
import type { WriteOutcome } from '../../writes/pipeline.js';
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
import { CategoryGroup } from './category.js';
import { checkCategoryGroup } from './rules.js';

export const CreateCategoryGroupInput = builder.inputType('CreateCategoryGroupInput', {
  description: 'The body of `createCategoryGroup`, as the REST body has it.',
  fields: (t) => ({ name: t.string({ required: true, description: 'At most 50 characters.' }) }),
});

export const UpdateCategoryGroupInput = builder.inputType('UpdateCategoryGroupInput', {
  description: 'The body of `updateCategoryGroup`, as the REST body has it.',
  fields: (t) => ({ name: t.string({ required: true, description: 'At most 50 characters.' }) }),
});

interface CategoryGroupPayloadShape extends PayloadBase {
  readonly saved: CategoryGroupAnswer;
  readonly serverKnowledge: number;
}

/** A group write's answer is its whole effect (categories read their group's name from it). */
function categoryGroupPayload(name: string, description: string) {
  return builder.objectRef<CategoryGroupPayloadShape>(name).implement({
    description,
    fields: (t) => ({
      categoryGroup: t.field({
        type: CategoryGroup,
        description: 'The group as saved.',
        resolve: (p) => scoped(p.saved, p.planId),
      }),
      serverKnowledge: serverKnowledgeField(t),
      plan: planField(t),
      changes: changesField(t),
      writeCursor: writeCursorField(t),
    }),
  });
}

export const CreateCategoryGroupPayload = categoryGroupPayload(
  'CreateCategoryGroupPayload',
  'What `createCategoryGroup` saved, read after the write.',
);
export const UpdateCategoryGroupPayload = categoryGroupPayload(
  'UpdateCategoryGroupPayload',
  'What `updateCategoryGroup` saved, read after the write.',
);

function groupPayloadOf(
  outcome: WriteOutcome<'createCategoryGroup' | 'updateCategoryGroup'>,
): CategoryGroupPayloadShape {
  const { category_group, server_knowledge } = outcome.data;
  return { ...payloadBase(outcome), saved: category_group, serverKnowledge: server_knowledge };
}

builder.mutationField('createCategoryGroup', (t) =>
  t.field({
    type: CreateCategoryGroupPayload,
    nullable: true,
    description: 'Creates a category group (REST `POST /plans/{plan_id}/category_groups`).',
    errors: resultOf('CreateCategoryGroup', WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      input: t.arg({
        type: CreateCategoryGroupInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, input }, ctx) => {
      checkCategoryGroup(input, 'input');
      const body = { category_group: { name: input.name } };
      return groupPayloadOf(await ctx.writes.run('createCategoryGroup', { planId, body }));
    },
  }),
);

builder.mutationField('updateCategoryGroup', (t) =>
  t.field({
    type: UpdateCategoryGroupPayload,
    nullable: true,
    description: 'Renames a category group.',
    errors: resultOf('UpdateCategoryGroup', WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      categoryGroupId: t.arg({
        type: 'UUID',
        required: true,
        description: 'The REST id of the category group.',
      }),
      input: t.arg({
        type: UpdateCategoryGroupInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, categoryGroupId, input }, ctx) => {
      checkCategoryGroup(input, 'input');
      const body = { category_group: { name: input.name } };
      return groupPayloadOf(
        await ctx.writes.run('updateCategoryGroup', { planId, categoryGroupId, body }),
      );
    },
  }),
);
