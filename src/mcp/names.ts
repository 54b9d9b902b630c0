/**
 * Accounts, categories and payees by name: every argument that takes one of their ids
 * (`accountId`, `categoryId`, `payeeId`, `fromCategoryId`..., nested ones included) also takes a
 * name. A value that is not a UUID is matched against the plan's names (`operations/names/
 * plan-names.graphql`, read through the replica like any tool): exactly, then ignoring case,
 * then as the start of a name (ignoring case); the first rule with one match wins, a rule with
 * several refuses the name listing them. What was matched is echoed in the answer (`matched`),
 * so the model and the person see which account or category a name became.
 */
import { UUID_PATTERN } from '@plans-gateway/rest-contract';
import { ArgumentError } from './money.js';
import { quoted } from './quote.js';

export type NamedKind = 'account' | 'category' | 'payee';

/** A named thing of the plan, as the names query answers it. */
export interface Named {
  readonly id: string;
  readonly name: string;
  /** Where it is, for candidates that share a name (a category's group). */
  readonly where?: string;
}

export type PlanNames = Readonly<Record<NamedKind, readonly Named[]>>;

/** A name given for an id, and what it matched. */
export interface Matched {
  readonly argument: string;
  readonly given: string;
  readonly kind: NamedKind;
  readonly id: string;
  readonly name: string;
}

/** The JSON Schema of `matched` in a result. */
export const MATCHED_OUTPUT_SCHEMA = {
  type: 'array',
  description:
    'The names given for ids, and the account, category or payee each matched (check it is the one meant).',
  items: {
    type: 'object',
    properties: {
      argument: { type: 'string' },
      given: { type: 'string' },
      kind: { type: 'string', enum: ['account', 'category', 'payee'] },
      id: { type: 'string' },
      name: { type: 'string' },
    },
    required: ['argument', 'given', 'kind', 'id', 'name'],
  },
} as const;

/** What the description of an argument that takes a name says. */
export const NAME_NOTE =
  'Its id, or its name: matched exactly, then ignoring case, then as the start of a name; an ambiguous name is refused with the candidates.';

/** The kind of thing an argument named `key` takes the id of, if it may be named. */
export function nameableKind(key: string): NamedKind | undefined {
  const found = /(?:^|[a-z])(account|category|payee)Id$/i.exec(key);
  if (!found?.[1]) return undefined;
  // `transferAccountId` and the like name something else; only these take a name.
  if (!/^(account|category|payee|from(Account|Category)|to(Account|Category))Id$/.test(key))
    return undefined;
  return found[1].toLowerCase() as NamedKind;
}

/** Whether any argument (at any depth) gives a name where an id goes. */
export function givesNames(args: unknown): boolean {
  return namedValues(args, '').length > 0;
}

/**
 * `args` with every name replaced by the id it matched, the matches, and the names refused (each
 * an ArgumentError naming the argument's path). A refused name is left as given.
 */
export function resolveNames(
  args: Readonly<Record<string, unknown>>,
  names: PlanNames,
): { args: Record<string, unknown>; matched: Matched[]; errors: ArgumentError[] } {
  const matched: Matched[] = [];
  const errors: ArgumentError[] = [];
  const resolve = (value: unknown, path: string, key: string | undefined): unknown => {
    if (Array.isArray(value)) return value.map((item, i) => resolve(item, `${path}[${i}]`, key));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, resolve(v, path ? `${path}.${k}` : k, k)]),
      );
    const kind = key === undefined ? undefined : nameableKind(key);
    if (!kind || typeof value !== 'string' || UUID_PATTERN.test(value)) return value;
    try {
      const found = match(value, names[kind], kind, path);
      matched.push({ argument: path, given: value, kind, id: found.id, name: found.name });
      return found.id;
    } catch (error) {
      if (!(error instanceof ArgumentError)) throw error;
      errors.push(error);
      return value;
    }
  };
  const resolved = resolve(args, '', undefined) as Record<string, unknown>;
  return { args: resolved, matched, errors };
}

/** Private: the name-valued arguments of `value` (strings that are not ids). */
function namedValues(value: unknown, key: string): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => namedValues(item, key));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => namedValues(v, k));
  return typeof value === 'string' && nameableKind(key) && !UUID_PATTERN.test(value) ? [value] : [];
}

/** How many candidates an ambiguous or unknown name lists. */
const LISTED = 12;

/**
 * The one thing `given` names: exact, then ignoring case, then a case-insensitive
 * prefix. Refused, naming `argument`: no match (with some names there are), several (listed).
 */
export function match(
  given: string,
  candidates: readonly Named[],
  kind: NamedKind,
  argument: string,
): Named {
  const wanted = given.trim();
  const lower = wanted.toLowerCase();
  const rules: ((named: Named) => boolean)[] = [
    (named) => named.name === wanted,
    (named) => named.name.toLowerCase() === lower,
    (named) => named.name.toLowerCase().startsWith(lower),
  ];
  for (const rule of rules) {
    const found = candidates.filter(rule);
    const [only] = found;
    // A transfer payee is found by its own name and its account's: one payee still.
    if (only && found.every((named) => named.id === only.id)) return only;
    if (found.length > 1)
      throw new ArgumentError(
        argument,
        `${quoted(given)} could be any of ${found.length} ${plural(kind)}: ${listed(found)}. Give the full name or the id.`,
      );
  }
  if (wanted === '')
    throw new ArgumentError(argument, `an empty name; give the ${kind}'s name or id.`);
  throw new ArgumentError(
    argument,
    `no ${kind} is named ${quoted(given)} (nor starts so). ${capital(plural(kind))} include: ${listed(candidates)}.`,
  );
}

function listed(found: readonly Named[]): string {
  const shown = found
    .slice(0, LISTED)
    .map((named) => `${quoted(named.name)}${named.where ? ` (${named.where})` : ''}`);
  return `${shown.join(', ')}${found.length > LISTED ? ` and ${found.length - LISTED} more` : ''}`;
}

function plural(kind: NamedKind): string {
  return kind === 'category' ? 'categories' : `${kind}s`;
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
