import type {
  MoneyMovementBase,
  MoneyMovementGroup,
  PlanSummary,
  User,
} from '@plans-gateway/rest-contract';
import type { PlanScoped, PlanSnapshot } from '../replica/types.js';

export type MoneyMovementRow = MoneyMovementBase & PlanScoped;
export type MoneyMovementGroupRow = MoneyMovementGroup & PlanScoped;

export interface PlanList {
  readonly plans: readonly PlanSummary[];
  readonly defaultPlan: PlanSummary | null;
}

/**
 * What resolvers may ask for. Each method costs at most one upstream call per operation (the
 * first caller pays; later callers share the promise), and plan-scoped data comes from the
 * token's replica.
 */
export interface Loaders {
  /** The plan by id or alias (`last-used`, `default`), fresh per the request's freshness. */
  plan(planId: string): Promise<PlanSnapshot>;
  /**
   * Before plans named by the client are read (`_entities`' representations): counts those the
   * token holds no replica of, not yet counted in this operation, against the operation's bound
   * of cold plans (the aliases limit, which bounds `plan(id:)` the same way), and throws
   * `OPERATION_TOO_COMPLEX` (`limit: plans`) if they would pass it, before any is read.
   */
  admitColdPlans(planIds: Iterable<string>): void;
  /**
   * The plan, when this operation has already loaded it (id or alias as asked): resolvers
   * answer from it without a promise, the executor's fast path. Undefined otherwise.
   */
  loaded(planId: string): PlanSnapshot | undefined;
  user(): Promise<User>;
  plans(): Promise<PlanList>;
  moneyMovements(planId: string): Promise<readonly MoneyMovementRow[]>;
  moneyMovementGroups(planId: string): Promise<readonly MoneyMovementGroupRow[]>;
  /**
   * After a write: forgets what this operation loaded for the plan (its snapshot, under its id
   * and any alias, its money movements) and the plan list, so the next read asks again.
   */
  forget(planId: string): void;
  /**
   * After a write: answers later reads of the plan (id or alias) with `snapshot`, or with what
   * the write's delta sync brings once it has (a promise: those reads wait for it).
   */
  prime(planId: string, snapshot: PlanSnapshot | Error | Promise<PlanSnapshot>): void;
}
