/**
 * Seeded random plans and random upstream changes on a FakePlan. Everything is driven by a
 * small deterministic generator so a failing seed reproduces exactly.
 */
import type { SubTransactionBase } from '@plans-gateway/rest-contract';
import {
  account,
  payee,
  payeeLocation,
  scheduledSubtransaction,
  scheduledTransaction,
  subtransaction,
  transaction,
  uuid,
} from '@plans-gateway/rest-contract/testing';
import type { SavedEntities } from '../../../src/replica/types.js';
import { FakePlan } from './fake-plan.js';

export interface Rng {
  next(): number;
  int(maxExclusive: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32: tiny, fast and good enough for test data. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (max) => Math.floor(next() * max),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
  };
}

export interface PlanSizes {
  accounts: number;
  payees: number;
  groups: number;
  categories: number;
  transactions: number;
  /** Share of transactions that are splits. @default 0.1 */
  splitShare?: number;
}

export const MONTHS = ['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01'];
const DAYS = Array.from({ length: 28 }, (_, i) => String(i + 1).padStart(2, '0'));

/** Serial numbers for new ids, per fake plan. */
export class IdSource {
  private n = 0;
  next(kind: number): string {
    this.n += 1;
    return uuid(kind, this.n);
  }
}

export function randomDate(rng: Rng): string {
  return `${rng.pick(MONTHS).slice(0, 8)}${rng.pick(DAYS)}`;
}

/** A fake plan filled with random entities; returned with its id source for later changes. */
export function createRandomPlan(
  seed: number,
  sizes: PlanSizes,
): { fake: FakePlan; ids: IdSource; rng: Rng } {
  const rng = createRng(seed);
  const ids = new IdSource();
  const fake = new FakePlan(uuid(1, seed >>> 0), '2026-03-01');
  fake.write(() => {
    for (const month of MONTHS)
      fake.putMonth({
        month,
        note: null,
        income: 0,
        budgeted: 0,
        activity: 0,
        to_be_budgeted: 0,
        age_of_money: null,
        deleted: false,
      });
    for (let i = 0; i < sizes.accounts; i += 1) {
      const id = ids.next(2);
      fake.putAccount(
        account({ id, name: `Account ${i}`, on_budget: i % 4 !== 3, transfer_payee_id: null }),
      );
    }
    for (let i = 0; i < sizes.payees; i += 1)
      fake.putPayee(payee({ id: ids.next(3), name: `Payee ${i}` }));
    for (let i = 0; i < sizes.groups; i += 1) {
      fake.putGroup({
        id: ids.next(5),
        name: `Group ${i}`,
        hidden: false,
        internal: false,
        deleted: false,
      });
    }
    const groups = [...fake.groups.keys()];
    for (let i = 0; i < sizes.categories; i += 1) {
      fake.putCategory({
        id: ids.next(6),
        name: `Category ${i}`,
        hidden: false,
        internal: false,
        note: null,
        category_group_id: groups[i % groups.length]!,
        original_category_group_id: null,
        deleted: false,
      });
    }
    for (const month of MONTHS) {
      for (const id of fake.categories.keys())
        fake.setAmounts(month, id, { budgeted: rng.int(100) * 1000 });
    }
    for (let i = 0; i < 3; i += 1)
      fake.putLocation(
        payeeLocation({ id: ids.next(4), payee_id: rng.pick([...fake.payees.keys()]) }),
      );
    for (let i = 0; i < sizes.transactions; i += 1)
      addTransaction(fake, ids, rng, sizes.splitShare ?? 0.1);
    for (let i = 0; i < 3; i += 1) {
      const id = ids.next(9);
      const parent = scheduledTransaction({ id, account_id: rng.pick([...fake.accounts.keys()]) });
      fake.putScheduled(parent, [
        scheduledSubtransaction({ id: ids.next(10), scheduled_transaction_id: id }),
      ]);
    }
  });
  return { fake, ids, rng };
}

function live<T extends { deleted: boolean }>(map: Map<string, { row: T }>): T[] {
  return [...map.values()].map((entry) => entry.row).filter((row) => !row.deleted);
}

/** Adds one random transaction (sometimes a split, sometimes a transfer). */
export function addTransaction(fake: FakePlan, ids: IdSource, rng: Rng, splitShare = 0.1): string {
  const accounts = live(fake.accounts);
  const categories = live(fake.categories).map((row) => row.id);
  const payees = live(fake.payees).map((row) => row.id);
  const id = ids.next(7);
  const isSplit = rng.chance(splitShare);
  const isTransfer = !isSplit && rng.chance(0.08);
  const accountId = rng.pick(accounts).id;
  const row = transaction({
    id,
    account_id: accountId,
    date: randomDate(rng),
    amount: -(rng.int(100_000) + 1),
    approved: rng.chance(0.8),
    category_id: isSplit || isTransfer || rng.chance(0.1) ? null : rng.pick(categories),
    payee_id: rng.chance(0.9) ? rng.pick(payees) : null,
    transfer_account_id: isTransfer ? rng.pick(accounts).id : null,
  });
  fake.putTransaction(row, isSplit ? randomSubs(fake, ids, rng, id) : undefined);
  return id;
}

