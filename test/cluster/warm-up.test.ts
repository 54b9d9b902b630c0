/**
 * The cold-read warm-up of `createCluster` on its own (no Redis): one warm-up per replica at a
 * time, failures reported and read as a miss, and a read view that warms only what this instance
 * does not hold while the link is up.
 */
import { describe, expect, it } from 'vitest';
import { bindOnce, singleWarmUp, warmingReplicas } from '../../src/cluster/cluster.js';
import type {
  PlanSnapshot,
  ReplicaRead,
  ReplicaReadRequest,
  ReplicaStore,
} from '../../src/replica/types.js';

const request = (planId: string): ReplicaReadRequest => ({
  token: 'token',
  tokenKey: 'key',
  planId,
  freshness: { maxAgeMs: 30_000 },
});

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

describe('singleWarmUp', () => {
  it('shares one warm-up per replica while it runs, and starts a new one after', async () => {
    const started: string[] = [];
    const pending = [deferred<boolean>(), deferred<boolean>(), deferred<boolean>()];
    const warm = singleWarmUp(
      {
        warm: ({ planId }) => {
          started.push(planId);
          return pending[started.length - 1]!.promise;
        },
      },
      () => {},
    );
    const a1 = warm(request('a'));
    const a2 = warm(request('a'));
    const b = warm(request('b'));
    expect(started).toEqual(['a', 'b']);
    pending[0]!.resolve(true);
    pending[1]!.resolve(false);
    expect(await Promise.all([a1, a2, b])).toEqual([true, true, false]);

    const again = warm(request('a'));
    expect(started).toEqual(['a', 'b', 'a']);
    pending[2]!.resolve(true);
    expect(await again).toBe(true);
  });

  it('reports a failed warm-up and reads it as a miss', async () => {
    const errors: unknown[] = [];
    const failure = new Error('unreadable snapshot');
    const warm = singleWarmUp({ warm: () => Promise.reject(failure) }, (error) => {
      errors.push(error);
    });
    expect(await warm(request('a'))).toBe(false);
    expect(errors).toEqual([failure]);
  });
});

describe('warmingReplicas', () => {
  function setup(options: { available: boolean; held: boolean }) {
    const log: string[] = [];
    const inner = {
      peek: () => (options.held ? ({} as ReturnType<ReplicaStore['peek']>) : undefined),
      read: async ({ planId }: ReplicaReadRequest) => {
        log.push(`read ${planId}`);
        return { planId } as unknown as ReplicaRead;
      },
      applySaved: (_tokenKey: string, planId: string) => {
        log.push(`apply ${planId}`);
        return options.held ? ({ planId: 'concrete' } as PlanSnapshot) : undefined;
      },
    } as unknown as ReplicaStore;
    const view = warmingReplicas(inner, {
      link: { available: options.available },
      seals: { remember: (token, tokenKey) => log.push(`remember ${token} ${tokenKey}`) },
      warm: async ({ planId }) => {
        log.push(`warm ${planId}`);
        return true;
      },
      relayWrite: (tokenKey, planId, saved) =>
        log.push(`relay ${tokenKey} ${planId} ${saved.serverKnowledge}`),
    });
    return { view, log };
  }

  it('relays every write it applies, held here or not, to the plan it landed in', () => {
    const held = setup({ available: true, held: true });
    held.view.applySaved('key', 'last-used', { serverKnowledge: 7 });
    expect(held.log).toEqual(['apply last-used', 'relay key concrete 7']);
    const cold = setup({ available: true, held: false });
    cold.view.applySaved('key', 'plan-1', { serverKnowledge: 8 });
    // Through an alias with nothing held, the plan is the upstream's to say: nothing to relay.
    cold.view.applySaved('key', 'last-used', { serverKnowledge: 9 });
    expect(cold.log).toEqual(['apply plan-1', 'relay key plan-1 8', 'apply last-used']);
  });

  it('warms a replica this instance does not hold before reading it', async () => {
    const { view, log } = setup({ available: true, held: false });
    await view.read(request('a'));
    expect(log).toEqual(['remember token key', 'warm a', 'read a']);
  });

  it('reads at once what is held here, or while Redis is away', async () => {
    for (const options of [
      { available: true, held: true },
      { available: false, held: false },
    ]) {
      const { view, log } = setup(options);
      await view.read(request('a'));
      expect(log).toEqual(['remember token key', 'read a']);
    }
  });
});

describe('bindOnce', () => {
  it('refuses a read before the value is bound, and a second bind', () => {
    const binding = bindOnce<string>('replicas(store)');
    expect(() => binding.get()).toThrowError(
      'createCluster: replicas(store) must be called before use',
    );
    expect(binding.bind('store')).toBe('store');
    expect(binding.get()).toBe('store');
    expect(() => binding.bind('other')).toThrowError(
      'createCluster: replicas(store) was already called',
    );
  });
});
