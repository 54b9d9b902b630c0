/**
 * The links a plan row holds by REST id (its account, payee, category, the other account of a
 * transfer), each as the id and the object it names, for every type whose row has them:
 * transactions, scheduled transactions, hybrid rows and split lines.
 */
import type { PlanScoped } from '../replica/types.js';
import { Account } from './account/account.js';
import type { FieldBuilder } from './amounts.js';
import { Category } from './category/category.js';
import { findAccount, findCategory, findPayee, inPlan, payeeName } from './in-plan.js';
import { Payee } from './payee/payee.js';

/** `accountId`, `account` and `accountName`, for rows that always belong to an account. */
export function accountFields<Row extends PlanScoped>(
  t: FieldBuilder<Row>,
  accountIdOf: (row: Row) => string,
) {
  return {
    accountId: t.id({ description: 'The REST id of the account.', resolve: accountIdOf }),
    account: t.field({
      type: Account,
      description: 'The account.',
      resolve: async (row, _args, ctx) => {
        const id = accountIdOf(row);
        const account = findAccount(await ctx.loaders.plan(row.plan_id), id);
        // The upstream requires an account on every row and deletes no account with rows in it
        // (it is closed instead): a missing one is a replica that broke, masked and logged.
        if (!account) throw new Error(`account ${id} is not in the replica of plan ${row.plan_id}`);
        return account;
      },
    }),
    accountName: t.string({
      description: 'The name of the account.',
      resolve: async (row, _args, ctx) =>
        (await ctx.loaders.plan(row.plan_id)).account(accountIdOf(row))?.name ?? '',
    }),
  };
}

/** `payeeId`, `payee` and `payeeName`. */
export function payeeFields<Row extends PlanScoped>(
  t: FieldBuilder<Row>,
  payeeIdOf: (row: Row) => string | null,
  nameDescription = 'The name of the payee; null when none.',
) {
  return {
    payeeId: t.id({
      nullable: true,
      description: 'The REST id of the payee; null when none.',
      resolve: payeeIdOf,
    }),
    payee: t.field({
      type: Payee,
      nullable: true,
      description: 'The payee; null when none.',
      resolve: inPlan(payeeIdOf, findPayee),
    }),
    payeeName: t.string({
      nullable: true,
      description: nameDescription,
      resolve: inPlan(payeeIdOf, payeeName),
    }),
  };
}

/** `categoryId` and `category` (each type says what its `categoryName` means). */
export function categoryFields<Row extends PlanScoped>(
  t: FieldBuilder<Row>,
  categoryIdOf: (row: Row) => string | null,
) {
  return {
    categoryId: t.id({
      nullable: true,
      description: 'The REST id of the category; null when uncategorized.',
      resolve: categoryIdOf,
    }),
    category: t.field({
      type: Category,
      nullable: true,
      description: 'The category, with the amounts of the current month; null when uncategorized.',
      resolve: inPlan(categoryIdOf, findCategory),
    }),
  };
}

/** `transferAccountId` and `transferAccount`. */
export function transferAccountFields<Row extends PlanScoped>(
  t: FieldBuilder<Row>,
  transferAccountIdOf: (row: Row) => string | null,
) {
  return {
    transferAccountId: t.id({
      nullable: true,
      description: 'For a transfer, the REST id of the other account; null otherwise.',
      resolve: transferAccountIdOf,
    }),
    transferAccount: t.field({
      type: Account,
      nullable: true,
      description: 'For a transfer, the other account; null otherwise.',
      resolve: inPlan(transferAccountIdOf, findAccount),
    }),
  };
}
