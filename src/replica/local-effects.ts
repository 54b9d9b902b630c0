/**
 * Pure: the derived figures a write moves, computed from the replica held just before it, so a
 * write whose answer is exactly one knowledge step past the replica can answer them without a
 * delta sync (see `src/writes/pipeline.ts`). The rules are the product's, as the REST interface
 * documents them and the sandbox implements them (packages/sandbox/src/store/transactions.ts,
 * budget.ts, goals.ts); each rule below names the sandbox function it mirrors.
 *
 * - Posting (`post`, `postLine`): a live transaction adds its amount to its account's `balance`,
 *   and to `cleared_balance` unless uncleared. In an on-budget account, each line (the
 *   transaction, or each split line) adds its amount to its category's `activity` in the
 *   transaction's month; on a credit card (an account with a payment category) a categorized
 *   line is also card activity of that category, and an uncategorized transfer between the card
 *   and another on-budget account is a payment: the card's payment category's activity moves by
 *   minus its amount.
 * - Transfers (`createCounterpart`, `reconcileCounterpart`, `deleteTransaction`): a transaction
 *   whose payee is another account's transfer payee has a counterpart there (the answer names it
 *   in `transfer_transaction_id` but does not carry it): opposite amount, same date and memo,
 *   uncleared, uncategorized, the source's transfer payee. An update keeping the target moves
 *   the counterpart along; a changed target retires it and creates another; a deletion retires
 *   it. The counterpart is posted like any transaction and is one of the derived rows.
 * - balance(m, c) = max(0, balance(m-1, c)) + budgeted(m, c) + activity(m, c), walked from the
 *   first changed month to the last month held; for each month of a category with card activity
 *   the card settlement (`card-spending.ts`) moves money into the cards' payment categories,
 *   whose balances are walked after (`settleBudget`).
 * - Month totals (`recomputeMonthTotals`): `income` = activity of 'Inflow: Ready to Assign',
 *   `budgeted` and `activity` the sums of the other categories; to_be_budgeted(m) =
 *   to_be_budgeted(m-1) + income(m) - budgeted(m) + overspent(m-1), overspent being the cash
 *   overspending (a negative balance less its credit overspending). The Ready to Assign row
 *   shows activity = income, balance = to_be_budgeted.
 * - A payee named by the write (`payee_name`) that the replica does not hold is new: the answer
 *   names its id, the replica holds it from the write on (`saved.ts`), and it is a derived row.
 * - Target progress (`goalProgress` in goals.ts): each category month with a target whose
 *   amounts move gets its progress fields recomputed from its goal configuration, its new
 *   amounts and its own month (`goal-progress.ts`; no clock is read). The REST interface does not
 *   document these rules, so a row is followed only when they reproduce the progress it holds for
 *   its held amounts; otherwise the write is uncovered (below).
 *
 * Every figure is computed as a difference applied to the held rows, so only the categories a
 * write touches are walked. Whatever these rules do not cover answers `null`, and the caller
 * falls back to a delta sync: transfers from or to split lines, a transaction naming its own
 * counterpart in the same write, card accounts whose payment category is not found by name (or
 * not uniquely), a category month with a target whose held progress fields are not what the
 * rules give for its held amounts (an upstream whose rules differ, or count from a date the
 * replica does not know) or whose progress would pass 2^53, future-dated transactions, months the
 * replica does not hold, deleted categories, imported or matched transactions, a category with
 * more than `CARD_SCAN_LIMIT` transactions from the changed month on, and sums past 2^53.
 */
import type {
  IsoDate,
  Payee,
  TransactionDetail,
  TransactionSummaryBase,
} from '@plans-gateway/rest-contract';
import { type CardSettlement, cashOverspending, settleCardSpending } from './card-spending.js';
import {
  GOAL_PROGRESS_FIELDS,
  type GoalProgress,
  goalProgress,
  type MonthAmounts,
} from './goal-progress.js';
import type {
  AccountRow,
  CategoryRow,
  DerivedRowSet,
  DerivedRows,
  ExportCategory,
  MonthRow,
  PlanSnapshot,
  SubTransactionRow,
  TransactionRow,
} from './types.js';

