/**
 * Transaction mutations over real HTTP: each write checked at the sandbox through REST, and the
 * payload's linked objects (account balance, category amounts, payee) current in the same
 * round-trip. Costs are counted at the sandbox.
 */
import type { TransactionDetail } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateSplitDocument,
  CreateSplitWithTransferDocument,
  CreateTransferDocument,
  TransferSideDocument,
  TransferSidesDocument,
} from '../generated/operations.js';
import { startStack } from '../support/stack.js';
import {
  MUTATIONS,
  type MutationStack,
  memberOf,
  resultOf,
  TODAY,
  withLookups,
} from './support/plan-lookups.js';

let stack: MutationStack;

beforeAll(async () => {
  stack = withLookups(await startStack(MUTATIONS));
  // Warm the replica, as a client that has shown a screen has.
  await stack.gql('{ plan(id: "last-used") { id } }');
});

afterAll(() => stack.close());

const TX = `
  id date amount memo cleared approved flagColor importId deleted
  payee { id name }
  category { id name budgeted activity balance }
  account { id name balance clearedBalance unclearedBalance }
`;

interface TxOut {
  id: string;
  date: string;
  amount: number;
  memo: string | null;
  cleared: string;
  approved: boolean;
  flagColor: string | null;
  importId: string | null;
  deleted: boolean;
  payee: { id: string; name: string } | null;
  category: {
    id: string;
    name: string;
    budgeted: number;
    activity: number;
    balance: number;
  } | null;
  account: {
    id: string;
    name: string;
    balance: number;
    clearedBalance: number;
    unclearedBalance: number;
  } | null;
}

const CREATE = `mutation($planId: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $planId, input: $input) {
    __typename
    ... on Error { message }
    ... on CreateTransactionPayload { transactionIds serverKnowledge transaction { ${TX} } }
  }
}`;

async function expectLinksMatchRest(tx: TxOut): Promise<void> {
  const account = await stack.account(tx.account!.id);
  expect(tx.account).toMatchObject({
    balance: account.balance,
    clearedBalance: account.cleared_balance,
    unclearedBalance: account.uncleared_balance,
  });
  if (tx.category) {
    const category = await stack.category(tx.category.id);
    expect(tx.category).toMatchObject({
      budgeted: category.budgeted,
      activity: category.activity,
      balance: category.balance,
    });
  }
}

