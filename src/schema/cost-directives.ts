/**
 * The gateway's prices (`cost.ts`) as the GraphQL cost directives routers read for demand
 * control (`@cost`, `@listSize`; Apollo's federation v2.9 `cost/v0.1`, after IBM's cost
 * specification), so that a router's estimate of an operation agrees with the gateway's own
 * (docs/federation.md#demand-control).
 *
 * The prices are functions of a field's arguments; the directives are read off them by asking
 * each price what it answers with no argument and with each argument given, so they follow the
 * prices as those change:
 * - a field's own price: `@cost(weight:)`, less the 1 routers already charge for an object (a
 *   leaf field gets its whole price: routers charge nothing for scalars);
 * - a connection (a price with a `page`): `@listSize(slicingArguments: ["first", "last"],
 *   sizedFields: ["edges", "nodes"], assumedSize: <default page>, requireOneSlicingArgument:
 *   false)`: neither is required, the default page applies;
 * - a list of unknown length: `@listSize(assumedSize: 10)`, or what its price multiplies by;
 * - an argument that adds to the price when given (a text `search`, a `type` filter, walked row
 *   by row): `@cost(weight:)` on that argument.
 *
 * Differences a router's estimate keeps (measured by test/federation/cost-directives.test.ts):
 * routers multiply a list's own weight by its size (the gateway counts it once), add 10 per
 * mutation, price `nodes(ids:)` by its assumed size rather than the ids given, and skip
 * introspection.
 */
import {
  type ArgumentNode,
  type ConstDirectiveNode,
  type ConstValueNode,
  type GraphQLField,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isIntrospectionType,
  isLeafType,
  isListType,
  isObjectType,
  Kind,
} from 'graphql';
import { type FieldPrice, priceOf } from './cost.js';

/** The directives a field's price maps to: on the field, and on each argument by name. */
export interface FieldCostDirectives {
  readonly field: readonly ConstDirectiveNode[];
  readonly args: ReadonlyMap<string, readonly ConstDirectiveNode[]>;
}

/** Arguments a connection is sliced by, when the price reads them as its page size. */
const SLICING_ARGUMENTS = ['first', 'last'] as const;

/** A page size no default equals, to see which arguments a price reads as its size. */
const PROBE_SIZE = 7;

/** What the price of `field` says as cost directives. */
export function costDirectivesOf(field: GraphQLField<unknown, unknown>): FieldCostDirectives {
  const base = priceOf({}, field);
  const type = getNullableType(field.type);
  const leaf = isLeafType(getNamedType(field.type));
  const onField: ConstDirectiveNode[] = [];
  const weight = leaf ? base.field : base.field - 1;
  if (weight !== 0) onField.push(directive('cost', { weight: int(weight) }));

  const slicing = new Set<string>();
  if (base.page) {
    for (const name of SLICING_ARGUMENTS) {
      if (!field.args.some((arg) => arg.name === name)) continue;
      if (priceOf({ [name]: PROBE_SIZE }, field).page?.size === PROBE_SIZE) slicing.add(name);
    }
    const rowsType = getNamedType(field.type);
    const rowFields =
      isObjectType(rowsType) || isInterfaceType(rowsType) ? rowsType.getFields() : {};
    const sized = base.page.fields.filter((name) => Object.hasOwn(rowFields, name));
    // A page behind a union (`changes`) has no fields a router can name: composition refuses a
    // `@listSize` there, so routers price its rows once, as they would any object.
    if (sized.length > 0 || isListType(type))
      onField.push(
        directive('listSize', {
          assumedSize: int(base.page.size),
          ...(slicing.size > 0 ? { slicingArguments: strings([...slicing]) } : {}),
          ...(sized.length > 0 ? { sizedFields: strings(sized) } : {}),
          ...(slicing.size > 0 ? { requireOneSlicingArgument: bool(false) } : {}),
        }),
      );
  } else if (isListType(type) && !base.items) {
    onField.push(directive('listSize', { assumedSize: int(base.multiplier) }));
  }

  const args = new Map<string, readonly ConstDirectiveNode[]>();
  for (const arg of field.args) {
    if (slicing.has(arg.name)) continue;
    const added = addedBy(field, base, arg.name);
    if (added > 0) args.set(arg.name, [directive('cost', { weight: int(added) })]);
  }
  return { field: onField, args };
}

/**
 * Writes the cost directives of every field of `schema` into its SDL (the fields' and
 * arguments' AST nodes, which `printSubgraphSchema` prints). Introspection and federation's
 * own fields (`_entities`, priced per representation, which routers never estimate) are left
 * alone.
 */
export function annotateCosts(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    // Federation refuses cost directives on interface fields: routers price the object types.
    if (isIntrospectionType(type) || !isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.name.startsWith('_')) continue;
      const { field: onField, args } = costDirectivesOf(field);
      appendDirectives(field.astNode, onField);
      for (const arg of field.args) appendDirectives(arg.astNode, args.get(arg.name) ?? []);
    }
  }
}

/** Private: how much giving `name` adds to the field's own price (a filter walked row by row). */
function addedBy(field: GraphQLField<unknown, unknown>, base: FieldPrice, name: string): number {
  // Any value will do: prices that read a filter only ask whether it was given.
  const given = priceOf({ [name]: PROBE_SIZE }, field);
  return given.field - base.field;
}

function appendDirectives(
  node: { readonly directives?: readonly ConstDirectiveNode[] } | null | undefined,
  directives: readonly ConstDirectiveNode[],
): void {
  if (!node || directives.length === 0) return;
  const names = new Set(directives.map((d) => d.name.value));
  // Built once per schema: replacing (not adding to) what an earlier build wrote.
  (node as { directives?: readonly ConstDirectiveNode[] }).directives = [
    ...(node.directives ?? []).filter((d) => !names.has(d.name.value)),
    ...directives,
  ];
}

function directive(name: string, args: Record<string, ConstValueNode>): ConstDirectiveNode {
  return {
    kind: Kind.DIRECTIVE,
    name: { kind: Kind.NAME, value: name },
    arguments: Object.entries(args).map(
      ([argName, value]): ArgumentNode & { value: ConstValueNode } => ({
        kind: Kind.ARGUMENT,
        name: { kind: Kind.NAME, value: argName },
        value,
      }),
    ),
  };
}

function int(value: number): ConstValueNode {
  return { kind: Kind.INT, value: String(value) };
}

function bool(value: boolean): ConstValueNode {
  return { kind: Kind.BOOLEAN, value };
}

function strings(values: readonly string[]): ConstValueNode {
  return {
    kind: Kind.LIST,
    values: values.map((value) => ({ kind: Kind.STRING, value })),
  };
}
