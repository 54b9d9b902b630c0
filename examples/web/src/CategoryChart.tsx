import { isSpendingCategory } from './categories.js';
import { amount } from './money.js';
import type { MonthCategory } from './operations.js';

const ROW = 26;
const LABEL = 150;
const WIDTH = 560;
const MAX_ROWS = 12;

/**
 * Assigned against spent for this month's categories, in plain SVG: one row per category (the
 * ones with the most assigned or spent), a pale bar for assigned and a solid one for spent, red
 * when spending passed what was assigned.
 */
export function CategoryChart({ categories }: { categories: MonthCategory[] }) {
  const rows = categories
    .filter(isSpendingCategory)
    .map((category) => ({ ...category, spent: Math.max(0, -category.activity) }))
    .filter((row) => row.budgeted > 0 || row.spent > 0)
    .sort((a, b) => Math.max(b.budgeted, b.spent) - Math.max(a.budgeted, a.spent))
    .slice(0, MAX_ROWS);
  const top = Math.max(1, ...rows.map((row) => Math.max(row.budgeted, row.spent)));
  // Room on the right for the figures beside the longest bar.
  const scale = (milliunits: number) => ((WIDTH - LABEL - 130) * milliunits) / top;
  return (
    <svg
      className="category-chart"
      viewBox={`0 0 ${WIDTH} ${rows.length * ROW + 24}`}
      role="img"
      aria-label="Assigned and spent per category this month"
    >
      {rows.map((row, index) => (
        <g
          key={row.id}
          transform={`translate(0 ${index * ROW})`}
          data-testid="chart-row"
          data-category-id={row.categoryId}
          data-spent={row.spent}
          data-assigned={row.budgeted}
        >
          <text x={LABEL - 8} y={ROW / 2 + 4} textAnchor="end" className="label">
            {row.name}
          </text>
          <rect x={LABEL} y={4} height={ROW - 8} width={scale(row.budgeted)} className="assigned" />
          <rect
            x={LABEL}
            y={9}
            height={ROW - 18}
            width={scale(row.spent)}
            className={row.spent > row.budgeted ? 'spent over' : 'spent'}
          />
          <text
            x={LABEL + scale(Math.max(row.budgeted, row.spent)) + 6}
            y={ROW / 2 + 4}
            className="value"
          >
            {amount(row.spent)} / {amount(row.budgeted)}
          </text>
        </g>
      ))}
      <g transform={`translate(${LABEL} ${rows.length * ROW + 8})`} className="legend">
        <rect width={12} height={10} className="assigned" />
        <text x={16} y={9}>
          assigned
        </text>
        <rect x={90} width={12} height={10} className="spent" />
        <text x={106} y={9}>
          spent
        </text>
      </g>
    </svg>
  );
}
