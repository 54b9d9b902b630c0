/**
 * The gateway's prices published as cost directives (issue 36): a router's estimate of every
 * `.graphql` operation of the repository, computed by Hive Gateway's own demand control
 * (`demandControl` of `@graphql-hive/gateway-runtime`, which reads `@cost` and `@listSize` from
 * the supergraph), agrees with the gateway's own price within the tolerance docs/federation.md
 * states. The router runs in process; its subgraph fetches are answered by a stub (the estimate
 * is made before any fetch leaves).
 */

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { printSubgraphSchema } from '@apollo/subgraph';
import { createGatewayRuntime, useCustomFetch } from '@graphql-hive/gateway-runtime';
import httpTransport from '@graphql-mesh/transport-http';
import {
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  getNullableType,
  getVariableValues,
  type InlineFragmentNode,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  print,
  type SelectionSetNode,
  typeFromAST,
  visit,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { introspectionSizes, pricedOperation } from '../../src/admission/operation-cost.js';
import { readOperation } from '../../src/mcp/catalog.js';
import { priceOf } from '../../src/schema/cost.js';
import { costDirectivesOf } from '../../src/schema/cost-directives.js';
import { subgraphSchema } from '../../src/schema/index.js';
import { compose } from './support/router.js';

/**
 * The stated tolerance (docs/federation.md#demand-control): a router's estimate is within 25%
 * (or 25 points) of the gateway's price for most operations, never under by more, and over by
 * at most 60% where lists of objects nest: routers charge each object of a list (the cost
 * specification), the gateway charges the list once. Routers also charge a priced argument
 * (a text `search`) whenever it is written, given or not: the upper bound is the gateway's price
 * with every argument the operation writes given.
 */
const TOLERANCE = 0.25;
const POINTS = 25;
const NESTED_LISTS_OVER = 0.6;
/** The share of operations within `TOLERANCE` either way. */
const WITHIN_SHARE = 0.9;

const schema = subgraphSchema();
const sizes = introspectionSizes(schema);

/** Every operation document of the repository (the schemas' SDL aside). */
const OPERATION_FILES = execFileSync('git', ['ls-files', '*.graphql'], { encoding: 'utf8' })
  .split('\n')
  .filter((file) => file !== '' && !/^(schema|subgraph)\.graphql$/.test(file));

interface Operation {
  readonly file: string;
  readonly name: string;
  readonly document: DocumentNode;
  readonly variables: Record<string, unknown>;
  /** The same with every variable given (nullable ones too). */
  readonly allGiven: Record<string, unknown>;
}

/** MCP's operations are sent with the shared fragments they spread, as its catalog reads them. */
const MCP_OPERATIONS = 'src/mcp/operations/';

function operationsOf(file: string): Operation[] {
  const document = parse(
    file.startsWith(MCP_OPERATIONS)
      ? readOperation(file.slice(MCP_OPERATIONS.length))
      : readFileSync(file, 'utf8'),
  );
  return document.definitions
    .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
    .map((operation) => {
      const name = operation.name?.value ?? '(anonymous)';
      // One operation per document, with the fragments it uses, as a client sends it.
      const single: DocumentNode = {
        ...document,
        definitions: document.definitions.filter(
          (d) => d.kind !== Kind.OPERATION_DEFINITION || d === operation,
        ),
      };
      return {
        file,
        name,
        document: single,
        variables: variablesFor(operation, false),
        allGiven: variablesFor(operation, true),
      };
    });
}

/**
 * Values for an operation's variables, every default written out: a router prices the fetch
 * with the variables it forwards, so both sides see the same page sizes.
 */
function variablesFor(operation: OperationDefinitionNode, all: boolean): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue) continue;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (type && (all || isNonNullType(type))) raw[definition.variable.name.value] = sample(type);
  }
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], raw);
  if (coerced.errors) throw new Error(coerced.errors.map((e) => e.message).join('; '));
  return coerced.coerced;
}

const SAMPLES: Record<string, unknown> = {
  PlanId: '00000000-0000-4000-8000-000000000001',
  UUID: '00000000-0000-4000-8000-000000000002',
  ID: 't1',
  String: 'x',
  Int: 1,
  SafeInt: 1,
  Milliunits: 1000,
  Boolean: true,
  Date: '2026-01-01',
  MonthSelector: 'current',
};

function sample(type: GraphQLInputType): unknown {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return [sample(nullable.ofType)];
  if (isEnumType(nullable)) return nullable.getValues()[0]!.value;
  if (isInputObjectType(nullable)) {
    const value: Record<string, unknown> = {};
    for (const field of Object.values(nullable.getFields()))
      if (isNonNullType(field.type) && field.defaultValue === undefined)
        value[field.name] = sample(field.type);
    return value;
  }
  if (!(nullable.name in SAMPLES)) throw new Error(`no sample value for ${nullable.name}`);
  return SAMPLES[nullable.name];
}

function gatewayCost(operation: Operation, variables: Record<string, unknown>): number {
  const priced = pricedOperation(
    schema,
    operation.document,
    operation.name,
    variables,
    priceOf,
    sizes,
  );
  if (!priced.cost) throw new Error(`${operation.file}: ${operation.name} could not be priced`);
  return priced.cost.complexity;
}

type Runtime = ReturnType<typeof createGatewayRuntime>;
let router: Runtime;

