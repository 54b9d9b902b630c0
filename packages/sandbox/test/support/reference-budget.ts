/**
 * The budget arithmetic of the README ("Budget arithmetic", "Credit cards"), recomputed from
 * scratch: month by month from the raw transaction lines and the assigned amounts, with nothing
 * kept between calls. The sandbox maintains the same numbers incrementally; the checkers compare
 * the two, from a plan export (support/budget.ts) and from a store (unit/support.ts).
 *
 * It computes in bigint throughout, whatever the sandbox does to stay exact past 2^53, so the
 * comparison also proves that no sum was rounded.
 */

/** One categorized amount or transfer of a live transaction (a split counts per line). */
export interface BudgetLine {
  month: string;
  accountId: string;
  categoryId: string | null;
  transferAccountId: string | null;
  amount: number | bigint;
}

export interface BudgetFacts {
  /** Ascending, contiguous. */
  months: readonly string[];
  categoryIds: readonly string[];
  readyToAssignId: string | null;
  /** Credit card account id → its payment category id. */
  paymentCategories: ReadonlyMap<string, string>;
  onBudget: ReadonlySet<string>;
  budgeted(month: string, categoryId: string): number | bigint;
  lines: readonly BudgetLine[];
}

export interface ReferenceCategory {
  activity: bigint;
  balance: bigint;
  /** Card spending the category could not fund: card debt, not taken from Ready to Assign. */
  creditOverspent: bigint;
}

export interface ReferenceMonth {
  income: bigint;
  budgeted: bigint;
  activity: bigint;
  toBeBudgeted: bigint;
  categories: Map<string, ReferenceCategory>;
}

const add = (map: Map<string, bigint>, key: string, amount: bigint) =>
  map.set(key, (map.get(key) ?? 0n) + amount);
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

export function referenceBudget(facts: BudgetFacts): Map<string, ReferenceMonth> {
  const cardOfPayment = new Map([...facts.paymentCategories].map(([card, pay]) => [pay, card]));
  const linesByMonth = new Map<string, BudgetLine[]>();
  for (const line of facts.lines) {
    if (!facts.onBudget.has(line.accountId)) continue;
    const inMonth = linesByMonth.get(line.month) ?? [];
    inMonth.push(line);
    linesByMonth.set(line.month, inMonth);
  }
  const result = new Map<string, ReferenceMonth>();
  const balances = new Map<string, bigint>();
  let previousTbb = 0n;
  let previousCashOverspent = 0n;
  for (const month of facts.months) {
    const activity = new Map<string, bigint>();
    /** category → card → net card activity */
    const onCards = new Map<string, Map<string, bigint>>();
    const payments = new Map<string, bigint>();
    for (const line of linesByMonth.get(month) ?? []) {
      const isCard = facts.paymentCategories.has(line.accountId);
      const amount = BigInt(line.amount);
      if (line.categoryId !== null) {
        add(activity, line.categoryId, amount);
        if (isCard && line.categoryId !== facts.readyToAssignId) {
          const cards = onCards.get(line.categoryId) ?? new Map<string, bigint>();
          add(cards, line.accountId, amount);
          onCards.set(line.categoryId, cards);
        }
      } else if (
        isCard &&
        line.transferAccountId !== null &&
        facts.onBudget.has(line.transferAccountId)
      ) {
        add(payments, line.accountId, -amount);
      }
    }
    const categories = new Map<string, ReferenceCategory>();
    const moved = new Map<string, bigint>();
    let cashOverspent = 0n;
    const spending = facts.categoryIds.filter(
      (id) => id !== facts.readyToAssignId && !cardOfPayment.has(id),
    );
    for (const id of spending) {
      const carry = max(0n, balances.get(id) ?? 0n);
      const own = activity.get(id) ?? 0n;
      const assigned = BigInt(facts.budgeted(month, id));
      const balance = carry + assigned + own;
      const cards = [...(onCards.get(id) ?? new Map<string, bigint>())].sort(([a], [b]) =>
        a < b ? -1 : 1,
      );
      const refunds = cards.filter(([, net]) => net > 0n);
      const spent = cards.filter(([, net]) => net < 0n);
      const onCardTotal = cards.reduce((sum, [, net]) => sum + net, 0n);
      let funds = max(
        0n,
        carry + assigned + (own - onCardTotal) + refunds.reduce((sum, [, net]) => sum + net, 0n),
      );
      for (const [card, net] of refunds) add(moved, card, -net);
      let creditOverspent = 0n;
      for (const [card, net] of spent) {
        const funded = min(-net, funds);
        funds -= funded;
        creditOverspent += -net - funded;
        add(moved, card, funded);
      }
      categories.set(id, { activity: own, balance, creditOverspent });
      if (balance < 0n) cashOverspent += balance + creditOverspent;
    }
    for (const [payment, card] of cardOfPayment) {
      const own = (moved.get(card) ?? 0n) + (payments.get(card) ?? 0n);
      const balance =
        max(0n, balances.get(payment) ?? 0n) + BigInt(facts.budgeted(month, payment)) + own;
      categories.set(payment, { activity: own, balance, creditOverspent: 0n });
      if (balance < 0n) cashOverspent += balance;
    }
    let budgeted = 0n;
    let monthActivity = 0n;
    for (const id of facts.categoryIds) {
      budgeted += BigInt(facts.budgeted(month, id));
      if (id !== facts.readyToAssignId) monthActivity += categories.get(id)?.activity ?? 0n;
    }
    const income =
      facts.readyToAssignId === null ? 0n : (activity.get(facts.readyToAssignId) ?? 0n);
    const toBeBudgeted = previousTbb + income - budgeted + previousCashOverspent;
    if (facts.readyToAssignId !== null) {
      categories.set(facts.readyToAssignId, {
        activity: income,
        balance: toBeBudgeted,
        creditOverspent: 0n,
      });
    }
    for (const [id, values] of categories) balances.set(id, values.balance);
    result.set(month, { income, budgeted, activity: monthActivity, toBeBudgeted, categories });
    previousTbb = toBeBudgeted;
    previousCashOverspent = cashOverspent;
  }
  return result;
}