/** The rows a write's derived effects change, and what they were before it. */
export type LocalEffects = DerivedRows;

/** What a write did, as far as its derived effects go. */
export type LocalWrite =
  /** Transactions saved (created, updated or deleted), as the write's answer carries them. */
  | { readonly kind: 'transactions'; readonly saved: readonly TransactionDetail[] }
  /** A month category's assigned amount set (`updateMonthCategory`). */
  | {
      readonly kind: 'budgeted';
      readonly month: IsoDate;
      readonly categoryId: string;
      readonly budgeted: number;
    };

/** The name the product gives the category income goes to. */
export const READY_TO_ASSIGN_NAME = 'Inflow: Ready to Assign';
/** The group of the credit card payment categories (each named as its card account). */
const CARD_PAYMENTS_GROUP = 'Credit Card Payments';
/** Account types that have a payment category. */
const CARD_TYPES: ReadonlySet<string> = new Set(['creditCard', 'lineOfCredit']);
/** A category with this many transactions from a month on is not searched for card spending. */
const CARD_SCAN_LIMIT = 2000;

/** Private: the arithmetic cannot follow this write; the caller syncs instead. */
class Uncovered extends Error {
  override readonly name = 'Uncovered';
  readonly code = 'GW_ERR_LOCAL_EFFECTS_UNCOVERED';
}

function uncovered(): never {
  throw new Uncovered();
}

function num(value: number | bigint): number {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : uncovered();
}

/** The opposite amount (never -0, which JSON and the upstream write as 0). */
function opposite(amount: number | bigint): number {
  const value = num(amount);
  return value === 0 ? 0 : -value;
}

function sum(a: number, b: number): number {
  const total = a + b;
  return Number.isSafeInteger(total) ? total : uncovered();
}

const monthOf = (date: string): IsoDate => `${date.slice(0, 7)}-01`;

/** One line of a posting: what a category's activity receives. */
interface Line {
  readonly categoryId: string | null;
  readonly transferAccountId: string | null;
  readonly amount: number;
}

/** A transaction's effect, to add (+1) or take back (-1). */
interface Posting {
  readonly accountId: string;
  readonly date: string;
  readonly amount: number;
  readonly cleared: boolean;
  readonly lines: readonly Line[];
}

type Transaction = Omit<TransactionRow, 'plan_id'> | TransactionSummaryBase;

function postingOf(row: Transaction, subs: readonly SubTransactionRow[]): Posting {
  const live = subs.filter((sub) => !sub.deleted);
  return {
    accountId: row.account_id,
    date: row.date,
    amount: num(row.amount),
    cleared: row.cleared !== 'uncleared',
    lines:
      live.length > 0
        ? live.map((sub) => ({
            categoryId: sub.category_id ?? null,
            transferAccountId: sub.transfer_account_id ?? null,
            amount: num(sub.amount),
          }))
        : [
            {
              categoryId: row.category_id ?? null,
              transferAccountId: row.transfer_account_id ?? null,
              amount: num(row.amount),
            },
          ],
  };
}

function withoutPlan(row: TransactionRow): TransactionSummaryBase {
  const { plan_id: _plan, ...rest } = row;
  return rest;
}

function subsOfDetail(detail: TransactionDetail): readonly SubTransactionRow[] {
  return detail.subtransactions as unknown as readonly SubTransactionRow[];
}

/** Private: a map of maps, summed into. */
class Sums<K1, K2> {
  readonly byKey = new Map<K1, Map<K2, number>>();

  add(first: K1, second: K2, amount: number): void {
    let inner = this.byKey.get(first);
    if (!inner) {
      inner = new Map();
      this.byKey.set(first, inner);
    }
    inner.set(second, sum(inner.get(second) ?? 0, amount));
  }
}

