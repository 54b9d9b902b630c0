/** Accounts: list (with deltas), read one, create (with its transfer payee and starting balance). */
import { SAVE_ACCOUNT_TYPES } from '@plans-gateway/rest-contract';
import { resourceNotFound } from '../core/errors.js';
import { presentAccount } from '../present/entities.js';
import { CREDIT_CARD_GROUP_NAME } from '../seed/catalog.js';
import { addCategoryToMonths } from '../store/budget.js';
import { NO_GOAL } from '../store/goals.js';
import type { PlanStore } from '../store/plan-store.js';
import type { AccountRecord, CategoryGroupRecord, CategoryRecord } from '../store/records.js';
import { createTransaction, type IdSource } from '../store/transactions.js';
import { readEnum, readInteger, readString, requirePresent } from '../validate/fields.js';
import { readKnowledgeParam } from '../validate/query.js';
import {
  bodyObject,
  created,
  type Handler,
  idParam,
  inDelta,
  moneyOf,
  ok,
  usePlan,
  write,
} from './context.js';

export const ACCOUNT_NAME_MAX = 200;
/** Account types the interface creates as tracking (off-budget) accounts. */
const TRACKING_TYPES = new Set(['otherAsset', 'otherLiability']);

const getAccounts: Handler<'getAccounts'> = (ctx) => {
  const since = readKnowledgeParam(ctx.query);
  const { store } = usePlan(ctx);
  const money = moneyOf(store);
  const accounts = [...store.accounts.values()]
    .filter((a) => inDelta(a, since))
    .map((a) => presentAccount(a, money));
  return ok({ accounts, server_knowledge: store.knowledge });
};

const getAccountById: Handler<'getAccountById'> = (ctx) => {
  const { store } = usePlan(ctx);
  const id = idParam(ctx, 'account_id');
  const account = store.liveAccount(id);
  if (!account) throw resourceNotFound(`Account '${id}' was not found`);
  return ok({ account: presentAccount(account, moneyOf(store)) });
};

/** Private: the credit card payment category a new card account gets. */
function addCreditCardCategory(store: PlanStore, newId: IdSource, account: AccountRecord): void {
  let group = [...store.categoryGroups.values()].find(
    (g) => !g.deleted && g.name === CREDIT_CARD_GROUP_NAME,
  );
  if (!group) {
    const fresh: CategoryGroupRecord = {
      id: newId(),
      name: CREDIT_CARD_GROUP_NAME,
      hidden: false,
      internal: false,
      deleted: false,
      knowledge: 0,
    };
    store.categoryGroups.set(fresh.id, fresh);
    store.touch(fresh);
    group = fresh;
  }
  const category: CategoryRecord = {
    id: newId(),
    category_group_id: group.id,
    name: account.name,
    hidden: false,
    internal: false,
    note: null,
    deleted: false,
    role: 'creditCardPayment',
    creditCardAccountId: account.id,
    knowledge: 0,
    ...NO_GOAL,
  };
  store.categories.set(category.id, category);
  store.paymentCategoryByCard.set(account.id, category.id);
  store.touch(category);
  addCategoryToMonths(store, category);
}

/**
 * Creates the account, its transfer payee and a cleared starting balance transaction dated today
 * (categorized to Ready to Assign on budget, except for credit cards whose balance is debt).
 */
const createAccount: Handler<'createAccount'> = (ctx) => {
  const entry = usePlan(ctx);
  const { store, newId } = entry;
  const body = bodyObject(ctx, 'account');
  const name = readString(requirePresent(body.name, 'account.name'), 'account.name', {
    nonEmpty: true,
    maxLength: ACCOUNT_NAME_MAX,
  });
  const type = readEnum(
    requirePresent(body.type, 'account.type'),
    SAVE_ACCOUNT_TYPES,
    'account.type',
  );
  const balance = readInteger(requirePresent(body.balance, 'account.balance'), 'account.balance');

  const account = write(ctx, entry, () => {
    const record: AccountRecord = {
      id: newId(),
      name,
      type,
      on_budget: !TRACKING_TYPES.has(type),
      closed: false,
      note: null,
      balance: 0,
      cleared_balance: 0,
      uncleared_balance: 0,
      transfer_payee_id: null,
      direct_import_linked: false,
      direct_import_in_error: false,
      last_reconciled_at: null,
      debt_original_balance: null,
      debt_interest_rates: null,
      debt_minimum_payments: null,
      debt_escrow_amounts: null,
      deleted: false,
      knowledge: 0,
    };
    store.accounts.set(record.id, record);
    store.touch(record);
    const payee = {
      id: newId(),
      name: `Transfer : ${name}`,
      transfer_account_id: record.id,
      deleted: false,
      knowledge: 0,
    };
    store.payees.set(payee.id, payee);
    store.touch(payee);
    record.transfer_payee_id = payee.id;
    if (type === 'creditCard') addCreditCardCategory(store, newId, record);
    const categorized = record.on_budget && type !== 'creditCard';
    createTransaction(
      store,
      newId,
      {
        accountId: record.id,
        date: ctx.today,
        amount: balance,
        payee: { kind: 'id', id: store.startingBalancePayeeId },
        transferAccountId: null,
        categoryId: categorized ? store.readyToAssignCategoryId : null,
        memo: null,
        cleared: 'cleared',
        approved: true,
        flagColor: null,
        subtransactions: [],
      },
      {
        importId: null,
        importPayeeName: null,
        importPayeeNameOriginal: null,
        debtTransactionType: null,
      },
    );
    return record;
  });
  return created({ account: presentAccount(account, moneyOf(store)) });
};

export const accountHandlers = { getAccounts, getAccountById, createAccount };
