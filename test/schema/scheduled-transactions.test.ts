/**
 * Scheduled transactions against REST (`getScheduledTransactions`, `getScheduledTransactionById`):
 * every mirrored field holds REST's value, and the account, payee, category and transfer account
 * a scheduled transaction or one of its split lines names are REST's rows.
 */
import { describe, expect, it } from 'vitest';
import { ScheduledTransactionLinksDocument } from '../generated/operations.js';
import { expectListMirrors, expectMirrors } from '../support/mirror.js';
import { allFields } from '../support/selection.js';
import { expectLink, namedRowsOf, paritySuite } from './support/parity.js';

const parity = paritySuite();
const namedRows = () => namedRowsOf(parity);

describe('scheduled transactions', () => {
  it('getScheduledTransactions and getScheduledTransactionById', async () => {
    const { planId } = parity;
    const restList = await parity.rest(
      'getScheduledTransactions',
      `/plans/${planId}/scheduled_transactions`,
    );
    const one =
      restList.scheduled_transactions.find((s) => s.subtransactions.length > 0) ??
      restList.scheduled_transactions[0]!;
    const restOne = await parity.rest(
      'getScheduledTransactionById',
      `/plans/${planId}/scheduled_transactions/${one.id}`,
    );
    const SCHEDULED = allFields('ScheduledTransaction', {
      subtransactions: allFields('ScheduledSubTransaction'),
    });
    const data = await parity.graph<{
      plan: {
        scheduledTransactions: { nodes: Record<string, unknown>[] };
        scheduledTransaction: unknown;
      };
    }>(
      `query($planId: PlanId!, $id: UUID!) { plan(id: $planId) {
        scheduledTransactions(first: 500) { nodes ${SCHEDULED} }
        scheduledTransaction(id: $id) ${SCHEDULED} } }`,
      { id: one.id },
    );
    expectListMirrors(
      restList.scheduled_transactions as never,
      data.plan.scheduledTransactions.nodes,
      'scheduledTransactions',
    );
    expectMirrors(
      restOne.scheduled_transaction,
      data.plan.scheduledTransaction,
      'scheduledTransaction',
    );
  });

  it('every row a scheduled transaction or its split lines name by id is the row REST names', async () => {
    const { planId } = parity;
    const restList = await parity.rest(
      'getScheduledTransactions',
      `/plans/${planId}/scheduled_transactions`,
    );
    const { accounts, payees, categories } = await namedRows();
    const { plan } = await parity.graph(ScheduledTransactionLinksDocument);
    const scheduled = plan!.scheduledTransactions.nodes;
    expect(scheduled.length).toBe(restList.scheduled_transactions.length);
    expect(scheduled.some((s) => s.transferAccountId !== null)).toBe(true);
    expect(scheduled.some((s) => s.subtransactions.length > 0)).toBe(true);
    for (const row of scheduled) {
      const where = `scheduledTransaction ${row.id}`;
      expectLink(row.account, row.accountId, accounts, `${where}.account`);
      expect(row.accountName, `${where}.accountName`).toBe(accounts.get(row.accountId)?.name);
      expectLink(row.payee, row.payeeId, payees, `${where}.payee`);
      expect(row.payeeName, `${where}.payeeName`).toBe(row.payee?.name ?? null);
      expectLink(row.category, row.categoryId, categories, `${where}.category`);
      expectLink(row.transferAccount, row.transferAccountId, accounts, `${where}.transferAccount`);
      for (const line of row.subtransactions) {
        const at = `${where} line ${line.id}`;
        expect(line.scheduledTransactionId, `${at}.scheduledTransactionId`).toBe(row.id);
        expectLink(line.payee, line.payeeId, payees, `${at}.payee`);
        expectLink(line.category, line.categoryId, categories, `${at}.category`);
        expectLink(line.transferAccount, line.transferAccountId, accounts, `${at}.transferAccount`);
      }
    }
  });
});
