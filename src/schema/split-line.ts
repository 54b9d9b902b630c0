import type { PlanScoped } from '../replica/types.js';
import { Account } from './account/account.js';
import { amountFields, type FieldBuilder } from './amounts.js';
import { Category } from './category/category.js';
import { categoryName, findAccount, findCategory, findPayee, inPlan, payeeName } from './links.js';
import { REST_ID_DESCRIPTION } from './node.js';
import { Payee } from './payee/payee.js';

/** What a line of a split (scheduled or not) holds in REST. */
interface SplitLineRow extends PlanScoped {
  readonly id: string;
  readonly amount: number;
  readonly memo: string | null;
  readonly payee_id: string | null;
  readonly category_id: string | null;
  readonly transfer_account_id: string | null;
  readonly deleted: boolean;
}

/** The fields every split line has, whether of a transaction or of a scheduled transaction. */
export function splitLineFields<Row extends SplitLineRow>(t: FieldBuilder<Row>) {
  return {
    id: t.id({
      description: REST_ID_DESCRIPTION,
      resolve: (s) => s.id,
    }),
    ...amountFields(t, 'amount', (s) => s.amount, 'Negative for outflows.'),
    memo: t.string({
      nullable: true,
      description: 'The memo; null when none.',
      resolve: (s) => s.memo,
    }),
    payeeId: t.id({
      nullable: true,
      description: 'The REST id of the payee; null when none.',
      resolve: (s) => s.payee_id,
    }),
    payee: t.field({
      type: Payee,
      nullable: true,
      description: 'The payee; null when none.',
      resolve: inPlan((s: Row) => s.payee_id, findPayee),
    }),
    payeeName: t.string({
      nullable: true,
      description: 'Derived from the payee, so a renamed payee shows its new name.',
      resolve: inPlan((s: Row) => s.payee_id, payeeName),
    }),
    categoryId: t.id({
      nullable: true,
      description: 'The REST id of the category; null when uncategorized.',
      resolve: (s) => s.category_id,
    }),
    category: t.field({
      type: Category,
      nullable: true,
      description: 'The category, with the amounts of the current month; null when uncategorized.',
      resolve: inPlan((s: Row) => s.category_id, findCategory),
    }),
    categoryName: t.string({
      nullable: true,
      description: 'The name of the category; null when uncategorized.',
      resolve: inPlan((s: Row) => s.category_id, categoryName),
    }),
    transferAccountId: t.id({
      nullable: true,
      description: 'For a transfer, the REST id of the other account; null otherwise.',
      resolve: (s) => s.transfer_account_id,
    }),
    transferAccount: t.field({
      type: Account,
      nullable: true,
      description: 'For a transfer, the other account; null otherwise.',
      resolve: inPlan((s: Row) => s.transfer_account_id, findAccount),
    }),
    deleted: t.boolean({
      description: 'Whether it was deleted upstream (lists leave deleted objects out).',
      resolve: (s) => s.deleted,
    }),
  };
}
