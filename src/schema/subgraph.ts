/**
 * The Federation v2 subgraph schema: the graph's own types and fields, plus `_service { sdl }`
 * and `_entities(representations:)` over the keys of `entities.ts`, built by the Pothos
 * federation plugin from the same builder as the graph. `src/server` serves it at `/subgraph`;
 * `subgraph.graphql` is its SDL (`npm run codegen`).
 *
 * The plugin makes `_entities` with Apollo's resolver, which hands each representation to its
 * type's `resolveReference`. Two things are added to that field here:
 * - every representation is checked before any is resolved: an object whose `__typename` names
 *   an entity and whose key fields pass the rules of the graph's own lookups; anything else
 *   refuses the whole field with BAD_USER_INPUT naming the representation and field, so a
 *   malformed list costs no upstream call;
 * - its price for the admission path (`entitiesCost` in `cost.ts`): each representation is a
 *   lookup, priced with the selections of its own type.
 */
import { printSubgraphSchema } from '@apollo/subgraph';
import { type GraphQLFieldResolver, type GraphQLSchema, isScalarType } from 'graphql';
import { builder } from './builder.js';
import type { GatewayContext } from './context.js';
import { entitiesCost } from './cost.js';
import { annotateCosts } from './cost-directives.js';
import { ENTITY_KEYS, type EntityName, type KeyRule } from './entities.js';
import { badUserInput, checkId } from './input-checks.js';

/**
 * The federation spec the subgraph links: v2.9 is the first with the cost directives routers
 * price operations by (`@cost`, `@listSize`), which `cost-directives.ts` writes from the
 * gateway's own prices.
 */
const FEDERATION_SPEC = 'https://specs.apollo.dev/federation/v2.9';
const FEDERATION_IMPORTS = ['@key', '@cost', '@listSize'];

export function buildSubgraphSchema(): GraphQLSchema {
  const schema = builder.toSubGraphSchema({
    linkUrl: FEDERATION_SPEC,
    federationDirectives: FEDERATION_IMPORTS,
  });
  annotateCosts(schema);
  // The plugin printed `_service { sdl }` before the prices were written into the schema.
  const service = schema.getQueryType()?.getFields()._service;
  if (!service) throw new Error('the federation plugin made no _service field');
  const sdl = printSubgraphSchema(schema);
  service.resolve = () => ({ sdl });
  const entities = schema.getQueryType()?.getFields()._entities;
  if (!entities?.resolve) throw new Error('the federation plugin made no _entities field');
  const resolveEach = entities.resolve as GraphQLFieldResolver<unknown, GatewayContext>;
  const check = representationCheck(schema);
  // graphql-js builds each field once and hands the same object to execution and to pricing,
  // so completing the plugin's field in place is what both see.
  entities.resolve = (root, args: { representations?: unknown }, ctx, info) => {
    const representations = check(args.representations);
    // Each plan the token holds no replica of costs an upstream call: as many as `plan(id:)`
    // aliases may, no more (counted across every `_entities` of the operation).
    ctx.loaders.admitColdPlans(representations.map(planIdOf));
    return resolveEach(root, { representations }, ctx, info);
  };
  entities.extensions = { ...entities.extensions, complexity: entitiesCost };
  return schema;
}

/**
 * Private: the check of a list of representations against `ENTITY_KEYS`, with the schema's own
 * scalars for the rules (the same messages as a bad argument of the graph's lookups). Answers
 * the representations with their key fields as the lookups take them (a plan UUID lower-cased).
 */
function representationCheck(schema: GraphQLSchema) {
  const scalar = (name: string) => {
    const type = schema.getType(name);
    if (!isScalarType(type)) throw new Error(`the subgraph has no scalar ${name}`);
    return type;
  };
  const parsers: Record<KeyRule, (value: unknown, field: string) => unknown> = {
    PlanId: (value) => scalar('PlanId').parseValue(value),
    UUID: (value) => scalar('UUID').parseValue(value),
    Date: (value) => scalar('Date').parseValue(value),
    TransactionId: (value, field) => {
      if (typeof value !== 'string') throw new Error('must be a string');
      return checkId(field, value);
    },
  };
  const names = Object.keys(ENTITY_KEYS).join(', ');

  function checkOne(representation: unknown, index: number): Record<string, unknown> {
    const at = `representations[${index}]`;
    if (
      typeof representation !== 'object' ||
      representation === null ||
      Array.isArray(representation)
    )
      throw badUserInput(at, 'must be an object with `__typename` and the key fields of an entity');
    const fields = representation as Record<string, unknown>;
    const typename = fields.__typename;
    if (typeof typename !== 'string' || !Object.hasOwn(ENTITY_KEYS, typename))
      throw badUserInput(
        `${at}.__typename`,
        `must name an entity of this subgraph (${names}); got ${JSON.stringify(typename) ?? 'nothing'}`,
      );
    const checked: Record<string, unknown> = { ...fields };
    for (const [key, rule] of Object.entries(ENTITY_KEYS[typename as EntityName])) {
      const field = `${at}.${key}`;
      const value = fields[key];
      if (value === undefined || value === null)
        throw badUserInput(
          field,
          `a ${typename} is found by ${keyOf(typename as EntityName)}; this key field is missing`,
        );
      try {
        checked[key] = parsers[rule as KeyRule](value, field);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // checkId names the field itself.
        throw message.startsWith(`${field}: `) ? error : badUserInput(field, message);
      }
    }
    return checked;
  }

  return (representations: unknown): Record<string, unknown>[] => {
    if (!Array.isArray(representations))
      throw badUserInput('representations', 'must be a list of representations');
    return representations.map(checkOne);
  };
}

/** Private: the plan a checked representation is found in (a plan's own key is its id). */
function planIdOf(representation: Record<string, unknown>): string {
  return String(representation.__typename === 'Plan' ? representation.id : representation.planId);
}

function keyOf(typename: EntityName): string {
  return `\`${Object.keys(ENTITY_KEYS[typename]).join(' ')}\``;
}
