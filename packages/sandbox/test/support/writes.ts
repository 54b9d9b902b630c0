/**
 * Random, valid write sequences for the property tests. A write is generated abstractly (a kind
 * and a list of random numbers) and made concrete against the plan as it is when the write
 * runs, so every sequence stays meaningful whatever came before it. Each write must succeed:
 * a refusal of a valid request is itself a finding.
 */

import type {
  AccountBase,
  CategoryBase,
  PlanDetail,
  SaveSubTransaction,
  TransactionSummaryBase,
} from '@plans-gateway/rest-contract';
import fc from 'fast-check';
import { addDays, addMonths, isoDate, monthOf } from './dates.js';
import type { Rest, RestResponse } from './rest.js';
import { FREQUENCY_VALUES } from './shapes.js';

export const WRITE_KINDS = [
  'createTransaction',
  'createTransactions',
  'createSplit',
  'createMatchingImport',
  'updateTransaction',
  'updateTransactionsById',
  'updateTransactionsByImportId',
  'deleteTransaction',
  'assignMonthCategory',
  'createScheduled',
  'updateScheduled',
  'deleteScheduled',
  'createPayee',
  'updatePayee',
  'createCategory',
  'updateCategory',
  'createCategoryGroup',
  'updateCategoryGroup',
  'createAccount',
  'importTransactions',
  'cardSpending',
  'cardRefund',
  'cardPayment',
] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

export interface Write {
  kind: WriteKind;
  choices: number[];
}

/** Transaction writes come up more often than the rest: they drive most of the arithmetic. */
export const writeArbitrary: fc.Arbitrary<Write> = fc.record({
  kind: fc.oneof(
    {
      weight: 5,
      arbitrary: fc.constantFrom<WriteKind>(
        'createTransaction',
        'createSplit',
        'updateTransaction',
      ),
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom<WriteKind>(
        'createTransactions',
        'createMatchingImport',
        'updateTransactionsById',
        'updateTransactionsByImportId',
        'deleteTransaction',
      ),
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom<WriteKind>('cardSpending', 'cardRefund', 'cardPayment'),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom<WriteKind>(
        'assignMonthCategory',
        'createScheduled',
        'updateScheduled',
        'deleteScheduled',
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom<WriteKind>(
        'createPayee',
        'updatePayee',
        'createCategory',
        'updateCategory',
        'createCategoryGroup',
        'updateCategoryGroup',
        'createAccount',
        'importTransactions',
      ),
    },
  ),
  choices: fc.array(fc.nat({ max: 1_000_000 }), { minLength: 48, maxLength: 48 }),
});

/** Sequences of 5 to `maxLength` writes. */
export const writeSequenceArbitrary = (maxLength: number): fc.Arbitrary<Write[]> =>
  fc.array(writeArbitrary, { minLength: Math.min(5, maxLength), maxLength });

/** Draws successive choices; runs out gracefully by cycling. */
class Picker {
  private index = 0;
  constructor(private readonly choices: readonly number[]) {}
  next(): number {
    const value = this.choices[this.index % this.choices.length] ?? 0;
    this.index += 1;
    return value;
  }
  below(n: number): number {
    return n <= 0 ? 0 : this.next() % n;
  }
  chance(oneIn: number): boolean {
    return this.below(oneIn) === 0;
  }
  pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[this.below(items.length)];
  }
}

/** Names and import ids that never collide within one sequence. */
export interface WriteState {
  counter: number;
}

export interface WriteOutcome {
  description: string;
  response: RestResponse;
}

interface PlanView {
  today: string;
  accounts: AccountBase[];
  /** Open credit card accounts. */
  cards: AccountBase[];
  categories: CategoryBase[];
  readyToAssign: CategoryBase | undefined;
  payeeIds: string[];
  transferPayeeIds: Set<string>;
  transactions: TransactionSummaryBase[];
  splitParents: Set<string>;
  /** Transactions on the other side of a split's transfer line: left alone, see below. */
  lineCounterparts: Set<string>;
  scheduledIds: string[];
  /** Scheduled transactions with lines: their payee cannot be a transfer payee. */
  splitScheduledIds: Set<string>;
  groupIds: string[];
}

