/**
 * The link's up/down decisions on their own: up once both connections are ready, one outage told
 * once however many connections report losing it, no outage while the second is still connecting.
 */
import { describe, expect, it } from 'vitest';
import { LinkState } from '../../src/cluster/redis.js';

describe('LinkState', () => {
  it('comes up when both connections are ready, the first time and after an outage', () => {
    const state = new LinkState();
    expect(state.update(false, 'ready')).toBeUndefined(); // one ready, the other on its way
    expect(state.available).toBe(false);
    expect(state.outages).toBe(0);
    expect(state.update(true, 'ready')).toEqual({ available: true, first: true });
    expect(state.update(true, 'ready')).toBeUndefined();
    expect(state.available).toBe(true);

    expect(state.update(false, 'connection closed')).toEqual({
      available: false,
      reason: 'connection closed',
    });
    expect(state.update(false, 'connect ECONNREFUSED')).toBeUndefined();
    expect(state.update(false, 'connection ended')).toBeUndefined();
    expect(state.available).toBe(false);
    expect(state.outages).toBe(1);

    expect(state.update(true, 'ready')).toEqual({ available: true, first: false });
    expect(state.available).toBe(true);
  });

  it('counts a connection that never came up as an outage, and stays down once closed', () => {
    const state = new LinkState();
    expect(state.update(false, 'connect ECONNREFUSED')).toEqual({
      available: false,
      reason: 'connect ECONNREFUSED',
    });
    expect(state.failedToLoad('ioredis could not be loaded: gone')).toEqual({
      available: false,
      reason: 'ioredis could not be loaded: gone',
    });
    expect(state.outages).toBe(2);
    expect(state.update(true, 'ready')).toEqual({ available: true, first: true });
    state.close();
    expect(state.available).toBe(false);
  });
});
