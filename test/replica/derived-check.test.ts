/**
 * One-trip writes: the derived rows a write computed on its own (`SavedEntities.derived`) are
 * checked by the delta that confirms the write. The delta's rows win; a derived row the delta
 * does not carry (the upstream did not change it) goes back to what it was; every difference is
 * counted as drift.
 */
import { transaction } from '@plans-gateway/rest-contract/testing';
import { describe, expect, it } from 'vitest';
import type { DerivedRows, DriftKind } from '../../src/replica/types.js';
import { storeOverRandomPlan } from './support/store-over-plan.js';

const MINUTE = 60_000;

function setup() {
  const checks: Partial<Record<DriftKind, number>>[] = [];
  const { fake, clock, store } = storeOverRandomPlan(
    43,
    {
      accounts: 3,
      payees: 4,
      groups: 2,
      categories: 4,
      transactions: 20,
    },
    {
      onDerivedChecked: (drift) => checks.push(drift),
    },
  );
  const read = (maxAgeMs = MINUTE) =>
    store.read({ token: 'token-a', tokenKey: 'key-a', planId: fake.id, freshness: { maxAgeMs } });
  const accountId = [...fake.accounts.keys()][0]!;
  return { fake, clock, store, read, accountId, checks };
}

/** A write of one transaction at the fake upstream, with `balance` as its derived account row. */
function writeWithDerived(
  context: ReturnType<typeof setup>,
  balance: number,
  upstreamBalance?: number,
) {
  const { fake, store, accountId } = context;
  const held = store.peek('key-a', fake.id)!.snapshot.account(accountId)!;
  const id = `tx-${balance}`;
  const serverKnowledge = fake.write(() => {
    fake.putTransaction(transaction({ id, account_id: accountId, date: '2026-03-14' }));
    if (upstreamBalance !== undefined) {
      fake.putAccount({ ...fake.accounts.get(accountId)!.row, balance: upstreamBalance });
    }
  });
  const { plan_id: _plan, ...previous } = held;
  const derived: DerivedRows = {
    accounts: [{ ...previous, balance }],
    months: [],
    monthCategories: [],
    previous: { accounts: [previous], months: [], monthCategories: [] },
  };
  return store.applySaved('key-a', fake.id, {
    transactions: [fake.transactionDetail(id)],
    serverKnowledge,
    derived,
  });
}

/**
 * A transfer written with its other side and a new payee as derived rows (local-effects.ts): the
 * fake upstream writes the transfer, and the other side as `upstreamSide` says (absent: not at
 * all), and never the payee.
 */
function writeTransfer(
  context: ReturnType<typeof setup>,
  upstreamSide: 'same' | 'different' | 'absent',
) {
  const { fake, store, accountId } = context;
  const otherAccount = [...fake.accounts.keys()][1]!;
  const side = transaction({
    id: 'other-side',
    account_id: otherAccount,
    date: '2026-03-14',
    amount: 2_500,
    cleared: 'uncleared',
    transfer_account_id: accountId,
    transfer_transaction_id: 'transfer',
  });
  const payee = { id: 'new-payee', name: 'New payee', transfer_account_id: null, deleted: false };
  const serverKnowledge = fake.write(() => {
    fake.putTransaction(
      transaction({
        id: 'transfer',
        account_id: accountId,
        date: '2026-03-14',
        amount: -2_500,
        transfer_account_id: otherAccount,
        transfer_transaction_id: side.id,
      }),
    );
    if (upstreamSide !== 'absent')
      fake.putTransaction(upstreamSide === 'same' ? side : { ...side, amount: 2_400 });
  });
  const derived: DerivedRows = {
    accounts: [],
    months: [],
    monthCategories: [],
    transactions: [side],
    payees: [payee],
    previous: {
      accounts: [],
      months: [],
      monthCategories: [],
      transactions: [{ ...side, deleted: true }],
      payees: [{ ...payee, deleted: true }],
    },
  };
  return store.applySaved('key-a', fake.id, {
    transactions: [fake.transactionDetail('transfer')],
    serverKnowledge,
    derived,
  });
}