describe('createTransaction', () => {
  it('creates one transaction; the payload shows it with current payee, category and account', async () => {
    const checking = await stack.accountOfType('checking');
    const category = await stack.spendingCategory(2);
    stack.resetUpstreamCalls();
    const response = await stack.gql(CREATE, {
      planId: stack.planId,
      input: {
        accountId: checking.id,
        date: '2025-06-14',
        amount: -42_170,
        payeeName: 'Corner Bakery (new)',
        categoryId: category.id,
        memo: 'sourdough',
        cleared: 'cleared',
        approved: true,
        flagColor: 'purple',
      },
    });
    const payload = resultOf<{
      transactionIds: string[];
      serverKnowledge: number;
      transaction: TxOut;
    }>(response, 'createTransaction', 'CreateTransactionPayload');
    // One step past the replica: the write alone, its derived values (the new payee among
    // them) from the gateway's arithmetic (test/mutations/one-trip.test.ts).
    expect(stack.upstreamCalls()).toEqual(['createTransaction']);
    expect(response.body.extensions?.upstream).toMatchObject({ calls: 1 });

    const tx = payload.transaction;
    expect(payload.transactionIds).toEqual([tx.id]);
    const rest = await stack.transaction(tx.id);
    expect(rest).toMatchObject({
      date: '2025-06-14',
      amount: -42_170,
      memo: 'sourdough',
      cleared: 'cleared',
      approved: true,
      flag_color: 'purple',
      payee_name: 'Corner Bakery (new)',
      category_id: category.id,
      account_id: checking.id,
    });
    expect(tx).toMatchObject({
      date: '2025-06-14',
      amount: -42_170,
      flagColor: 'purple',
      deleted: false,
    });
    expect(tx.payee).toEqual({ id: rest.payee_id, name: 'Corner Bakery (new)' });
    expect(tx.account?.balance).toBe(checking.balance - 42_170);
    expect(tx.category?.activity).toBe(category.activity - 42_170);
    await expectLinksMatchRest(tx);
    expect(payload.serverKnowledge).toBeGreaterThan(0);
  });

  it('creates a split; its parts and categories show in the payload and at REST', async () => {
    const cash = await stack.accountOfType('cash');
    const [a, b] = [await stack.spendingCategory(3), await stack.spendingCategory(4)];
    const response = await stack.gql(CreateSplitDocument, {
      planId: stack.planId,
      input: {
        accountId: cash.id,
        date: TODAY,
        amount: -30_000,
        payeeName: 'Market',
        subtransactions: [
          { amount: -18_000, categoryId: a.id, memo: 'veg' },
          { amount: -12_000, categoryId: b.id, payeeName: 'Market Stall 7' },
        ],
      },
    });
    expect(response.body.errors).toBeUndefined();
    const tx = memberOf(
      response.body.data?.createTransaction,
      'CreateTransactionPayload',
    ).transaction;
    expect(tx.categoryName).toBe('Split');
    expect(tx.category).toBeNull();
    expect(tx.subtransactions.map((s) => [s.amount, s.category?.id, s.memo])).toEqual([
      [-18_000, a.id, 'veg'],
      [-12_000, b.id, null],
    ]);
    expect(tx.subtransactions[1]?.payee?.name).toBe('Market Stall 7');
    expect(tx.subtransactions[0]?.category?.balance).toBe((await stack.category(a.id)).balance);
    expect(tx.account?.balance).toBe((await stack.account(cash.id)).balance);
    const rest = await stack.transaction(tx.id);
    expect(rest.subtransactions.map((s) => [s.amount, s.category_id])).toEqual([
      [-18_000, a.id],
      [-12_000, b.id],
    ]);
  });

  it('creates a transfer; both sides are linked from both accounts', async () => {
    const checking = await stack.accountOfType('checking');
    const savings = await stack.accountOfType('savings');
    const response = await stack.gql(CreateTransferDocument, {
      planId: stack.planId,
      input: {
        accountId: checking.id,
        date: TODAY,
        amount: -250_000,
        payeeId: savings.transfer_payee_id,
      },
    });
    expect(response.body.errors).toBeUndefined();
    const tx = memberOf(
      response.body.data?.createTransaction,
      'CreateTransactionPayload',
    ).transaction;
    expect(tx.transferAccount?.id).toBe(savings.id);
    expect(tx.transferAccount?.balance).toBe(savings.balance + 250_000);
    expect(tx.transferTransaction).toMatchObject({
      amount: 250_000,
      accountId: savings.id,
      transferAccount: { id: checking.id },
      transferTransaction: { id: tx.id },
    });
    expect(tx.account?.balance).toBe((await stack.account(checking.id)).balance);
    const otherSide = tx.transferTransaction!;

    // Both accounts list their side, pointing at the other, without another upstream call.
    stack.resetUpstreamCalls();
    const lists = await stack.gql(TransferSidesDocument, { from: checking.id, to: savings.id });
    expect(stack.upstreamCalls()).toEqual([]);
    const from = lists.body.data!.plan!.from!.transactions.nodes.find((n) => n.id === tx.id);
    const to = lists.body.data!.plan!.to!.transactions.nodes.find((n) => n.id === otherSide.id);
    expect(from).toEqual({
      id: tx.id,
      transferTransactionId: otherSide.id,
      transferAccount: { id: savings.id },
    });
    expect(to).toEqual({
      id: otherSide.id,
      transferTransactionId: tx.id,
      transferAccount: { id: checking.id },
    });
    const restSide = await stack.transaction(otherSide.id);
    expect(restSide).toMatchObject({
      account_id: savings.id,
      amount: 250_000,
      transfer_transaction_id: tx.id,
    });
  });

  it('creates a split with a transfer part; the other account gets its side', async () => {
    const checking = await stack.accountOfType('checking');
    const savings = await stack.accountOfType('savings');
    const category = await stack.spendingCategory(5);
    const response = await stack.gql(CreateSplitWithTransferDocument, {
      planId: stack.planId,
      input: {
        accountId: checking.id,
        date: TODAY,
        amount: -100_000,
        payeeName: 'Paycheck split',
        subtransactions: [
          { amount: -60_000, categoryId: category.id },
          { amount: -40_000, payeeId: savings.transfer_payee_id },
        ],
      },
    });
    expect(response.body.errors).toBeUndefined();
    const tx = memberOf(
      response.body.data?.createTransaction,
      'CreateTransactionPayload',
    ).transaction;
    const transferPart = tx.subtransactions.find((s) => s.transferAccount !== null)!;
    expect(transferPart).toMatchObject({ amount: -40_000, transferAccount: { id: savings.id } });
    expect(transferPart.transferTransactionId).toBeTruthy();
    const other = await stack.gql(TransferSideDocument, {
      id: transferPart.transferTransactionId!,
    });
    expect(other.body.data?.plan?.transaction).toEqual({
      amount: 40_000,
      accountId: savings.id,
      transferAccount: { id: checking.id },
    });
  });
});

