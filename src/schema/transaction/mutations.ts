/**
 * Transaction mutations: createTransaction (one), createTransactions (a batch),
 * updateTransactions (bulk, by id or import id), updateTransaction, deleteTransaction and
 * importTransactions; one REST write each.
 */
import type { SaveTransactionsResponseData } from '@plans-gateway/rest-contract';
import { allTransactions } from '../../replica/changes.js';
import type { PlanSnapshot } from '../../replica/types.js';
import type { WriteOutcome } from '../../writes/pipeline.js';
import { builder } from '../builder.js';
import { CREATE_TRANSACTION_ERRORS, WRITE_ERRORS } from '../errors.js';
import { checkId } from '../input-checks.js';
import { payloadBase, planIdArg, resultOf } from '../payloads.js';
import {
  conflictGuard,
  GUARDED_WRITE_ERRORS,
  type GuardedRow,
  ifUnchangedSinceArg,
} from '../write-conflict.js';
import {
  CreateTransactionInput,
  CreateTransactionsInput,
  toNewTransaction,
  toSaveTransaction,
  toTransactionUpdate,
  UpdateTransactionInput,
  UpdateTransactionsInput,
} from './inputs.js';
import {
  CreateTransactionPayload,
  CreateTransactionsPayload,
  DeleteTransactionPayload,
  ImportTransactionsPayload,
  type TransactionsPayloadShape,
  UpdateTransactionPayload,
  UpdateTransactionsPayload,
} from './payloads.js';
import {
  checkNewTransaction,
  checkNewTransactions,
  checkTransactionUpdate,
  checkTransactionUpdates,
} from './rules.js';

type SaveTransactionsOutcome = WriteOutcome<'createTransaction' | 'updateTransactions'>;

function savedTransactionsPayload(outcome: SaveTransactionsOutcome): TransactionsPayloadShape {
  const data: SaveTransactionsResponseData = outcome.data;
  return {
    ...payloadBase(outcome),
    saved: data.transactions ?? (data.transaction ? [data.transaction] : []),
    transactionIds: data.transaction_ids,
    duplicateImportIds: data.duplicate_import_ids ?? [],
    serverKnowledge: data.server_knowledge,
  };
}

/** A write answered with one transaction (update, delete): its payload. */
function oneTransactionPayload(
  outcome: WriteOutcome<'updateTransaction' | 'deleteTransaction'>,
): TransactionsPayloadShape {
  const { transaction, server_knowledge } = outcome.data;
  return {
    ...payloadBase(outcome),
    saved: [transaction],
    transactionIds: [transaction.id],
    duplicateImportIds: [],
    serverKnowledge: server_knowledge,
  };
}

/**
 * Private: the rows a bulk update lists, each with its entry; one listed by `importId` is found
 * in the plan by it (one the plan does not hold is the upstream's to answer).
 */
function listedRows(
  at: PlanSnapshot,
  entries: readonly { id?: string | null; importId?: string | null }[],
): GuardedRow[] {
  const byImportId = new Map<string, string>();
  if (entries.some((entry) => entry.id == null && entry.importId != null)) {
    for (const row of allTransactions(at)) if (row.import_id) byImportId.set(row.import_id, row.id);
  }
  const rows: GuardedRow[] = [];
  for (const entry of entries) {
    const id = entry.id ?? (entry.importId == null ? undefined : byImportId.get(entry.importId));
    if (id !== undefined) rows.push({ key: { kind: 'transaction', id }, attempted: entry });
  }
  return rows;
}

