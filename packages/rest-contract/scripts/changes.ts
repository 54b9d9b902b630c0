/**
 * What changed between two releases of the OpenAPI description, as the checklist a person
 * following the upstream works through (`npm run contract:update`, docs/upstream.md).
 *
 * The two documents are compared as trees, so nothing that changed goes unlisted: a change the
 * groups below do not name lands in "Other". Lists are matched by meaning rather than position:
 * parameters by `in` and `name`, tags by `name`, and lists of plain values (`enum`, `required`,
 * `type`) as sets. A subtree that exists on one side only is one change, not one per leaf.
 */

/** Where a change belongs on the checklist, in the order the checklist shows them. */
export const CHANGE_GROUPS = [
  'Operations',
  'Statuses',
  'Schemas',
  'Fields',
  'Enums',
  'Descriptions',
  'Other',
] as const;
export type ChangeGroup = (typeof CHANGE_GROUPS)[number];

export interface Change {
  group: ChangeGroup;
  /** One line of the checklist: what changed, where, from what to what. */
  text: string;
}

type Segment = string | number;
type Json = unknown;

interface RawChange {
  kind: 'added' | 'removed' | 'changed' | 'values';
  path: Segment[];
  before?: Json;
  after?: Json;
  /** For `values`: the plain values one side has and the other has not. */
  added?: Json[];
  removed?: Json[];
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
/** Lists of plain values whose order carries no meaning. */
const SET_KEYS = new Set(['enum', 'required', 'type']);

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Private: the key a list item is matched by, or null when the list is matched by position. */
function itemKey(item: Json): string | null {
  if (!isObject(item) || typeof item.name !== 'string') return null;
  return typeof item.in === 'string' ? `${item.in} ${item.name}` : item.name;
}

function keyedList(list: Json[]): Map<string, Json> | null {
  const byKey = new Map<string, Json>();
  for (const item of list) {
    const key = itemKey(item);
    if (key === null || byKey.has(key)) return null;
    byKey.set(key, item);
  }
  return byKey;
}

function compare(before: Json, after: Json, path: Segment[], into: RawChange[]): void {
  if (isObject(before) && isObject(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (!(key in after))
        into.push({ kind: 'removed', path: [...path, key], before: before[key] });
      else if (!(key in before))
        into.push({ kind: 'added', path: [...path, key], after: after[key] });
      else compare(before[key], after[key], [...path, key], into);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const last = path[path.length - 1];
    const plain = [...before, ...after].every((item) => !isObject(item) && !Array.isArray(item));
    if (plain && typeof last === 'string' && SET_KEYS.has(last)) {
      const added = after.filter((item) => !before.includes(item));
      const removed = before.filter((item) => !after.includes(item));
      if (added.length > 0 || removed.length > 0)
        into.push({ kind: 'values', path, before, after, added, removed });
      return;
    }
    const beforeKeyed = keyedList(before);
    const afterKeyed = keyedList(after);
    if (beforeKeyed && afterKeyed) {
      compare(Object.fromEntries(beforeKeyed), Object.fromEntries(afterKeyed), path, into);
      return;
    }
    const length = Math.max(before.length, after.length);
    for (let index = 0; index < length; index++) {
      if (index >= after.length)
        into.push({ kind: 'removed', path: [...path, index], before: before[index] });
      else if (index >= before.length)
        into.push({ kind: 'added', path: [...path, index], after: after[index] });
      else compare(before[index], after[index], [...path, index], into);
    }
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after))
    into.push({ kind: 'changed', path, before, after });
}

// ---------------------------------------------------------------------------------------------
// Naming what a path points at

/** Private: `updateTransactions (PATCH /plans/{plan_id}/transactions)` for a path under `paths`. */
function operationName(document: Json, path: Segment[]): string | null {
  if (path[0] !== 'paths' || path.length < 3) return null;
  const [, template, method] = path;
  if (typeof method !== 'string' || !HTTP_METHODS.has(method)) return null;
  const item = isObject(document) && isObject(document.paths) ? document.paths : {};
  const pathItem = item[String(template)];
  const operation = isObject(pathItem) ? pathItem[method] : undefined;
  const id =
    isObject(operation) && typeof operation.operationId === 'string' ? operation.operationId : '';
  const where = `${method.toUpperCase()} ${String(template)}`;
  return id ? `${id} (${where})` : where;
}

/** Private: `SaveCategory.goal_frequency` for a path under a schema, leaving out the plumbing. */
function schemaName(path: Segment[]): string {
  const [, , schema, ...rest] = path;
  let name = String(schema);
  for (let index = 0; index < rest.length; index++) {
    const segment = rest[index];
    if (segment === 'properties' && rest[index + 1] !== undefined) {
      name += `.${String(rest[index + 1])}`;
      index++;
    } else if (segment === 'items') name += '[]';
  }
  return name;
}

/** Private: the rest of a path after the part a name already says, for "changed" lines. */
function tail(path: Segment[], from: number): string {
  return path
    .slice(from)
    .filter((segment) => segment !== 'properties')
    .map(String)
    .join('.');
}

/** Private: `string | null, int64, enum monthly | weekly | yearly`, the gist of a schema. */
function schemaSummary(schema: Json): string {
  if (!isObject(schema)) return JSON.stringify(schema);
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop() ?? schema.$ref;
  const parts: string[] = [];
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : schema.type;
  if (typeof type === 'string') parts.push(type);
  if (typeof schema.format === 'string') parts.push(schema.format);
  if (Array.isArray(schema.enum))
    parts.push(
      `enum ${schema.enum
        .filter((v) => v !== null)
        .map(String)
        .join(' | ')}`,
    );
  if (Array.isArray(schema.allOf))
    parts.push(`allOf ${schema.allOf.map(schemaSummary).join(' & ')}`);
  return parts.join(', ') || 'object';
}

const WORDS = /\S+/g;

/** Private: the words one text has where the other differs, around their common start and end. */
function wordChange(before: string, after: string): string {
  const a = before.match(WORDS) ?? [];
  const b = after.match(WORDS) ?? [];
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (
    end < a.length - start &&
    end < b.length - start &&
    a[a.length - 1 - end] === b[b.length - 1 - end]
  )
    end++;
  const clip = (words: string[]) => {
    const text = words.join(' ');
    return text.length > 240 ? `${text.slice(0, 237)}...` : text;
  };
  const removed = clip(a.slice(start, a.length - end));
  const added = clip(b.slice(start, b.length - end));
  if (!removed && !added) return 'wrapped differently, same words';
  return [removed && `- "${removed}"`, added && `+ "${added}"`].filter(Boolean).join(' ');
}

function isDescriptionKey(segment: Segment | undefined): boolean {
  return segment === 'description' || segment === 'summary';
}

function values(list: Json[] | undefined): string {
  return (list ?? []).map((value) => (value === null ? 'null' : String(value))).join(', ');
}

// ---------------------------------------------------------------------------------------------
// Turning raw changes into checklist lines

/** Private: the lines one raw change gives (some give two: a new field with an enum). */
function describe(change: RawChange, before: Json, after: Json): Change[] {
  const { path, kind } = change;
  const last = path[path.length - 1];
  const document = kind === 'removed' ? before : after;

  if (path[0] === 'info') {
    if (last === 'version') return [];
    if (isDescriptionKey(last) && kind === 'changed')
      return [
        {
          group: 'Descriptions',
          text: `info.${String(last)}: ${wordChange(String(change.before), String(change.after))}`,
        },
      ];
  }
  if (path[0] === 'tags' && path.length >= 2) {
    const tag = `tag ${String(path[1])}`;
    if (path.length === 2) return [{ group: 'Other', text: `${tag} ${kind}` }];
    if (isDescriptionKey(last)) {
      if (kind === 'added')
        return [
          {
            group: 'Descriptions',
            text: `${tag}: description added: "${clip(String(change.after))}"`,
          },
        ];
      if (kind === 'removed')
        return [{ group: 'Descriptions', text: `${tag}: description removed` }];
      return [
        {
          group: 'Descriptions',
          text: `${tag}: ${wordChange(String(change.before), String(change.after))}`,
        },
      ];
    }
  }

  if (path[0] === 'paths') {
    if (path.length === 2 && (kind === 'added' || kind === 'removed')) {
      const item = kind === 'added' ? change.after : change.before;
      const methods = isObject(item)
        ? Object.keys(item).filter((key) => HTTP_METHODS.has(key))
        : [];
      return methods.map((method) => ({
        group: 'Operations' as const,
        text: `${operationName(document, [...path, method])}: operation ${kind}`,
      }));
    }
    const operation =
      operationName(document, path) ?? operationName(kind === 'removed' ? after : before, path);
    if (operation !== null) {
      const inside = path.slice(3);
      if (inside.length === 0)
        return [{ group: 'Operations', text: `${operation}: operation ${kind}` }];
      if (inside[0] === 'responses' && inside.length === 2 && kind !== 'changed')
        return [{ group: 'Statuses', text: `${operation}: status ${String(inside[1])} ${kind}` }];
      if (isDescriptionKey(last)) {
        const where =
          inside.length === 1 ? '' : ` ${tail(inside, 0).replace(/\.(description|summary)$/, '')}`;
        const what =
          kind === 'changed' ? wordChange(String(change.before), String(change.after)) : kind;
        return [{ group: 'Descriptions', text: `${operation}${where} ${String(last)}: ${what}` }];
      }
      if (inside[0] === 'parameters' && inside.length === 2 && kind !== 'changed') {
        const parameter = kind === 'added' ? change.after : change.before;
        const schema = isObject(parameter) ? schemaSummary(parameter.schema) : '';
        const required = isObject(parameter) && parameter.required === true ? ', required' : '';
        return [
          {
            group: 'Operations',
            text: `${operation}: parameter ${String(inside[1])} ${kind} (${schema}${required})`,
          },
        ];
      }
      if (inside[0] === 'requestBody' && inside.length === 1)
        return [{ group: 'Operations', text: `${operation}: request body ${kind}` }];
      return [
        rawLine(
          kind === 'values' || last === 'enum' ? 'Enums' : 'Operations',
          operation,
          tail(inside, 0),
          change,
        ),
      ];
    }
  }

  if (path[0] === 'components' && path[1] === 'schemas' && path.length >= 3) {
    const name = schemaName(path);
    if (path.length === 3 && kind !== 'changed') {
      const schema = kind === 'added' ? change.after : change.before;
      return [{ group: 'Schemas', text: `${name}: schema ${kind} (${schemaSummary(schema)})` }];
    }
    if (path[path.length - 2] === 'properties' && kind !== 'changed') {
      const schema = kind === 'added' ? change.after : change.before;
      const owner = nodeAt(document, path.slice(0, -2));
      const required =
        isObject(owner) && Array.isArray(owner.required) && owner.required.includes(last);
      const summary = `${schemaSummary(schema)}, ${required ? 'required' : 'optional'}`;
      const lines: Change[] = [{ group: 'Fields', text: `${name}: field ${kind} (${summary})` }];
      if (kind === 'added' && isObject(schema) && Array.isArray(schema.enum))
        lines.push({ group: 'Enums', text: `${name}: new enumeration ${values(schema.enum)}` });
      if (isObject(schema) && typeof schema.description === 'string' && kind === 'added')
        lines.push({
          group: 'Descriptions',
          text: `${name}: described as "${clip(schema.description, 600)}"`,
        });
      return lines;
    }
    if (last === 'enum' && kind === 'values') {
      const parts = [
        change.added?.length ? `+ ${values(change.added)}` : '',
        change.removed?.length ? `- ${values(change.removed)}` : '',
      ];
      return [{ group: 'Enums', text: `${name}: values ${parts.filter(Boolean).join(' ')}` }];
    }
    if (last === 'required' && kind === 'values') {
      const parts = [
        change.added?.length ? `now required: ${values(change.added)}` : '',
        change.removed?.length ? `no longer required: ${values(change.removed)}` : '',
      ];
      return [{ group: 'Fields', text: `${name}: ${parts.filter(Boolean).join('; ')}` }];
    }
    if (isDescriptionKey(last)) {
      const what =
        kind === 'changed' ? wordChange(String(change.before), String(change.after)) : kind;
      return [{ group: 'Descriptions', text: `${name}: description ${what}` }];
    }
    return [rawLine(last === 'enum' ? 'Enums' : 'Fields', name, String(last), change)];
  }

  return [rawLine('Other', path.map(String).join('.'), '', change)];
}

function clip(text: string, length = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 3)}...` : flat;
}

/** Private: the node a path points at in a document, list items found by their key too. */
function nodeAt(document: Json, path: Segment[]): Json {
  let node = document;
  for (const segment of path) {
    if (Array.isArray(node)) {
      node =
        typeof segment === 'number'
          ? node[segment]
          : node.find((item) => itemKey(item) === segment);
    } else if (isObject(node)) node = node[String(segment)];
    else return undefined;
  }
  return node;
}

/** Private: a change the groups have no words for, said plainly. */
function rawLine(group: ChangeGroup, where: string, what: string, change: RawChange): Change {
  const at = what ? `${where}: ${what}` : where;
  const shown = (value: Json) =>
    clip(
      Array.isArray(value)
        ? value.map(String).join(' | ')
        : typeof value === 'string'
          ? value
          : (JSON.stringify(value) ?? 'nothing'),
    );
  switch (change.kind) {
    case 'added':
      return { group, text: `${at} added (${shown(change.after)})` };
    case 'removed':
      return { group, text: `${at} removed (was ${shown(change.before)})` };
    case 'values':
      return { group, text: `${at}: ${shown(change.before)} → ${shown(change.after)}` };
    case 'changed':
      return { group, text: `${at}: ${shown(change.before)} → ${shown(change.after)}` };
  }
}

/** Private: "status 209 removed" and "status 200 added" of one operation, said as one move. */
function pairStatuses(changes: Change[]): Change[] {
  const pattern = /^(.*): status (\d)(\d\d) (added|removed)$/;
  const parsed = changes.map((change) => {
    const match = change.group === 'Statuses' ? pattern.exec(change.text) : null;
    return match
      ? { operation: match[1], klass: match[2], status: `${match[2]}${match[3]}`, kind: match[4] }
      : null;
  });
  const replaced = new Map<number, Change>();
  const dropped = new Set<number>();
  parsed.forEach((removed, index) => {
    if (removed?.kind !== 'removed') return;
    const partner = parsed.findIndex(
      (added, other) =>
        !dropped.has(other) &&
        added?.kind === 'added' &&
        added.operation === removed.operation &&
        added.klass === removed.klass,
    );
    if (partner < 0) return;
    dropped.add(partner);
    const to = parsed[partner]?.status;
    replaced.set(index, {
      group: 'Statuses',
      text: `${removed.operation}: status ${removed.status} → ${to}`,
    });
  });
  return changes
    .map((change, index) => replaced.get(index) ?? change)
    .filter((_, index) => !dropped.has(index));
}

/** Every difference between two parsed OpenAPI documents, grouped for the checklist. */
export function describeChanges(before: Json, after: Json): Change[] {
  const raw: RawChange[] = [];
  compare(before, after, [], raw);
  const lines = pairStatuses(raw.flatMap((change) => describe(change, before, after)));
  return CHANGE_GROUPS.flatMap((group) => lines.filter((line) => line.group === group));
}

function versionOf(document: Json): string {
  const info = isObject(document) && isObject(document.info) ? document.info : {};
  return typeof info.version === 'string' ? info.version : 'unknown';
}

/** The checklist as text: a heading, then each group with one `- [ ]` line per change. */
export function formatChecklist(before: Json, after: Json, changes: readonly Change[]): string {
  const lines = [
    `Upstream description ${versionOf(before)} → ${versionOf(after)}: ${changes.length} changes`,
  ];
  if (changes.length === 0) lines.push('', 'Nothing changed but the version.');
  for (const group of CHANGE_GROUPS) {
    const inGroup = changes.filter((change) => change.group === group);
    if (inGroup.length === 0) continue;
    lines.push('', `${group} (${inGroup.length})`);
    for (const change of inGroup) lines.push(`- [ ] ${change.text}`);
  }
  return `${lines.join('\n')}\n`;
}