/** Private: differences accumulated over a write's postings. */
class Deltas {
  readonly accounts = new Map<string, { balance: number; cleared: number }>();
  /** category id → month → activity added. */
  readonly activity = new Sums<string, IsoDate>();
  /** category id → month → budgeted set. */
  readonly budgeted = new Map<string, Map<IsoDate, number>>();
  /** category id → month/card → card activity added (`${month}|${cardId}`). */
  readonly cardActivity = new Sums<string, string>();
  /** Transactions the write changes that its answer does not carry, and before it. */
  readonly transactions = new Map<
    string,
    { readonly row: TransactionSummaryBase; readonly previous: TransactionSummaryBase }
  >();
  readonly payees = new Map<string, Payee>();

  account(id: string, amount: number, cleared: boolean): void {
    const held = this.accounts.get(id) ?? { balance: 0, cleared: 0 };
    held.balance = sum(held.balance, amount);
    if (cleared) held.cleared = sum(held.cleared, amount);
    this.accounts.set(id, held);
  }
}

/**
 * The rows `write` changes, from `snapshot` (the replica just before the write's answer is
 * applied), or null when the write does something these rules do not cover.
 */
export function localEffects(
  snapshot: PlanSnapshot,
  write: LocalWrite,
  today: IsoDate,
): LocalEffects | null {
  try {
    return computeEffects(snapshot, write, today);
  } catch (error) {
    if (error instanceof Uncovered || error instanceof RangeError) return null;
    throw error;
  }
}

function computeEffects(snapshot: PlanSnapshot, write: LocalWrite, today: IsoDate): LocalEffects {
  const context = new Context(snapshot, today);
  const deltas = new Deltas();
  if (write.kind === 'budgeted') {
    const month = monthOf(write.month);
    // Ready to Assign's own assigned amount is put back to 0 by the month totals.
    if (context.isReadyToAssign(write.categoryId)) uncovered();
    context.checkCategory(write.categoryId, month);
    deltas.budgeted.set(write.categoryId, new Map([[month, write.budgeted]]));
  } else {
    const savedIds = new Set(write.saved.map((detail) => detail.id));
    for (const detail of write.saved) {
      if (detail.import_id != null || detail.matched_transaction_id != null) uncovered();
      context.notePayees(deltas, detail);
      const found = snapshot.transaction(detail.id);
      const held = found && !found.deleted ? found : undefined;
      const heldSubs = held ? snapshot.subtransactionsOf(held.id) : [];
      if (held) context.post(deltas, postingOf(held, heldSubs), -1);
      if (!detail.deleted) context.post(deltas, postingOf(detail, subsOfDetail(detail)), 1);
      context.followCounterpart(deltas, held, heldSubs, detail, savedIds);
    }
  }
  return context.effects(deltas);
}

/** Private: the snapshot's rows as the rules read them. */
class Context {
  private readonly months: readonly IsoDate[];
  private readonly readyToAssign: string | undefined;
  /** Card account id → its payment category id. */
  private readonly paymentOf = new Map<string, string>();
  /** Every live category of the payment group, whether a card was found for it or not. */
  private readonly paymentGroup = new Set<string>();
  private readonly mappedPayments = new Set<string>();
  /** Card-type accounts whose payment category was not found by name, or not uniquely. */
  private readonly unmappedCards = new Set<string>();

  constructor(
    private readonly snapshot: PlanSnapshot,
    private readonly today: IsoDate,
  ) {
    this.months = snapshot
      .months()
      .map((row) => row.month)
      .sort();
    const categories = snapshot.categories();
    this.readyToAssign = categories.find((row) => row.name === READY_TO_ASSIGN_NAME)?.id;
    const byName = new Map<string, string[]>();
    for (const row of categories) {
      if (
        row.deleted ||
        snapshot.categoryGroup(row.category_group_id)?.name !== CARD_PAYMENTS_GROUP
      )
        continue;
      this.paymentGroup.add(row.id);
      byName.set(row.name, [...(byName.get(row.name) ?? []), row.id]);
    }
    const cardsByName = new Map<string, number>();
    for (const account of snapshot.accounts()) {
      if (!account.deleted && CARD_TYPES.has(account.type))
        cardsByName.set(account.name, (cardsByName.get(account.name) ?? 0) + 1);
    }
    for (const account of snapshot.accounts()) {
      if (account.deleted || !CARD_TYPES.has(account.type)) continue;
      const found = byName.get(account.name);
      if (found?.length === 1 && cardsByName.get(account.name) === 1) {
        this.paymentOf.set(account.id, found[0]!);
        this.mappedPayments.add(found[0]!);
      } else this.unmappedCards.add(account.id);
    }
  }

