/**
 * A large plan export built directly (no change tracking), for scale tests and the memory
 * measurement: `transactions` spread evenly over accounts and over 8 years of days.
 */
import type {
  CategoryBase,
  ResponseData,
  SubTransactionBase,
  TransactionSummaryBase,
} from '@plans-gateway/rest-contract';
import {
  account,
  category,
  categoryGroup,
  month,
  payee,
  planExport,
  subtransaction,
  transaction,
  uuid,
} from '@plans-gateway/rest-contract/testing';
import { createRng } from './random-plan.js';

export interface LargePlanOptions {
  transactions: number;
  accounts?: number;
  categories?: number;
  payees?: number;
  seed?: number;
}

export const LARGE_PLAN_ID = uuid(1, 500);
const FIRST_DAY = Date.UTC(2018, 0, 1);
const DAYS = 8 * 365;

export function createLargeExport(options: LargePlanOptions): ResponseData['getPlanById'] {
  const { transactions: count, accounts = 20, categories = 60, payees = 500, seed = 1 } = options;
  const rng = createRng(seed);
  const groups = Array.from({ length: 8 }, (_, i) =>
    categoryGroup({ id: uuid(5, i + 1), name: `Group ${i}` }),
  );
  const categoryRows: CategoryBase[] = Array.from({ length: categories }, (_, i) =>
    category({
      id: uuid(6, i + 1),
      category_group_id: groups[i % groups.length]!.id,
      name: `Category ${i}`,
    }),
  );
  const months = Array.from({ length: 12 }, (_, i) =>
    month({
      month: `2025-${String(i + 1).padStart(2, '0')}-01`,
      categories: categoryRows.map((row) => ({ ...row, budgeted: rng.int(1000) * 1000 })),
    }),
  );
  const transactions: TransactionSummaryBase[] = [];
  const subtransactions: SubTransactionBase[] = [];
  for (let i = 0; i < count; i += 1) {
    const id = uuid(7, i + 1);
    const isSplit = rng.chance(0.05);
    const day = new Date(FIRST_DAY + Math.floor((i / count) * DAYS) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    transactions.push(
      transaction({
        id,
        account_id: uuid(2, (i % accounts) + 1),
        date: day,
        amount: -(rng.int(200_000) + 1),
        memo: rng.chance(0.3) ? `Memo ${i}` : null,
        approved: rng.chance(0.95),
        category_id: isSplit || rng.chance(0.02) ? null : uuid(6, rng.int(categories) + 1),
        payee_id: uuid(3, rng.int(payees) + 1),
        import_id: rng.chance(0.5) ? `YNAB:${-i}:${day}:1` : null,
      }),
    );
    if (isSplit) {
      for (let s = 0; s < 2; s += 1) {
        subtransactions.push(
          subtransaction({
            id: uuid(8, i * 2 + s + 1),
            transaction_id: id,
            category_id: uuid(6, rng.int(categories) + 1),
            category_name: 'Split part',
          }),
        );
      }
    }
  }
  return planExport(
    {
      id: LARGE_PLAN_ID,
      first_month: '2018-01-01',
      last_month: '2025-12-01',
      accounts: Array.from({ length: accounts }, (_, i) =>
        account({ id: uuid(2, i + 1), name: `Account ${i}` }),
      ),
      payees: Array.from({ length: payees }, (_, i) =>
        payee({ id: uuid(3, i + 1), name: `Payee ${i}` }),
      ),
      category_groups: groups,
      categories: categoryRows,
      months,
      transactions,
      subtransactions,
    },
    1000,
  );
}