describe('createTransactions', () => {
  it('creates a batch and lists the import ids already taken instead of failing', async () => {
    const checking = await stack.accountOfType('checking');
    const first = await stack.gql(CREATE, {
      planId: stack.planId,
      input: {
        accountId: checking.id,
        date: TODAY,
        amount: -5_000,
        payeeName: 'Batch',
        importId: 'batch:taken',
      },
    });
    resultOf(first, 'createTransaction', 'CreateTransactionPayload');
    stack.resetUpstreamCalls();
    const response = await stack.gql(
      `mutation($planId: PlanId!, $input: CreateTransactionsInput!) {
        createTransactions(planId: $planId, input: $input) {
          __typename
          ... on CreateTransactionsPayload { transactionIds duplicateImportIds serverKnowledge transactions { ${TX} } }
        }
      }`,
      {
        planId: stack.planId,
        input: {
          transactions: [
            {
              accountId: checking.id,
              date: TODAY,
              amount: -5_000,
              payeeName: 'Batch',
              importId: 'batch:taken',
            },
            {
              accountId: checking.id,
              date: '2025-06-10',
              amount: -7_770,
              payeeName: 'Batch',
              importId: 'batch:new',
            },
            {
              accountId: checking.id,
              date: '2025-06-11',
              amount: 1_000_000,
              payeeName: 'Batch refund',
            },
          ],
        },
      },
    );
    const payload = resultOf<{
      transactionIds: string[];
      duplicateImportIds: string[];
      transactions: TxOut[];
    }>(response, 'createTransactions', 'CreateTransactionsPayload');
    expect(stack.upstreamCalls()).toEqual(['createTransaction', 'getPlanById']);
    expect(payload.duplicateImportIds).toEqual(['batch:taken']);
    expect(payload.transactions.map((t) => [t.amount, t.importId])).toEqual([
      [-7_770, 'batch:new'],
      [1_000_000, null],
    ]);
    expect(payload.transactionIds).toEqual(payload.transactions.map((t) => t.id));
    for (const tx of payload.transactions)
      expect(await stack.transaction(tx.id)).toMatchObject({ amount: tx.amount });
    const last = payload.transactions.at(-1)!;
    expect(last.account?.balance).toBe((await stack.account(checking.id)).balance);
  });
});