function randomSubs(
  fake: FakePlan,
  ids: IdSource,
  rng: Rng,
  parentId: string,
): SubTransactionBase[] {
  const categories = live(fake.categories).map((row) => row.id);
  const payees = live(fake.payees).map((row) => row.id);
  return Array.from({ length: 2 + rng.int(2) }, () =>
    subtransaction({
      id: ids.next(8),
      transaction_id: parentId,
      category_id: rng.chance(0.9) ? rng.pick(categories) : null,
      payee_id: rng.chance(0.3) ? rng.pick(payees) : null,
      amount: -(rng.int(10_000) + 1),
    }),
  );
}

/**
 * Applies one random upstream write. Returns, for writes the gateway could have made itself,
 * the entities that write's REST response would carry.
 */
export function randomChange(fake: FakePlan, ids: IdSource, rng: Rng): SavedEntities | undefined {
  const transactions = live(fake.transactions);
  const categories = live(fake.categories);
  const accounts = live(fake.accounts);
  let saved: SavedEntities | undefined;
  const knowledge = fake.write(() => {
    const roll = rng.int(20);
    if (roll <= 3 || transactions.length === 0) {
      const id = addTransaction(fake, ids, rng, 0.3);
      saved = { transactions: [fake.transactionDetail(id)] };
    } else if (roll <= 7) {
      const current = rng.pick(transactions);
      const next = {
        ...current,
        date: rng.chance(0.5) ? randomDate(rng) : current.date,
        account_id: rng.chance(0.3) ? rng.pick(accounts).id : current.account_id,
        category_id: rng.chance(0.4) ? rng.pick(categories).id : current.category_id,
        payee_id: rng.chance(0.3) ? rng.pick(live(fake.payees)).id : current.payee_id,
        approved: rng.chance(0.5) ? !current.approved : current.approved,
        memo: `edit ${fake.knowledge}`,
      };
      const resplit = rng.chance(0.2);
      fake.putTransaction(next, resplit ? randomSubs(fake, ids, rng, current.id) : undefined);
      saved = { transactions: [fake.transactionDetail(current.id)] };
    } else if (roll <= 9) {
      const current = rng.pick(transactions);
      const detail = { ...fake.transactionDetail(current.id), deleted: true };
      fake.deleteTransaction(current.id, rng.chance(0.5));
      saved = { transactions: [detail] };
    } else if (roll === 10) {
      const month = rng.pick([...fake.months.keys()]);
      const category = rng.pick(categories);
      fake.setAmounts(month, category.id, {
        budgeted: rng.int(500) * 1000,
        activity: -rng.int(500) * 1000,
      });
      saved = { monthCategories: [{ month, category: fake.categoryDetail(category.id, month) }] };
    } else if (roll === 11) {
      const category = rng.pick(categories);
      const groups = live(fake.groups);
      fake.putCategory({
        ...category,
        name: `${category.name}*`,
        category_group_id: rng.chance(0.3) ? rng.pick(groups).id : category.category_group_id,
      });
      saved = { categories: [fake.categoryDetail(category.id)] };
    } else if (roll === 12) {
      const group = rng.pick(live(fake.groups));
      fake.putGroup({ ...group, name: `${group.name}+` });
      saved = { categoryGroups: [{ ...group, name: `${group.name}+` }] };
    } else if (roll === 13) {
      const current = rng.pick(accounts);
      fake.putAccount({ ...current, name: `${current.name}!`, balance: current.balance - 1000 });
      saved = { accounts: [fake.accountDetail(current.id)] };
    } else if (roll === 14) {
      const id = ids.next(3);
      fake.putPayee(payee({ id, name: `New payee ${id.slice(-4)}` }));
      saved = { payees: [fake.payees.get(id)!.row] };
    } else if (roll === 15) {
      const months = [...fake.months.values()].filter((entry) => !entry.row.deleted);
      const entry = rng.pick(months);
      if (rng.chance(0.15) && months.length > 2) fake.remove('months', entry.row.month);
      else fake.putMonth({ ...entry.row, note: `note ${fake.knowledge}`, budgeted: rng.int(1000) });
    } else if (roll === 16) {
      const parents = live(fake.scheduled);
      if (parents.length > 0 && rng.chance(0.4)) {
        const parent = rng.pick(parents);
        const detail = { ...fake.scheduledDetail(parent.id), deleted: true };
        fake.deleteScheduled(parent.id, rng.chance(0.5));
        saved = { scheduledTransactions: [detail] };
      } else {
        const id = ids.next(9);
        fake.putScheduled(scheduledTransaction({ id, account_id: rng.pick(accounts).id }), [
          scheduledSubtransaction({ id: ids.next(10), scheduled_transaction_id: id }),
        ]);
        saved = { scheduledTransactions: [fake.scheduledDetail(id)] };
      }
    } else if (roll === 17) {
      const locations = live(fake.locations);
      if (locations.length > 0 && rng.chance(0.5)) fake.remove('locations', rng.pick(locations).id);
      else
        fake.putLocation(
          payeeLocation({ id: ids.next(4), payee_id: rng.pick(live(fake.payees)).id }),
        );
    } else if (roll === 18 && categories.length > 3) {
      fake.remove('categories', rng.pick(categories).id);
    } else {
      const id = ids.next(2);
      fake.putAccount(account({ id, name: `Account ${id.slice(-4)}`, on_budget: rng.chance(0.7) }));
      saved = { accounts: [fake.accountDetail(id)] };
    }
  });
  return saved && { ...saved, serverKnowledge: knowledge };
}
