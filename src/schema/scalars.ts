/**
 * Scalars. Input checks live here, not in resolvers, because graphql-js coerces every argument
 * (literal or variable) before the first resolver runs: a bad date or a fractional amount is
 * refused before any upstream call, wherever it sits in the operation.
 *
 * Every input failure carries `extensions.code = 'BAD_USER_INPUT'`; graphql-js copies the
 * extensions of the error a scalar throws onto the error it reports.
 */
import { PLAN_ALIASES, UUID_PATTERN } from '@plans-gateway/rest-contract';
import { type GraphQLError, GraphQLScalarType, Kind, print, type ValueNode } from 'graphql';
import {
  DateTimeResolver,
  JSONResolver,
  LatitudeResolver,
  LocalDateResolver,
  LongitudeResolver,
  SafeIntResolver,
  UUIDResolver,
} from 'graphql-scalars';
import { gatewayError } from '../errors/codes.js';
import { builder } from './builder.js';

function inputError(message: string, node?: ValueNode): GraphQLError {
  return gatewayError(message, 'BAD_USER_INPUT', { nodes: node });
}

function shown(value: unknown, node?: ValueNode): string {
  return node ? print(node) : JSON.stringify(value);
}

/** Reuse a graphql-scalars scalar, adding the input error code to whatever it throws. */
function withInputCode(scalar: GraphQLScalarType): GraphQLScalarType {
  const config = scalar.toConfig();
  const tag =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return fn(...args);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw inputError(message);
      }
    };
  return new GraphQLScalarType({
    ...config,
    parseValue: tag(config.parseValue ?? ((v: unknown) => v)),
    parseLiteral: tag(config.parseLiteral ?? (() => undefined)),
  });
}

builder.addScalarType('DateTime', withInputCode(DateTimeResolver), {});
builder.addScalarType('UUID', withInputCode(UUIDResolver), {});
builder.addScalarType('SafeInt', withInputCode(SafeIntResolver), {});
builder.addScalarType('Latitude', withInputCode(LatitudeResolver), {});
builder.addScalarType('Longitude', withInputCode(LongitudeResolver), {});
// Output only (`WriteConflict.attempted`: a write's input echoed back as the client sent it).
builder.addScalarType('JSON', JSONResolver, {});

/** graphql-scalars' LocalDate does the checking; the schema keeps the REST name `Date`. */
const localDate = LocalDateResolver.toConfig();

function isCalendarDate(value: string): boolean {
  try {
    localDate.parseValue?.(value);
    return true;
  } catch {
    return false;
  }
}

function toDate(value: unknown, node?: ValueNode): string {
  if (typeof value === 'string' && isCalendarDate(value)) return value;
  throw inputError(
    `a date must be a calendar day in YYYY-MM-DD form; got ${shown(value, node)}`,
    node,
  );
}

const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Private: the output check, on every date of every answer: the shape and the day of the month by
 * arithmetic. LocalDate's check builds a Date per value; inputs keep it (its messages, its rules).
 */
function isOutputDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = DATE_SHAPE.exec(value);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= DAYS_IN_MONTH[month - 1]! + (leap ? 1 : 0);
}

builder.scalarType('Date', {
  description: 'A calendar date in `YYYY-MM-DD` form (UTC), as the REST interface sends dates.',
  serialize: (value) => (isOutputDate(value) ? value : toDate(value)),
  parseValue: (value) => toDate(value),
  parseLiteral: (node) => toDate(node.kind === Kind.STRING ? node.value : undefined, node),
  extensions: { codegenScalarType: 'string' },
});

/**
 * Why not `Int`: GraphQL's Int is 32-bit and overflows at about 2.1 million currency units,
 * and a `Float` would let fractions of a milliunit through. Milliunits travel as JSON numbers,
 * which are exact up to 2^53 - 1.
 */
