/**
 * Walks a JSON value against the shapes in `shapes.ts` and returns every problem found, each
 * prefixed with its path, so one failing assertion names all the broken fields at once.
 */
import {
  type FieldType,
  RESPONSES,
  type ResponseName,
  SHAPES,
  type Shape,
  type ShapeName,
} from './shapes.js';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True for a real calendar date in `YYYY-MM-DD`. */
export function isIsoDate(value: unknown): value is string {
  if (typeof value !== 'string' || !DATE.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return `string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === 'number') return `number ${value}`;
  return typeof value;
}

function checkType(value: unknown, type: FieldType, path: string, problems: string[]): void {
  if (typeof type === 'string') {
    const ok =
      type === 'string'
        ? typeof value === 'string'
        : type === 'integer'
          ? Number.isSafeInteger(value)
          : type === 'number'
            ? typeof value === 'number' && Number.isFinite(value)
            : type === 'boolean'
              ? typeof value === 'boolean'
              : type === 'date'
                ? isIsoDate(value)
                : type === 'datetime'
                  ? typeof value === 'string' &&
                    DATE_TIME.test(value) &&
                    !Number.isNaN(Date.parse(value))
                  : isUuid(value);
    if (!ok) problems.push(`${path}: expected ${type}, got ${describe(value)}`);
    return;
  }
  if ('enum' in type) {
    if (typeof value !== 'string' || !type.enum.includes(value)) {
      problems.push(`${path}: expected one of ${type.enum.join('|')}, got ${describe(value)}`);
    }
    return;
  }
  if ('array' in type) {
    if (!Array.isArray(value)) {
      problems.push(`${path}: expected array, got ${describe(value)}`);
      return;
    }
    for (const [index, item] of value.entries())
      checkType(item, type.array, `${path}[${index}]`, problems);
    return;
  }
  if ('map' in type) {
    if (!isRecord(value)) {
      problems.push(`${path}: expected object, got ${describe(value)}`);
      return;
    }
    for (const [key, item] of Object.entries(value))
      checkType(item, type.map, `${path}.${key}`, problems);
    return;
  }
  checkObject(value, SHAPES[type.ref], path, problems);
}

function checkObject(value: unknown, shape: Shape, path: string, problems: string[]): void {
  if (!isRecord(value)) {
    problems.push(`${path}: expected object, got ${describe(value)}`);
    return;
  }
  for (const [name, spec] of Object.entries(shape)) {
    const at = `${path}.${name}`;
    if (!(name in value)) {
      if (!spec.optional) problems.push(`${at}: missing`);
      continue;
    }
    const item = value[name];
    if (item === null) {
      if (!spec.nullable) problems.push(`${at}: null but not nullable`);
      continue;
    }
    if (item === undefined) {
      problems.push(`${at}: undefined`);
      continue;
    }
    checkType(item, spec.type, at, problems);
  }
  for (const name of Object.keys(value)) {
    if (!(name in shape)) problems.push(`${path}.${name}: not in the interface's schema`);
  }
}

/** Problems of `value` against a named entity shape (empty when it conforms). */
export function shapeProblems(value: unknown, name: ShapeName, path: string = name): string[] {
  const problems: string[] = [];
  checkObject(value, SHAPES[name], path, problems);
  return problems;
}

/**
 * Problems of a whole success body (`{ data: ... }`) against the data shape of a response.
 * Only the first `limit` problems are kept so a broken list does not flood the report.
 */
export function responseProblems(body: unknown, name: ResponseName, limit = 30): string[] {
  const problems: string[] = [];
  if (!isRecord(body)) return [`body: expected object, got ${describe(body)}`];
  for (const key of Object.keys(body)) if (key !== 'data') problems.push(`body.${key}: unexpected`);
  checkObject(body.data, RESPONSES[name], 'data', problems);
  return problems.slice(0, limit);
}

/** Problems of an error body against the interface's error wrapper. */
export function errorProblems(body: unknown): string[] {
  const problems: string[] = [];
  if (!isRecord(body)) return [`body: expected object, got ${describe(body)}`];
  for (const key of Object.keys(body))
    if (key !== 'error') problems.push(`body.${key}: unexpected`);
  checkObject(body.error, SHAPES.ErrorDetail, 'error', problems);
  return problems;
}
