/**
 * Type-level checks of the client's method signatures. Not a test file: `tsc --noEmit` (part of
 * `npm test`) compiles it, so each `@ts-expect-error` fails the build if the line type-checks.
 */
import type { CallOptions, UpstreamClient } from '../../src/upstream/client.js';

export async function clientTypeChecks(
  client: UpstreamClient,
  call: CallOptions,
): Promise<unknown[]> {
  const plan = 'plan';
  const user = await client.getUser(call);
  const plans = await client.getPlans(call);
  const withAccounts = await client.getPlans(call, { includeAccounts: true });
  const imported = await client.importTransactions(call, { planId: plan });
  const status: 200 | 201 = imported.status;
  const ids: string[] = imported.transaction_ids;
  const viaCall = await client.call('getPayees', call, { planId: plan, lastKnowledgeOfServer: 1 });
  const knowledge: number = viaCall.server_knowledge;
  const created = await client.createTransaction(call, {
    planId: plan,
    body: { transactions: [{ account_id: 'a', date: '2024-01-01', amount: -1 }] },
  });
  const duplicates: string[] | undefined = created.duplicate_import_ids;

  // @ts-expect-error getUser takes no params
  await client.getUser(call, {});
  // @ts-expect-error planId is required
  await client.getAccounts(call, {});
  // @ts-expect-error params are required when an operation has path parameters
  await client.getAccounts(call);
  // @ts-expect-error getAccountById has no query parameters
  await client.getAccountById(call, { planId: plan, accountId: 'a', lastKnowledgeOfServer: 1 });
  // @ts-expect-error createAccount needs its body
  await client.createAccount(call, { planId: plan });
  // @ts-expect-error the body is the REST wrapper, not the bare entity
  await client.createPayee(call, { planId: plan, body: { name: 'x' } });
  // @ts-expect-error type is one of the list types
  await client.getTransactions(call, { planId: plan, type: 'pending' });
  // @ts-expect-error the token is required
  await client.getUser({});

  return [user.user.id, plans.default_plan, withAccounts.plans, status, ids, knowledge, duplicates];
}
