import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/core/clock.js';
import { HANDLERS } from '../../src/handlers/index.js';
import { createFaultEngine } from '../../src/http/faults.js';
import { createRateLimiter } from '../../src/http/rate-limit.js';
import { createRouter } from '../../src/http/router.js';
import { ROUTES } from '../../src/http/routes.js';

const PLAN = '0b8e5c1c-8a7e-4d0c-9f1e-2c5b7a9d3e41';

describe('router', () => {
  const router = createRouter();

  it('maps every route of the table, with its parameters', () => {
    for (const route of ROUTES) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => `${name}-value`);
      expect(router.match(route.method, path)).toMatchObject({ operationId: route.operationId });
    }
    expect(router.match('GET', `/plans/${PLAN}/months/current/categories/abc`)).toEqual({
      operationId: 'getMonthCategoryById',
      params: { plan_id: PLAN, month: 'current', category_id: 'abc' },
    });
  });

  it('prefers literal segments and refuses unknown paths and methods', () => {
    expect(router.match('POST', `/plans/${PLAN}/transactions/import`)?.operationId).toBe(
      'importTransactions',
    );
    expect(router.match('GET', `/plans/${PLAN}/transactions/import`)?.operationId).toBe(
      'getTransactionById',
    );
    expect(router.match('DELETE', `/plans/${PLAN}/accounts`)).toBeNull();
    expect(router.match('GET', `/plans/${PLAN}/nothing`)).toBeNull();
    expect(router.match('GET', '/')).toBeNull();
  });

  it('has a handler for every operation of the table, and no route twice', () => {
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const route of ROUTES) expect(typeof HANDLERS[route.operationId]).toBe('function');
    expect(new Set(ROUTES.map((r) => r.operationId)).size).toBe(Object.keys(HANDLERS).length);
  });
});

describe('rate limiter', () => {
  it('allows the limit in a rolling window and lets a token in again as old requests leave it', () => {
    const clock = createManualClock(0);
    const limiter = createRateLimiter({ limit: 3, windowMs: 1_000 }, clock);
    expect(limiter.take('a').allowed).toBe(true);
    clock.advance(400);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('b').allowed).toBe(true);
    const refused = limiter.take('a');
    expect(refused).toEqual({ allowed: false, retryAfterMs: 600 });
    clock.advance(599);
    expect(limiter.take('a').allowed).toBe(false);
    clock.advance(1);
    expect(limiter.take('a')).toEqual({ allowed: true, used: 3 });
  });

  it('can be turned off', () => {
    const limiter = createRateLimiter(false, createManualClock(0));
    for (let i = 0; i < 500; i++) expect(limiter.take('a').allowed).toBe(true);
  });
});

describe('fault engine', () => {
  it('matches rules by operation and method, retires them after `times`, and draws rates from its seed', () => {
    const engine = createFaultEngine(1, [
      { kind: 'hang', operationId: 'getPlanById', times: 2 },
      { kind: 'status503', method: 'post' },
    ]);
    expect(engine.pick('getAccounts', 'GET')).toBeNull();
    expect(engine.pick('getPlanById', 'GET')).toBe('hang');
    expect(engine.pick('getPlanById', 'GET')).toBe('hang');
    expect(engine.pick('getPlanById', 'GET')).toBeNull();
    expect(engine.pick('createTransaction', 'POST')).toBe('status503');

    const sample = (seed: number) => {
      const rated = createFaultEngine(seed, [{ kind: 'status500', rate: 0.3 }]);
      return Array.from({ length: 200 }, () => rated.pick('getUser', 'GET'));
    };
    expect(sample(5)).toEqual(sample(5));
    const hits = sample(5).filter((kind) => kind !== null).length;
    expect(hits).toBeGreaterThan(30);
    expect(hits).toBeLessThan(90);
  });

  it('refuses rules it cannot honour', () => {
    expect(() => createFaultEngine(1, [{ kind: 'status500', rate: 1.5 }])).toThrow(/rate/);
    expect(() => createFaultEngine(1, [], { fixedMs: -1 })).toThrow(/fixedMs/);
  });
});
