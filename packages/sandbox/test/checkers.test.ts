/**
 * The suite's own checkers can fail: each one is shown a conforming value and then broken ones,
 * so a green acceptance run means the sandbox passed them, not that they looked away.
 */
import type { PlanDetail } from '@plans-gateway/rest-contract';
import {
  account,
  category,
  categoryGroup,
  month,
  payee as payeeRow,
  planExport,
  transaction,
} from '@plans-gateway/rest-contract/testing';
import { describe, expect, it } from 'vitest';
import { budgetProblems } from './support/budget.js';
import { formattedProblem, moneyProblems } from './support/check-money.js';
import { errorProblems, responseProblems, shapeProblems } from './support/check-shape.js';
import { canonical, differences, mergeList, replayPlan } from './support/delta.js';

const USD = {
  decimal_digits: 2,
  decimal_separator: '.',
  group_separator: ',',
  currency_symbol: '$',
  symbol_first: true,
  display_symbol: true,
};
const EUR = {
  ...USD,
  decimal_separator: ',',
  group_separator: '.',
  currency_symbol: '€',
  symbol_first: false,
};

const ID = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const payee = { id: ID(1), name: 'Grocer', transfer_account_id: null, deleted: false };

describe('shape checker', () => {
  it('accepts a conforming entity and reports each kind of deviation with its path', () => {
    expect(shapeProblems(payee, 'Payee')).toEqual([]);
    const { transfer_account_id: _omitted, ...missing } = payee;
    expect(shapeProblems(missing, 'Payee')).toEqual(['Payee.transfer_account_id: missing']);
    expect(shapeProblems({ ...payee, extra: 1 }, 'Payee')).toEqual([
      "Payee.extra: not in the interface's schema",
    ]);
    expect(shapeProblems({ ...payee, name: null }, 'Payee')).toEqual([
      'Payee.name: null but not nullable',
    ]);
    expect(shapeProblems({ ...payee, deleted: 'no' }, 'Payee')[0]).toMatch(
      /deleted: expected boolean/,
    );
    expect(shapeProblems({ ...payee, id: 'ABC' }, 'Payee')[0]).toMatch(/id: expected uuid/);
  });

  it('checks dates, date-times, integers, enums and nested lists', () => {
    const location = {
      id: ID(2),
      payee_id: ID(1),
      latitude: '1.5',
      longitude: '2.5',
      deleted: false,
    };
    expect(shapeProblems(location, 'PayeeLocation')).toEqual([]);
    const month = {
      month: '2025-02-30',
      note: null,
      income: 1.5,
      budgeted: 0,
      activity: 0,
      to_be_budgeted: 0,
      age_of_money: null,
      deleted: false,
      categories: [{}],
    };
    const problems = shapeProblems(month, 'MonthDetailBase');
    expect(problems).toContain('MonthDetailBase.month: expected date, got string "2025-02-30"');
    expect(problems).toContain('MonthDetailBase.income: expected integer, got number 1.5');
    expect(problems.some((p) => p.startsWith('MonthDetailBase.categories[0].id: missing'))).toBe(
      true,
    );
    expect(shapeProblems({ ...location, deleted: true, latitude: 5 }, 'PayeeLocation')).toEqual([
      'PayeeLocation.latitude: expected string, got number 5',
    ]);
  });

  it('checks the data and error wrappers', () => {
    expect(responseProblems({ data: { payee, server_knowledge: 3 } }, 'updatePayee')).toEqual([]);
    expect(responseProblems({ data: { payee } }, 'updatePayee')).toEqual([
      'data.server_knowledge: missing',
    ]);
    expect(responseProblems({ data: { payee, server_knowledge: 3 } }, 'getPayeeById')).toEqual([
      "data.server_knowledge: not in the interface's schema",
    ]);
    expect(responseProblems({ payee }, 'getPayeeById')).toEqual([
      'body.payee: unexpected',
      'data: expected object, got undefined',
    ]);
    expect(errorProblems({ error: { id: '400', name: 'bad_request', detail: 'x' } })).toEqual([]);
    expect(errorProblems({ error: { id: 400, name: 'bad_request' } })).toEqual([
      'error.id: expected string, got number 400',
      'error.detail: missing',
    ]);
  });
});