builder.mutationField('createTransaction', (t) =>
  t.field({
    type: CreateTransactionPayload,
    nullable: true,
    description:
      'Creates one transaction (REST `POST /plans/{plan_id}/transactions` with `transaction`). ' +
      'A duplicate import id on the account is a DuplicateImportIdError.',
    errors: resultOf('CreateTransaction', CREATE_TRANSACTION_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      input: t.arg({
        type: CreateTransactionInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, input }, ctx) => {
      checkNewTransaction(input, 'input', ctx.writes.today());
      const importId = input.importId ?? null;
      const outcome = await ctx.writes.run(
        'createTransaction',
        { planId, body: { transaction: toNewTransaction(input) } },
        { importId, safeToRetryWithSameImportId: importId !== null },
      );
      return savedTransactionsPayload(outcome);
    },
  }),
);

builder.mutationField('createTransactions', (t) =>
  t.field({
    type: CreateTransactionsPayload,
    nullable: true,
    description:
      'Creates several transactions in one request (REST `POST /plans/{plan_id}/transactions` ' +
      'with `transactions`). Import ids already on their account are skipped and listed in ' +
      '`duplicateImportIds`.',
    errors: resultOf('CreateTransactions', WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      input: t.arg({
        type: CreateTransactionsInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, input }, ctx) => {
      checkNewTransactions(input.transactions, 'input.transactions', ctx.writes.today());
      // Resending is safe only when every transaction of the batch carries an import id.
      const allImported = input.transactions.every(
        (tx: { importId?: string | null }) => tx.importId != null,
      );
      const outcome = await ctx.writes.run(
        'createTransaction',
        { planId, body: { transactions: input.transactions.map(toNewTransaction) } },
        { safeToRetryWithSameImportId: allImported },
      );
      return savedTransactionsPayload(outcome);
    },
  }),
);

builder.mutationField('updateTransactions', (t) =>
  t.field({
    type: UpdateTransactionsPayload,
    nullable: true,
    description:
      'Changes several transactions in one request, each found by `id` or `importId` ' +
      '(REST `PATCH /plans/{plan_id}/transactions`).',
    errors: resultOf('UpdateTransactions', GUARDED_WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      ifUnchangedSince: ifUnchangedSinceArg(t.arg),
      input: t.arg({
        type: UpdateTransactionsInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, input, ifUnchangedSince }, ctx) => {
      checkTransactionUpdates(input.transactions, 'input.transactions', ctx.writes.today());
      const guard = conflictGuard(ctx, planId, ifUnchangedSince, (at) =>
        listedRows(at, input.transactions),
      );
      const outcome = await ctx.writes.run(
        'updateTransactions',
        { planId, body: { transactions: input.transactions.map(toTransactionUpdate) } },
        { guard },
      );
      return savedTransactionsPayload(outcome);
    },
  }),
);

builder.mutationField('updateTransaction', (t) =>
  t.field({
    type: UpdateTransactionPayload,
    nullable: true,
    description:
      'Changes one transaction (REST `PUT /plans/{plan_id}/transactions/{transaction_id}`).',
    errors: resultOf('UpdateTransaction', GUARDED_WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      ifUnchangedSince: ifUnchangedSinceArg(t.arg),
      transactionId: t.arg.id({ required: true, description: 'The REST id of the transaction.' }),
      input: t.arg({
        type: UpdateTransactionInput,
        required: true,
        description: 'The fields to save, as the REST body has them.',
      }),
    },
    resolve: async (_root, { planId, transactionId, input, ifUnchangedSince }, ctx) => {
      checkTransactionUpdate(input, 'input', ctx.writes.today());
      const id = checkId('transactionId', transactionId);
      const guard = conflictGuard(ctx, planId, ifUnchangedSince, () => [
        { key: { kind: 'transaction', id }, attempted: input },
      ]);
      const outcome = await ctx.writes.run(
        'updateTransaction',
        { planId, transactionId: id, body: { transaction: toSaveTransaction(input) } },
        { guard },
      );
      return oneTransactionPayload(outcome);
    },
  }),
);

builder.mutationField('deleteTransaction', (t) =>
  t.field({
    type: DeleteTransactionPayload,
    nullable: true,
    description:
      'Deletes one transaction (REST `DELETE /plans/{plan_id}/transactions/{transaction_id}`).',
    errors: resultOf('DeleteTransaction', GUARDED_WRITE_ERRORS),
    args: {
      planId: planIdArg(t.arg),
      ifUnchangedSince: ifUnchangedSinceArg(t.arg),
      transactionId: t.arg.id({ required: true, description: 'The REST id of the transaction.' }),
    },
    resolve: async (_root, { planId, transactionId, ifUnchangedSince }, ctx) => {
      const id = checkId('transactionId', transactionId);
      const guard = conflictGuard(ctx, planId, ifUnchangedSince, () => [
        { key: { kind: 'transaction', id }, attempted: { delete: true } },
      ]);
      return oneTransactionPayload(
        await ctx.writes.run('deleteTransaction', { planId, transactionId: id }, { guard }),
      );
    },
  }),
);

builder.mutationField('importTransactions', (t) =>
  t.field({
    type: ImportTransactionsPayload,
    nullable: true,
    description:
      "Imports what the plan's linked accounts have waiting (REST `POST /plans/{plan_id}/transactions/import`).",
    errors: resultOf('ImportTransactions', WRITE_ERRORS),
    args: { planId: planIdArg(t.arg) },
    resolve: async (_root, { planId }, ctx) => {
      const outcome = await ctx.writes.run('importTransactions', { planId });
      return { ...payloadBase(outcome), transactionIds: outcome.data.transaction_ids };
    },
  }),
);