/** Restricts the pools to a few entities so filtered lists (by category, payee) see activity. */
function viewOf(plan: PlanDetail, today: string): PlanView {
  const live = <T extends { deleted: boolean }>(items: readonly T[]): T[] =>
    items.filter((i) => !i.deleted);
  const userGroups = live(plan.category_groups).filter(
    (g) => !g.internal && !/credit card/i.test(g.name),
  );
  const userGroupIds = new Set(userGroups.map((g) => g.id));
  const categories = live(plan.categories).filter(
    (c) => userGroupIds.has(c.category_group_id) && !c.internal,
  );
  const subs = live(plan.subtransactions);
  const subIds = new Set(subs.map((s) => s.id));
  const transactions = live(plan.transactions);
  return {
    today,
    accounts: live(plan.accounts).filter((a) => !a.closed),
    cards: live(plan.accounts).filter((a) => !a.closed && a.type === 'creditCard'),
    categories: categories.slice(0, 4),
    readyToAssign: live(plan.categories).find((c) => c.internal && /ready to assign/i.test(c.name)),
    payeeIds: live(plan.payees)
      .filter((p) => p.transfer_account_id === null)
      .map((p) => p.id)
      .slice(0, 4),
    transferPayeeIds: new Set(
      live(plan.payees)
        .filter((p) => p.transfer_account_id !== null)
        .map((p) => p.id),
    ),
    transactions,
    splitParents: new Set(subs.map((s) => s.transaction_id)),
    lineCounterparts: new Set(
      transactions
        .filter((t) => t.transfer_transaction_id !== null && subIds.has(t.transfer_transaction_id))
        .map((t) => t.id),
    ),
    scheduledIds: live(plan.scheduled_transactions).map((s) => s.id),
    splitScheduledIds: new Set(
      live(plan.scheduled_subtransactions).map((s) => s.scheduled_transaction_id),
    ),
    groupIds: userGroups.map((g) => g.id).slice(0, 3),
  };
}

function amountOf(picker: Picker): number {
  const amount = (picker.below(200_000) - 100_000) * 10;
  return amount === 0 ? -1_000 : amount;
}

function pastDate(picker: Picker, view: PlanView): string {
  return addDays(view.today, -picker.below(120));
}

function otherAccount(picker: Picker, view: PlanView, accountId: string): AccountBase | undefined {
  return picker.pick(view.accounts.filter((a) => a.id !== accountId));
}

/** Payee and category fields for a new transaction or line on `account`. */
function payeeAndCategory(
  picker: Picker,
  view: PlanView,
  state: WriteState,
  account: AccountBase,
  amount: number,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  let transferTo: AccountBase | undefined;
  switch (picker.below(5)) {
    case 0:
      fields.payee_id = picker.pick(view.payeeIds) ?? null;
      break;
    case 1:
      state.counter += 1;
      fields.payee_name = `Payee ${state.counter}`;
      break;
    case 2:
      transferTo = otherAccount(picker, view, account.id);
      fields.payee_id = transferTo?.transfer_payee_id ?? null;
      break;
    case 3:
      fields.payee_id = null;
      break;
    default:
      fields.payee_id = picker.pick(view.payeeIds) ?? null;
  }
  const categorizable = account.on_budget && !transferTo?.on_budget;
  if (!categorizable) fields.category_id = null;
  else if (amount > 0 && view.readyToAssign !== undefined && picker.chance(3))
    fields.category_id = view.readyToAssign.id;
  else fields.category_id = picker.chance(5) ? null : (picker.pick(view.categories)?.id ?? null);
  return fields;
}