describe('money checker', () => {
  it('accepts renderings that follow the currency format', () => {
    expect(formattedProblem(1_234_560, '$1,234.56', USD)).toBeNull();
    expect(formattedProblem(-45_670, '-$45.67', USD)).toBeNull();
    expect(formattedProblem(0, '$0.00', USD)).toBeNull();
    expect(formattedProblem(1_234_560, '1.234,56€', EUR)).toBeNull();
  });

  it('rejects wrong values, wrong signs and wrong formats', () => {
    expect(formattedProblem(1_234_560, '$1,234.57', USD)).toMatch(/reads as/);
    expect(formattedProblem(45_670, '-$45.67', USD)).toMatch(/reads as|negative/);
    expect(formattedProblem(1_234_560, '1,234.56', USD)).toMatch(/symbol/);
    expect(formattedProblem(1_234_560, '$1234.5', USD)).toMatch(/format/);
    expect(formattedProblem(1_234_560, '1,234.56€', EUR)).toMatch(/format/);
  });

  it('finds inconsistent companions anywhere in a body', () => {
    const good = { amount: -1_500, amount_formatted: '-$1.50', amount_currency: -1.5 };
    expect(moneyProblems({ data: { transactions: [good] } }, USD)).toEqual([]);
    expect(
      moneyProblems({ data: { transactions: [{ ...good, amount_currency: -15 }] } }, USD),
    ).toHaveLength(1);
    expect(
      moneyProblems({ data: { t: { ...good, amount_formatted: '$1.50' } } }, USD),
    ).toHaveLength(1);
    expect(
      moneyProblems(
        { goal_target: null, goal_target_formatted: '$0.00', goal_target_currency: null },
        USD,
      ),
    ).toHaveLength(1);
  });
});

/** A tiny consistent plan: checking (on budget) pays 30 to savings and spends 10 on one category. */
function tinyPlan(): PlanDetail {
  const food = category({
    id: ID(50),
    category_group_id: ID(40),
    category_group_name: 'Everyday',
    name: 'Food',
    budgeted: 100,
    activity: -10,
    balance: 90,
  });
  const spent = (n: number, accountId: number, amount: number) =>
    transaction({ id: ID(n), account_id: ID(accountId), date: '2025-06-10', amount });
  return planExport(
    {
      id: ID(99),
      name: 'Tiny',
      last_modified_on: '2025-06-10T00:00:00.000Z',
      first_month: '2025-06-01',
      last_month: '2025-06-01',
      date_format: null,
      currency_format: null,
      accounts: [
        account({
          id: ID(1),
          name: 'Checking',
          balance: -40,
          cleared_balance: -40,
          transfer_payee_id: ID(11),
        }),
        account({
          id: ID(2),
          name: 'Savings',
          balance: 30,
          cleared_balance: 30,
          transfer_payee_id: ID(12),
        }),
      ],
      payees: [
        payeeRow({ id: ID(11), name: 'Transfer : Checking', transfer_account_id: ID(1) }),
        payeeRow({ id: ID(12), name: 'Transfer : Savings', transfer_account_id: ID(2) }),
      ],
      category_groups: [categoryGroup({ id: ID(40), name: 'Everyday' })],
      categories: [food],
      months: [month({ month: '2025-06-01', budgeted: 100, activity: -10, categories: [food] })],
      transactions: [
        {
          ...spent(21, 1, -30),
          payee_id: ID(12),
          transfer_account_id: ID(2),
          transfer_transaction_id: ID(22),
        },
        {
          ...spent(22, 2, 30),
          payee_id: ID(11),
          transfer_account_id: ID(1),
          transfer_transaction_id: ID(21),
        },
        { ...spent(23, 1, -10), category_id: ID(50) },
      ],
    },
    0,
  ).plan;
}

describe('budget invariants checker', () => {
  it('accepts a consistent plan', () => {
    expect(budgetProblems(tinyPlan())).toEqual([]);
  });

  it('reports a wrong balance, activity, month total and a broken transfer', () => {
    const plan = tinyPlan();
    const [checking] = plan.accounts;
    if (checking) checking.balance = -41;
    expect(budgetProblems(plan).some((p) => p.includes('balance -41'))).toBe(true);

    const moved = tinyPlan();
    const spend = moved.transactions[2];
    if (spend) spend.date = '2025-05-31';
    expect(
      budgetProblems(moved).some((p) => p.includes('activity -10, transactions sum to 0')),
    ).toBe(true);

    const totals = tinyPlan();
    const month = totals.months[0];
    if (month) month.budgeted = 99;
    expect(budgetProblems(totals).some((p) => p.includes('budgeted 99'))).toBe(true);

    const unpaired = tinyPlan();
    const side = unpaired.transactions[1];
    if (side) side.amount = 31;
    const problems = budgetProblems(unpaired);
    expect(problems.some((p) => p.includes('does not mirror'))).toBe(true);
  });
});

