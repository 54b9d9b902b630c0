/**
 * Budget invariants recomputed from a full plan export: balances from transactions, category
 * activity from categorized transactions and subtransactions (and, for credit card payment
 * categories, from the card rules), month totals from categories, Ready to Assign, and the
 * pairing of transfers. Each returns the violations it finds (empty when it holds).
 */
import type {
  PlanDetail,
  SubTransactionBase,
  TransactionSummaryBase,
} from '@plans-gateway/rest-contract';
import { addMonths, monthOf } from './dates.js';
import { type BudgetLine, type ReferenceMonth, referenceBudget } from './reference-budget.js';

const live = <T extends { deleted: boolean }>(items: readonly T[]): T[] =>
  items.filter((item) => !item.deleted);

/** Ids of the plan's "Inflow: Ready to Assign" category (income, not activity). */
export function readyToAssignIds(plan: PlanDetail): Set<string> {
  return new Set(
    plan.categories
      .filter((category) => category.internal && /ready to assign/i.test(category.name))
      .map((c) => c.id),
  );
}

export function balanceProblems(plan: PlanDetail): string[] {
  const problems: string[] = [];
  const transactions = live(plan.transactions);
  for (const account of live(plan.accounts)) {
    const own = transactions.filter((transaction) => transaction.account_id === account.id);
    const sum = (filter: (t: TransactionSummaryBase) => boolean): number =>
      own.filter(filter).reduce((total, t) => total + t.amount, 0);
    const balance = sum(() => true);
    const cleared = sum((t) => t.cleared !== 'uncleared');
    const uncleared = sum((t) => t.cleared === 'uncleared');
    const label = `account ${account.name} (${account.id})`;
    if (account.balance !== balance)
      problems.push(`${label}: balance ${account.balance}, transactions sum to ${balance}`);
    if (account.cleared_balance !== cleared) {
      problems.push(
        `${label}: cleared_balance ${account.cleared_balance}, cleared transactions sum to ${cleared}`,
      );
    }
    if (account.uncleared_balance !== uncleared) {
      problems.push(
        `${label}: uncleared_balance ${account.uncleared_balance}, uncleared transactions sum to ${uncleared}`,
      );
    }
    if (account.cleared_balance + account.uncleared_balance !== account.balance) {
      problems.push(`${label}: cleared + uncleared != balance`);
    }
  }
  return problems;
}

/**
 * Credit card account id → payment category id. The interface does not link them; the product
 * names the payment category after the card, in the "Credit Card Payments" group.
 */
export function paymentCategories(plan: PlanDetail): Map<string, string> {
  const group = plan.category_groups.find(
    (g) => !g.deleted && /^credit card payments$/i.test(g.name),
  );
  const byName = new Map(
    plan.categories
      .filter((c) => !c.deleted && c.category_group_id === group?.id)
      .map((c) => [c.name, c.id]),
  );
  const cards = new Map<string, string>();
  for (const account of plan.accounts) {
    const category = account.type === 'creditCard' ? byName.get(account.name) : undefined;
    if (category !== undefined) cards.set(account.id, category);
  }
  return cards;
}

/** The README's arithmetic recomputed from the export's transactions and assigned amounts. */
export function referenceOf(plan: PlanDetail): Map<string, ReferenceMonth> {
  const subsByParent = new Map<string, SubTransactionBase[]>();
  for (const sub of live(plan.subtransactions)) {
    const subs = subsByParent.get(sub.transaction_id) ?? [];
    subs.push(sub);
    subsByParent.set(sub.transaction_id, subs);
  }
  const lines: BudgetLine[] = [];
  for (const transaction of live(plan.transactions)) {
    const month = monthOf(transaction.date);
    const subs = subsByParent.get(transaction.id) ?? [];
    for (const line of subs.length > 0 ? subs : [transaction]) {
      lines.push({
        month,
        accountId: transaction.account_id,
        categoryId: line.category_id,
        transferAccountId: line.transfer_account_id,
        amount: line.amount,
      });
    }
  }
  const months = live(plan.months).sort((a, b) => a.month.localeCompare(b.month));
  const budgeted = new Map(
    months.flatMap((m) => m.categories.map((c) => [`${m.month} ${c.id}`, c.budgeted] as const)),
  );
  const categoryIds = [...new Set(months.flatMap((m) => live(m.categories).map((c) => c.id)))];
  return referenceBudget({
    months: months.map((m) => m.month),
    categoryIds,
    readyToAssignId: [...readyToAssignIds(plan)][0] ?? null,
    paymentCategories: paymentCategories(plan),
    onBudget: new Set(
      live(plan.accounts)
        .filter((a) => a.on_budget)
        .map((a) => a.id),
    ),
    budgeted: (month, categoryId) => budgeted.get(`${month} ${categoryId}`) ?? 0,
    lines,
  });
}

