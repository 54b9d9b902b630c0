/**
 * A tool's output: what its operation selects, as a JSON Schema and as the shape its answer is
 * folded by. Amounts (`Milliunits`) become `{ milliunits, decimal, formatted }` objects:
 * `withCompanions` adds the graph's own companions of every amount selected (`<name>Formatted`,
 * `<name>Currency`) to the document before it runs, and `foldAnswer` puts the three together
 * (and drops the companions it added). Descriptions come from the schema's fields.
 */
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { type JsonSchema, orNull, scalarJsonSchema } from './input-schema.js';
import { amountOf, amountOutputSchema, MILLIUNITS } from './money.js';

const COMPANIONS = ['Formatted', 'Currency'] as const;

/** How an answer's objects fold, by the concrete type of each object. */
export interface Shape {
  readonly byType: ReadonlyMap<string, ObjectShape>;
}

interface Companions {
  readonly formatted: string;
  readonly currency: string;
  /** The companions the document did not ask for itself. */
  readonly drop: readonly string[];
}

interface ObjectShape {
  /** Response keys holding amounts, each with its companions' response keys. */
  /** Response keys holding amounts, with their companions' keys and those added to drop. */
  readonly amounts: ReadonlyMap<string, Companions>;
  readonly children: ReadonlyMap<string, Shape>;
}

/**
 * The document with the companions of every amount it selects, and `__typename` on every
 * selection of an abstract type (the answer is folded by each object's type).
 */
export function withCompanions(schema: GraphQLSchema, document: DocumentNode): DocumentNode {
  const typeInfo = new TypeInfo(schema);
  return visit(
    document,
    visitWithTypeInfo(typeInfo, {
      SelectionSet(node) {
        const parent = typeInfo.getParentType();
        if (!parent) return undefined;
        const added = companionsOf(parent, node.selections);
        return added.length === 0
          ? undefined
          : { ...node, selections: [...node.selections, ...added] };
      },
    }),
  );
}

// Private: the fields to add to a selection set of `parent`.
function companionsOf(
  parent: GraphQLCompositeType,
  selections: readonly SelectionNode[],
): FieldNode[] {
  const keys = new Set(selections.flatMap((s) => (s.kind === Kind.FIELD ? [responseKey(s)] : [])));
  const added: FieldNode[] = [];
  const add = (name: string, alias: string) => {
    if (keys.has(alias)) return;
    keys.add(alias);
    added.push(fieldNode(name, alias));
  };
  if (isAbstractType(parent)) add('__typename', '__typename');
  if (!isObjectType(parent) && !isInterfaceType(parent)) return added;
  const fields = parent.getFields();
  const amounts: { name: string; key: string }[] = [];
  for (const selection of selections) {
    if (selection.kind !== Kind.FIELD) continue;
    const name = selection.name.value;
    const field = fields[name];
    if (field && isAmount(field.type)) amounts.push({ name, key: responseKey(selection) });
    // A companion alone (`balanceFormatted`): the amount itself is added beside it.
    const base = COMPANIONS.reduce(
      (n, suffix) => (n.endsWith(suffix) ? n.slice(0, -suffix.length) : n),
      name,
    );
    const baseField = base !== name && !selection.alias ? fields[base] : undefined;
    if (baseField && isAmount(baseField.type) && !keys.has(base)) {
      add(base, base);
      amounts.push({ name: base, key: base });
    }
  }
  for (const { name, key } of amounts)
    for (const suffix of COMPANIONS)
      if (fields[`${name}${suffix}`]) add(`${name}${suffix}`, `${key}${suffix}`);
  return added;
}

/** The output schema and fold shape of an operation (run `withCompanions` first). */
export function outputOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): { schema: JsonSchema; shape: Shape } {
  const root = schema.getRootType(operation.operation);
  if (!root) throw new Error(`The schema has no ${operation.operation} type`);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition);
  const walker = new SelectionWalker(schema, fragments);
  const { schema: json, shape } = walker.object(root, [operation.selectionSet]);
  return { schema: json, shape: { byType: new Map([[root.name, shape]]) } };
}

