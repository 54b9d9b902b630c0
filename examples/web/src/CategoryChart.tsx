import { isSpendingCategory } from './categories.js';
import { amount } from './money.js';
import type { MonthCategory } from './operations.js';

const MAX_ROWS = 12;

/**
 * Assigned against spent for this month's categories: one row per category (the ones with the
 * most assigned or spent), a pale bar for assigned and a solid one for spent, red when spending
 * passed what was assigned. Plain HTML and CSS, so the rows reflow to any width (the label and
 * figures above the bar on a phone) and the text stays its readable size.
 */
export function CategoryChart({ categories }: { categories: MonthCategory[] }) {
  const rows = categories
    .filter(isSpendingCategory)
    .map((category) => ({ ...category, spent: Math.max(0, -category.activity) }))
    .filter((row) => row.budgeted > 0 || row.spent > 0)
    .sort((a, b) => Math.max(b.budgeted, b.spent) - Math.max(a.budgeted, a.spent))
    .slice(0, MAX_ROWS);
  const top = Math.max(1, ...rows.map((row) => Math.max(row.budgeted, row.spent)));
  const width = (milliunits: number) => `${((100 * milliunits) / top).toFixed(2)}%`;
  return (
    <figure className="category-chart">
      <ul aria-label="Assigned and spent per category this month">
        {rows.map((row) => (
          <li
            key={row.id}
            data-testid="chart-row"
            data-category-id={row.categoryId}
            data-spent={row.spent}
            data-assigned={row.budgeted}
          >
            <span className="label">{row.name}</span>
            <span className="bars" aria-hidden="true">
              <span className="assigned" style={{ width: width(row.budgeted) }} />
              <span
                className={row.spent > row.budgeted ? 'spent over' : 'spent'}
                style={{ width: width(row.spent) }}
              />
            </span>
            <span className="value">
              {amount(row.spent)} of {amount(row.budgeted)}
            </span>
          </li>
        ))}
      </ul>
      <figcaption className="legend">
        <span className="swatch assigned" /> assigned <span className="swatch spent" /> spent
      </figcaption>
    </figure>
  );
}