  isReadyToAssign(categoryId: string): boolean {
    return categoryId === this.readyToAssign;
  }

  /** A payee the write names that the replica does not hold: new, if the answer names it. */
  notePayees(deltas: Deltas, detail: TransactionDetail): void {
    const named = [
      { id: detail.payee_id, name: detail.payee_name, transfer: detail.transfer_account_id },
      ...detail.subtransactions.map((sub) => ({
        id: sub.payee_id,
        name: sub.payee_name,
        transfer: sub.transfer_account_id,
      })),
    ];
    for (const { id, name, transfer } of named) {
      if (id == null || this.snapshot.payee(id)) continue;
      // A transfer payee comes with its account; one without a name cannot be shown.
      if (transfer != null || name == null) uncovered();
      deltas.payees.set(id, { id, name, transfer_account_id: null, deleted: false });
    }
  }

  /** Whether the account is a card, uncovered when it is of a card's type but has no payment category. */
  private cardOf(account: AccountRow): string | null {
    if (this.unmappedCards.has(account.id)) uncovered();
    return this.paymentOf.has(account.id) ? account.id : null;
  }

  private liveAccount(id: string): AccountRow {
    const account = this.snapshot.account(id);
    return account && !account.deleted ? account : uncovered();
  }

  post(deltas: Deltas, posting: Posting, sign: 1 | -1): void {
    const account = this.liveAccount(posting.accountId);
    if (posting.date > this.today) uncovered();
    deltas.account(account.id, sign * posting.amount, posting.cleared);
    if (!account.on_budget) return;
    const month = monthOf(posting.date);
    if (!this.months.includes(month)) uncovered();
    const cardId = this.cardOf(account);
    for (const line of posting.lines) {
      const amount = sign * line.amount;
      if (amount === 0) continue;
      if (line.categoryId !== null) {
        this.checkCategory(line.categoryId, month);
        deltas.activity.add(line.categoryId, month, amount);
        if (cardId !== null && line.categoryId !== this.readyToAssign)
          deltas.cardActivity.add(line.categoryId, `${month}|${cardId}`, amount);
        continue;
      }
      if (cardId === null || line.transferAccountId === null) continue;
      if (!this.liveAccount(line.transferAccountId).on_budget) continue;
      // A payment to (or a cash advance from) the card.
      const payment = this.paymentOf.get(cardId) as string;
      this.checkCategory(payment, month);
      deltas.activity.add(payment, month, -amount);
    }
  }

