import type { PlanScoped } from '../replica/types.js';
import { amountFields, type FieldBuilder } from './amounts.js';
import { categoryName, inPlan } from './in-plan.js';
import { REST_ID_DESCRIPTION } from './node.js';
import { categoryFields, payeeFields, transferAccountFields } from './row-links.js';

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
    ...payeeFields(
      t,
      (s) => s.payee_id,
      'Derived from the payee, so a renamed payee shows its new name.',
    ),
    ...categoryFields(t, (s) => s.category_id),
    categoryName: t.string({
      nullable: true,
      description: 'The name of the category; null when uncategorized.',
      resolve: inPlan((s: Row) => s.category_id, categoryName),
    }),
    ...transferAccountFields(t, (s) => s.transfer_account_id),
    deleted: t.boolean({
      description: 'Whether it was deleted upstream (lists leave deleted objects out).',
      resolve: (s) => s.deleted,
    }),
  };
}
