/**
 * Plans the seeded history month by month: starting balances, recurring flows (paychecks, bills,
 * loan payments, transfers), random everyday spending with splits, and the assigned amounts
 * that go with it. Produces plain events; `seedPlan` applies them through the store's own
 * write operations, so seeded data obeys exactly the same arithmetic as later writes.
 *
 * The total number of transactions (transfer counterparts included) equals the requested count
 * whenever it is at least the number of accounts plus the store card payoff; recurring flows of
 * the oldest months are dropped first when the count is too small to hold them all.
 */
import type { DebtTransactionType, IsoDate } from '@plans-gateway/rest-contract';
import { addDays, daysInMonth, toEpochDay } from '../core/dates.js';
import type { Random } from '../core/random.js';
import {
  ACCOUNTS,
  type AccountKey,
  CAR_LENDER,
  CATEGORY_GROUPS,
  type CategoryKey,
  EMPLOYER,
  MARKET_PAYEE,
  MERCHANTS,
  MONTHLY_BILLS,
  MORTGAGE_LENDER,
  SPLIT_MERCHANT,
  STARTING_BALANCE_PAYEE,
} from './catalog.js';

export interface RawSub {
  amount: number;
  category: CategoryKey | null;
  transferTo?: AccountKey;
  memo?: string | null;
}

export type RawKind = 'starting' | 'paycheck' | 'visaPayment' | 'cashWithdrawal' | 'other';

export interface RawEvent {
  kind: RawKind;
  date: IsoDate;
  account: AccountKey;
  amount: number;
  payee: string | { transferTo: AccountKey };
  category: CategoryKey | null;
  memo?: string | null;
  subs?: RawSub[];
  statementName?: string;
  debtType?: DebtTransactionType;
  counterpartDebtType?: DebtTransactionType;
}

export interface PlannedMonth {
  month: IsoDate;
  events: RawEvent[];
  /** Category key → assigned amount. */
  budgets: Map<CategoryKey, number>;
  /** An assignment moved from one category to another after the initial plan. */
  cover: { from: CategoryKey; to: CategoryKey; amount: number } | null;
}

/** How many transactions an event creates (transfers create their counterpart too). */
export function transactionsCreatedBy(event: RawEvent): number {
  const transfers =
    (typeof event.payee === 'object' ? 1 : 0) +
    (event.subs ?? []).filter((s) => s.transferTo).length;
  return 1 + transfers;
}

const toCents = (milliunits: number) => Math.round(milliunits / 10) * 10;

function amountBetween(rng: Random, min: number, max: number): number {
  return toCents(min + rng.next() * (max - min));
}

function dayOf(month: IsoDate, day: number): IsoDate {
  return addDays(month, Math.min(day, daysInMonth(month)) - 1);
}

/** Private: the recurring flows of one month, with paycheck and card payment amounts left at 0. */
function recurringEvents(rng: Random, month: IsoDate, index: number): RawEvent[] {
  const events: RawEvent[] = [];
  const on = (day: number) => dayOf(month, day);
  const paycheck = (day: number): RawEvent => ({
    kind: 'paycheck',
    date: on(day),
    account: 'checking',
    amount: 0,
    payee: EMPLOYER.name,
    category: 'readyToAssign',
    statementName: EMPLOYER.statementName,
  });
  events.push(paycheck(1));
  const second = paycheck(15);
  if (index % 3 === 2) {
    // Once a quarter part of the paycheck goes straight to savings: a split with a transfer line.
    second.subs = [
      { amount: 0, category: 'readyToAssign' },
      { amount: -300_000, category: null, transferTo: 'savings', memo: 'Quarterly top-up' },
    ];
    second.category = null;
  }
  events.push(second);
  for (const bill of MONTHLY_BILLS) {
    events.push({
      kind: 'other',
      date: on(bill.day),
      account: bill.account,
      amount: -amountBetween(rng, bill.min, bill.max),
      payee: bill.payee,
      category: bill.category,
      memo: bill.memo ?? null,
      statementName: bill.statementName,
    });
  }
  events.push(
    {
      kind: 'other',
      date: on(1),
      account: 'checking',
      amount: -1_850_000,
      payee: { transferTo: 'mortgage' },
      category: 'mortgage',
      counterpartDebtType: 'payment',
    },
    {
      kind: 'other',
      date: on(2),
      account: 'mortgage',
      amount: -amountBetween(rng, 1_380_000, 1_460_000),
      payee: MORTGAGE_LENDER,
      category: null,
      debtType: 'interest',
    },
    {
      kind: 'other',
      date: on(10),
      account: 'checking',
      amount: -425_000,
      payee: { transferTo: 'carLoan' },
      category: 'carPayment',
      counterpartDebtType: 'payment',
    },
    {
      kind: 'other',
      date: on(11),
      account: 'carLoan',
      amount: -amountBetween(rng, 52_000, 71_000),
      payee: CAR_LENDER,
      category: null,
      debtType: 'interest',
    },
    {
      kind: 'cashWithdrawal',
      date: on(8),
      account: 'checking',
      amount: -100_000,
      payee: { transferTo: 'cash' },
      category: null,
      memo: 'ATM',
    },
    {
      kind: 'cashWithdrawal',
      date: on(22),
      account: 'checking',
      amount: -100_000,
      payee: { transferTo: 'cash' },
      category: null,
      memo: 'ATM',
    },
    {
      kind: 'other',
      date: on(16),
      account: 'checking',
      amount: -400_000,
      payee: { transferTo: 'savings' },
      category: null,
    },
    {
      kind: 'other',
      date: on(16),
      account: 'checking',
      amount: -500_000,
      payee: { transferTo: 'brokerage' },
      category: 'investing',
    },
    {
      kind: 'visaPayment',
      date: on(20),
      account: 'checking',
      amount: 0,
      payee: { transferTo: 'visa' },
      category: null,
    },
    {
      kind: 'other',
      date: on(28),
      account: 'brokerage',
      amount: toCents((rng.next() - 0.35) * 900_000),
      payee: MARKET_PAYEE,
      category: null,
    },
  );
  return events;
}

