/**
 * Pure: what a category's money does for its credit card spending in one month, by the
 * product's rule as the sandbox implements it (packages/sandbox/src/store/budget.ts): the
 * category's money pays for its cash spending first; a card refund gives money back and moves it
 * out of that card's payment category; what is left funds the month's card spending, cards in
 * account id order, each funded amount moving into that card's payment category; spending beyond
 * it is credit overspending (card debt, which next month's Ready to Assign does not cover).
 *
 * Inputs are safe integers; a sum past 2^53 throws `RangeError` (the caller falls back).
 */

export interface CardSettlement {
  /** Card account id → money moved into its payment category (negative: taken out). */
  readonly moved: ReadonlyMap<string, number>;
  /** Card spending no money funded (>= 0). */
  readonly creditOverspent: number;
}

const NO_SETTLEMENT: CardSettlement = { moved: new Map(), creditOverspent: 0 };

function add(a: number, b: number): number {
  const total = a + b;
  if (!Number.isSafeInteger(total)) throw new RangeError('card settlement past 2^53');
  return total;
}

/**
 * The settlement of a month: `carry` is what the category carried in (max(0, last month's
 * balance)), `cards` its card activity by card (the sum of its card lines, negative for spending).
 */
export function settleCardSpending(
  carry: number,
  budgeted: number,
  activity: number,
  cards: ReadonlyMap<string, number> | undefined,
): CardSettlement {
  if (!cards || cards.size === 0) return NO_SETTLEMENT;
  const moved = new Map<string, number>();
  let onCards = 0;
  for (const amount of cards.values()) onCards = add(onCards, amount);
  let funds = add(add(add(carry, budgeted), activity), -onCards);
  for (const [cardId, amount] of cards) {
    if (amount > 0) {
      moved.set(cardId, -amount);
      funds = add(funds, amount);
    }
  }
  funds = Math.max(0, funds);
  let creditOverspent = 0;
  for (const cardId of [...cards.keys()].sort()) {
    const spent = -(cards.get(cardId) ?? 0);
    if (spent <= 0) continue;
    const funded = Math.min(spent, funds);
    funds -= funded;
    creditOverspent = add(creditOverspent, spent - funded);
    if (funded > 0) moved.set(cardId, funded);
  }
  return { moved, creditOverspent };
}

/** The part of a month's balance that next month's Ready to Assign covers (<= 0). */
export function cashOverspending(balance: number, creditOverspent: number): number {
  return balance >= 0 ? 0 : add(balance, creditOverspent);
}