/** Folds the amounts of an answer (`data`) by its shape. */
export function foldAnswer(value: unknown, shape: Shape): unknown {
  if (Array.isArray(value)) return value.map((item) => foldAnswer(item, shape));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const typename = typeof object.__typename === 'string' ? object.__typename : undefined;
  const own =
    (typename ? shape.byType.get(typename) : undefined) ??
    (shape.byType.size === 1 ? [...shape.byType.values()][0] : undefined);
  if (!own) return value;
  const folded: Record<string, unknown> = { ...object };
  for (const [key, companions] of own.amounts) {
    const milliunits = object[key];
    const formatted = object[companions.formatted];
    const currency = object[companions.currency];
    if (
      typeof milliunits === 'number' &&
      typeof formatted === 'string' &&
      typeof currency === 'number'
    )
      folded[key] = amountOf(milliunits, currency, formatted);
    for (const key of companions.drop) delete folded[key];
  }
  for (const [key, child] of own.children) folded[key] = foldAnswer(object[key], child);
  return folded;
}

/** Private: walks selection sets against the schema, collecting fields as graphql-js would. */
class SelectionWalker {
  constructor(
    private readonly _schema: GraphQLSchema,
    private readonly _fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  ) {}

  /** Private: a composite type's selections, one variant per possible concrete type. */
  composite(
    type: GraphQLCompositeType,
    sets: readonly SelectionSetNode[],
  ): { schema: JsonSchema; shape: Shape } {
    if (isObjectType(type)) {
      const { schema, shape } = this.object(type, sets);
      return { schema, shape: { byType: new Map([[type.name, shape]]) } };
    }
    const byType = new Map<string, ObjectShape>();
    const variants: JsonSchema[] = [];
    for (const possible of this._schema.getPossibleTypes(type)) {
      const { schema, shape } = this.object(possible, sets, true);
      byType.set(possible.name, shape);
      variants.push(schema);
    }
    return {
      schema: { ...(type.description ? { description: type.description } : {}), anyOf: variants },
      shape: { byType },
    };
  }

  object(
    type: GraphQLObjectType,
    sets: readonly SelectionSetNode[],
    variant = false,
  ): { schema: JsonSchema; shape: ObjectShape } {
    const collected = this._collect(type, sets);
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const amounts = new Map<string, Companions>();
    const children = new Map<string, Shape>();
    const fields = type.getFields();
    // Companions of an amount are folded into it, unless the document asked for them itself.
    const companionKeys = new Set<string>();
    for (const [key, nodes] of collected) {
      const node = nodes[0]!;
      const field = fields[node.name.value];
      if (field && isAmount(field.type))
        for (const suffix of COMPANIONS) companionKeys.add(`${key}${suffix}`);
    }
    for (const [key, nodes] of collected) {
      const node = nodes[0]!;
      if (node.name.value === '__typename') {
        properties[key] = variant ? { type: 'string', const: type.name } : { type: 'string' };
        required.push(key);
        continue;
      }
      const field = fields[node.name.value];
      if (!field) continue;
      if (companionKeys.has(key) && isAddedCompanion(nodes)) continue;
      if (isAmount(field.type)) {
        amounts.set(key, {
          formatted: `${key}Formatted`,
          currency: `${key}Currency`,
          drop: [`${key}Formatted`, `${key}Currency`].filter((k) => {
            const companion = collected.get(k);
            return companion !== undefined && isAddedCompanion(companion);
          }),
        });
      }
      const { schema, shape } = this._field(field, nodes);
      if (shape) children.set(key, shape);
      properties[key] = schema;
      if (!nodes.some(isConditional)) required.push(key);
    }
    return { schema: { type: 'object', properties, required }, shape: { amounts, children } };
  }

