/** Payees (list with deltas, read, create, rename) and payee locations. */
import { badRequest, resourceNotFound } from '../core/errors.js';
import { presentPayee, presentPayeeLocation } from '../present/entities.js';
import type { PlanStore } from '../store/plan-store.js';
import type { PayeeRecord } from '../store/records.js';
import { touchRecordsShowing } from '../store/transactions.js';
import { readString, requirePresent } from '../validate/fields.js';
import { readKnowledgeParam } from '../validate/query.js';
import {
  bodyObject,
  created,
  type Handler,
  type HandlerContext,
  idParam,
  inDelta,
  ok,
  usePlan,
  write,
} from './context.js';

export const PAYEE_NAME_MAX = 500;

function livePayee(store: PlanStore, ctx: HandlerContext): PayeeRecord {
  const id = idParam(ctx, 'payee_id');
  const payee = store.livePayee(id);
  if (!payee) throw resourceNotFound(`Payee '${id}' was not found`);
  return payee;
}

const getPayees: Handler<'getPayees'> = (ctx) => {
  const since = readKnowledgeParam(ctx.query);
  const { store } = usePlan(ctx);
  const payees = [...store.payees.values()].filter((p) => inDelta(p, since)).map(presentPayee);
  return ok({ payees, server_knowledge: store.knowledge });
};

const getPayeeById: Handler<'getPayeeById'> = (ctx) => {
  const { store } = usePlan(ctx);
  return ok({ payee: presentPayee(livePayee(store, ctx)) });
};

const createPayee: Handler<'createPayee'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store, newId } = entry;
  const body = bodyObject(ctx, 'payee');
  const name = readString(requirePresent(body.name, 'payee.name'), 'payee.name', {
    nonEmpty: true,
    maxLength: PAYEE_NAME_MAX,
  });
  const payee = write(ctx, entry, () => {
    const record: PayeeRecord = {
      id: newId(),
      name,
      transfer_account_id: null,
      deleted: false,
      knowledge: 0,
    };
    store.payees.set(record.id, record);
    store.touch(record);
    return record;
  });
  return created({ payee: presentPayee(payee), server_knowledge: store.knowledge });
};

/** Renames a payee; transfer payees follow their account's name and cannot be renamed. */
const updatePayee: Handler<'updatePayee'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store } = entry;
  const payee = livePayee(store, ctx);
  const body = bodyObject(ctx, 'payee');
  const name =
    body.name === undefined
      ? undefined
      : readString(requirePresent(body.name, 'payee.name'), 'payee.name', {
          nonEmpty: true,
          maxLength: PAYEE_NAME_MAX,
        });
  if (name !== undefined && payee.transfer_account_id !== null && name !== payee.name) {
    throw badRequest(`payee.name: '${payee.name}' is a transfer payee and cannot be renamed`);
  }
  write(ctx, entry, () => {
    if (name === undefined || name === payee.name) return;
    payee.name = name;
    store.touch(payee);
    touchRecordsShowing(store, 'payee', payee.id);
  });
  return ok({ payee: presentPayee(payee), server_knowledge: store.knowledge });
};

const getPayeeLocations: Handler<'getPayeeLocations'> = (ctx) => {
  const { store } = usePlan(ctx);
  const locations = [...store.payeeLocations.values()]
    .filter((l) => !l.deleted)
    .map(presentPayeeLocation);
  return ok({ payee_locations: locations });
};

const getPayeeLocationById: Handler<'getPayeeLocationById'> = (ctx) => {
  const { store } = usePlan(ctx);
  const id = idParam(ctx, 'payee_location_id');
  const location = store.payeeLocations.get(id);
  if (!location || location.deleted) throw resourceNotFound(`Payee location '${id}' was not found`);
  return ok({ payee_location: presentPayeeLocation(location) });
};

const getPayeeLocationsByPayee: Handler<'getPayeeLocationsByPayee'> = (ctx) => {
  const { store } = usePlan(ctx);
  const payee = livePayee(store, ctx);
  const locations = [...store.payeeLocations.values()]
    .filter((l) => !l.deleted && l.payee_id === payee.id)
    .map(presentPayeeLocation);
  return ok({ payee_locations: locations });
};

export const payeeHandlers = {
  getPayees,
  getPayeeById,
  createPayee,
  updatePayee,
  getPayeeLocations,
  getPayeeLocationById,
  getPayeeLocationsByPayee,
};
