/**
 * The rich queries of the consistency properties: after a forced sync, each must answer what a
 * fresh gateway with no cache answers on the same upstream.
 */
import { expect } from 'vitest';
import type { UpstreamClient } from '../../../src/upstream/client.js';
import { allFields } from '../../support/selection.js';
import { liveParts } from './apply-write.js';

const TRANSACTION = allFields('Transaction', {
  subtransactions: allFields('SubTransaction', { payee: '{ id name }', category: '{ id name }' }),
  account: '{ id name balance }',
  payee: '{ id name transferAccountId }',
  category: '{ id name budgeted activity balance }',
  transferAccount: '{ id name }',
});
const PAGE = `{ totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node ${TRANSACTION} } }`;
const HYBRID = `{ totalCount nodes ${allFields('HybridTransaction')} }`;

/** The fixed set of rich queries; each one is answered by both gateways and compared. */
export const QUERIES: Record<string, string> = {
  plan: `query($planId: PlanId!) { plan(id: $planId) ${allFields('Plan')} }`,
  accounts: `query($planId: PlanId!) { plan(id: $planId) { accounts ${allFields('Account', { transferPayee: '{ id name }' })} } }`,
  categoryGroups: `query($planId: PlanId!) { plan(id: $planId) {
    categoryGroups ${allFields('CategoryGroup', { categories: allFields('Category', { group: '{ id name }' }) })} } }`,
  // Every month's summary; the categories of the months writes reach (back to 80 days) and after.
  months: `query($planId: PlanId!) { plan(id: $planId) {
    months ${allFields('Month')}
    ${['2025-02-01', '2025-03-01', '2025-04-01', '2025-05-01', '2025-06-01']
      .map(
        (m, i) => `m${i}: month(month: "${m}") { month categories ${allFields('MonthCategory')} }`,
      )
      .join('\n    ')} } }`,
  transactions: `query($planId: PlanId!, $account: UUID!, $category: UUID!, $payee: UUID!, $since: Date!) { plan(id: $planId) {
    newest: transactions(first: 30) ${PAGE}
    oldest: transactions(order: DATE_ASC, first: 10) ${PAGE}
    last: transactions(last: 7) ${PAGE}
    byAccount: transactions(accountId: $account, first: 25) ${PAGE}
    byCategory: transactions(categoryId: $category, first: 25) ${PAGE}
    byPayee: transactions(payeeId: $payee, first: 25) ${PAGE}
    recent: transactions(sinceDate: $since, first: 40) ${PAGE}
    window: transactions(accountId: $account, sinceDate: $since, type: unapproved, first: 15) ${PAGE}
    uncategorized: transactions(type: uncategorized, first: 25) ${PAGE}
    unapproved: transactions(type: unapproved, first: 25) ${PAGE}
  } }`,
  payees: `query($planId: PlanId!, $category: UUID!, $payee: UUID!) { plan(id: $planId) {
    payees ${allFields('Payee', { transferAccount: '{ id name }' })}
    payeeLocations ${allFields('PayeeLocation')}
    payee(id: $payee) { transactions(first: 30) ${HYBRID} }
    category(id: $category) { transactions(first: 30) ${HYBRID} }
  } }`,
  scheduled: `query($planId: PlanId!) { plan(id: $planId) {
    scheduledTransactions(first: 500) { totalCount nodes ${allFields('ScheduledTransaction', {
      subtransactions: allFields('ScheduledSubTransaction'),
      account: '{ id name }',
      payee: '{ id name }',
      category: '{ id name }',
    })} } } }`,
  monthTransactions: `query($planId: PlanId!) { plan(id: $planId) {
    current: month(month: "current") { ${allFields('Month').slice(1, -1)} transactions(first: 200) ${PAGE} }
    previous: month(month: "2025-05-01") { transactions(first: 200) ${PAGE} categories { id activity balance } }
  } }`,
};

/** Filter arguments for the transaction queries, taken from the plan as it is now. */
export async function variablesFor(
  writer: UpstreamClient,
  token: string,
  planId: string,
  pick: number,
): Promise<Record<string, unknown>> {
  const { plan } = await writer.getPlanById({ token }, { planId });
  const live = liveParts(plan);
  const at = <T>(items: readonly T[]) => items[pick % items.length]!;
  return {
    planId,
    account: at(live.openAccounts).id,
    category: at(live.categories).id,
    payee: at(plan.payees.filter((p) => !p.deleted)).id,
    since: '2025-05-10',
  };
}

/** Deep equality; answers are compared as JSON first because a deep diff of every answer is slow. */
export function expectSame(actual: unknown, expected: unknown, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual, what).toEqual(expected);
}
