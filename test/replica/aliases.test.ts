import { describe, expect, it } from 'vitest';
import { AliasTable, lookupReplica } from '../../src/replica/aliases.js';
import { replicaKey } from '../../src/replica/cache.js';

/** A cache that holds nothing and tells which replica keys were looked at. */
function emptyCache() {
  const asked: string[] = [];
  return { asked, peek: (key: string) => void asked.push(key) };
}

describe('AliasTable', () => {
  it('names no plan for an unresolved alias, and a concrete id names itself', () => {
    const aliases = new AliasTable();
    expect(aliases.planIdOf('t1', 'last-used')).toBeUndefined();
    expect(aliases.planIdOf('t1', 'default')).toBeUndefined();
    expect(aliases.planIdOf('t1', 'plan-a')).toBe('plan-a');
  });

  it('resolves an alias per token key, with the time it was checked', () => {
    const aliases = new AliasTable();
    aliases.remember('t1', 'last-used', 'plan-a', 100);
    expect(aliases.planIdOf('t1', 'last-used')).toBe('plan-a');
    expect(aliases.get('t1', 'last-used')).toEqual({ planId: 'plan-a', checkedAt: 100 });
    expect(aliases.planIdOf('t2', 'last-used')).toBeUndefined();
  });

  it('forgets the aliases of a replica that left, but not those that moved elsewhere', () => {
    const aliases = new AliasTable();
    aliases.remember('t1', 'last-used', 'plan-a', 1);
    aliases.remember('t1', 'default', 'plan-a', 1);
    aliases.remember('t1', 'default', 'plan-b', 2);
    aliases.forgetReplica(replicaKey('t1', 'plan-a'));
    expect(aliases.get('t1', 'last-used')).toBeUndefined();
    expect(aliases.get('t1', 'default')).toEqual({ planId: 'plan-b', checkedAt: 2 });
  });

  it('forgets a token without touching another whose key starts alike', () => {
    const aliases = new AliasTable();
    aliases.remember('t1', 'last-used', 'plan-a', 1);
    aliases.remember('t12', 'last-used', 'plan-b', 1);
    aliases.forgetToken('t1');
    expect(aliases.get('t1', 'last-used')).toBeUndefined();
    expect(aliases.planIdOf('t12', 'last-used')).toBe('plan-b');
  });

  it('forgets one requested id, or everything on clear', () => {
    const aliases = new AliasTable();
    aliases.remember('t1', 'last-used', 'plan-a', 1);
    aliases.remember('t1', 'default', 'plan-a', 1);
    aliases.forget('t1', 'last-used');
    expect(aliases.get('t1', 'last-used')).toBeUndefined();
    expect(aliases.get('t1', 'default')).toBeDefined();
    aliases.clear();
    expect(aliases.get('t1', 'default')).toBeUndefined();
  });
});

describe('lookupReplica', () => {
  it('looks at the replica of the plan an alias resolved to', () => {
    const aliases = new AliasTable();
    aliases.remember('t1', 'last-used', 'plan-a', 5);
    const cache = emptyCache();
    const held = lookupReplica(aliases, cache, 't1', 'last-used');
    expect(held).toEqual({
      resolution: { planId: 'plan-a', checkedAt: 5 },
      planId: 'plan-a',
      key: replicaKey('t1', 'plan-a'),
      entry: undefined,
    });
    expect(cache.asked).toEqual([replicaKey('t1', 'plan-a')]);
  });

  it('looks at no replica for an alias not resolved yet', () => {
    const cache = emptyCache();
    const held = lookupReplica(new AliasTable(), cache, 't1', 'default');
    expect(held.planId).toBeUndefined();
    expect(held.key).toBeUndefined();
    expect(cache.asked).toEqual([]);
  });
});