describe('credit card checker', () => {
  it('draws the payment category down by a payment and flags a payment category that did not move', () => {
    const plan = tinyPlan();
    const [, savings] = plan.accounts;
    const [food] = plan.categories;
    const june = plan.months[0];
    if (savings === undefined || food === undefined || june === undefined)
      throw new Error('unreachable');
    // The 30 paid from checking now goes to a credit card: a payment, no category.
    Object.assign(savings, { name: 'Visa', type: 'creditCard' });
    plan.category_groups.push({
      id: ID(41),
      name: 'Credit Card Payments',
      hidden: false,
      internal: false,
      deleted: false,
    });
    const payment = {
      ...food,
      id: ID(51),
      category_group_id: ID(41),
      category_group_name: 'Credit Card Payments',
      name: 'Visa',
      budgeted: 0,
      activity: -30,
      balance: -30,
    };
    plan.categories.push(payment);
    june.categories.push(payment);
    june.activity = -40;
    expect(budgetProblems(plan)).toEqual([]);
    june.categories[1] = { ...payment, activity: 0, balance: 0 };
    june.activity = -10;
    expect(budgetProblems(plan)).toEqual([
      'month 2025-06-01 category Visa: activity 0, the card rules give -30',
    ]);
  });
});

describe('rollover checker', () => {
  it('carries what is available into the next month and flags a wrong carry', () => {
    const plan = tinyPlan();
    const june = plan.months[0];
    const category = june?.categories[0];
    if (june === undefined || category === undefined) throw new Error('unreachable');
    const july = {
      ...june,
      month: '2025-07-01',
      budgeted: 0,
      activity: 0,
      categories: [{ ...category, budgeted: 0, activity: 0, balance: 90 }],
    };
    plan.months.push(july);
    expect(budgetProblems(plan)).toEqual([]);
    const julyCategory = july.categories[0];
    if (julyCategory) julyCategory.balance = 80;
    expect(budgetProblems(plan)).toEqual([
      'month 2025-07-01 category Food: balance 80, carried 90 + budgeted + activity = 90',
    ]);
  });
});

describe('delta replay', () => {
  it('upserts, drops deleted entities and merges month categories', () => {
    expect(
      mergeList(
        [
          { id: 'a', v: 1 },
          { id: 'b', v: 1 },
        ],
        [
          { id: 'b', v: 2 },
          { id: 'a', deleted: true },
          { id: 'c', v: 1 },
        ],
      ),
    ).toEqual([
      { id: 'b', v: 2 },
      { id: 'c', v: 1 },
    ]);
    const base = tinyPlan() as unknown as Record<string, unknown>;
    const delta = {
      ...Object.fromEntries(
        Object.keys(base).map((key) => [key, Array.isArray(base[key]) ? [] : base[key]]),
      ),
      name: 'Renamed',
      months: [{ month: '2025-06-01', note: 'n', categories: [{ id: ID(50), activity: -20 }] }],
    };
    const merged = replayPlan(base, delta) as {
      name: string;
      months: { note: string; categories: { activity: number }[] }[];
    };
    expect(merged.name).toBe('Renamed');
    expect(merged.months[0]?.note).toBe('n');
    expect(merged.months[0]?.categories).toEqual([{ id: ID(50), activity: -20 }]);
  });

  it('compares regardless of order and names the paths that differ', () => {
    expect(canonical([{ id: 'b' }, { id: 'a', deleted: true }, { id: 'a2' }])).toEqual([
      { id: 'a2' },
      { id: 'b' },
    ]);
    expect(differences({ list: [{ id: 'x', v: 1 }] }, { list: [{ id: 'x', v: 2 }] })).toEqual([
      '.list[0]<x>.v: 1 vs 2',
    ]);
    expect(differences({ a: 1 }, { a: 1 })).toEqual([]);
  });
});