  /**
   * The other side of a transfer, as the write leaves it (see the rules above): `held` is the
   * transaction before the write (live), `detail` the answer's.
   */
  followCounterpart(
    deltas: Deltas,
    held: TransactionRow | undefined,
    heldSubs: readonly SubTransactionRow[],
    detail: TransactionDetail,
    savedIds: ReadonlySet<string>,
  ): void {
    const lines = [...heldSubs.filter((sub) => !sub.deleted), ...detail.subtransactions];
    if (lines.some((sub) => sub.transfer_account_id != null || sub.transfer_transaction_id != null))
      uncovered();
    const oldTarget = held?.transfer_account_id ?? null;
    const oldId = held?.transfer_transaction_id ?? null;
    const newTarget = detail.deleted ? null : (detail.transfer_account_id ?? null);
    if (oldId === null && oldTarget === null && newTarget === null) return;
    if (deltas.transactions.has(detail.id)) uncovered();
    let counterpart: TransactionRow | undefined;
    if (oldId !== null) {
      // The other side is a split line, or also saved by this write: not followed.
      counterpart = this.snapshot.transaction(oldId) ?? uncovered();
      if (savedIds.has(oldId) || deltas.transactions.has(oldId)) uncovered();
      if (this.snapshot.subtransactionsOf(oldId).some((sub) => !sub.deleted)) uncovered();
    }
    const before = counterpart && !counterpart.deleted ? withoutPlan(counterpart) : undefined;
    if (held && before && oldTarget !== null && oldTarget === newTarget) {
      if (detail.transfer_transaction_id !== before.id) uncovered();
      const source = this.liveAccount(detail.account_id);
      const moved: TransactionSummaryBase = {
        ...before,
        date: detail.date,
        amount: opposite(detail.amount),
        payee_id: source.transfer_payee_id ?? null,
        transfer_account_id: source.id,
        category_id: this.effectiveCategory(before.account_id, source.id, before.category_id),
      };
      this.post(deltas, postingOf(before, []), -1);
      this.post(deltas, postingOf(moved, []), 1);
      deltas.transactions.set(before.id, { row: moved, previous: before });
      return;
    }
    if (before) {
      this.post(deltas, postingOf(before, []), -1);
      deltas.transactions.set(before.id, { row: { ...before, deleted: true }, previous: before });
    }
    if (newTarget === null) return;
    const id = detail.transfer_transaction_id ?? uncovered();
    if (this.snapshot.transaction(id) || savedIds.has(id) || deltas.transactions.has(id))
      uncovered();
    const source = this.liveAccount(detail.account_id);
    this.liveAccount(newTarget);
    const created: TransactionSummaryBase = {
      id,
      date: detail.date,
      amount: opposite(detail.amount),
      memo: detail.memo ?? null,
      cleared: 'uncleared',
      approved: detail.approved,
      flag_color: null,
      flag_name: null,
      account_id: newTarget,
      payee_id: source.transfer_payee_id ?? null,
      category_id: null,
      transfer_account_id: source.id,
      transfer_transaction_id: detail.id,
      matched_transaction_id: null,
      import_id: null,
      import_payee_name: null,
      import_payee_name_original: null,
      debt_transaction_type: null,
      deleted: false,
    };
    this.post(deltas, postingOf(created, []), 1);
    deltas.transactions.set(id, { row: created, previous: { ...created, deleted: true } });
  }

  /** The category a transfer's side keeps (`effectiveCategory`). */
  private effectiveCategory(
    accountId: string,
    transferAccountId: string,
    categoryId: string | null | undefined,
  ): string | null {
    if (categoryId == null) return null;
    if (this.liveAccount(accountId).on_budget && this.liveAccount(transferAccountId).on_budget)
      return null;
    return this.paymentGroup.has(categoryId) ? null : categoryId;
  }

  /** Uncovered unless the category's money moves by the rules above alone. */
  checkCategory(categoryId: string, month: IsoDate): void {
    if (!this.months.includes(month)) uncovered();
    const row = this.snapshot.category(categoryId, month);
    if (!row || row.deleted || row.month !== month) uncovered();
    if (categoryId === this.readyToAssign) return;
    const group = this.snapshot.categoryGroup(row.category_group_id);
    if (!group) uncovered();
    // A payment category whose card is not known: what moves into it cannot be followed.
    if (this.paymentGroup.has(categoryId) && !this.mappedPayments.has(categoryId)) uncovered();
  }

