/**
 * Backing models that more than one schema file builds. Most types are backed by the replica's
 * rows (src/replica/types.ts) as they are; these are the graph's own shapes.
 */
import type { PlanSummary } from '@plans-gateway/rest-contract';

/**
 * A plan as the graph sees it. `summary` is set when the plan came from the plan list, which
 * already carries the plan-level fields; everything else reads the plan's replica.
 */
export interface PlanShape {
  readonly id: string;
  readonly summary: PlanSummary | null;
}
