/** Scheduled transactions: list (with deltas), read, create, update (PUT) and delete. */
import { resourceNotFound } from '../core/errors.js';
import { presentScheduledDetail } from '../present/transactions.js';
import type { PlanStore } from '../store/plan-store.js';
import type { ScheduledTransactionRecord } from '../store/records.js';
import {
  createScheduledTransaction,
  deleteScheduledTransaction,
  updateScheduledTransaction,
} from '../store/scheduled.js';
import { readKnowledgeParam } from '../validate/query.js';
import { resolveScheduled } from '../validate/scheduled.js';
import {
  bodyObject,
  created,
  type Handler,
  type HandlerContext,
  idParam,
  inDelta,
  moneyOf,
  ok,
  usePlan,
  write,
} from './context.js';

function liveScheduled(store: PlanStore, ctx: HandlerContext): ScheduledTransactionRecord {
  const id = idParam(ctx, 'scheduled_transaction_id');
  const record = store.scheduledTransactions.get(id);
  if (!record || record.deleted)
    throw resourceNotFound(`Scheduled transaction '${id}' was not found`);
  return record;
}

const getScheduledTransactions: Handler<'getScheduledTransactions'> = (ctx) => {
  const since = readKnowledgeParam(ctx.query);
  const { store } = usePlan(ctx);
  const money = moneyOf(store);
  const list = [...store.scheduledTransactions.values()]
    .filter((record) => inDelta(record, since))
    .map((record) => presentScheduledDetail(store, record, money));
  return ok({ scheduled_transactions: list, server_knowledge: store.knowledge });
};

const getScheduledTransactionById: Handler<'getScheduledTransactionById'> = (ctx) => {
  const { store } = usePlan(ctx);
  return ok({
    scheduled_transaction: presentScheduledDetail(store, liveScheduled(store, ctx), moneyOf(store)),
  });
};

const createScheduled: Handler<'createScheduledTransaction'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store, newId } = entry;
  const state = resolveScheduled(store, ctx.today, bodyObject(ctx, 'scheduled_transaction'), null);
  const record = write(ctx, entry, () => createScheduledTransaction(store, newId, state));
  return created({ scheduled_transaction: presentScheduledDetail(store, record, moneyOf(store)) });
};

const updateScheduled: Handler<'updateScheduledTransaction'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store, newId } = entry;
  const record = liveScheduled(store, ctx);
  const state = resolveScheduled(
    store,
    ctx.today,
    bodyObject(ctx, 'scheduled_transaction'),
    record,
  );
  write(ctx, entry, () => updateScheduledTransaction(store, newId, record, state));
  return ok({ scheduled_transaction: presentScheduledDetail(store, record, moneyOf(store)) });
};

const deleteScheduled: Handler<'deleteScheduledTransaction'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store } = entry;
  const record = liveScheduled(store, ctx);
  write(ctx, entry, () => deleteScheduledTransaction(store, record));
  return ok({ scheduled_transaction: presentScheduledDetail(store, record, moneyOf(store)) });
};

export const scheduledHandlers = {
  getScheduledTransactions,
  getScheduledTransactionById,
  createScheduledTransaction: createScheduled,
  updateScheduledTransaction: updateScheduled,
  deleteScheduledTransaction: deleteScheduled,
};