function newTransaction(
  picker: Picker,
  view: PlanView,
  state: WriteState,
): Record<string, unknown> | undefined {
  const account = picker.pick(view.accounts);
  if (account === undefined) return undefined;
  const amount = amountOf(picker);
  const transaction: Record<string, unknown> = {
    account_id: account.id,
    date: pastDate(picker, view),
    amount,
    ...payeeAndCategory(picker, view, state, account, amount),
    cleared: picker.pick(['cleared', 'uncleared', 'reconciled'] as const),
    approved: picker.chance(2),
    memo: picker.chance(2) ? null : `memo ${picker.below(1000)}`,
    flag_color: picker.pick([null, 'red', 'blue', 'purple'] as const) ?? null,
  };
  if (picker.chance(3)) {
    state.counter += 1;
    transaction.import_id = `prop:${state.counter}`;
  }
  return transaction;
}

function newSplit(
  picker: Picker,
  view: PlanView,
  state: WriteState,
): Record<string, unknown> | undefined {
  const account = picker.pick(view.accounts.filter((a) => a.on_budget));
  if (account === undefined) return undefined;
  const lines: SaveSubTransaction[] = [];
  const count = 2 + picker.below(2);
  for (let index = 0; index < count; index += 1) {
    const amount = amountOf(picker);
    const line: SaveSubTransaction = { amount, memo: `line ${index}` };
    if (index === 0 && picker.chance(4)) {
      // A transfer line: the other side appears on the target account.
      const target = otherAccount(picker, view, account.id);
      line.payee_id = target?.transfer_payee_id ?? null;
      line.category_id =
        target !== undefined && !target.on_budget
          ? (picker.pick(view.categories)?.id ?? null)
          : null;
    } else {
      line.category_id = picker.pick(view.categories)?.id ?? null;
      if (picker.chance(2)) line.payee_id = picker.pick(view.payeeIds) ?? null;
    }
    lines.push(line);
  }
  const split: Record<string, unknown> = {
    account_id: account.id,
    date: pastDate(picker, view),
    amount: lines.reduce((total, line) => total + line.amount, 0),
    payee_id: picker.pick(view.payeeIds) ?? null,
    category_id: null,
    cleared: picker.pick(['cleared', 'uncleared'] as const),
    approved: true,
    subtransactions: lines,
  };
  if (picker.chance(3)) {
    state.counter += 1;
    split.import_id = `prop:${state.counter}`;
  }
  return split;
}

/** A change to an existing transaction that keeps it valid (splits keep their amount and date). */
function changeOf(
  picker: Picker,
  view: PlanView,
  state: WriteState,
  target: TransactionSummaryBase,
): Record<string, unknown> {
  const account = view.accounts.find((a) => a.id === target.account_id);
  const isSplit = view.splitParents.has(target.id);
  const isTransfer = target.transfer_account_id !== null;
  const change: Record<string, unknown> = {};
  if (view.lineCounterparts.has(target.id) || account === undefined) {
    change.memo = `edited ${picker.below(1000)}`;
    return change;
  }
  switch (picker.below(7)) {
    case 0:
      if (!isSplit) change.amount = amountOf(picker);
      break;
    case 1:
      // Most often into another month, so month activity moves.
      if (!isSplit) change.date = addDays(monthOf(view.today), -1 - picker.below(100));
      break;
    case 2:
      if (
        !isSplit &&
        account.on_budget &&
        !(isTransfer && view.accounts.find((a) => a.id === target.transfer_account_id)?.on_budget)
      ) {
        change.category_id = picker.chance(4) ? null : (picker.pick(view.categories)?.id ?? null);
      }
      break;
    case 3:
      if (!isSplit && !isTransfer) {
        const destination = otherAccount(picker, view, target.account_id);
        if (destination !== undefined) {
          change.account_id = destination.id;
          if (!destination.on_budget) change.category_id = null;
        }
      }
      break;
    case 4:
      if (!isSplit && !isTransfer) {
        const destination = otherAccount(picker, view, target.account_id);
        if (destination !== undefined) {
          change.payee_id = destination.transfer_payee_id;
          if (account.on_budget && destination.on_budget) change.category_id = null;
        }
      }
      break;
    case 5:
      if (isTransfer && !isSplit) {
        state.counter += 1;
        change.payee_name = `Payee ${state.counter}`;
      }
      break;
    default:
      break;
  }
  change.cleared = picker.pick(['cleared', 'uncleared', 'reconciled'] as const);
  if (picker.chance(2)) change.memo = `edited ${picker.below(1000)}`;
  return change;
}

