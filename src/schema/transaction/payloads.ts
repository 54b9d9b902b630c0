/** Transaction payloads: the saved transactions as graph objects, plus what REST answered beside them. */

import type { TransactionDetail } from '@plans-gateway/rest-contract';
import type { TransactionRow } from '../../replica/types.js';
import type { FieldBuilder } from '../amounts.js';
import { builder } from '../builder.js';
import {
  changesField,
  type PayloadBase,
  planField,
  scoped,
  serverKnowledgeField,
  writeCursorField,
} from '../payloads.js';
import { Transaction } from './transaction.js';

export interface TransactionsPayloadShape extends PayloadBase {
  /** The transactions the REST answer carried, in its order. */
  readonly saved: readonly TransactionDetail[];
  readonly transactionIds: readonly string[];
  readonly duplicateImportIds: readonly string[];
  readonly serverKnowledge: number;
}

export interface ImportTransactionsPayloadShape extends PayloadBase {
  readonly transactionIds: readonly string[];
}

/** Each saved transaction as the write's answer carried it. */
function rowsOf(payload: TransactionsPayloadShape): TransactionRow[] {
  return payload.saved.map((answer) => scoped(answer, payload.planId));
}

function firstRow(payload: TransactionsPayloadShape): TransactionRow {
  const [row] = rowsOf(payload);
  if (!row) throw new Error('The upstream answered a transaction write without the transaction');
  return row;
}

/** Private: `transactionIds`, as REST answered them. */
function idsField<Shape extends { transactionIds: readonly string[] }>(
  t: FieldBuilder<Shape>,
  description: string,
) {
  return t.idList({ description, resolve: (p) => [...p.transactionIds] });
}

const payload = (name: string) => builder.objectRef<TransactionsPayloadShape>(name);

export const CreateTransactionPayload = payload('CreateTransactionPayload').implement({
  description: 'What `createTransaction` saved, read after the write.',
  fields: (t) => ({
    transaction: t.field({
      type: Transaction,
      description: 'The transaction as saved, current after the write.',
      resolve: firstRow,
    }),
    transactionIds: idsField(t, 'The id of the created transaction.'),
    serverKnowledge: serverKnowledgeField(t),
    plan: planField(t),
    changes: changesField(t),
    writeCursor: writeCursorField(t),
  }),
});

export const CreateTransactionsPayload = payload('CreateTransactionsPayload').implement({
  description: 'What `createTransactions` saved, read after the write.',
  fields: (t) => ({
    transactions: t.field({
      type: [Transaction],
      description: 'The created transactions.',
      resolve: rowsOf,
    }),
    transactionIds: idsField(t, 'The ids of the created transactions.'),
    duplicateImportIds: t.stringList({
      description:
        'Import ids not created because their account already has a transaction with them.',
      resolve: (p) => [...p.duplicateImportIds],
    }),
    serverKnowledge: serverKnowledgeField(t),
    plan: planField(t),
    changes: changesField(t),
    writeCursor: writeCursorField(t),
  }),
});

export const UpdateTransactionsPayload = payload('UpdateTransactionsPayload').implement({
  description: 'What `updateTransactions` saved, read after the write.',
  fields: (t) => ({
    transactions: t.field({
      type: [Transaction],
      description: 'The updated transactions.',
      resolve: rowsOf,
    }),
    transactionIds: idsField(t, 'The ids of the updated transactions.'),
    serverKnowledge: serverKnowledgeField(t),
    plan: planField(t),
    changes: changesField(t),
    writeCursor: writeCursorField(t),
  }),
});

export const UpdateTransactionPayload = payload('UpdateTransactionPayload').implement({
  description: 'What `updateTransaction` saved, read after the write.',
  fields: (t) => ({
    transaction: t.field({
      type: Transaction,
      description: 'The transaction as saved, current after the write.',
      resolve: firstRow,
    }),
    serverKnowledge: serverKnowledgeField(t),
    plan: planField(t),
    changes: changesField(t),
    writeCursor: writeCursorField(t),
  }),
});

export const DeleteTransactionPayload = payload('DeleteTransactionPayload').implement({
  description: 'What `deleteTransaction` saved, read after the write.',
  fields: (t) => ({
    transaction: t.field({
      type: Transaction,
      description: 'The deleted transaction as it was, with `deleted: true`.',
      resolve: firstRow,
    }),
    serverKnowledge: serverKnowledgeField(t),
    plan: planField(t),
    changes: changesField(t),
    writeCursor: writeCursorField(t),
  }),
});

export const ImportTransactionsPayload = builder
  .objectRef<ImportTransactionsPayloadShape>('ImportTransactionsPayload')
  .implement({
    description: 'What `importTransactions` saved, read after the write.',
    fields: (t) => ({
      transactionIds: idsField(
        t,
        'The ids of the imported transactions; empty when there was nothing to import.',
      ),
      transactions: t.field({
        type: [Transaction],
        description: 'The imported transactions.',
        resolve: async (p, _args, ctx) => {
          const plan = await ctx.loaders.plan(p.planId);
          return p.transactionIds.flatMap((id) => plan.transaction(id) ?? []);
        },
      }),
      plan: planField(t),
      changes: changesField(t),
      writeCursor: writeCursorField(t),
    }),
  });