  // Private: one field's schema (its description included) and, for objects, its shape.
  private _field(
    field: GraphQLField<unknown, unknown>,
    nodes: readonly FieldNode[],
  ): { schema: JsonSchema; shape?: Shape } {
    const description = field.description ?? undefined;
    const sets = nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
    const { schema, shape } = this._type(field.type, sets);
    const described = isAmount(field.type)
      ? (amountOutputSchema(description).description as string)
      : description;
    return {
      schema: described ? { ...schema, description: described } : schema,
      ...(shape ? { shape } : {}),
    };
  }

  // Private: nullable types also take null.
  private _type(
    type: GraphQLOutputType,
    sets: readonly SelectionSetNode[],
  ): { schema: JsonSchema; shape?: Shape } {
    if (isNonNullType(type)) return this._nonNull(type.ofType, sets);
    const { schema, shape } = this._nonNull(type, sets);
    return { schema: orNull(schema), ...(shape ? { shape } : {}) };
  }

  private _nonNull(
    type: GraphQLOutputType,
    sets: readonly SelectionSetNode[],
  ): { schema: JsonSchema; shape?: Shape } {
    if (isNonNullType(type)) return this._nonNull(type.ofType, sets);
    if (isListType(type)) {
      const inner = this._type(type.ofType, sets);
      return {
        schema: { type: 'array', items: inner.schema },
        ...(inner.shape ? { shape: inner.shape } : {}),
      };
    }
    if (isCompositeType(type)) return this.composite(type, sets);
    if (isEnumType(type))
      return { schema: { type: 'string', enum: type.getValues().map((v) => v.name) } };
    if (isAmount(type)) {
      const { description: _description, ...amount } = amountOutputSchema(undefined);
      return { schema: amount };
    }
    return { schema: isScalarType(type) ? scalarJsonSchema(type) : {} };
  }

  // Private: the fields of `sets` that apply to `type`, by response key, in document order.
  private _collect(
    type: GraphQLObjectType,
    sets: readonly SelectionSetNode[],
  ): Map<string, FieldNode[]> {
    const fields = new Map<string, FieldNode[]>();
    const visited = new Set<string>();
    const walk = (set: SelectionSetNode) => {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          const key = responseKey(selection);
          fields.set(key, [...(fields.get(key) ?? []), selection]);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          const condition = selection.typeCondition?.name.value;
          if (condition === undefined || this._applies(condition, type))
            walk(selection.selectionSet);
        } else {
          const name = selection.name.value;
          const fragment = this._fragments.get(name);
          if (!fragment || visited.has(name)) continue;
          visited.add(name);
          if (this._applies(fragment.typeCondition.name.value, type)) walk(fragment.selectionSet);
        }
      }
    };
    for (const set of sets) walk(set);
    return fields;
  }

  private _applies(condition: string, type: GraphQLObjectType): boolean {
    if (condition === type.name) return true;
    const named = this._schema.getType(condition);
    return named !== undefined && isAbstractType(named) && this._schema.isSubType(named, type);
  }
}

function isAmount(type: GraphQLOutputType): boolean {
  const named = getNamedType(type);
  return isScalarType(named) && named.name === MILLIUNITS;
}

function responseKey(node: FieldNode): string {
  return node.alias?.value ?? node.name.value;
}

function fieldNode(name: string, alias: string): FieldNode {
  return {
    kind: Kind.FIELD,
    name: { kind: Kind.NAME, value: name },
    ...(alias === name ? {} : { alias: { kind: Kind.NAME, value: alias } }),
  };
}

// Private: nodes `withCompanions` made carry no location (nodes parsed from text do).
function isAddedCompanion(nodes: readonly FieldNode[]): boolean {
  return nodes.every((node) => node.loc === undefined);
}

function isConditional(node: FieldNode): boolean {
  return (node.directives ?? []).some((d) => d.name.value === 'include' || d.name.value === 'skip');
}
