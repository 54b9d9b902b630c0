import { PLAN_ALIASES, type User } from '@plans-gateway/rest-contract';
import DataLoader from 'dataloader';
import { gatewayError } from '../errors/codes.js';
import { rethrowAsGraphQL } from '../errors/to-graphql.js';
import { type Credentials, requireCredentials } from '../operation/credentials.js';
import type { OperationMeter } from '../operation/meter.js';
import type { Freshness, PlanSnapshot, ReplicaRead } from '../replica/types.js';
import { assertRestAnswer } from '../replica/validate.js';
import type { UpstreamClient } from '../upstream/client.js';
import type { Loaders, MoneyMovementGroupRow, MoneyMovementRow, PlanList } from './loaders.js';
import type { RestCache, RestCacheRead } from './rest-cache.js';

/** The part of the replica store the loaders use. */
export interface PlanReplicas {
  read(request: {
    token: string;
    tokenKey: string;
    planId: string;
    freshness: Freshness;
    signal?: AbortSignal;
  }): Promise<ReplicaRead>;
}

export interface LoaderDeps {
  credentials: Credentials | null;
  /** How old an answer this operation accepts. */
  freshness: Freshness;
  upstream: UpstreamClient;
  replicas: PlanReplicas;
  restCache: RestCache;
  meter: OperationMeter;
  /**
   * The operation's deadline (see `src/operation/deadline.ts`), made on first use: upstream reads
   * and replica waits give up when it aborts. @default none
   */
  deadline?: () => AbortSignal | undefined;
  /** What `admitColdPlans` bounds: plans the token holds no replica of, per operation. */
  coldPlans: ColdPlanBound;
}

export interface ColdPlanBound {
  /** Distinct plans not held one operation may name (`limits.aliases`). */
  readonly max: number;
  /** Whether the token holds a replica of the plan (id or alias), whatever its age. */
  holds(tokenKey: string, planId: string): boolean;
}

/** Checks a REST answer before it is cached (see `assertRestAnswer`), passing it through. */
function checked(key: Parameters<typeof assertRestAnswer>[1]) {
  return <T>(data: T): T => {
    assertRestAnswer(data, key);
    return data;
  };
}

/**
 * Per-operation loaders (never shared between requests): one replica read per plan and one
 * REST-cache read per collection, whatever the number of resolvers asking.
 */
