/**
 * `changes` on every mutation payload: the accounts, categories, month categories and months the
 * write changed, as the replica holds them after it (src/writes/write-changes.ts). Every one has
 * an `id`, so a normalized cache (Apollo, graphcache, Relay) updates each screen that shows
 * them: the current month's category activity after a new transaction, the account balance,
 * Ready to Assign. Computed only when selected.
 */
import type { WriteChanges } from '../writes/write-changes.js';
import { Account } from './account/account.js';
import { builder } from './builder.js';
import { Category, MonthCategory } from './category/category.js';
import { Month } from './month.js';

/** Short lists of one plan (its accounts, categories, months): priced like an event's. */
const CHANGE_LIST = { field: 1, multiplier: 1 } as const;

export const WriteChangesType = builder.objectRef<WriteChanges>('WriteChanges').implement({
  description:
    'What a write changed in its plan, as it is after the write: select the amounts your screens show and a normalized cache updates them without a refetch. Rows another client changed meanwhile (brought by the same delta) are listed too.',
  fields: (t) => ({
    accounts: t.field({
      complexity: CHANGE_LIST,
      type: [Account],
      description: 'Accounts whose balances or fields changed.',
      resolve: (c) => [...c.accounts],
    }),
    categories: t.field({
      complexity: CHANGE_LIST,
      type: [Category],
      description: 'Categories that changed, with the amounts of the current month.',
      resolve: (c) => [...c.categories],
    }),
    monthCategories: t.field({
      complexity: CHANGE_LIST,
      type: [MonthCategory],
      description:
        'Categories whose amounts changed in a month (assigned, activity, balance), one row per month.',
      resolve: (c) => [...c.monthCategories],
    }),
    months: t.field({
      complexity: CHANGE_LIST,
      type: [Month],
      description: 'Months whose totals changed (Ready to Assign, activity, budgeted).',
      resolve: (c) => [...c.months],
    }),
  }),
});
