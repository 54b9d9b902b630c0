/**
 * Money movements: every change of an assigned amount is recorded as a movement between a
 * category and the unassigned pool (`null`), or between two categories, inside a group holding
 * what one action moved. For each month and category, money moved in minus money moved out
 * equals the assigned amount.
 */
import type { IsoDate } from '@plans-gateway/rest-contract';
import { isoDateTimeOf } from '../core/dates.js';
import type { PlanStore } from './plan-store.js';
import type { MoneyMovementGroupRecord, MoneyMovementRecord } from './records.js';
import type { IdSource } from './transactions.js';

export interface MovementInput {
  from: string | null;
  to: string | null;
  /** Positive milliunits. */
  amount: number;
  note?: string | null;
}

export interface MovementGroupInput {
  month: IsoDate;
  at: number;
  note: string | null;
  userId: string;
  movements: readonly MovementInput[];
}

export function recordMoneyMovements(
  store: PlanStore,
  newId: IdSource,
  input: MovementGroupInput,
): MoneyMovementGroupRecord {
  const at = isoDateTimeOf(input.at);
  const group: MoneyMovementGroupRecord = {
    id: newId(),
    group_created_at: at,
    month: input.month,
    note: input.note,
    performed_by_user_id: input.userId,
    knowledge: 0,
  };
  store.moneyMovementGroups.push(group);
  store.touch(group);
  for (const movement of input.movements) {
    const record: MoneyMovementRecord = {
      id: newId(),
      month: input.month,
      moved_at: at,
      note: movement.note ?? null,
      money_movement_group_id: group.id,
      performed_by_user_id: input.userId,
      from_category_id: movement.from,
      to_category_id: movement.to,
      amount: movement.amount,
      knowledge: 0,
    };
    store.moneyMovements.push(record);
    store.touch(record);
  }
  return group;
}

/** The movement that changes a category's assignment from `before` to `after`. */
export function assignmentMovement(
  categoryId: string,
  before: number,
  after: number,
): MovementInput | null {
  if (after === before) return null;
  return after > before
    ? { from: null, to: categoryId, amount: after - before }
    : { from: categoryId, to: null, amount: before - after };
}
