/** Proves a refused request left the plan alone: same knowledge, same content. */
import { expect } from 'vitest';
import type { Rest } from './rest.js';

/** Runs `act` and asserts the full plan export (knowledge included) is identical before and after. */
export async function expectPlanUnchanged<T>(
  rest: Rest,
  planId: string,
  act: () => Promise<T>,
): Promise<T> {
  const before = await rest.get(`/plans/${planId}`);
  expect(before.status).toBe(200);
  const result = await act();
  const after = await rest.get(`/plans/${planId}`);
  expect(after.status).toBe(200);
  expect(after.body).toEqual(before.body);
  return result;
}
