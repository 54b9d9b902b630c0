/**
 * What an operation costs before it runs: depth, breadth and cost over every field it selects,
 * introspection included, so that no selection escapes the limits (docs/graph.md#limits).
 *
 * Cost: each field costs its own price (1 unless the schema says otherwise, see
 * `src/schema/cost.ts`) plus its selections times its multiplier: the page size of a
 * connection, 10 for a list of unknown length, 1 otherwise. A multiplier is never below 1: an
 * empty page still answers `totalCount` and `pageInfo`, so `first: 0` cannot make what is
 * below it free.
 *
 * Introspection (`__schema`, `__type`, and everything below them) is priced by what this
 * schema actually holds: `__Schema.types` multiplies by the number of types, `__Type.fields`
 * by the average number of fields per type that has fields, and so on (`introspectionSizes`).
 * Averages make a walk over every type cost exactly what it returns; a hand-picked type can
 * hold a few times its average, which the other limits (depth, aliases, graphql-js's limit on
 * nested `fields`) keep small. An `ofType` chain is the schema's type wrapping (`[X!]!` is three
 * levels), not a fan-out the client chose: it adds no depth (GraphiQL asks for 9 levels of it),
 * and levels past the schema's deepest wrapping, which can only answer null, cost 1.
 *
 * Results are kept per document and operation when no price read an argument given by a
 * variable (`pricedOperation`; the cost cannot change), so the warm path of a repeated
 * operation does no walking, variables or not.
 */
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLType,
  getArgumentValues,
  getNamedType,
  getNullableType,
  getVariableValues,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isObjectType,
  isWrappingType,
  Kind,
  type OperationDefinitionNode,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  type ValueNode,
} from 'graphql';
import { gatewayError } from '../errors/codes.js';
import type { FieldPrice } from '../schema/cost.js';

export interface OperationCost {
  readonly complexity: number;
  readonly depth: number;
  readonly breadth: number;
}

export type FieldPricer = (
  args: Record<string, unknown>,
  field: GraphQLField<unknown, unknown>,
) => FieldPrice;

export interface IntrospectionSizes {
  /** List multiplier of an introspection field, by `Type.field` coordinate. */
  readonly lists: ReadonlyMap<string, number>;
  /** The most wrappers (list, non-null) around any type the schema uses: `[X!]!` has three. */
  readonly wrapping: number;
}

const ZERO: OperationCost = { complexity: 0, depth: 0, breadth: 0 };

/**
 * How many items each introspection list of `schema` holds on average, e.g. `__Type.fields` →
 * fields per type that has fields. Computed once per schema.
 */
export function introspectionSizes(schema: GraphQLSchema): IntrospectionSizes {
  const types = Object.values(schema.getTypeMap());
  const average = (lists: readonly (readonly unknown[] | null)[]) => {
    const present = lists.filter((list): list is readonly unknown[] => list !== null);
    const total = present.reduce((sum, list) => sum + list.length, 0);
    return Math.max(1, Math.ceil(total / Math.max(1, present.length)));
  };
  const withFields = (t: GraphQLNamedType) => isObjectType(t) || isInterfaceType(t);
  const fieldLists = types.map((t) => (withFields(t) ? Object.values(t.getFields()) : null));
  const directives = schema.getDirectives();
  const typeRefs = [
    ...fieldLists.flatMap((list) =>
      (list ?? []).flatMap((f) => [f.type, ...f.args.map((a) => a.type)]),
    ),
    ...types.flatMap((t) =>
      isInputObjectType(t) ? Object.values(t.getFields()).map((f) => f.type) : [],
    ),
    ...directives.flatMap((d) => d.args.map((a) => a.type)),
  ];
  const lists = new Map([
    ['__Schema.types', types.length],
    ['__Schema.directives', directives.length],
    ['__Type.fields', average(fieldLists)],
    [
      '__Type.inputFields',
      average(types.map((t) => (isInputObjectType(t) ? Object.values(t.getFields()) : null))),
    ],
    ['__Type.enumValues', average(types.map((t) => (isEnumType(t) ? t.getValues() : null)))],
    [
      '__Type.interfaces',
      average(types.map((t) => (isObjectType(t) || isInterfaceType(t) ? t.getInterfaces() : null))),
    ],
    [
      '__Type.possibleTypes',
      average(types.map((t) => (isAbstractType(t) ? schema.getPossibleTypes(t) : null))),
    ],
    ['__Field.args', average(fieldLists.flatMap((list) => (list ?? []).map((f) => f.args)))],
    ['__Directive.args', average(directives.map((d) => d.args))],
  ]);
  return { lists, wrapping: Math.max(0, ...typeRefs.map(wrappersOf)) };
}

function wrappersOf(type: GraphQLType): number {
  let count = 0;
  for (let t = type; isWrappingType(t); t = t.ofType) count += 1;
  return count;
}