describe('derived rows of one-trip writes', () => {
  it('count one knowledge step each: exactKnowledge follows them, an ordinary write stops it', async () => {
    const context = setup();
    const { fake, store, read } = context;
    await read();
    const start = fake.knowledge;
    expect(store.exactKnowledge?.('key-a', fake.id)).toBe(start);
    writeWithDerived(context, 1_000, 1_000);
    writeWithDerived(context, 2_000, 2_000);
    expect(store.exactKnowledge?.('key-a', fake.id)).toBe(start + 2);
    const knowledge = fake.write(() =>
      fake.putTransaction(
        transaction({ id: 'plain', account_id: context.accountId, date: '2026-03-15' }),
      ),
    );
    store.applySaved('key-a', fake.id, {
      transactions: [fake.transactionDetail('plain')],
      serverKnowledge: knowledge,
    });
    expect(store.exactKnowledge?.('key-a', fake.id)).toBeUndefined();
  });

  it('agree with the delta that carries the same rows: no drift', async () => {
    const context = setup();
    const { clock, read, accountId, checks } = context;
    await read();
    writeWithDerived(context, 123_000, 123_000);
    clock.advance(MINUTE + 1);
    const after = await read();
    expect(after.sync).toBe('delta');
    expect(after.snapshot.account(accountId)?.balance).toBe(123_000);
    expect(checks).toEqual([{}]);
  });

  it('a derived row the delta carries differently: the delta wins, drift counted', async () => {
    const context = setup();
    const { clock, read, accountId, checks } = context;
    await read();
    writeWithDerived(context, 999_999, 123_000);
    expect((await read()).snapshot.account(accountId)?.balance).toBe(999_999);
    clock.advance(MINUTE + 1);
    const after = await read();
    expect(after.snapshot.account(accountId)?.balance).toBe(123_000);
    expect(checks).toEqual([{ accounts: 1 }]);
  });

  it('a derived row the delta does not carry: back to what it was, drift counted', async () => {
    const context = setup();
    const { fake, clock, read, accountId, checks } = context;
    const before = (await read()).snapshot.account(accountId)!.balance;
    writeWithDerived(context, 555_555);
    clock.advance(MINUTE + 1);
    const after = await read();
    expect(after.snapshot.account(accountId)?.balance).toBe(before);
    expect(after.snapshot.serverKnowledge).toBe(fake.knowledge);
    expect(checks).toEqual([{ accounts: 1 }]);
  });

  it("a transfer's other side the delta carries alike: no drift; a new payee it does not carry goes", async () => {
    const context = setup();
    const { clock, read, checks } = context;
    await read();
    const applied = writeTransfer(context, 'same');
    expect(applied?.transaction('other-side')?.amount).toBe(2_500);
    expect(applied?.payee('new-payee')?.name).toBe('New payee');
    clock.advance(MINUTE + 1);
    const after = await read();
    expect(after.snapshot.transaction('other-side')?.amount).toBe(2_500);
    // The upstream holds no such payee: the delta did not carry it, so it is taken back.
    expect(after.snapshot.payee('new-payee')).toBeUndefined();
    expect(checks).toEqual([{ payees: 1 }]);
  });

  it("a transfer's other side the delta carries differently: the delta's, drift counted", async () => {
    const context = setup();
    const { clock, read, checks } = context;
    await read();
    writeTransfer(context, 'different');
    clock.advance(MINUTE + 1);
    const after = await read();
    expect(after.snapshot.transaction('other-side')?.amount).toBe(2_400);
    expect(checks).toEqual([{ transactions: 1, payees: 1 }]);
  });

  it("a transfer's other side the delta does not carry: removed, drift counted", async () => {
    const context = setup();
    const { clock, read, checks } = context;
    await read();
    writeTransfer(context, 'absent');
    clock.advance(MINUTE + 1);
    const after = await read();
    expect(after.snapshot.transaction('other-side')).toBeUndefined();
    expect(checks).toEqual([{ transactions: 1, payees: 1 }]);
  });
});