/** Private: one everyday purchase (4% of them are splits across categories). */
function spendingEvent(rng: Random, date: IsoDate, totalWeight: number): RawEvent {
  if (rng.chance(0.04)) {
    const lines = rng.int(2, 4);
    const subs: RawSub[] = [];
    for (let i = 0; i < lines; i++) {
      subs.push({
        amount: -amountBetween(rng, 6_000, 90_000),
        category: SPLIT_MERCHANT.categories[i] as string,
      });
    }
    return {
      kind: 'other',
      date,
      account: rng.chance(0.8) ? 'visa' : 'checking',
      amount: subs.reduce((sum, sub) => sum + sub.amount, 0),
      payee: SPLIT_MERCHANT.name,
      category: null,
      subs,
      statementName: SPLIT_MERCHANT.statementName,
    };
  }
  let roll = rng.next() * totalWeight;
  let merchant = MERCHANTS[0] as (typeof MERCHANTS)[number];
  for (const candidate of MERCHANTS) {
    roll -= candidate.weight;
    if (roll < 0) {
      merchant = candidate;
      break;
    }
  }
  return {
    kind: 'other',
    date,
    account: rng.pick(merchant.accounts),
    amount: -amountBetween(rng, merchant.min, merchant.max),
    payee: merchant.name,
    category: merchant.category,
    statementName: merchant.statementName,
  };
}

/** Private: positive outflow per category of the month (on-budget spending only). */
function spendingByCategory(events: readonly RawEvent[]): Map<CategoryKey, number> {
  const spent = new Map<CategoryKey, number>();
  const onBudget = new Set(ACCOUNTS.filter((a) => a.onBudget).map((a) => a.key));
  const add = (category: CategoryKey | null, amount: number) => {
    if (category === null || category === 'readyToAssign') return;
    spent.set(category, (spent.get(category) ?? 0) - amount);
  };
  for (const event of events) {
    if (!onBudget.has(event.account)) continue;
    if (event.subs) for (const sub of event.subs) add(sub.category, sub.amount);
    else add(event.category, event.amount);
  }
  return spent;
}

export interface HistoryOptions {
  rng: Random;
  /** Ascending plan months, the last one being the current month. */
  months: readonly IsoDate[];
  today: IsoDate;
  transactions: number;
}