/**
 * The entities the writes favour, so the filtered lists (by account, category, payee) of the
 * property tests follow entities that actually change.
 */
export function favouredTargets(
  plan: PlanDetail,
  nowMs: number,
): { accountId: string; categoryId: string; payeeId: string } {
  const view = viewOf(plan, isoDate(nowMs));
  const account = view.accounts.find((a) => a.on_budget);
  const category = view.categories[0];
  const payeeId = view.payeeIds[0];
  if (account === undefined || category === undefined || payeeId === undefined) {
    throw new Error('the plan has no open on-budget account, user category or payee to follow');
  }
  return { accountId: account.id, categoryId: category.id, payeeId };
}

/** Makes `write` concrete against `plan` and sends it; throws when the sandbox refuses it. */
export async function applyWrite(
  rest: Rest,
  planId: string,
  plan: PlanDetail,
  nowMs: number,
  write: Write,
  state: WriteState,
): Promise<WriteOutcome | null> {
  const picker = new Picker(write.choices);
  const view = viewOf(plan, isoDate(nowMs));
  const base = `/plans/${planId}`;
  const send = async (
    method: string,
    path: string,
    body: unknown,
    ok: readonly number[],
  ): Promise<WriteOutcome> => {
    const response = await rest.request(method, base + path, body === undefined ? {} : { body });
    const description = `${method} ${path} ${body === undefined ? '' : JSON.stringify(body)}`;
    if (!ok.includes(response.status)) {
      throw new Error(
        `sandbox refused a valid write: ${description}\n  -> ${response.status} ${response.text.slice(0, 400)}`,
      );
    }
    return { description, response };
  };
  const editable = view.transactions;

  switch (write.kind) {
    case 'createTransaction': {
      const transaction = newTransaction(picker, view, state);
      return transaction === undefined
        ? null
        : send('POST', '/transactions', { transaction }, [201]);
    }
    case 'createTransactions': {
      const transactions: Record<string, unknown>[] = [];
      const count = 1 + picker.below(3);
      for (let index = 0; index < count; index += 1) {
        const transaction = picker.chance(4)
          ? newSplit(picker, view, state)
          : newTransaction(picker, view, state);
        if (transaction !== undefined) transactions.push(transaction);
      }
      return transactions.length === 0
        ? null
        : send('POST', '/transactions', { transactions }, [201]);
    }
    case 'createSplit': {
      const transaction = newSplit(picker, view, state);
      return transaction === undefined
        ? null
        : send('POST', '/transactions', { transaction }, [201]);
    }
    case 'createMatchingImport': {
      // The bank's copy of a hand-entered transaction: same account and amount, a few days off.
      const entered = picker.pick(
        editable.filter(
          (t) =>
            t.import_id === null &&
            t.transfer_account_id === null &&
            !view.splitParents.has(t.id) &&
            t.matched_transaction_id === null,
        ),
      );
      if (entered === undefined) return null;
      state.counter += 1;
      const shifted = addDays(entered.date, picker.below(11) - 5);
      const transaction = {
        account_id: entered.account_id,
        // biome-ignore lint/complexity/useMathMinMax: ISO dates are strings; Math.min would coerce them
        date: shifted > view.today ? view.today : shifted,
        amount: entered.amount,
        payee_name: `BANK ${state.counter}`,
        import_id: `prop:${state.counter}`,
      };
      return send('POST', '/transactions', { transaction }, [201]);
    }
    case 'updateTransaction': {
      const target = picker.pick(editable);
      if (target === undefined) return null;
      return send(
        'PUT',
        `/transactions/${target.id}`,
        { transaction: changeOf(picker, view, state, target) },
        [200],
      );
    }
    case 'updateTransactionsById': {
      const targets = new Map<string, TransactionSummaryBase>();
      const count = 1 + picker.below(3);
      for (let index = 0; index < count; index += 1) {
        const target = picker.pick(editable);
        if (target !== undefined) targets.set(target.id, target);
      }
      if (targets.size === 0) return null;
      const transactions = [...targets.values()].map((t) => ({
        id: t.id,
        ...changeOf(picker, view, state, t),
      }));
      return send('PATCH', '/transactions', { transactions }, [200]);
    }
    case 'updateTransactionsByImportId': {
      const target = picker.pick(editable.filter((t) => t.import_id !== null));
      if (target === undefined) return null;
      const transactions = [
        { import_id: target.import_id, ...changeOf(picker, view, state, target) },
      ];
      return send('PATCH', '/transactions', { transactions }, [200]);
    }
    case 'deleteTransaction': {
      const target = picker.pick(editable.filter((t) => !view.lineCounterparts.has(t.id)));
      return target === undefined
        ? null
        : send('DELETE', `/transactions/${target.id}`, undefined, [200]);
    }
    case 'assignMonthCategory': {
      const category = picker.pick(view.categories);
      if (category === undefined) return null;
      const month = addMonths(view.today, picker.below(5) - 3);
      return send(
        'PATCH',
        `/months/${month}/categories/${category.id}`,
        { category: { budgeted: picker.below(100_000) * 10 } },
        [200],
      );
    }
    case 'createScheduled':
    case 'updateScheduled': {
      const target = write.kind === 'updateScheduled' ? picker.pick(view.scheduledIds) : undefined;
      if (write.kind === 'updateScheduled' && target === undefined) return null;
      const account = picker.pick(view.accounts);
      if (account === undefined) return null;
      const amount = amountOf(picker);
      const payeeFields = payeeAndCategory(picker, view, state, account, amount);
      if (
        target !== undefined &&
        view.splitScheduledIds.has(target) &&
        view.transferPayeeIds.has(String(payeeFields.payee_id))
      ) {
        // A split cannot be a transfer; its lines can.
        payeeFields.payee_id = picker.pick(view.payeeIds) ?? null;
      }
      const scheduled = {
        account_id: account.id,
        date: addDays(view.today, 1 + picker.below(60)),
        amount,
        ...payeeFields,
        memo: picker.chance(2) ? null : `scheduled ${picker.below(1000)}`,
        flag_color: picker.pick([null, 'green', 'orange'] as const) ?? null,
        frequency: picker.pick(FREQUENCY_VALUES),
      };
      return target === undefined
        ? send('POST', '/scheduled_transactions', { scheduled_transaction: scheduled }, [201])
        : send(
            'PUT',
            `/scheduled_transactions/${target}`,
            { scheduled_transaction: scheduled },
            [200],
          );
    }
    case 'deleteScheduled': {
      const target = picker.pick(view.scheduledIds);
      return target === undefined
        ? null
        : send('DELETE', `/scheduled_transactions/${target}`, undefined, [200]);
    }
    case 'createPayee':
      state.counter += 1;
      return send('POST', '/payees', { payee: { name: `New payee ${state.counter}` } }, [201]);
    case 'updatePayee': {
      const target = picker.pick(view.payeeIds);
      state.counter += 1;
      return target === undefined
        ? null
        : send(
            'PATCH',
            `/payees/${target}`,
            { payee: { name: `Renamed ${state.counter}` } },
            [200],
          );
    }
    case 'createCategory': {
      const group = picker.pick(view.groupIds);
      state.counter += 1;
      const category: Record<string, unknown> = {
        name: `Category ${state.counter}`,
        category_group_id: group,
      };
      if (picker.chance(2)) category.goal_target = picker.below(50_000) * 10;
      return group === undefined ? null : send('POST', '/categories', { category }, [201]);
    }
    case 'updateCategory': {
      const target = picker.pick(view.categories);
      if (target === undefined) return null;
      state.counter += 1;
      const category: Record<string, unknown> = {};
      switch (picker.below(4)) {
        case 0:
          category.name = `Renamed category ${state.counter}`;
          break;
        case 1:
          category.note = `note ${state.counter}`;
          break;
        case 2:
          category.goal_target = picker.below(50_000) * 10;
          break;
        default:
          category.category_group_id = picker.pick(view.groupIds) ?? target.category_group_id;
      }
      return send('PATCH', `/categories/${target.id}`, { category }, [200]);
    }
    case 'createCategoryGroup':
      state.counter += 1;
      return send(
        'POST',
        '/category_groups',
        { category_group: { name: `Group ${state.counter}` } },
        [201],
      );
    case 'updateCategoryGroup': {
      const target = picker.pick(view.groupIds);
      state.counter += 1;
      return target === undefined
        ? null
        : send(
            'PATCH',
            `/category_groups/${target}`,
            { category_group: { name: `Renamed group ${state.counter}` } },
            [200],
          );
    }
    case 'createAccount': {
      state.counter += 1;
      const account = {
        name: `Account ${state.counter}`,
        type: picker.pick([
          'checking',
          'savings',
          'cash',
          'creditCard',
          'otherAsset',
          'otherLiability',
        ] as const),
        balance: amountOf(picker),
      };
      return send('POST', '/accounts', { account }, [201]);
    }
    case 'importTransactions':
      return send('POST', '/transactions/import', undefined, [200, 201]);
    case 'cardSpending':
    case 'cardRefund': {
      const transaction = cardPurchase(picker, view, write.kind === 'cardRefund' ? 1 : -1);
      return transaction === undefined
        ? null
        : send('POST', '/transactions', { transaction }, [201]);
    }
    case 'cardPayment': {
      const transaction = cardPayment(picker, view);
      return transaction === undefined
        ? null
        : send('POST', '/transactions', { transaction }, [201]);
    }
  }
}

