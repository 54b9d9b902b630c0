/** The official SDK against the sandbox: accounts list, read, create and their delta requests. */

import type { CurrencyFormat } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ynab from 'ynab';
import { expectConforms, expectError } from './support/expect-response.js';
import type { TestSandbox } from './support/sandbox.js';
import { type RecordingApi, sdkError, startSdkSuite } from './support/sdk.js';

let box: TestSandbox;
let api: RecordingApi;
let currency: CurrencyFormat | null;

beforeAll(async () => {
  ({ box, api, currency } = await startSdkSuite({ transactions: 150 }));
});

afterAll(async () => {
  await box.close();
});

describe('accounts', () => {
  it('lists the accounts with their documented fields and the server knowledge', async () => {
    const response = await api.accounts.getAccounts(box.planId);
    expectConforms(api.last(), 'getAccounts', 200, currency);
    expect(response.data.accounts.length).toBeGreaterThan(0);
    expect(response.data.server_knowledge).toBeGreaterThan(0);
    await api.accounts.getAccounts('last-used');
    expect(api.last().body).toEqual((await box.rest.get(`/plans/${box.planId}/accounts`)).body);
  });

  it('reads one account as the list shows it', async () => {
    await api.accounts.getAccounts(box.planId);
    const listed = (api.last().body as { data: { accounts: { id: string }[] } }).data.accounts;
    for (const account of listed.slice(0, 3)) {
      await api.accounts.getAccountById(box.planId, account.id);
      expectConforms(api.last(), 'getAccountById', 200, currency);
      expect(api.last().body).toEqual({ data: { account } });
    }
  });

  it('gives every account a transfer payee that points back at it', async () => {
    const accounts = (await api.accounts.getAccounts(box.planId)).data.accounts;
    const payees = (await api.payees.getPayees(box.planId)).data.payees;
    for (const account of accounts) {
      const payee = payees.find((p) => p.id === account.transfer_payee_id);
      expect(payee?.transfer_account_id, account.name).toBe(account.id);
    }
  });

  it('creates an account (201) whose balance, transfer payee and transactions show at once', async () => {
    const before = await api.accounts.getAccounts(box.planId);
    const created = await api.accounts.createAccount(box.planId, {
      account: { name: 'Created savings', type: ynab.SaveAccountType.Savings, balance: 1_234_560 },
    });
    expectConforms(api.last(), 'createAccount', 201, currency);
    const account = created.data.account;
    expect(account).toMatchObject({
      name: 'Created savings',
      type: 'savings',
      balance: 1_234_560,
      closed: false,
      deleted: false,
    });
    expect(account.balance_formatted).toBeDefined();

    const read = await api.accounts.getAccountById(box.planId, account.id);
    expect(read.data.account).toEqual(account);

    const after = await api.accounts.getAccounts(box.planId);
    expect(after.data.accounts.map((a) => a.id)).toContain(account.id);
    expect(after.data.server_knowledge).toBeGreaterThan(before.data.server_knowledge);

    const payees = (await api.payees.getPayees(box.planId)).data.payees;
    expect(payees.find((p) => p.id === account.transfer_payee_id)?.transfer_account_id).toBe(
      account.id,
    );

    // The opening balance is a transaction like any other, so the balance is their sum.
    const transactions = (await api.transactions.getTransactionsByAccount(box.planId, account.id))
      .data.transactions;
    expect(transactions.reduce((total, t) => total + t.amount, 0)).toBe(1_234_560);
  });

  it('creates accounts of every type the interface accepts', async () => {
    for (const type of Object.values(ynab.SaveAccountType)) {
      const created = await api.accounts.createAccount(box.planId, {
        account: { name: `Type ${type}`, type, balance: 0 },
      });
      expectConforms(api.last(), 'createAccount', 201, currency);
      expect(created.data.account.type).toBe(type);
    }
  });

  it('answers a delta request with the accounts changed since the knowledge', async () => {
    const before = await api.accounts.getAccounts(box.planId);
    const knowledge = before.data.server_knowledge;
    const empty = await api.accounts.getAccounts(box.planId, knowledge);
    expectConforms(api.last(), 'getAccounts', 200, currency);
    expect(empty.data).toEqual({ accounts: [], server_knowledge: knowledge });

    const created = await api.accounts.createAccount(box.planId, {
      account: { name: 'Delta cash', type: ynab.SaveAccountType.Cash, balance: 5_000 },
    });
    const delta = await api.accounts.getAccounts(box.planId, knowledge);
    expect(delta.data.accounts.map((a) => a.id)).toEqual([created.data.account.id]);
    expect(delta.data.server_knowledge).toBeGreaterThan(knowledge);

    // A transaction changes the balance, so the account is part of the next delta.
    const [checking] = before.data.accounts.filter((a) => a.on_budget && !a.closed);
    if (checking === undefined) throw new Error('the seed has no open on-budget account');
    const next = delta.data.server_knowledge;
    await api.transactions.createTransaction(box.planId, {
      transaction: {
        account_id: checking.id,
        date: '2025-06-10',
        amount: -42_000,
        payee_name: 'Delta shop',
        cleared: ynab.TransactionClearedStatus.Uncleared,
      },
    });
    const changed = await api.accounts.getAccounts(box.planId, next);
    const updated = changed.data.accounts.find((a) => a.id === checking.id);
    expect(updated?.balance).toBe(checking.balance - 42_000);
    expect(updated?.uncleared_balance).toBe(checking.uncleared_balance - 42_000);
  });

  it('refuses an unknown account with 404.2', async () => {
    await sdkError(api.accounts.getAccountById(box.planId, '3c1f1f0e-0000-4000-8000-000000000001'));
    expectError(api.last(), 404, '404.2', 'resource_not_found');
  });
});
