import { emptyPlanChange, type PlanChange } from '../../../src/replica/changes.js';

/** A SYNC change of plan `p` at knowledge 1 with nothing in it, and `partial` over it. */
export function planChange(partial: Partial<PlanChange> = {}): PlanChange {
  return { ...emptyPlanChange('p', 'SYNC', 1, 0), ...partial };
}