interface CategorizedAmount {
  categoryId: string;
  month: string;
  amount: number;
}

/** Every categorized amount on on-budget accounts: plain transactions, and the parts of splits. */
export function categorizedAmounts(plan: PlanDetail): CategorizedAmount[] {
  const onBudget = new Set(
    live(plan.accounts)
      .filter((a) => a.on_budget)
      .map((a) => a.id),
  );
  const subsByParent = new Map<string, SubTransactionBase[]>();
  for (const sub of live(plan.subtransactions)) {
    subsByParent.set(sub.transaction_id, [...(subsByParent.get(sub.transaction_id) ?? []), sub]);
  }
  const amounts: CategorizedAmount[] = [];
  for (const transaction of live(plan.transactions)) {
    if (!onBudget.has(transaction.account_id)) continue;
    const month = monthOf(transaction.date);
    const subs = subsByParent.get(transaction.id);
    if (subs !== undefined && subs.length > 0) {
      for (const sub of subs) {
        if (sub.category_id !== null)
          amounts.push({ categoryId: sub.category_id, month, amount: sub.amount });
      }
    } else if (transaction.category_id !== null) {
      amounts.push({ categoryId: transaction.category_id, month, amount: transaction.amount });
    }
  }
  return amounts;
}

/**
 * Activity of each category in each month equals its categorized amounts in that month.
 * `skip` names categories whose activity follows other documented rules.
 */
export function activityProblems(
  plan: PlanDetail,
  skipped: ReadonlySet<string> = new Set(),
): string[] {
  const problems: string[] = [];
  // Payment categories follow the card rules: cardPaymentProblems checks them.
  const skip = new Set([...skipped, ...paymentCategories(plan).values()]);
  const expected = new Map<string, number>();
  for (const { categoryId, month, amount } of categorizedAmounts(plan)) {
    const key = `${month} ${categoryId}`;
    expected.set(key, (expected.get(key) ?? 0) + amount);
  }
  const seen = new Set<string>();
  for (const month of live(plan.months)) {
    for (const category of live(month.categories)) {
      const key = `${month.month} ${category.id}`;
      seen.add(key);
      if (skip.has(category.id)) continue;
      const want = expected.get(key) ?? 0;
      if (category.activity !== want) {
        problems.push(
          `month ${month.month} category ${category.name}: activity ${category.activity}, transactions sum to ${want}`,
        );
      }
    }
  }
  for (const [key, amount] of expected) {
    if (amount !== 0 && !seen.has(key) && !skip.has(key.slice(11))) {
      problems.push(
        `${key}: categorized amount ${amount} but no such month category in the export`,
      );
    }
  }
  return problems;
}

/** Each month's budgeted / activity / income equal the sums over its categories. */
export function monthTotalProblems(plan: PlanDetail): string[] {
  const problems: string[] = [];
  const readyToAssign = readyToAssignIds(plan);
  const income = new Map<string, number>();
  for (const { categoryId, month, amount } of categorizedAmounts(plan)) {
    if (readyToAssign.has(categoryId)) income.set(month, (income.get(month) ?? 0) + amount);
  }
  for (const month of live(plan.months)) {
    const categories = live(month.categories);
    const budgeted = categories.reduce((total, c) => total + c.budgeted, 0);
    const activity = categories
      .filter((c) => !readyToAssign.has(c.id))
      .reduce((total, c) => total + c.activity, 0);
    if (month.budgeted !== budgeted)
      problems.push(
        `month ${month.month}: budgeted ${month.budgeted}, categories sum to ${budgeted}`,
      );
    if (month.activity !== activity)
      problems.push(
        `month ${month.month}: activity ${month.activity}, categories sum to ${activity}`,
      );
    const want = income.get(month.month) ?? 0;
    if (month.income !== want)
      problems.push(
        `month ${month.month}: income ${month.income}, ready-to-assign inflows sum to ${want}`,
      );
  }
  return problems;
}

