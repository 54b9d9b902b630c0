/**
 * Transactions against REST (`getTransactions`, `getTransactionsByAccount`, `...ByMonth`,
 * `...ByCategory`, `...ByPayee`, `getTransactionById`): every mirrored field holds REST's value on
 * every page, and the rows a transaction, a split line or a hybrid row names by id are REST's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  HybridLinksDocument,
  TransactionLinksDocument,
  type TransactionLinksQuery,
} from '../generated/operations.js';
import { expectListMirrors, expectMirrors } from '../support/mirror.js';
import { allFields } from '../support/selection.js';
import { expectLink, namedRowsOf, paritySuite } from './support/parity.js';

const parity = paritySuite();
const namedRows = () => namedRowsOf(parity);

/** The cursor of the next page; null after the last. */
function nextCursor(page: { hasNextPage: boolean; endCursor: string | null }): string | null {
  return page.hasNextPage ? page.endCursor : null;
}

describe('transactions', () => {
  const TRANSACTION = allFields('Transaction', { subtransactions: allFields('SubTransaction') });
  const HYBRID = allFields('HybridTransaction');
  let sinceDate: string;

  beforeAll(async () => {
    const { planId } = parity;
    const months = await parity.rest('getPlanMonths', `/plans/${planId}/months`);
    sinceDate = months.months.at(-4)!.month;
  });

  async function pages(
    query: string,
    variables: Record<string, unknown>,
    pick: (d: never) => {
      nodes: Record<string, unknown>[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    },
  ) {
    const nodes: Record<string, unknown>[] = [];
    let after: string | null = null;
    for (;;) {
      const data = await parity.graph<never>(query, { ...variables, after });
      const page = pick(data);
      nodes.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) return nodes;
      after = page.pageInfo.endCursor;
    }
  }

  it('getTransactions with since_date, and with type=unapproved', async () => {
    const { planId } = parity;
    for (const type of [undefined, 'unapproved'] as const) {
      const query = type ? `&type=${type}` : '';
      const restList = await parity.rest(
        'getTransactions',
        `/plans/${planId}/transactions?since_date=${sinceDate}${query}`,
      );
      const nodes = await pages(
        `query($planId: PlanId!, $since: Date!, $type: TransactionTypeFilter, $after: String) { plan(id: $planId) {
          transactions(sinceDate: $since, type: $type, first: 200, after: $after) { nodes ${TRANSACTION} pageInfo { hasNextPage endCursor } } } }`,
        { since: sinceDate, type: type ?? null },
        (d: { plan: { transactions: never } }) => d.plan.transactions,
      );
      expect(restList.transactions.length).toBeGreaterThan(0);
      expectListMirrors(
        restList.transactions as never,
        nodes,
        `transactions(type=${type ?? 'all'})`,
      );
    }
  });

  it('getTransactionsByAccount and account.transactions', async () => {
    const { planId } = parity;
    const accounts = await parity.rest('getAccounts', `/plans/${planId}/accounts`);
    const account = accounts.accounts.find((a) => a.on_budget && !a.closed)!;
    const restList = await parity.rest(
      'getTransactionsByAccount',
      `/plans/${planId}/accounts/${account.id}/transactions?since_date=${sinceDate}`,
    );
    const nodes = await pages(
      `query($planId: PlanId!, $id: UUID!, $since: Date!, $after: String) { plan(id: $planId) { account(id: $id) {
        transactions(sinceDate: $since, first: 200, after: $after) { nodes ${TRANSACTION} pageInfo { hasNextPage endCursor } } } } }`,
      { id: account.id, since: sinceDate },
      (d: { plan: { account: { transactions: never } } }) => d.plan.account.transactions,
    );
    expectListMirrors(restList.transactions as never, nodes, 'account.transactions');
  });

  it('getTransactionsByMonth and month.transactions', async () => {
    const { planId } = parity;
    const months = await parity.rest('getPlanMonths', `/plans/${planId}/months`);
    const month = months.months.at(-2)!.month;
    const restList = await parity.rest(
      'getTransactionsByMonth',
      `/plans/${planId}/months/${month}/transactions`,
    );
    const nodes = await pages(
      `query($planId: PlanId!, $month: MonthSelector!, $after: String) { plan(id: $planId) { month(month: $month) {
        transactions(first: 200, after: $after) { nodes ${TRANSACTION} pageInfo { hasNextPage endCursor } } } } }`,
      { month },
      (d: { plan: { month: { transactions: never } } }) => d.plan.month.transactions,
    );
    expectListMirrors(restList.transactions as never, nodes, 'month.transactions');
  });

  it('getTransactionsByCategory and getTransactionsByPayee as hybrid rows', async () => {
    const { planId } = parity;
    const exported = await parity.rest('getPlanById', `/plans/${planId}`);
    const split = exported.plan.subtransactions.find((s) => s.category_id && !s.deleted)!;
    const categoryId = split.category_id!;
    const payeeId = exported.plan.transactions.find((t) => t.payee_id && t.date >= sinceDate)!
      .payee_id!;
    const byCategory = await parity.rest(
      'getTransactionsByCategory',
      `/plans/${planId}/categories/${categoryId}/transactions?since_date=${sinceDate}`,
    );
    const byPayee = await parity.rest(
      'getTransactionsByPayee',
      `/plans/${planId}/payees/${payeeId}/transactions?since_date=${sinceDate}`,
    );
    const categoryNodes = await pages(
      `query($planId: PlanId!, $id: UUID!, $since: Date!, $after: String) { plan(id: $planId) { category(id: $id) {
        transactions(sinceDate: $since, first: 200, after: $after) { nodes ${HYBRID} pageInfo { hasNextPage endCursor } } } } }`,
      { id: categoryId, since: sinceDate },
      (d: { plan: { category: { transactions: never } } }) => d.plan.category.transactions,
    );
    const payeeNodes = await pages(
      `query($planId: PlanId!, $id: UUID!, $since: Date!, $after: String) { plan(id: $planId) { payee(id: $id) {
        transactions(sinceDate: $since, first: 200, after: $after) { nodes ${HYBRID} pageInfo { hasNextPage endCursor } } } } }`,
      { id: payeeId, since: sinceDate },
      (d: { plan: { payee: { transactions: never } } }) => d.plan.payee.transactions,
    );
    expect(byCategory.transactions.some((t) => t.type === 'subtransaction')).toBe(true);
    // A hybrid row has an id of its own; REST's id is its transactionId or subtransactionId.
    const withRestIds = (nodes: Record<string, unknown>[]) =>
      nodes.map((node) => ({ ...node, id: node.subtransactionId ?? node.transactionId }));
    expectListMirrors(
      byCategory.transactions as never,
      withRestIds(categoryNodes),
      'category.transactions',
    );
    expectListMirrors(byPayee.transactions as never, withRestIds(payeeNodes), 'payee.transactions');
  });

  it('getTransactionById, a split with its subtransactions', async () => {
    const { planId } = parity;
    const exported = await parity.rest('getPlanById', `/plans/${planId}`);
    const parentId = exported.plan.subtransactions.find((s) => !s.deleted)!.transaction_id;
    const restTransaction = await parity.rest(
      'getTransactionById',
      `/plans/${planId}/transactions/${parentId}`,
    );
    const data = await parity.graph<{ plan: { transaction: unknown } }>(
      `query($planId: PlanId!, $id: ID!) { plan(id: $planId) { transaction(id: $id) ${TRANSACTION} } }`,
      { id: parentId },
    );
    expect(restTransaction.transaction.subtransactions.length).toBeGreaterThan(1);
    expectMirrors(restTransaction.transaction, data.plan.transaction, 'transaction');
  });

  it('every row a transaction or its split lines name by id is the row REST names', async () => {
    const { accounts, payees, categories } = await namedRows();
    const transactions: NonNullable<TransactionLinksQuery['plan']>['transactions']['nodes'] = [];
    let after: string | null = null;
    do {
      const { plan } = await parity.graph(TransactionLinksDocument, {
        after,
      });
      transactions.push(...plan!.transactions.nodes);
      after = nextCursor(plan!.transactions.pageInfo);
    } while (after);
    const exported = await parity.rest('getPlanById', `/plans/${parity.planId}`);
    expect(transactions.length).toBe(exported.plan.transactions.filter((t) => !t.deleted).length);
    const byId = new Map(transactions.map((t) => [t.id, t]));
    const splitLines = new Set(exported.plan.subtransactions.map((line) => line.id));
    expect(transactions.some((t) => t.transferTransactionId !== null)).toBe(true);
    expect(transactions.some((t) => t.subtransactions.length > 0)).toBe(true);
    for (const row of transactions) {
      const where = `transaction ${row.id}`;
      expect(row.plan.id, `${where}.plan`).toBe(parity.planId);
      expectLink(row.account, row.accountId, accounts, `${where}.account`);
      expect(row.accountName, `${where}.accountName`).toBe(accounts.get(row.accountId)?.name);
      expectLink(row.payee, row.payeeId, payees, `${where}.payee`);
      expect(row.payeeName, `${where}.payeeName`).toBe(row.payee?.name ?? null);
      expectLink(row.category, row.categoryId, categories, `${where}.category`);
      expectLink(row.transferAccount, row.transferAccountId, accounts, `${where}.transferAccount`);
      if (row.transferTransactionId === null) {
        expect(row.transferTransaction, `${where}.transferTransaction`).toBeNull();
      } else if (splitLines.has(row.transferTransactionId)) {
        // The other side is a split line, which is no Transaction: the graph has no link for it.
        expect(row.transferTransaction, `${where}.transferTransaction`).toBeNull();
      } else {
        // The other side of a transfer: in the transfer account, pointing back at this one.
        expect(row.transferTransaction, `${where}.transferTransaction`).toEqual({
          id: row.transferTransactionId,
          accountId: row.transferAccountId,
          transferAccountId: row.accountId,
          transferTransactionId: row.id,
        });
        expect(byId.has(row.transferTransactionId), `${where}: its transfer is listed`).toBe(true);
      }
      for (const line of row.subtransactions) {
        const at = `${where} line ${line.id}`;
        expect(line.transactionId, `${at}.transactionId`).toBe(row.id);
        expect(line.transaction?.id, `${at}.transaction`).toBe(row.id);
        expectLink(line.payee, line.payeeId, payees, `${at}.payee`);
        expectLink(line.category, line.categoryId, categories, `${at}.category`);
        expectLink(line.transferAccount, line.transferAccountId, accounts, `${at}.transferAccount`);
      }
    }
  });

  it("a category's rows name their transaction: a split line its parent, a whole transaction itself", async () => {
    const { accounts, categories } = await namedRows();
    const exported = await parity.rest('getPlanById', `/plans/${parity.planId}`);
    const categoryId = exported.plan.subtransactions.find((s) => s.category_id && !s.deleted)!
      .category_id!;
    let after: string | null = null;
    let lines = 0;
    do {
      const { plan } = await parity.graph(HybridLinksDocument, {
        categoryId,
        after,
      });
      const page = plan!.category!.transactions;
      for (const row of page.nodes) {
        const where = `hybrid row ${row.id}`;
        expectLink(row.account, row.accountId, accounts, `${where}.account`);
        expectLink(row.category, row.categoryId, categories, `${where}.category`);
        expect(row.categoryId, `${where}.categoryId`).toBe(categoryId);
        if (row.type === 'subtransaction') {
          lines++;
          expect(row.parentTransactionId, `${where}.parentTransactionId`).toBe(row.transactionId);
          expect(row.parentTransaction?.id, `${where}.parentTransaction`).toBe(row.transactionId);
          expect(row.id, `${where}.id`).toBe(`${row.subtransactionId}:hybrid`);
        } else {
          expect(row.parentTransactionId, `${where}.parentTransactionId`).toBeNull();
          expect(row.parentTransaction, `${where}.parentTransaction`).toBeNull();
          expect(row.subtransactionId, `${where}.subtransactionId`).toBeNull();
          expect(row.id, `${where}.id`).toBe(`${row.transactionId}:hybrid`);
        }
      }
      after = nextCursor(page.pageInfo);
    } while (after);
    expect(lines).toBeGreaterThan(0);
  });
});