  effects(deltas: Deltas): LocalEffects {
    const accounts: LocalEffects['accounts'][number][] = [];
    const previous = new Collected();
    for (const [id, delta] of deltas.accounts) {
      if (delta.balance === 0 && delta.cleared === 0) continue;
      const { plan_id: _plan, ...row } = this.snapshot.account(id) as AccountRow;
      previous.accounts.push(row);
      accounts.push({
        ...row,
        balance: sum(num(row.balance), delta.balance),
        cleared_balance: sum(num(row.cleared_balance), delta.cleared),
        uncleared_balance: sum(num(row.uncleared_balance), delta.balance - delta.cleared),
      });
    }
    const monthCategories: { month: IsoDate; category: ExportCategory }[] = [];
    const totals = new MonthTotals();
    const rta = this.readyToAssign;
    const activity = deltas.activity.byKey;
    const walk = (categoryId: string, moves: Sums<string, IsoDate> | null) =>
      this.walkCategory(
        categoryId,
        {
          activity: activity.get(categoryId) ?? new Map(),
          budgeted: deltas.budgeted.get(categoryId) ?? new Map(),
          cards: deltas.cardActivity.byKey.get(categoryId) ?? new Map(),
        },
        moves,
        totals,
        monthCategories,
        previous,
      );
    // Spending categories first: their card settlement moves money into payment categories.
    const moves = new Sums<string, IsoDate>();
    const touched = new Set([
      ...activity.keys(),
      ...deltas.budgeted.keys(),
      ...deltas.cardActivity.byKey.keys(),
    ]);
    for (const categoryId of touched) {
      if (categoryId === rta) {
        for (const [month, amount] of activity.get(categoryId) ?? []) {
          totals.add(month, 'income', amount);
        }
      } else if (!this.paymentGroup.has(categoryId)) walk(categoryId, moves);
    }
    for (const [categoryId, byMonth] of moves.byKey) {
      for (const [month, amount] of byMonth) deltas.activity.add(categoryId, month, amount);
    }
    for (const categoryId of new Set([...activity.keys(), ...deltas.budgeted.keys()])) {
      if (this.paymentGroup.has(categoryId)) walk(categoryId, null);
    }
    const months = this.walkMonths(totals, monthCategories, previous);
    const transactions = [...deltas.transactions.values()];
    const payees = [...deltas.payees.values()];
    return {
      accounts,
      months,
      monthCategories,
      ...(transactions.length > 0 ? { transactions: transactions.map((t) => t.row) } : {}),
      ...(payees.length > 0 ? { payees } : {}),
      previous: {
        ...previous,
        ...(transactions.length > 0 ? { transactions: transactions.map((t) => t.previous) } : {}),
        ...(payees.length > 0
          ? { payees: payees.map((payee) => ({ ...payee, deleted: true })) }
          : {}),
      },
    };
  }