export interface CostContext {
  readonly schema: GraphQLSchema;
  readonly price: FieldPricer;
  readonly introspection: IntrospectionSizes;
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  readonly variables: Record<string, unknown>;
  /**
   * Per selection set, parent type and scope: a fragment spread many times is walked once per
   * kind of place it is spread in.
   */
  readonly memo: Map<SelectionSetNode, Map<string, OperationCost>>;
  /** Set once a price read an argument given by a variable (see `pricedOperation`). */
  readonly reads: { variables: boolean };
}

/** An operation's cost, and whether other variables could change it. */
export interface PricedOperation {
  readonly cost: OperationCost | null;
  /**
   * A price read an argument given by a variable, or the variables did not coerce: the cost
   * holds for these variables only. When false, it holds for any variables the operation
   * accepts (those it refuses fail execution before any field runs).
   */
  readonly byVariables: boolean;
}

/**
 * The cost of the operation `operationName` (or the only one) of `document`, and whether the
 * variables decided it. The cost is null when the operation cannot be priced because it does not
 * exist or its variables do not coerce (execution then refuses it before any field runs). Most
 * operations with variables (a mutation's `$input`, a plan id) have prices that read none of
 * them, so their cost can be kept per document, like that of an operation without variables.
 */
export function pricedOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: Readonly<Record<string, unknown>> | null | undefined,
  price: FieldPricer,
  introspection: IntrospectionSizes,
): PricedOperation {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  let operation: OperationDefinitionNode | undefined;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
    else if (definition.kind === Kind.OPERATION_DEFINITION) {
      if (operationName ? definition.name?.value === operationName : operation === undefined)
        operation = definition;
    }
  }
  if (!operation) return { cost: null, byVariables: false };
  const root = schema.getRootType(operation.operation);
  if (!root) return { cost: null, byVariables: false };
  const coerced = getVariableValues(
    schema,
    operation.variableDefinitions ?? [],
    rawVariables ?? {},
  );
  if (coerced.errors) return { cost: null, byVariables: true };
  const reads = { variables: false };
  const cost = selectionSetCost(
    {
      schema,
      price,
      introspection,
      fragments,
      variables: coerced.coerced,
      memo: new Map(),
      reads,
    },
    operation.selectionSet,
    root,
    ROOT,
  );
  return { cost, byVariables: reads.variables };
}

/** Private: where a selection set sits, for what depends on more than its parent type. */
interface Scope {
  /** `ofType` fields right above it, in an unbroken chain. */
  readonly ofTypeLevel: number;
  /** Inside a connection: its `edges` / `nodes` count this many times, everything else once. */
  readonly page?: FieldPrice['page'];
}

const ROOT: Scope = { ofTypeLevel: 0 };

/** Private: the sum of a selection set's fields, fragments included, for parent type `type`. */
function selectionSetCost(
  ctx: CostContext,
  set: SelectionSetNode,
  type: GraphQLNamedType,
  scope: Scope,
): OperationCost {
  const memoKey = `${type.name}/${scope.ofTypeLevel}/${scope.page?.size ?? ''}`;
  const known = ctx.memo.get(set)?.get(memoKey);
  if (known) return known;
  let complexity = 0;
  let breadth = 0;
  let depth = 0;
  for (const selection of set.selections) {
    let part: OperationCost;
    if (selection.kind === Kind.FIELD) {
      part = fieldCost(ctx, selection, type, scope);
      const page = scope.page;
      if (page?.fields.includes(selection.name.value))
        part = { ...part, complexity: part.complexity * Math.max(1, page.size) };
    } else {
      const fragment =
        selection.kind === Kind.FRAGMENT_SPREAD ? ctx.fragments[selection.name.value] : selection;
      if (!fragment) continue;
      const condition = fragment.typeCondition
        ? ctx.schema.getType(fragment.typeCondition.name.value)
        : type;
      part = condition ? selectionSetCost(ctx, fragment.selectionSet, condition, scope) : ZERO;
    }
    complexity += part.complexity;
    breadth += part.breadth;
    depth = Math.max(depth, part.depth);
  }
  const result = { complexity, depth, breadth };
  let byType = ctx.memo.get(set);
  if (!byType) {
    byType = new Map();
    ctx.memo.set(set, byType);
  }
  byType.set(memoKey, result);
  return result;
}