export function createLoaders(deps: LoaderDeps): Loaders {
  const { credentials, freshness, upstream, replicas, restCache, meter, deadline, coldPlans } =
    deps;
  /** Plans not held when a client named them in this operation (`admitColdPlans`). */
  const named = new Set<string>();

  function call() {
    const { token, tokenKey } = requireCredentials(credentials);
    const signal = deadline?.();
    return signal ? { token, tokenKey, meter, signal } : { token, tokenKey, meter };
  }

  function noteRead(source: string, read: { ageMs: number; stale?: ReplicaRead['stale'] }) {
    if (read.stale) meter.stale({ source, reason: read.stale.reason, ageMs: read.ageMs });
  }

  async function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const { tokenKey } = requireCredentials(credentials);
    let read: RestCacheRead<T>;
    try {
      read = await meter.track(restCache.read(tokenKey, key, freshness.maxAgeMs, load));
    } catch (error) {
      return rethrowAsGraphQL(error);
    }
    if (read.hit) meter.cacheHit();
    noteRead(key, read);
    return read.value;
  }

  const snapshots = planLoader(async (planId) => {
    const { token, tokenKey } = requireCredentials(credentials);
    let read: ReplicaRead;
    try {
      const signal = deadline?.();
      read = await meter.track(
        replicas.read({ token, tokenKey, planId, freshness, ...(signal ? { signal } : {}) }),
      );
    } catch (error) {
      return rethrowAsGraphQL(error);
    }
    if (read.sync === 'none') meter.cacheHit();
    meter.replicaRead(read.ageMs);
    noteRead(read.snapshot.planId, read);
    return read.snapshot;
  });

  // One key each: a DataLoader with a constant key is the same memo as the keyed ones.
  const userLoader = eachKey<'user', User>(() =>
    cached('getUser', () => upstream.getUser(call()).then(checked('user'))).then(
      (data) => data.user,
    ),
  );
  const planListLoader = eachKey<'plans', PlanList>(() =>
    cached('getPlans', () => upstream.getPlans(call()).then(checked('plans'))).then((data) => ({
      plans: data.plans,
      defaultPlan: data.default_plan ?? null,
    })),
  );
  const movementsLoader = eachKey((planId: string) =>
    cached(`getMoneyMovements:${planId}`, () =>
      upstream.getMoneyMovements(call(), { planId }).then(checked('money_movements')),
    ).then((data): readonly MoneyMovementRow[] =>
      data.money_movements.map((m) => ({ ...m, plan_id: planId })),
    ),
  );
  const groupsLoader = eachKey((planId: string) =>
    cached(`getMoneyMovementGroups:${planId}`, () =>
      upstream.getMoneyMovementGroups(call(), { planId }).then(checked('money_movement_groups')),
    ).then((data): readonly MoneyMovementGroupRow[] =>
      data.money_movement_groups.map((g) => ({ ...g, plan_id: planId })),
    ),
  );

  return {
    plan: (planId) => snapshots.load(planId),
    admitColdPlans(planIds) {
      // Without a token nothing is read: each read fails UNAUTHENTICATED on its own.
      if (!credentials) return;
      const cold = new Set<string>();
      for (const planId of planIds)
        if (!named.has(planId) && !coldPlans.holds(credentials.tokenKey, planId)) cold.add(planId);
      if (named.size + cold.size > coldPlans.max)
        throw tooManyColdPlans(named.size + cold.size, coldPlans.max);
      for (const planId of cold) named.add(planId);
    },
    loaded: (planId) => snapshots.loaded(planId),
    user: () => userLoader.load('user'),
    plans: () => planListLoader.load('plans'),
    moneyMovements: (planId) => movementsLoader.load(planId),
    moneyMovementGroups: (planId) => groupsLoader.load(planId),
    forget(planId) {
      // The plan list carries each plan's last_modified_on, which a write moves.
      planListLoader.clearAll();
      for (const name of snapshots.namesOf(planId)) {
        snapshots.clear(name);
        movementsLoader.clear(name);
        groupsLoader.clear(name);
      }
    },
    prime: (planId, snapshot) => snapshots.prime(planId, snapshot),
  };
}

interface PlanLoader {
  /** The plan under this name, loading it once per operation. */
  load(planId: string): Promise<PlanSnapshot>;
  /** The plan under this name if this operation's load of it has already settled with one. */
  loaded(planId: string): PlanSnapshot | undefined;
  /** Forgets what was loaded under this name. */
  clear(name: string): void;
  /** Every id this operation may have used for the plan `planId` names (itself, its id, its aliases). */
  namesOf(planId: string): Set<string>;
  /** Answers later loads of the plan under every name it has in this operation with `snapshot`. */
  prime(planId: string, snapshot: PlanSnapshot | Error | Promise<PlanSnapshot>): void;
}

/**
 * Private: the plan loader over `read` (one replica read), keeping which concrete id each alias
 * resolved to, so that forgetting or priming a plan reaches it under every name it was asked by.
 */