describe('updateTransactions, updateTransaction, deleteTransaction', () => {
  async function create(input: Record<string, unknown>): Promise<TxOut> {
    const response = await stack.gql(CREATE, { planId: stack.planId, input });
    return resultOf<{ transaction: TxOut }>(
      response,
      'createTransaction',
      'CreateTransactionPayload',
    ).transaction;
  }

  it('updateTransactions changes transactions found by id and by import id', async () => {
    const checking = await stack.accountOfType('checking');
    const byId = await create({
      accountId: checking.id,
      date: TODAY,
      amount: -1_000,
      payeeName: 'Bulk',
    });
    const byImport = await create({
      accountId: checking.id,
      date: TODAY,
      amount: -2_000,
      payeeName: 'Bulk',
      importId: 'bulk:2',
    });
    stack.resetUpstreamCalls();
    const response = await stack.gql(
      `mutation($planId: PlanId!, $input: UpdateTransactionsInput!) {
        updateTransactions(planId: $planId, input: $input) {
          __typename ... on UpdateTransactionsPayload { transactionIds transactions { ${TX} } }
        }
      }`,
      {
        planId: stack.planId,
        input: {
          transactions: [
            { id: byId.id, memo: 'found by id', amount: -1_500 },
            { importId: 'bulk:2', memo: 'found by import id', flagColor: 'red' },
          ],
        },
      },
    );
    const payload = resultOf<{ transactionIds: string[]; transactions: TxOut[] }>(
      response,
      'updateTransactions',
      'UpdateTransactionsPayload',
    );
    expect(stack.upstreamCalls()).toEqual(['updateTransactions', 'getPlanById']);
    expect(payload.transactionIds).toEqual([byId.id, byImport.id]);
    expect(payload.transactions.map((t) => [t.memo, t.amount, t.flagColor])).toEqual([
      ['found by id', -1_500, null],
      ['found by import id', -2_000, 'red'],
    ]);
    expect(await stack.transaction(byId.id)).toMatchObject({ memo: 'found by id', amount: -1_500 });
    expect(await stack.transaction(byImport.id)).toMatchObject({
      memo: 'found by import id',
      flag_color: 'red',
    });
    await expectLinksMatchRest(payload.transactions[0]!);
  });

  it('updateTransaction moves a transaction to another category and amount; both show current amounts', async () => {
    const checking = await stack.accountOfType('checking');
    const [from, to] = [await stack.spendingCategory(6), await stack.spendingCategory(7)];
    const tx = await create({
      accountId: checking.id,
      date: TODAY,
      amount: -9_000,
      payeeName: 'Move me',
      categoryId: from.id,
    });
    const response = await stack.gql(
      `mutation($planId: PlanId!, $id: ID!, $input: UpdateTransactionInput!) {
        updateTransaction(planId: $planId, transactionId: $id, input: $input) {
          __typename ... on UpdateTransactionPayload { serverKnowledge transaction { ${TX} } }
        }
        }`,
      {
        planId: stack.planId,
        id: tx.id,
        input: { categoryId: to.id, amount: -11_000, flagColor: null },
      },
    );
    const payload = resultOf<{ transaction: TxOut }>(
      response,
      'updateTransaction',
      'UpdateTransactionPayload',
    );
    expect(payload.transaction).toMatchObject({
      id: tx.id,
      amount: -11_000,
      category: { id: to.id },
    });
    expect(await stack.transaction(tx.id)).toMatchObject({ category_id: to.id, amount: -11_000 });
    await expectLinksMatchRest(payload.transaction);
    const fromNow = await stack.gql<{ plan: { category: { activity: number } } }>(
      `query($id: UUID!) { plan(id: "last-used") { category(id: $id) { activity } } }`,
      { id: from.id },
    );
    expect(fromNow.body.data?.plan.category.activity).toBe(
      (await stack.category(from.id)).activity,
    );
  });

  it('deleteTransaction answers the deleted transaction and the account balance without it', async () => {
    const checking = await stack.accountOfType('checking');
    const tx = await create({
      accountId: checking.id,
      date: TODAY,
      amount: -77_000,
      payeeName: 'Delete me',
    });
    const before = await stack.account(checking.id);
    const response = await stack.gql(
      `mutation($planId: PlanId!, $id: ID!) {
        deleteTransaction(planId: $planId, transactionId: $id) {
          __typename ... on DeleteTransactionPayload { serverKnowledge transaction { id deleted amount account { balance } } }
        }
      }`,
      { planId: stack.planId, id: tx.id },
    );
    const payload = resultOf<{
      transaction: { id: string; deleted: boolean; amount: number; account: { balance: number } };
    }>(response, 'deleteTransaction', 'DeleteTransactionPayload');
    expect(payload.transaction).toMatchObject({ id: tx.id, deleted: true, amount: -77_000 });
    expect(payload.transaction.account.balance).toBe(before.balance + 77_000);
    expect((await stack.rest(`/plans/${stack.planId}/transactions/${tx.id}`)).status).toBe(404);
    const gone = await stack.gql<{ plan: { transaction: null } }>(
      `query($id: ID!) { plan(id: "last-used") { transaction(id: $id) { id } } }`,
      { id: tx.id },
    );
    expect(gone.body.data?.plan.transaction).toBeNull();
    expect(gone.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

describe('importTransactions', () => {
  it('imports what linked accounts have waiting, then nothing the second time', async () => {
    stack.resetUpstreamCalls();
    const mutation = `mutation($planId: PlanId!) {
      importTransactions(planId: $planId) {
        __typename ... on ImportTransactionsPayload { transactionIds transactions { id importId cleared approved account { id balance } payee { name } } }
      }
    }`;
    const response = await stack.gql(mutation, { planId: stack.planId });
    const payload = resultOf<{
      transactionIds: string[];
      transactions: {
        id: string;
        importId: string;
        cleared: string;
        approved: boolean;
        account: { id: string; balance: number };
        payee: { name: string };
      }[];
    }>(response, 'importTransactions', 'ImportTransactionsPayload');
    expect(stack.upstreamCalls()).toEqual(['importTransactions', 'getPlanById']);
    expect(payload.transactionIds.length).toBeGreaterThan(0);
    expect(payload.transactions.map((t) => t.id)).toEqual(payload.transactionIds);
    for (const tx of payload.transactions) {
      expect(tx.importId).toMatch(/^YNAB:-?\d+:\d{4}-\d{2}-\d{2}:\d+$/);
      expect(tx).toMatchObject({ cleared: 'cleared', approved: false });
      const rest: TransactionDetail = await stack.transaction(tx.id);
      expect(rest.import_id).toBe(tx.importId);
      expect(tx.account.balance).toBe((await stack.account(tx.account.id)).balance);
    }

    const again = await stack.gql(mutation, { planId: stack.planId });
    const second = resultOf<{ transactionIds: string[]; transactions: unknown[] }>(
      again,
      'importTransactions',
      'ImportTransactionsPayload',
    );
    expect(second).toMatchObject({ transactionIds: [], transactions: [] });
  });
});