/** Private: one field and what it selects. */
function fieldCost(
  ctx: CostContext,
  node: FieldNode,
  parent: GraphQLNamedType,
  scope: Scope,
): OperationCost {
  const name = node.name.value;
  const definition = fieldDefinition(ctx.schema, parent, name);
  if (!definition) return { complexity: 1, depth: 1, breadth: 1 };
  const coordinate = `${parent.name}.${name}`;
  let price: FieldPrice;
  if (name.startsWith('__') || parent.name.startsWith('__')) {
    const size = ctx.introspection.lists.get(coordinate);
    price = {
      field: 1,
      multiplier: size ?? (isListType(getNullableType(definition.type)) ? 10 : 1),
    };
  } else {
    const byVariables = argumentsGivenByVariables(node);
    let args: Record<string, unknown> = {};
    try {
      args = getArgumentValues(definition, node, ctx.variables);
    } catch {
      // Invalid arguments fail execution before any resolver; price them as absent.
      if (byVariables) ctx.reads.variables = true;
    }
    price = ctx.price(byVariables ? watched(args, byVariables, ctx.reads) : args, definition);
  }
  const own = Math.max(0, price.field);
  if (!node.selectionSet) return { complexity: own, depth: 1, breadth: 1 };
  const ofType = coordinate === '__Type.ofType';
  const ofTypeLevel = ofType ? scope.ofTypeLevel + 1 : 0;
  // Past the schema's deepest wrapping, `ofType` is null whatever it selects.
  if (ofTypeLevel > ctx.introspection.wrapping) return { complexity: own, depth: 0, breadth: 1 };
  const inner: Scope = price.page ? { ofTypeLevel, page: price.page } : { ofTypeLevel };
  const named = getNamedType(definition.type);
  if (price.items) return itemsCost(ctx, node.selectionSet, named, inner, own, price.items);
  const below = selectionSetCost(ctx, node.selectionSet, named, inner);
  return {
    complexity: own + below.complexity * (price.page ? 1 : Math.max(1, price.multiplier)),
    depth: (ofType ? 0 : 1) + below.depth,
    breadth: 1 + below.breadth,
  };
}

/**
 * Private: a list whose items' types are known before it runs (`_entities`). What is written is
 * walked once, every fragment included, as validation will walk it (so nothing in it escapes the
 * limits, whatever the items); then each item counts the selections that apply to its own type.
 * An item naming no object type of the schema counts all of them.
 */
function itemsCost(
  ctx: CostContext,
  set: SelectionSetNode,
  type: GraphQLNamedType,
  scope: Scope,
  own: number,
  items: ReadonlyMap<string, number>,
): OperationCost {
  const written = selectionSetCost(ctx, set, type, scope);
  let complexity = own + written.complexity;
  for (const [name, count] of items) {
    const itemType = ctx.schema.getType(name);
    const each = isObjectType(itemType)
      ? ownSelectionsCost(ctx, set, itemType, scope)
      : written.complexity;
    complexity += count * each;
  }
  return { complexity, depth: 1 + written.depth, breadth: 1 + written.breadth };
}

/**
 * Private: the cost of the selections of `set` (under an abstract type) that an object of `type`
 * gets: its fields, and the fragments on `type` or on an abstract type it belongs to.
 */
function ownSelectionsCost(
  ctx: CostContext,
  set: SelectionSetNode,
  type: GraphQLObjectType,
  scope: Scope,
): number {
  let complexity = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      complexity += fieldCost(ctx, selection, type, scope).complexity;
      continue;
    }
    const fragment =
      selection.kind === Kind.FRAGMENT_SPREAD ? ctx.fragments[selection.name.value] : selection;
    const condition = fragment?.typeCondition
      ? ctx.schema.getType(fragment.typeCondition.name.value)
      : type;
    const applies =
      condition === type || (isAbstractType(condition) && ctx.schema.isSubType(condition, type));
    if (fragment && applies)
      complexity += selectionSetCost(ctx, fragment.selectionSet, condition, scope).complexity;
  }
  return complexity;
}

/** Private: the names of the field's arguments whose values hold a variable; null when none. */
function argumentsGivenByVariables(node: FieldNode): ReadonlySet<string> | null {
  const names = new Set<string>();
  for (const argument of node.arguments ?? [])
    if (holdsVariable(argument.value)) names.add(argument.name.value);
  return names.size > 0 ? names : null;
}

function holdsVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(holdsVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((field) => holdsVariable(field.value));
  return false;
}

/**
 * Private: `args` as a price sees them, noting in `reads` when it looks at one given by a
 * variable (or lists them all): then the cost depends on the variables.
 */
function watched(
  args: Record<string, unknown>,
  byVariables: ReadonlySet<string>,
  reads: { variables: boolean },
): Record<string, unknown> {
  const note = (key: string | symbol) => {
    if (typeof key === 'string' && byVariables.has(key)) reads.variables = true;
  };
  return new Proxy(args, {
    get(target, key, receiver) {
      note(key);
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      note(key);
      return Reflect.has(target, key);
    },
    getOwnPropertyDescriptor(target, key) {
      note(key);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    ownKeys(target) {
      reads.variables = true;
      return Reflect.ownKeys(target);
    },
  });
}

/** Private: the field `name` of `parent`, meta fields (`__schema`, `__type`, `__typename`) included. */
function fieldDefinition(
  schema: GraphQLSchema,
  parent: GraphQLNamedType,
  name: string,
): GraphQLField<unknown, unknown> | undefined {
  if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
  if (parent === schema.getQueryType()) {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  }
  if (!isObjectType(parent) && !isInterfaceType(parent)) return undefined;
  return parent.getFields()[name];
}

/** Refusal of an operation over the depth, breadth or cost budget, before any field resolves. */
export function tooComplex(what: 'depth' | 'breadth' | 'cost', value: number, max: number) {
  return gatewayError(
    `The operation's ${what} is ${value}, over the limit of ${max}. Ask for fewer fields, smaller pages or less nesting.`,
    'OPERATION_TOO_COMPLEX',
    { extensions: { limit: what, value, max } },
  );
}