/**
 * Credit card payment categories: activity is what funded card spending moved in, minus refunds
 * moved back and payments to the card; Ready to Assign follows the chain with cash overspending
 * only (credit overspending became card debt).
 */
export function cardPaymentProblems(plan: PlanDetail): string[] {
  const problems: string[] = [];
  const reference = referenceOf(plan);
  const payments = new Set(paymentCategories(plan).values());
  const readyToAssign = readyToAssignIds(plan);
  for (const month of live(plan.months)) {
    const expected = reference.get(month.month);
    if (expected === undefined) continue;
    for (const category of live(month.categories)) {
      if (!payments.has(category.id)) continue;
      const want = expected.categories.get(category.id)?.activity ?? 0n;
      if (BigInt(category.activity) !== want) {
        problems.push(
          `month ${month.month} category ${category.name}: activity ${category.activity}, the card rules give ${want}`,
        );
      }
    }
    if (readyToAssign.size > 0 && BigInt(month.to_be_budgeted) !== expected.toBeBudgeted) {
      problems.push(
        `month ${month.month}: to_be_budgeted ${month.to_be_budgeted}, the chain with cash overspending gives ${expected.toBeBudgeted}`,
      );
    }
  }
  return problems;
}

/**
 * What is available carries into the next month, overspending does not (the README's rule,
 * which is YNAB's for cash): balance(m) = max(0, balance(m-1)) + budgeted(m) + activity(m).
 * Ready to Assign follows its own rule and is left out.
 */
export function rolloverProblems(plan: PlanDetail): string[] {
  const problems: string[] = [];
  const readyToAssign = readyToAssignIds(plan);
  const months = live(plan.months).sort((a, b) => a.month.localeCompare(b.month));
  for (let index = 1; index < months.length; index += 1) {
    const previous = months[index - 1];
    const month = months[index];
    if (
      previous === undefined ||
      month === undefined ||
      addMonths(previous.month, 1) !== month.month
    )
      continue;
    const before = new Map(previous.categories.map((c) => [c.id, c.balance]));
    for (const category of live(month.categories)) {
      if (readyToAssign.has(category.id)) continue;
      const carried = Math.max(0, before.get(category.id) ?? 0);
      const want = carried + category.budgeted + category.activity;
      if (category.balance !== want) {
        problems.push(
          `month ${month.month} category ${category.name}: balance ${category.balance}, carried ${carried} + budgeted + activity = ${want}`,
        );
      }
    }
  }
  return problems;
}