  /**
   * Private: one category's rows from its first changed month to the last month held; with
   * `moves`, a spending category's card settlement, whose changes go to the payment categories.
   */
  private walkCategory(
    categoryId: string,
    changes: {
      readonly activity: ReadonlyMap<IsoDate, number>;
      readonly budgeted: ReadonlyMap<IsoDate, number>;
      readonly cards: ReadonlyMap<string, number>;
    },
    moves: Sums<string, IsoDate> | null,
    totals: MonthTotals,
    out: { month: IsoDate; category: ExportCategory }[],
    previous: Collected,
  ): void {
    const cardChanges = new Sums<IsoDate, string>();
    for (const [key, amount] of changes.cards) {
      const [month, cardId] = key.split('|') as [IsoDate, string];
      cardChanges.add(month, cardId, amount);
    }
    const changed = [
      ...changes.activity.keys(),
      ...changes.budgeted.keys(),
      ...cardChanges.byKey.keys(),
    ].sort();
    const first = changed[0];
    const last = changed.at(-1);
    if (first === undefined) return;
    const start = this.months.indexOf(first);
    if (start < 0) uncovered();
    const heldCards = moves
      ? this.cardActivityFrom(categoryId, first)
      : new Sums<IsoDate, string>();
    const before = start > 0 ? this.monthRow(categoryId, this.months[start - 1]!) : undefined;
    let oldCarry = before ? Math.max(0, num(before.balance)) : 0;
    let newCarry = oldCarry;
    for (let i = start; i < this.months.length; i++) {
      const month = this.months[i]!;
      const row = this.monthRow(categoryId, month);
      if (!row) continue;
      if (row.deleted) uncovered();
      const oldBudgeted = num(row.budgeted);
      const oldActivity = num(row.activity);
      const oldBalance = num(row.balance);
      const newBudgeted = changes.budgeted.get(month) ?? oldBudgeted;
      const newActivity = sum(oldActivity, changes.activity.get(month) ?? 0);
      const newBalance = sum(sum(newCarry, newBudgeted), newActivity);
      const cardsMoved = cardChanges.byKey.get(month);
      let oldSettled: CardSettlement | undefined;
      let newSettled: CardSettlement | undefined;
      if (moves) {
        const oldCards = heldCards.byKey.get(month);
        const newCards = new Map(oldCards ?? []);
        for (const [cardId, amount] of cardsMoved ?? []) {
          newCards.set(cardId, sum(newCards.get(cardId) ?? 0, amount));
        }
        oldSettled = settleCardSpending(oldCarry, oldBudgeted, oldActivity, oldCards);
        newSettled = settleCardSpending(newCarry, newBudgeted, newActivity, newCards);
        for (const cardId of new Set([...oldSettled.moved.keys(), ...newSettled.moved.keys()])) {
          const change = (newSettled.moved.get(cardId) ?? 0) - (oldSettled.moved.get(cardId) ?? 0);
          if (change !== 0) moves.add(this.paymentOf.get(cardId) ?? uncovered(), month, change);
        }
      }
      // The settlement follows what the month was, so an unchanged month's balance is enough.
      const sameInputs =
        newCarry === oldCarry &&
        newBudgeted === oldBudgeted &&
        newActivity === oldActivity &&
        [...(cardsMoved?.values() ?? [])].every((amount) => amount === 0);
      oldCarry = Math.max(0, oldBalance);
      newCarry = Math.max(0, newBalance);
      if (sameInputs && newBalance === oldBalance) {
        // Nothing further moves once a month is what it was and no later month changed.
        if (last === undefined || last <= month) break;
        continue;
      }
      const oldCredit = oldSettled?.creditOverspent ?? 0;
      const newCredit = newSettled?.creditOverspent ?? 0;
      totals.add(month, 'budgeted', newBudgeted - oldBudgeted);
      totals.add(month, 'activity', newActivity - oldActivity);
      totals.add(
        month,
        'overspent',
        cashOverspending(newBalance, newCredit) - cashOverspending(oldBalance, oldCredit),
      );
      if (newBudgeted === oldBudgeted && newActivity === oldActivity && newBalance === oldBalance) {
        continue;
      }
      const { plan_id: _plan, month: _month, ...category } = row;
      previous.monthCategories.push({ month, category });
      out.push({
        month,
        category: {
          ...category,
          budgeted: newBudgeted,
          activity: newActivity,
          balance: newBalance,
          ...goalFields(row, { budgeted: newBudgeted, activity: newActivity, balance: newBalance }),
        },
      });
    }
  }

  /**
   * Private: the category's card activity held, by month and card, from `month` on: the sum of
   * its lines on card accounts (the sandbox keeps these sums as `cardActivity`).
   */
  private cardActivityFrom(categoryId: string, month: IsoDate): Sums<IsoDate, string> {
    const sums = new Sums<IsoDate, string>();
    const page = this.snapshot.transactions({
      categoryId,
      sinceDate: month,
      first: CARD_SCAN_LIMIT,
    });
    if (page.rows.length >= CARD_SCAN_LIMIT) uncovered();
    for (const tx of page.rows) {
      const account = this.liveAccount(tx.account_id);
      if (!account.on_budget) continue;
      const cardId = this.cardOf(account);
      if (cardId === null) continue;
      const { lines } = postingOf(tx, this.snapshot.subtransactionsOf(tx.id));
      for (const line of lines) {
        if (line.categoryId === categoryId) sums.add(monthOf(tx.date), cardId, line.amount);
      }
    }
    return sums;
  }

