/**
 * The budget arithmetic of the README ("Budget arithmetic", "Credit cards"), recomputed from
 * scratch: month by month from the raw transaction lines and the assigned amounts, with nothing
 * kept between calls. The sandbox maintains the same numbers incrementally; the checkers compare
 * the two, from a plan export (support/budget.ts) and from a store (unit/support.ts).
 */

/** One categorized amount or transfer of a live transaction (a split counts per line). */
export interface BudgetLine {
  month: string;
  accountId: string;
  categoryId: string | null;
  transferAccountId: string | null;
  amount: number;
}

export interface BudgetFacts {
  /** Ascending, contiguous. */
  months: readonly string[];
  categoryIds: readonly string[];
  readyToAssignId: string | null;
  /** Credit card account id → its payment category id. */
  paymentCategories: ReadonlyMap<string, string>;
  onBudget: ReadonlySet<string>;
  budgeted(month: string, categoryId: string): number;
  lines: readonly BudgetLine[];
}

export interface ReferenceCategory {
  activity: number;
  balance: number;
  /** Card spending the category could not fund: card debt, not taken from Ready to Assign. */
  creditOverspent: number;
}

export interface ReferenceMonth {
  income: number;
  budgeted: number;
  activity: number;
  toBeBudgeted: number;
  categories: Map<string, ReferenceCategory>;
}

const add = (map: Map<string, number>, key: string, amount: number) =>
  map.set(key, (map.get(key) ?? 0) + amount);

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
  const balances = new Map<string, number>();
  let previousTbb = 0;
  let previousCashOverspent = 0;
  for (const month of facts.months) {
    const activity = new Map<string, number>();
    /** category → card → net card activity */
    const onCards = new Map<string, Map<string, number>>();
    const payments = new Map<string, number>();
    for (const line of linesByMonth.get(month) ?? []) {
      const isCard = facts.paymentCategories.has(line.accountId);
      if (line.categoryId !== null) {
        add(activity, line.categoryId, line.amount);
        if (isCard && line.categoryId !== facts.readyToAssignId) {
          const cards = onCards.get(line.categoryId) ?? new Map<string, number>();
          add(cards, line.accountId, line.amount);
          onCards.set(line.categoryId, cards);
        }
      } else if (
        isCard &&
        line.transferAccountId !== null &&
        facts.onBudget.has(line.transferAccountId)
      ) {
        add(payments, line.accountId, -line.amount);
      }
    }
    const categories = new Map<string, ReferenceCategory>();
    const moved = new Map<string, number>();
    let cashOverspent = 0;
    const spending = facts.categoryIds.filter(
      (id) => id !== facts.readyToAssignId && !cardOfPayment.has(id),
    );
    for (const id of spending) {
      const carry = Math.max(0, balances.get(id) ?? 0);
      const own = activity.get(id) ?? 0;
      const balance = carry + facts.budgeted(month, id) + own;
      const cards = [...(onCards.get(id) ?? new Map<string, number>())].sort(([a], [b]) =>
        a < b ? -1 : 1,
      );
      const refunds = cards.filter(([, net]) => net > 0);
      const spent = cards.filter(([, net]) => net < 0);
      const onCardTotal = cards.reduce((sum, [, net]) => sum + net, 0);
      let funds = Math.max(
        0,
        carry +
          facts.budgeted(month, id) +
          (own - onCardTotal) +
          refunds.reduce((sum, [, net]) => sum + net, 0),
      );
      for (const [card, net] of refunds) add(moved, card, -net);
      let creditOverspent = 0;
      for (const [card, net] of spent) {
        const funded = Math.min(-net, funds);
        funds -= funded;
        creditOverspent += -net - funded;
        add(moved, card, funded);
      }
      categories.set(id, { activity: own, balance, creditOverspent });
      if (balance < 0) cashOverspent += balance + creditOverspent;
    }
    for (const [payment, card] of cardOfPayment) {
      const own = (moved.get(card) ?? 0) + (payments.get(card) ?? 0);
      const balance =
        Math.max(0, balances.get(payment) ?? 0) + facts.budgeted(month, payment) + own;
      categories.set(payment, { activity: own, balance, creditOverspent: 0 });
      if (balance < 0) cashOverspent += balance;
    }
    let budgeted = 0;
    let monthActivity = 0;
    for (const id of facts.categoryIds) {
      budgeted += facts.budgeted(month, id);
      if (id !== facts.readyToAssignId) monthActivity += categories.get(id)?.activity ?? 0;
    }
    const income = facts.readyToAssignId === null ? 0 : (activity.get(facts.readyToAssignId) ?? 0);
    const toBeBudgeted = previousTbb + income - budgeted + previousCashOverspent;
    if (facts.readyToAssignId !== null) {
      categories.set(facts.readyToAssignId, {
        activity: income,
        balance: toBeBudgeted,
        creditOverspent: 0,
      });
    }
    for (const [id, values] of categories) balances.set(id, values.balance);
    result.set(month, { income, budgeted, activity: monthActivity, toBeBudgeted, categories });
    previousTbb = toBeBudgeted;
    previousCashOverspent = cashOverspent;
  }
  return result;
}
