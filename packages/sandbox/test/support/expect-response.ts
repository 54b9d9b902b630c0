/** Assertions shared by the suites: a response conforms to its documented shape and status. */

import type { CurrencyFormat } from '@plans-gateway/rest-contract';
import { expect } from 'vitest';
import { moneyProblems } from './check-money.js';
import { errorProblems, isRecord, responseProblems } from './check-shape.js';
import { deletedPaths } from './delta.js';
import type { ResponseName } from './shapes.js';

export interface Exchange {
  status: number;
  body: unknown;
}

/**
 * The exchange has `status`, its body matches the response shape, its money companions agree
 * with their amounts, and (for full reads) it holds no deleted entity.
 */
export function expectConforms(
  exchange: Exchange,
  name: ResponseName,
  status: number,
  currency: CurrencyFormat | null,
  { allowDeleted = false }: { allowDeleted?: boolean } = {},
): void {
  expect(exchange.status, JSON.stringify(exchange.body).slice(0, 300)).toBe(status);
  expect(responseProblems(exchange.body, name)).toEqual([]);
  if (currency !== null) expect(moneyProblems(exchange.body, currency)).toEqual([]);
  if (!allowDeleted) expect(deletedPaths(exchange.body)).toEqual([]);
}

/** The exchange is an error with this status, id and name, and a detail matching `detail`. */
export function expectError(
  exchange: Exchange,
  status: number,
  id: string,
  name: string,
  detail?: RegExp,
): void {
  const context = JSON.stringify(exchange.body)?.slice(0, 300);
  expect(exchange.status, context).toBe(status);
  expect(errorProblems(exchange.body), context).toEqual([]);
  const error = isRecord(exchange.body) && isRecord(exchange.body.error) ? exchange.body.error : {};
  expect(error.id, context).toBe(id);
  expect(error.name, context).toBe(name);
  expect(typeof error.detail === 'string' && error.detail.length > 0, context).toBe(true);
  if (detail !== undefined) expect(error.detail, context).toMatch(detail);
}
