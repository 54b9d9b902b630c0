import { amount } from './money.js';
import type { Dashboard, MonthCategory } from './operations.js';

type Month = NonNullable<NonNullable<Dashboard['plan']>['month']>;

/** Groups the plan keeps to itself (Ready to Assign's home), not budgeted by hand. */
const INTERNAL = /^internal master category$/i;

/**
 * The month's budget: every visible category, under its group, with what was assigned, the
 * activity and what is available (red when overspent), and the group's totals. It reads the
 * Home screen's query (the cache holds it): opening it sends nothing.
 */
export function BudgetTable({ month }: { month: Month }) {
  const groups = new Map<string, MonthCategory[]>();
  for (const category of month.categories) {
    if (category.hidden || INTERNAL.test(category.categoryGroupName)) continue;
    const rows = groups.get(category.categoryGroupName) ?? [];
    rows.push(category);
    groups.set(category.categoryGroupName, rows);
  }
  const sum = (rows: MonthCategory[], field: 'budgeted' | 'activity' | 'balance') =>
    rows.reduce((total, row) => total + row[field], 0);
  return (
    <section className="budget" data-testid="budget">
      <div className="register-head">
        <h2>{monthName(month.month)}</h2>
        <p className="register-balance">
          Assigned <strong>{amount(month.budgeted)}</strong> · Activity{' '}
          <strong>{amount(month.activity)}</strong>
        </p>
      </div>
      <table className="budget-table">
        <thead>
          <tr>
            <th className="name">Category</th>
            <th className="figure">Assigned</th>
            <th className="figure">Activity</th>
            <th className="figure">Available</th>
          </tr>
        </thead>
        {[...groups].map(([group, rows]) => (
          <tbody key={group}>
            <tr className="group">
              <th className="name" scope="rowgroup">
                {group}
              </th>
              <td className="figure">{amount(sum(rows, 'budgeted'))}</td>
              <td className="figure">{amount(sum(rows, 'activity'))}</td>
              <td className="figure">{amount(sum(rows, 'balance'))}</td>
            </tr>
            {rows.map((row) => (
              <tr key={row.id} data-testid="budget-row" data-category-id={row.categoryId}>
                <td className="name">{row.name}</td>
                <td className="figure">{amount(row.budgeted)}</td>
                <td className="figure">{amount(row.activity)}</td>
                <td className="figure">
                  <span className={`available ${row.balance < 0 ? 'overspent' : ''}`}>
                    {amount(row.balance)}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        ))}
      </table>
    </section>
  );
}

const MONTH = new Intl.DateTimeFormat(undefined, {
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** `2025-06-01` as "June 2025", read as the calendar month it is (no time zone moves it). */
function monthName(isoDate: string): string {
  return MONTH.format(new Date(`${isoDate}T00:00:00Z`));
}