export function planHistory({ rng, months, today, transactions }: HistoryOptions): PlannedMonth[] {
  const firstMonth = months[0] as IsoDate;
  const lastIndex = months.length - 1;
  const starting: RawEvent[] = ACCOUNTS.map((account) => ({
    kind: 'starting',
    date: firstMonth,
    account: account.key,
    amount: account.startingBalance,
    payee: STARTING_BALANCE_PAYEE,
    category: account.onBudget && account.startingBalance > 0 ? 'readyToAssign' : null,
  }));
  const storeCardPayoff: RawEvent = {
    kind: 'other',
    date: dayOf(firstMonth, 20),
    account: 'checking',
    amount: -200_000,
    payee: { transferTo: 'storeCard' },
    category: null,
    memo: 'Final payment before closing',
  };

  // Recurring flows, dropped from the oldest months when the requested count is too small.
  const recurring = months.map((month, i) =>
    recurringEvents(rng, month, i).filter((event) => event.date <= today),
  );
  let budget = transactions - starting.length - transactionsCreatedBy(storeCardPayoff);
  for (let i = lastIndex; i >= 0; i--) {
    const cost = (recurring[i] as RawEvent[]).reduce(
      (sum, event) => sum + transactionsCreatedBy(event),
      0,
    );
    if (cost <= budget) budget -= cost;
    else recurring[i] = [];
  }

  // Everyday spending fills the rest, spread over the days each month has had so far.
  const days = months.map((month, i) =>
    i === lastIndex ? Number(today.slice(8, 10)) : daysInMonth(month),
  );
  const totalDays = days.reduce((sum, d) => sum + d, 0);
  const totalWeight = MERCHANTS.reduce((sum, m) => sum + m.weight, 0);
  let remaining = Math.max(0, budget);
  const planned: PlannedMonth[] = months.map((month, i) => {
    const share =
      i === lastIndex
        ? remaining
        : Math.min(remaining, Math.round((budget * (days[i] as number)) / totalDays));
    remaining -= share;
    const events = [
      ...(i === 0 ? [...starting, storeCardPayoff] : []),
      ...(recurring[i] as RawEvent[]),
    ];
    for (let n = 0; n < share; n++) {
      events.push(spendingEvent(rng, dayOf(month, rng.int(1, days[i] as number)), totalWeight));
    }
    events.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    return { month, events, budgets: new Map(), cover: null };
  });

  fillAmountsAndBudgets(rng, planned);
  return planned;
}

const FIXED_ASSIGNMENTS = new Map<CategoryKey, number>([
  ['mortgage', 1_850_000],
  ['carPayment', 425_000],
  ['investing', 500_000],
]);
for (const group of CATEGORY_GROUPS) {
  for (const category of group.categories) {
    if (category.monthlyAssignment !== undefined)
      FIXED_ASSIGNMENTS.set(category.key, category.monthlyAssignment);
  }
}

/**
 * Private: sizes paychecks to the month's plan (so Ready to Assign stays positive at any
 * transaction count), card payments to the previous month's card spending, and assigns each
 * category close to what it spends (sometimes a little less, so some months show overspending).
 */
function fillAmountsAndBudgets(rng: Random, planned: PlannedMonth[]): void {
  let previousCardSpending = -(ACCOUNTS.find((a) => a.key === 'visa')?.startingBalance ?? 0);
  let previousCashSpending = 0;
  let previousSpent = new Map<CategoryKey, number>();
  planned.forEach((month, index) => {
    const spent = spendingByCategory(month.events);
    const isCurrent = index === planned.length - 1;
    const basis = isCurrent && previousSpent.size > 0 ? previousSpent : spent;
    let assigned = 0;
    for (const [category, amount] of FIXED_ASSIGNMENTS) {
      month.budgets.set(category, amount);
      assigned += amount;
    }
    for (const [category, amount] of basis) {
      if (FIXED_ASSIGNMENTS.has(category) || amount <= 0) continue;
      const factor = 0.9 + rng.next() * 0.25;
      const rounded = Math.ceil((amount * factor) / 10_000) * 10_000;
      month.budgets.set(category, rounded);
      assigned += rounded;
    }
    if (index % 3 === 1) {
      const from = 'dining';
      const to = 'groceries';
      const amount = 25_000;
      if ((month.budgets.get(from) ?? 0) >= amount) month.cover = { from, to, amount };
    }
    const paychecks = month.events.filter((event) => event.kind === 'paycheck');
    const income = Math.ceil((assigned * 1.04) / 10_000) * 10_000;
    for (const paycheck of paychecks) {
      const share = Math.round(income / 2 / 10) * 10;
      paycheck.amount = share;
      if (paycheck.subs) {
        const transfer = paycheck.subs[1] as RawSub;
        (paycheck.subs[0] as RawSub).amount = share - transfer.amount;
        paycheck.subs = [paycheck.subs[0] as RawSub, transfer];
      }
    }
    let cardSpending = 0;
    let cashSpending = 0;
    for (const event of month.events) {
      if (typeof event.payee === 'string' && event.kind !== 'starting') {
        if (event.account === 'visa') cardSpending -= event.amount;
        if (event.account === 'cash') cashSpending -= event.amount;
      }
      // Two ATM visits a month refill what the wallet spent last month.
      if (event.kind === 'cashWithdrawal') {
        event.amount = -Math.max(100_000, Math.ceil(previousCashSpending / 2 / 20_000) * 20_000);
      }
      // Pay last month's card spending (a token amount when there was none, to keep the count).
      if (event.kind === 'visaPayment') event.amount = -Math.max(50_000, previousCardSpending);
    }
    previousCardSpending = cardSpending;
    previousCashSpending = cashSpending;
    previousSpent = spent;
  });
}

/** Days from `date` to `today` (0 for today). */
export function ageInDays(date: IsoDate, today: IsoDate): number {
  return toEpochDay(today) - toEpochDay(date);
}
