/**
 * Writes applied to the replica at once: the next delta confirms them and never duplicates or
 * reverts them.
 */
import { payee, TEST_MONTH, transaction } from '@plans-gateway/rest-contract/testing';
import { describe, expect, it } from 'vitest';
import { buildPlanState } from '../../src/replica/delta.js';
import { applySavedEntities } from '../../src/replica/saved.js';
import { createPlanSnapshot } from '../../src/replica/snapshot.js';
import { settle } from './support/fake-upstream.js';
import { storeOverRandomPlan } from './support/store-over-plan.js';

const MINUTE = 60_000;

function setup() {
  const { fake, ids, rng, upstream, clock, store } = storeOverRandomPlan(41, {
    accounts: 3,
    payees: 4,
    groups: 2,
    categories: 4,
    transactions: 30,
  });
  const read = (planId = fake.id, maxAgeMs = MINUTE) =>
    store.read({ token: 'token-a', tokenKey: 'key-a', planId, freshness: { maxAgeMs } });
  const accountId = [...fake.accounts.keys()][0]!;
  return { fake, ids, rng, upstream, clock, store, read, accountId };
}

describe('read-your-writes', () => {
  it('shows a created transaction at once, and the next delta does not duplicate it', async () => {
    const { fake, clock, store, read, accountId } = setup();
    await read();
    const knowledge = fake.knowledge;
    const id = 'created-1';
    const serverKnowledge = fake.write(() =>
      fake.putTransaction(
        transaction({ id, account_id: accountId, date: '2026-03-14', memo: 'coffee' }),
      ),
    );
    const snapshot = store.applySaved('key-a', fake.id, {
      transactions: [fake.transactionDetail(id)],
      serverKnowledge,
    });
    expect(snapshot?.transaction(id)).toMatchObject({ memo: 'coffee', plan_id: fake.id });
    expect(snapshot?.transaction(id)).not.toHaveProperty('amount_formatted');
    expect(snapshot?.transaction(id)).not.toHaveProperty('account_name');
    expect(snapshot?.serverKnowledge).toBe(knowledge);
    expect(store.peek('key-a', fake.id)?.snapshot).toBe(snapshot);
    const count = snapshot!.transactions({}).totalCount;

    clock.advance(MINUTE + 1);
    const after = await read();
    expect(after.sync).toBe('delta');
    expect(after.snapshot.transactions({}).totalCount).toBe(count);
    expect(
      after.snapshot
        .transactions({ accountId, sinceDate: '2026-03-14', untilDate: '2026-03-14' })
        .rows.filter((r) => r.id === id),
    ).toHaveLength(1);
    expect(after.snapshot.serverKnowledge).toBe(fake.knowledge);
  });

  it('splits nested subtransactions into rows and replaces a split’s list', async () => {
    const { fake, store, read, accountId } = setup();
    await read();
    const parent = transaction({ id: 'split-1', account_id: accountId, date: '2026-03-12' });
    const categories = [...fake.categories.keys()];
    const sub = (n: number, category: string) => ({
      id: `split-1-sub-${n}`,
      transaction_id: 'split-1',
      amount: -100,
      memo: null,
      payee_id: null,
      payee_name: null,
      category_id: category,
      category_name: 'x',
      transfer_account_id: null,
      transfer_transaction_id: null,
      deleted: false,
    });
    fake.write(() => fake.putTransaction(parent, [sub(1, categories[0]!), sub(2, categories[1]!)]));
    let snapshot = store.applySaved('key-a', fake.id, {
      transactions: [fake.transactionDetail('split-1')],
    })!;
    expect(snapshot.subtransactionsOf('split-1').map((row) => row.id)).toEqual([
      'split-1-sub-1',
      'split-1-sub-2',
    ]);
    expect(
      snapshot.transactions({ categoryId: categories[1]! }).rows.map((row) => row.id),
    ).toContain('split-1');

    fake.write(() => fake.putTransaction(parent, [sub(3, categories[2]!)]));
    snapshot = store.applySaved('key-a', fake.id, {
      transactions: [fake.transactionDetail('split-1')],
    })!;
    expect(snapshot.subtransactionsOf('split-1').map((row) => row.id)).toEqual(['split-1-sub-3']);
    expect(snapshot.subtransaction('split-1-sub-1')).toBeUndefined();
    expect(
      snapshot.transactions({ categoryId: categories[1]! }).rows.map((row) => row.id),
    ).not.toContain('split-1');

    const deleted = { ...fake.transactionDetail('split-1'), deleted: true };
    snapshot = store.applySaved('key-a', fake.id, { transactions: [deleted] })!;
    expect(snapshot.transaction('split-1')).toBeUndefined();
    expect(snapshot.subtransactionsOf('split-1')).toEqual([]);
  });

  it('adds a provisional payee for a payee created by name', () => {
    const { fake, accountId } = setup();
    const state = buildPlanState(fake.exportPlan(), { currentMonth: TEST_MONTH });
    const detail = {
      ...transaction({
        id: 't-new',
        account_id: accountId,
        date: '2026-03-01',
        payee_id: 'payee-new',
      }),
      amount_formatted: '-1.00',
      amount_currency: -1,
      account_name: 'A',
      payee_name: 'Corner Shop',
      category_name: null,
      subtransactions: [],
    };
    const next = createPlanSnapshot(
      applySavedEntities(state, { transactions: [detail] }, { currentMonth: TEST_MONTH }),
    );
    expect(next.payee('payee-new')).toMatchObject({ name: 'Corner Shop', deleted: false });
  });

  it('applies categories to the current month and month categories to their month', async () => {
    const { fake, store, read } = setup();
    await read();
    const id = [...fake.categories.keys()][0]!;
    fake.write(() => fake.putCategory({ ...fake.categories.get(id)!.row, name: 'Groceries!' }));
    let snapshot = store.applySaved('key-a', fake.id, { categories: [fake.categoryDetail(id)] })!;
    expect(snapshot.category(id)?.name).toBe('Groceries!');
    expect(snapshot.category(id, '2026-01-01')?.name).toBe('Groceries!');

    fake.write(() => fake.setAmounts('2026-02-01', id, { budgeted: 123_000 }));
    snapshot = store.applySaved('key-a', fake.id, {
      monthCategories: [{ month: '2026-02-01', category: fake.categoryDetail(id, '2026-02-01') }],
    })!;
    expect(snapshot.category(id, '2026-02-01')).toMatchObject({
      budgeted: 123_000,
      month: '2026-02-01',
    });
    expect(snapshot.category(id, '2026-02-01')).not.toHaveProperty('budgeted_formatted');
  });

  it('keeps a write made while an older sync was in flight, and lets the next delta confirm it', async () => {
    const { fake, upstream, clock, store, read } = setup();
    await read();
    const id = [...fake.transactions.keys()][0]!;
    // The upstream changes the transaction, so the next delta carries that (older) version...
    fake.write(() =>
      fake.putTransaction({ ...fake.transactions.get(id)!.row, memo: 'older edit' }),
    );
    clock.advance(MINUTE + 1);
    const release = upstream.hold();
    const inFlight = read(); // ...computed now, before the gateway's own write below.
    await settle();
    const serverKnowledge = fake.write(() =>
      fake.putTransaction({ ...fake.transactions.get(id)!.row, memo: 'my write' }),
    );
    store.applySaved('key-a', fake.id, {
      transactions: [fake.transactionDetail(id)],
      serverKnowledge,
    });
    release();
    const landed = await inFlight;
    expect(landed.snapshot.serverKnowledge).toBeLessThan(serverKnowledge);
    expect(landed.snapshot.transaction(id)?.memo).toBe('my write');

    clock.advance(MINUTE + 1);
    const confirmed = await read();
    expect(upstream.calls.at(-1)?.lastKnowledgeOfServer).toBe(landed.snapshot.serverKnowledge);
    expect(confirmed.snapshot.transaction(id)?.memo).toBe('my write');
    expect(confirmed.snapshot.serverKnowledge).toBe(serverKnowledge);
  });

  it('lets an in-flight answer that already includes a racing write supersede it', async () => {
    const { fake, upstream, clock, store, read } = setup();
    await read();
    const id = [...fake.transactions.keys()][0]!;
    clock.advance(MINUTE + 1);
    const release = upstream.hold(() => true, { answerLate: true });
    const inFlight = read(); // the upstream reads its state only when released
    await settle();
    const serverKnowledge = fake.write(() =>
      fake.putTransaction({ ...fake.transactions.get(id)!.row, memo: 'my write' }),
    );
    store.applySaved('key-a', fake.id, {
      transactions: [fake.transactionDetail(id)],
      serverKnowledge,
    });
    fake.write(() =>
      fake.putTransaction({ ...fake.transactions.get(id)!.row, memo: 'edited after' }),
    );
    release();
    const landed = await inFlight;
    expect(landed.snapshot.transaction(id)?.memo).toBe('edited after');
    expect(landed.snapshot.serverKnowledge).toBe(fake.knowledge);
  });

  it('asks the next delta from the older knowledge when a racing write has no knowledge to compare', async () => {
    const { fake, upstream, clock, store, read, accountId } = setup();
    await read();
    const requestKnowledge = fake.knowledge;
    fake.write(() =>
      fake.putAccount({ ...fake.accounts.get(accountId)!.row, name: 'Renamed upstream' }),
    );
    clock.advance(MINUTE + 1);
    const release = upstream.hold();
    const inFlight = read();
    await settle();
    fake.write(() =>
      fake.putAccount({ ...fake.accounts.get(accountId)!.row, name: 'Renamed in flight' }),
    );
    store.applySaved('key-a', fake.id, { accounts: [fake.accountDetail(accountId)] });
    release();
    const landed = await inFlight;
    expect(landed.snapshot.account(accountId)?.name).toBe('Renamed in flight');

    clock.advance(MINUTE + 1);
    const next = await read();
    expect(upstream.calls.at(-1)?.lastKnowledgeOfServer).toBe(requestKnowledge);
    expect(next.snapshot.account(accountId)?.name).toBe('Renamed in flight');
    expect(next.snapshot.serverKnowledge).toBe(fake.knowledge);
  });

  it('lets a delta requested after a write supersede it', async () => {
    const { fake, clock, store, read, accountId } = setup();
    await read();
    const serverKnowledge = fake.write(() =>
      fake.putTransaction(
        transaction({ id: 'mine', account_id: accountId, date: '2026-03-11', memo: 'mine' }),
      ),
    );
    store.applySaved('key-a', fake.id, {
      transactions: [fake.transactionDetail('mine')],
      serverKnowledge,
    });
    fake.write(() =>
      fake.putTransaction({ ...fake.transactions.get('mine')!.row, memo: 'edited elsewhere' }),
    );
    clock.advance(MINUTE + 1);
    const after = await read();
    expect(after.snapshot.transaction('mine')?.memo).toBe('edited elsewhere');
  });

  it('never lets an older answer overwrite a newer one', async () => {
    const { fake, upstream, clock, read, accountId } = setup();
    await read('last-used');
    clock.advance(MINUTE + 1);
    const release = upstream.hold((call) => call.planId === 'last-used');
    const older = read('last-used'); // answered from the state before the write below
    await settle();
    fake.write(() =>
      fake.putTransaction(transaction({ id: 'newer', account_id: accountId, date: '2026-03-09' })),
    );
    const newer = await read(fake.id);
    expect(newer.snapshot.transaction('newer')).toBeDefined();
    release();
    const late = await older;
    expect(late.snapshot.transaction('newer')).toBeDefined();
    expect(late.snapshot.serverKnowledge).toBe(fake.knowledge);
  });

  it('replays a write made while the first load was in flight', async () => {
    const { fake, upstream, store, read, accountId } = setup();
    const release = upstream.hold();
    const loading = read();
    await settle();
    const serverKnowledge = fake.write(() =>
      fake.putTransaction(transaction({ id: 'early', account_id: accountId, date: '2026-03-08' })),
    );
    expect(
      store.applySaved('key-a', fake.id, {
        transactions: [fake.transactionDetail('early')],
        serverKnowledge,
      }),
    ).toBeUndefined();
    release();
    expect((await loading).snapshot.transaction('early')).toBeDefined();
  });

  it('ignores writes for a plan it does not hold, and rejects malformed ones', async () => {
    const { fake, store, read } = setup();
    expect(store.applySaved('key-a', fake.id, { payees: [] })).toBeUndefined();
    await read('last-used');
    expect(
      store
        .applySaved('key-a', 'last-used', { payees: [payee({ id: 'via-alias' })] })
        ?.payee('via-alias'),
    ).toBeDefined();
    expect(() =>
      store.applySaved('key-a', fake.id, { transactions: [{ id: 'x', date: 'soon' } as never] }),
    ).toThrow('saved.transactions[0].deleted must be a boolean');
    expect(() => store.applySaved('key-a', fake.id, { serverKnowledge: -3 })).toThrow(
      'SavedEntities.serverKnowledge must be a non-negative integer, got -3',
    );
  });
});
