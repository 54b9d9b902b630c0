/** The sandbox's users and plans: what every request resolves its token and plan against. */
import type { AccountState, Clock } from '../core/api.js';
import type { PlanStore } from './plan-store.js';
import type { IdSource } from './transactions.js';

export interface UserState {
  readonly id: string;
  /** Shown on the OAuth sign-in and consent pages. */
  readonly name: string;
  readonly token: string;
  readonly readOnlyToken: string | null;
  readonly planIds: string[];
  /** What `default` resolves to for personal tokens; `null` = no default plan (404). */
  defaultPlanId: string | null;
  /** What `last-used` resolves to: the plan of the user's latest request that named one. */
  lastUsedPlanId: string | null;
  /** Whether the product serves this user (403.1 / 403.2 / 403.4 otherwise). */
  accountState: AccountState;
}

export interface PlanEntry {
  readonly store: PlanStore;
  /** Ids for entities created at runtime (deterministic per seed). */
  readonly newId: IdSource;
}

export interface SandboxState {
  readonly clock: Clock;
  readonly users: Map<string, UserState>;
  readonly plans: Map<string, PlanEntry>;
}
