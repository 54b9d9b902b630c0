import type { IsoDate } from '@plans-gateway/rest-contract';
import { type MovementInput, recordMoneyMovements } from '../store/money-movements.js';
import type { PlanStore } from '../store/plan-store.js';

export interface AssignmentPlan {
  month: IsoDate;
  /** Category id → final assigned amount. */
  budgets: Map<string, number>;
  /** Assigned first to `from`, then moved to `to` (covering one category from another). */
  cover: { from: string; to: string; amount: number } | null;
  userId: string;
  /** When the month was planned; never later than `nowMs`. */
  at: number;
  nowMs: number;
  newId: () => string;
}

/** Records a month's seeded assignments so movements add up to the assigned amounts. */
export function recordAssignments(store: PlanStore, plan: AssignmentPlan): void {
  const initial = new Map(plan.budgets);
  const cover = plan.cover;
  const canCover = cover !== null && (initial.get(cover.to) ?? 0) >= cover.amount;
  if (canCover) {
    initial.set(cover.from, (initial.get(cover.from) ?? 0) + cover.amount);
    initial.set(cover.to, (initial.get(cover.to) ?? 0) - cover.amount);
  }
  const movements: MovementInput[] = [];
  for (const [categoryId, amount] of initial) {
    if (amount > 0) movements.push({ from: null, to: categoryId, amount });
  }
  recordMoneyMovements(store, plan.newId, {
    month: plan.month,
    at: Math.min(plan.at, plan.nowMs),
    note: 'Monthly plan',
    userId: plan.userId,
    movements,
  });
  if (canCover) {
    recordMoneyMovements(store, plan.newId, {
      month: plan.month,
      at: Math.min(plan.at + 12 * 86_400_000, plan.nowMs),
      note: null,
      userId: plan.userId,
      movements: [
        { from: cover.from, to: cover.to, amount: cover.amount, note: 'Covering overspending' },
      ],
    });
  }
}