  /** Private: the month summaries (and Ready to Assign rows) the category changes move. */
  private walkMonths(
    totals: MonthTotals,
    out: { month: IsoDate; category: ExportCategory }[],
    previous: Collected,
  ): LocalEffects['months'][number][] {
    const changed = [...totals.byMonth.keys()].sort()[0];
    if (changed === undefined) return [];
    const months: LocalEffects['months'][number][] = [];
    let carried = 0; // to_be_budgeted moved in the month before
    let overspentBefore = 0; // overspent moved in the month before
    for (let i = this.months.indexOf(changed); i < this.months.length; i++) {
      const month = this.months[i]!;
      const row = this.snapshot.month(month) as MonthRow;
      const moved = totals.byMonth.get(month) ?? EMPTY_TOTALS;
      const tbbMoved = carried + moved.income - moved.budgeted + overspentBefore;
      carried = tbbMoved;
      overspentBefore = moved.overspent;
      if (tbbMoved === 0 && moved.income === 0 && moved.budgeted === 0 && moved.activity === 0) {
        continue;
      }
      const { plan_id: _plan, ...summary } = row;
      const toBeBudgeted = sum(num(row.to_be_budgeted), tbbMoved);
      previous.months.push({ ...summary, categories: [] });
      months.push({
        ...summary,
        income: sum(num(row.income), moved.income),
        budgeted: sum(num(row.budgeted), moved.budgeted),
        activity: sum(num(row.activity), moved.activity),
        to_be_budgeted: toBeBudgeted,
        categories: [],
      });
      const rta =
        this.readyToAssign === undefined ? undefined : this.monthRow(this.readyToAssign, month);
      if (rta) {
        const { plan_id: _p, month: _m, ...category } = rta;
        previous.monthCategories.push({ month, category });
        const amounts = {
          budgeted: 0,
          activity: sum(num(rta.activity), moved.income),
          balance: toBeBudgeted,
        };
        out.push({ month, category: { ...category, ...amounts, ...goalFields(rta, amounts) } });
      }
    }
    return months;
  }

  private monthRow(categoryId: string, month: IsoDate): CategoryRow | undefined {
    const row = this.snapshot.category(categoryId, month);
    return row && row.month === month ? row : undefined;
  }
}

/**
 * The progress fields of a category month with a target, for its new amounts (`goal-progress.ts`);
 * none for a category without one. Uncovered unless the rules reproduce the progress the row
 * holds for its held amounts: a row whose figures came from rules of another kind (an upstream
 * that is not the sandbox, or one counting from a date the replica does not know) is left to
 * the delta, so these rules never overwrite figures they would not have computed themselves.
 */
function goalFields(row: CategoryRow, amounts: MonthAmounts): Partial<GoalProgress> {
  if (row.goal_type == null) return {};
  const held = goalProgress(
    row,
    { budgeted: num(row.budgeted), activity: num(row.activity), balance: num(row.balance) },
    row.month,
  );
  if (!held || GOAL_PROGRESS_FIELDS.some((field) => row[field] !== held[field])) uncovered();
  return goalProgress(row, amounts, row.month) ?? uncovered();
}

interface Totals {
  income: number;
  budgeted: number;
  activity: number;
  overspent: number;
}
const EMPTY_TOTALS: Readonly<Totals> = { income: 0, budgeted: 0, activity: 0, overspent: 0 };

/** Private: what the category changes move in each month's totals. */
class MonthTotals {
  readonly byMonth = new Map<IsoDate, Totals>();

  add(month: IsoDate, field: keyof Totals, amount: number): void {
    if (amount === 0) return;
    const held = this.byMonth.get(month) ?? { ...EMPTY_TOTALS };
    held[field] = sum(held[field], amount);
    this.byMonth.set(month, held);
  }
}

/** Private: rows as they were before the write. */
class Collected implements DerivedRowSet {
  readonly accounts: DerivedRowSet['accounts'][number][] = [];
  readonly months: DerivedRowSet['months'][number][] = [];
  readonly monthCategories: { month: IsoDate; category: ExportCategory }[] = [];
}