beforeAll(() => {
  const composed = compose('guild', [
    { name: 'plans', url: 'http://plans.invalid/subgraph', sdl: printSubgraphSchema(schema) },
  ]);
  if ('errors' in composed) throw new Error(composed.errors.join('\n'));
  router = createGatewayRuntime({
    supergraph: composed.supergraphSdl,
    logging: false,
    transports: { http: httpTransport },
    // As docs/federation.md configures it: with it, deferred parts are priced too.
    deferStream: true,
    demandControl: { includeExtensionMetadata: true },
    // No subgraph is needed for the estimate: every fetch is answered empty.
    plugins: () => [
      useCustomFetch(
        async () =>
          new Response(JSON.stringify({ data: null }), {
            headers: { 'content-type': 'application/json' },
          }),
      ),
    ],
  });
});
afterAll(() => router.dispose());

/**
 * `document` with every fragment spread written out in place: Hive Gateway's estimator prices
 * the fields a spread brings into a sized list once, not per item (SearchTransactions: 1,149
 * with its spread, 1,940 written out, the gateway's own price), which docs/federation.md states.
 */
function withFragmentsInlined(document: DocumentNode): DocumentNode {
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const inline = (node: ASTNode): ASTNode =>
    visit(node, {
      FragmentSpread(spread): InlineFragmentNode | undefined {
        const fragment = fragments.get(spread.name.value);
        if (!fragment) return undefined;
        return {
          kind: Kind.INLINE_FRAGMENT,
          typeCondition: fragment.typeCondition,
          selectionSet: inline(fragment.selectionSet) as SelectionSetNode,
        };
      },
    });
  return {
    ...document,
    definitions: document.definitions
      .filter((d) => d.kind !== Kind.FRAGMENT_DEFINITION)
      .map((d) => inline(d) as typeof d),
  };
}

/** What Hive Gateway's demand control estimates `operation` at. */
async function routerEstimate(operation: Operation): Promise<number> {
  const response = await router.fetch('http://router/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      query: print(withFragmentsInlined(operation.document)),
      operationName: operation.name,
      variables: operation.variables,
    }),
  });
  const body = (await response.json()) as { extensions?: { cost?: { estimated?: number } } };
  const estimated = body.extensions?.cost?.estimated;
  if (typeof estimated !== 'number')
    throw new Error(`${operation.file}: no estimate in ${JSON.stringify(body).slice(0, 300)}`);
  return estimated;
}

describe('cost directives', () => {
  it('say what the prices say: connections sliced by first/last, walked filters, lists', () => {
    const plan = schema.getType('Plan');
    if (!isObjectType(plan)) throw new Error('no Plan type');
    const transactions = costDirectivesOf(plan.getFields().transactions!);
    const listSize = transactions.field.find((d) => d.name.value === 'listSize');
    const args = Object.fromEntries(
      (listSize?.arguments ?? []).map((a) => [
        a.name.value,
        a.value.kind === Kind.LIST
          ? a.value.values.map((v) => (v.kind === Kind.STRING ? v.value : null))
          : 'value' in a.value
            ? a.value.value
            : null,
      ]),
    );
    expect(args).toEqual({
      assumedSize: '50',
      slicingArguments: ['first', 'last'],
      sizedFields: ['edges', 'nodes'],
      requireOneSlicingArgument: false,
    });
    // A text search walks the date window row by row: its price is on the argument.
    const search = transactions.args.get('search')?.[0];
    expect(search?.name.value).toBe('cost');
    expect(search?.arguments?.[0]?.value).toMatchObject({ value: '1000' });
    // A leaf costs what the gateway charges (1); an object costs the 1 routers charge already.
    const name = costDirectivesOf(plan.getFields().name!);
    expect(name.field.map((d) => d.name.value)).toEqual(['cost']);
    expect(costDirectivesOf(plan.getFields().accounts!).field).toMatchObject([
      { name: { value: 'listSize' }, arguments: [{ value: { value: '10' } }] },
    ]);
  });

  it('are in the printed subgraph SDL, linked from federation v2.9', () => {
    const sdl = printSubgraphSchema(schema);
    expect(sdl).toContain(
      '@link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key", "@cost", "@listSize"])',
    );
    expect(sdl).toContain(
      'TransactionConnection! @listSize(assumedSize: 50, slicingArguments: ["first", "last"], sizedFields: ["edges", "nodes"], requireOneSlicingArgument: false)',
    );
  });

  it("a router's estimate of every operation of the repository agrees with the gateway's price", async () => {
    const operations = OPERATION_FILES.flatMap(operationsOf);
    expect(operations.length).toBeGreaterThan(40);
    const rows: string[] = [];
    const outside: string[] = [];
    let within = 0;
    for (const operation of operations) {
      const own = gatewayCost(operation, operation.variables);
      const written = gatewayCost(operation, operation.allGiven);
      const estimate = await routerEstimate(operation);
      const row = `${operation.file} ${operation.name}: gateway ${own} (${written} with every argument), router ${estimate}`;
      rows.push(row);
      const low = own - Math.max(POINTS, TOLERANCE * own);
      const high = written + Math.max(POINTS, NESTED_LISTS_OVER * written);
      if (estimate < low || estimate > high) outside.push(row);
      if (Math.abs(estimate - written) <= Math.max(POINTS, TOLERANCE * written)) within += 1;
    }
    if (process.env.COST_TABLE) console.info(rows.join('\n'));
    expect(outside).toEqual([]);
    expect(within / operations.length).toBeGreaterThanOrEqual(WITHIN_SHARE);
  });
});