function toMilliunits(value: unknown, node?: ValueNode): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw inputError(`milliunits must be an integer; got ${shown(value, node)}`, node);
  }
  if (!Number.isInteger(value)) {
    throw inputError(
      `milliunits must be a whole number (1000 = one currency unit); got the fraction ${shown(value, node)}`,
      node,
    );
  }
  if (!Number.isSafeInteger(value)) {
    throw inputError(`milliunits must be within ±(2^53 - 1); got ${shown(value, node)}`, node);
  }
  return value;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Why an amount past 2^53 is an error, not a number: a sum of int64 amounts (a balance, a
 * category's carried balance, a month's figures) may pass it, and the replica holds it exactly
 * as a bigint, but a JSON number beyond ±(2^53 - 1) is rounded by every `JSON.parse` that reads
 * it, silently. So the field fails (null, with this error at its path) and the amount's
 * `…Formatted` text, a string, shows every digit (to the currency's decimals). No digits here: errors are logged.
 */
export function amountBeyondJson(): GraphQLError {
  return gatewayError(
    'this amount is past ±(2^53 - 1) milliunits, which no JSON number carries exactly; ' +
      "its …Formatted text shows it exactly, to the currency's decimals",
    'AMOUNT_BEYOND_JSON',
  );
}

/**
 * An amount on its way out: a safe integer as is, a bigint within the safe range as a number.
 * Resolvers refuse a larger one first (`amountFields`), with the code; this is the backstop.
 */
export function serializedMilliunits(value: unknown): number {
  if (typeof value === 'bigint') {
    if (value < -MAX_SAFE || value > MAX_SAFE) throw amountBeyondJson();
    return Number(value);
  }
  return toMilliunits(value);
}

export const Milliunits = builder.scalarType('Milliunits', {
  description:
    'An amount in milliunits: integer thousandths of the plan currency (1000 = 1.00; negative = ' +
    'outflow). Exact for any integer up to 2^53 - 1, so amounts beyond the 32-bit `Int` range ' +
    'round-trip unchanged. Fractions are rejected. A sum past 2^53 - 1 (a balance of a plan ' +
    'with enormous amounts) is never rounded: the field fails with `AMOUNT_BEYOND_JSON` and its ' +
    '`…Formatted` companion shows every digit.',
  serialize: (value) => serializedMilliunits(value),
  parseValue: (value) => toMilliunits(value),
  parseLiteral: (node) =>
    toMilliunits(
      node.kind === Kind.INT || node.kind === Kind.FLOAT ? Number(node.value) : undefined,
      node,
    ),
  extensions: { codegenScalarType: 'number' },
});

function toPlanId(value: unknown, node?: ValueNode): string {
  if (typeof value === 'string') {
    if (PLAN_ALIASES.has(value)) return value;
    if (UUID_PATTERN.test(value)) return value.toLowerCase();
  }
  throw inputError(
    `a plan id must be a UUID, "last-used" or "default"; got ${shown(value, node)}`,
    node,
  );
}

export const PlanIdScalar = builder.scalarType('PlanId', {
  description:
    'A plan id: the plan UUID, `last-used` (the plan used most recently) or `default` (the ' +
    'default plan, when the OAuth application enables default plan selection).',
  serialize: (value) => toPlanId(value),
  parseValue: (value) => toPlanId(value),
  parseLiteral: (node) => toPlanId(node.kind === Kind.STRING ? node.value : undefined, node),
  extensions: { codegenScalarType: 'string' },
});

/** `current`, or the first day of the month the given date falls in. */
function toMonthSelector(value: unknown, node?: ValueNode): string {
  if (value === 'current') return value;
  if (typeof value === 'string' && isCalendarDate(value)) return `${value.slice(0, 7)}-01`;
  throw inputError(
    `a month must be "current" or a date in YYYY-MM-DD form; got ${shown(value, node)}`,
    node,
  );
}

export const MonthSelectorScalar = builder.scalarType('MonthSelector', {
  description:
    'A plan month: `current` (the current calendar month, UTC) or a date; any day selects its ' +
    'month, so `2024-03-17` means `2024-03-01`.',
  serialize: (value) => toMonthSelector(value),
  parseValue: (value) => toMonthSelector(value),
  parseLiteral: (node) => toMonthSelector(node.kind === Kind.STRING ? node.value : undefined, node),
  extensions: { codegenScalarType: 'string' },
});