function planLoader(read: (planId: string) => Promise<PlanSnapshot>): PlanLoader {
  /** Alias (or other requested id) → the concrete plan id it resolved to in this operation. */
  const resolvedIds = new Map<string, string>();

  async function readPlan(planId: string): Promise<PlanSnapshot> {
    const snapshot = await read(planId);
    // Rows carry the concrete id; without this an alias and its id would sync twice under no-cache.
    if (snapshot.planId !== planId) {
      resolvedIds.set(planId, snapshot.planId);
      loader.prime(snapshot.planId, snapshot);
      // Rows name their plan by id: resolvers following them find it settled under that id too.
      if (!watched.has(snapshot.planId)) {
        settled.set(snapshot.planId, snapshot);
        watched.add(snapshot.planId);
      }
    }
    return snapshot;
  }

  /**
   * The plans of one tick. When an alias and ids come together, the aliases are read first and
   * an id one of them resolved to takes that snapshot: the replica store keys an alias and an id
   * apart (refreshing an alias must ask the alias, in case it moved), so reading both at once
   * would sync the same plan twice, cold or past max-age.
   */
  async function readPlans(planIds: readonly string[]): Promise<(PlanSnapshot | Error)[]> {
    const settle = (planId: string) => readPlan(planId).catch(asError);
    const aliases = planIds.filter((id) => PLAN_ALIASES.has(id));
    if (aliases.length === 0 || aliases.length === planIds.length)
      return Promise.all(planIds.map(settle));
    const aliasReads = new Map(aliases.map((id) => [id, settle(id)] as const));
    const byId = new Map<string, PlanSnapshot>();
    for (const read of await Promise.all(aliasReads.values()))
      if (!(read instanceof Error)) byId.set(read.planId, read);
    return Promise.all(planIds.map((id) => aliasReads.get(id) ?? byId.get(id) ?? settle(id)));
  }

  const loader: DataLoader<string, PlanSnapshot> = new DataLoader(readPlans);

  function namesOf(planId: string): Set<string> {
    const concrete = resolvedIds.get(planId) ?? planId;
    const names = new Set([planId, concrete]);
    for (const [requested, id] of resolvedIds) if (id === concrete) names.add(requested);
    return names;
  }

  /**
   * Snapshots whose load settled, for resolvers that can then answer without a promise. A name
   * forgotten or primed while its load was in flight must not take that load's answer: each name
   * counts its generations, and a settled load only counts for the generation it started in.
   */
  const settled = new Map<string, PlanSnapshot>();
  const generations = new Map<string, number>();
  const watched = new Set<string>();
  const renew = (name: string) => {
    generations.set(name, (generations.get(name) ?? 0) + 1);
    settled.delete(name);
    watched.delete(name);
  };

  return {
    load(planId) {
      const promise = loader.load(planId);
      if (!watched.has(planId)) {
        watched.add(planId);
        const generation = generations.get(planId);
        promise.then(
          (snapshot) => {
            if (generations.get(planId) === generation) settled.set(planId, snapshot);
          },
          () => undefined,
        );
      }
      return promise;
    },
    loaded: (planId) => settled.get(planId),
    clear(name) {
      renew(name);
      loader.clear(name);
    },
    namesOf,
    prime(planId, snapshot) {
      const known = snapshot instanceof Error || snapshot instanceof Promise ? undefined : snapshot;
      if (known && known.planId !== planId) resolvedIds.set(planId, known.planId);
      for (const name of namesOf(planId)) {
        renew(name);
        loader.clear(name).prime(name, snapshot);
        if (known) {
          settled.set(name, known);
          watched.add(name);
        }
      }
    },
  };
}

/**
 * Private: a loader whose keys load one by one (each key is its own REST-cache read): the
 * DataLoader memo without batching. A failure is returned in its key's place, not thrown, so
 * DataLoader keeps it (a rejected batch would be forgotten and asked again).
 */
function eachKey<K, V>(load: (key: K) => Promise<V>): DataLoader<K, V> {
  return new DataLoader((keys: readonly K[]) =>
    Promise.all(keys.map((key) => load(key).catch(asError))),
  );
}

/** Private: the refusal of an operation that names more plans not held than it may read. */
function tooManyColdPlans(count: number, max: number) {
  return gatewayError(
    `The operation names ${count} plans this gateway holds no replica of for the token; one operation may read at most ${max} (the aliases limit). Send the rest in other requests.`,
    'OPERATION_TOO_COMPLEX',
    { extensions: { limit: 'plans', value: count, max } },
  );
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