/** Transfers come in mirrored pairs that point at each other through their transfer payees. */
export function transferProblems(plan: PlanDetail): string[] {
  const problems: string[] = [];
  const accounts = new Map(live(plan.accounts).map((a) => [a.id, a]));
  const transferPayees = new Map(
    live(plan.payees)
      .filter((p) => p.transfer_account_id !== null)
      .map((p) => [p.id, p.transfer_account_id]),
  );
  const transactions = new Map(live(plan.transactions).map((t) => [t.id, t]));
  const subtransactions = new Map(live(plan.subtransactions).map((s) => [s.id, s]));

  for (const account of accounts.values()) {
    if (
      account.transfer_payee_id === null ||
      transferPayees.get(account.transfer_payee_id) !== account.id
    ) {
      problems.push(`account ${account.name}: no transfer payee pointing back at it`);
    }
  }

  const checkSide = (
    label: string,
    side: {
      id: string;
      amount: number;
      payee_id: string | null;
      transfer_account_id: string | null;
      transfer_transaction_id: string | null;
    },
    ownAccountId: string,
    backRefs: readonly string[],
  ): void => {
    const viaPayee = side.payee_id === null ? undefined : transferPayees.get(side.payee_id);
    if (side.transfer_account_id === null) {
      if (viaPayee !== undefined && viaPayee !== null)
        problems.push(`${label}: transfer payee but no transfer_account_id`);
      if (side.transfer_transaction_id !== null)
        problems.push(`${label}: transfer_transaction_id without transfer_account_id`);
      return;
    }
    if (viaPayee !== side.transfer_account_id) {
      problems.push(
        `${label}: payee ${String(side.payee_id)} is not the transfer payee of ${side.transfer_account_id}`,
      );
    }
    if (side.transfer_transaction_id === null) {
      problems.push(`${label}: transfer without transfer_transaction_id`);
      return;
    }
    // When the other side is a split's transfer line, it may be named through its parent.
    const lineOfParent = [...subtransactions.values()].find(
      (sub) =>
        sub.transaction_id === side.transfer_transaction_id &&
        sub.transfer_transaction_id === side.id,
    );
    const other =
      lineOfParent ??
      transactions.get(side.transfer_transaction_id) ??
      subtransactions.get(side.transfer_transaction_id);
    if (other === undefined) {
      problems.push(`${label}: counterpart ${side.transfer_transaction_id} missing or deleted`);
      return;
    }
    const otherAccount =
      'account_id' in other ? other.account_id : transactions.get(other.transaction_id)?.account_id;
    if (otherAccount !== side.transfer_account_id) {
      problems.push(
        `${label}: counterpart is on account ${String(otherAccount)}, not ${side.transfer_account_id}`,
      );
    }
    if (other.amount !== -side.amount)
      problems.push(`${label}: counterpart amount ${other.amount} does not mirror ${side.amount}`);
    if (other.transfer_account_id !== ownAccountId) {
      problems.push(
        `${label}: counterpart transfers to ${String(other.transfer_account_id)}, not back to ${ownAccountId}`,
      );
    }
    if (
      other.transfer_transaction_id === null ||
      !backRefs.includes(other.transfer_transaction_id)
    ) {
      problems.push(
        `${label}: counterpart points at ${String(other.transfer_transaction_id)}, not back at ${backRefs.join(' or ')}`,
      );
    }
  };

  for (const transaction of transactions.values()) {
    checkSide(`transaction ${transaction.id}`, transaction, transaction.account_id, [
      transaction.id,
    ]);
  }
  for (const sub of subtransactions.values()) {
    const parent = transactions.get(sub.transaction_id);
    if (parent === undefined) {
      problems.push(`subtransaction ${sub.id}: parent ${sub.transaction_id} missing or deleted`);
      continue;
    }
    // The other side of a split's transfer line may point at the line or at its parent.
    checkSide(`subtransaction ${sub.id}`, sub, parent.account_id, [sub.id, parent.id]);
  }
  return problems;
}

/** Subtransactions of a split add up to the parent's amount. */
export function splitProblems(plan: PlanDetail): string[] {
  const problems: string[] = [];
  const sums = new Map<string, number>();
  for (const sub of live(plan.subtransactions))
    sums.set(sub.transaction_id, (sums.get(sub.transaction_id) ?? 0) + sub.amount);
  for (const transaction of live(plan.transactions)) {
    const sum = sums.get(transaction.id);
    if (sum !== undefined && sum !== transaction.amount) {
      problems.push(
        `split ${transaction.id}: subtransactions sum to ${sum}, amount is ${transaction.amount}`,
      );
    }
  }
  return problems;
}

export function budgetProblems(
  plan: PlanDetail,
  skipActivity: ReadonlySet<string> = new Set(),
): string[] {
  return [
    ...balanceProblems(plan),
    ...activityProblems(plan, skipActivity),
    ...cardPaymentProblems(plan),
    ...monthTotalProblems(plan),
    ...rolloverProblems(plan),
    ...transferProblems(plan),
    ...splitProblems(plan),
  ];
}
