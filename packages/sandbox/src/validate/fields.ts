/**
 * Readers for untrusted JSON. Each takes the value and the path a client would recognise
 * (`transactions[2].date`) and either returns the narrowed value or throws a 400 whose detail
 * names that path. `undefined` always means "absent"; `null` is only accepted where the
 * interface allows it.
 */
import { type IsoDate, UUID_PATTERN } from '@plans-gateway/rest-contract';
import { calendarDateOf } from '../core/dates.js';
import { badRequest } from '../core/errors.js';

export type JsonObject = Record<string, unknown>;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readObject(value: unknown, path: string): JsonObject {
  if (!isJsonObject(value)) throw badRequest(`${path} must be an object`);
  return value;
}

export function readArray(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw badRequest(`${path} must be an array`);
  return value;
}

export function requirePresent(value: unknown, path: string): unknown {
  if (value === undefined) throw badRequest(`${path} is required`);
  if (value === null) throw badRequest(`${path} must not be null`);
  return value;
}

export interface StringRules {
  maxLength?: number;
  /** Reject '' and whitespace-only strings. */
  nonEmpty?: boolean;
}

export function readString(value: unknown, path: string, rules: StringRules = {}): string {
  if (typeof value !== 'string') throw badRequest(`${path} must be a string`);
  if (rules.nonEmpty && value.trim() === '') throw badRequest(`${path} must not be empty`);
  if (rules.maxLength !== undefined && [...value].length > rules.maxLength) {
    throw badRequest(`${path} must be at most ${rules.maxLength} characters`);
  }
  return value;
}

export function readNullableString(
  value: unknown,
  path: string,
  rules: StringRules = {},
): string | null {
  return value === null ? null : readString(value, path, rules);
}

export function readInteger(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw badRequest(`${path} must be an integer amount in milliunits`);
  }
  return value;
}

export function readBoolean(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') throw badRequest(`${path} must be true or false`);
  return value;
}

export function readEnum<T extends string>(value: unknown, allowed: readonly T[], path: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    const shown = allowed.map((v) => (v === '' ? "''" : v)).join(', ');
    throw badRequest(`${path} must be one of: ${shown}`);
  }
  return value as T;
}

/** What a date input must look like, for the 400 details. */
export const DATE_FORMAT_RULE = 'a date in YYYY-MM-DD format (or an ISO 8601 date-time)';

/** A date, or a date-time whose calendar date is taken (see `calendarDateOf`). */
export function readDate(value: unknown, path: string): IsoDate {
  const date = typeof value === 'string' ? calendarDateOf(value) : null;
  if (date === null) throw badRequest(`${path} must be ${DATE_FORMAT_RULE}`);
  return date;
}

/** A UUID, lower-cased so look-ups match whatever case the client sent. */
export function readUuid(value: unknown, path: string): string {
  if (typeof value !== 'string' || !isUuid(value)) throw badRequest(`${path} must be a UUID`);
  return value.toLowerCase();
}

export function readNullableUuid(value: unknown, path: string): string | null {
  return value === null ? null : readUuid(value, path);
}