/**
 * Spending (`sign` -1) or a refund (+1) on a credit card in one of the favoured categories; one
 * time in four a split over several of them, which the card rules count line by line.
 */
function cardPurchase(
  picker: Picker,
  view: PlanView,
  sign: 1 | -1,
): Record<string, unknown> | undefined {
  const card = picker.pick(view.cards);
  const category = picker.pick(view.categories);
  if (card === undefined || category === undefined) return undefined;
  const amount = () => sign * (1 + picker.below(30_000)) * 10;
  const transaction: Record<string, unknown> = {
    account_id: card.id,
    date: pastDate(picker, view),
    payee_id: picker.pick(view.payeeIds) ?? null,
    cleared: picker.pick(['cleared', 'uncleared'] as const),
    approved: true,
  };
  if (picker.chance(4)) {
    const lines = [0, 1].map(() => ({
      amount: amount(),
      category_id: picker.pick(view.categories)?.id ?? null,
    }));
    transaction.amount = lines.reduce((total, line) => total + line.amount, 0);
    transaction.subtransactions = lines;
  } else {
    transaction.amount = amount();
    transaction.category_id = category.id;
  }
  return transaction;
}

/**
 * A payment to a credit card from another budget account (either side may write it), or now and
 * then money the other way (a cash advance or a balance transfer).
 */
function cardPayment(picker: Picker, view: PlanView): Record<string, unknown> | undefined {
  const card = picker.pick(view.cards);
  const from = picker.pick(view.accounts.filter((a) => a.on_budget && a.id !== card?.id));
  if (card === undefined || from === undefined) return undefined;
  const paid = (1 + picker.below(50_000)) * 10;
  const inward = !picker.chance(5);
  const fromCardSide = picker.chance(3);
  return {
    account_id: fromCardSide ? card.id : from.id,
    date: pastDate(picker, view),
    amount: (fromCardSide ? 1 : -1) * (inward ? paid : -paid),
    payee_id: fromCardSide ? from.transfer_payee_id : card.transfer_payee_id,
    cleared: 'cleared',
    approved: true,
  };
}
