/**
 * The rules of Apollo's subgraph compatibility suite (apollo-federation-subgraph-compatibility)
 * that hold for any subgraph, checked offline against `/subgraph` with requests shaped as the
 * suite sends them: `_service { sdl }` and its one federation `@link`, `@key` on every entity,
 * `_entities` resolving representations by `__typename` and key, and the federation fields'
 * signatures. Rules about its own products schema (`@requires`, `@provides`, `@override`...)
 * and inline traces (`ftv1`) do not apply (see docs/federation.md).
 */
import { getNamedType, isObjectType, isUnionType, stripIgnoredCharacters } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_KEYS, subgraphSchema } from '../../src/schema/index.js';
import { type Stack, startStack } from '../support/stack.js';
import { subgraphUrl } from './support/subgraph.js';

let stack: Stack;
let sdl: string;

/** A POST as the suite's client sends it (`accept: application/json`). */
async function suiteRequest(
  query: string,
  variables?: Record<string, unknown>,
): Promise<{ data?: Record<string, unknown>; errors?: unknown[] }> {
  const response = await stack.fetch(subgraphUrl(stack), {
    method: 'POST',
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: `Bearer ${stack.token}`,
    },
    body: JSON.stringify({ query, variables }),
  });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as { data?: Record<string, unknown> };
}

beforeAll(async () => {
  stack = await startStack({ serve: 'fetch', sandbox: { rateLimit: false } });
  const answer = await suiteRequest('query { _service { sdl } }');
  sdl = (answer.data?._service as { sdl: string } | undefined)?.sdl ?? '';
});
afterAll(() => stack.close());

/**
 * The federation versions the suite accepts, and what it accepts to be imported from them; v2.9
 * adds the cost directives (`@cost`, `@listSize`) routers price operations by, which this
 * subgraph publishes (docs/federation.md#demand-control).
 */
const SUPPORTED_VERSIONS = /^2\.[0-9]$/;
const ALLOWED_IMPORTS = new Set([
  '@authenticated',
  '@composeDirective',
  '@extends',
  '@external',
  '@inaccessible',
  '@interfaceObject',
  '@key',
  '@override',
  '@policy',
  '@provides',
  '@requires',
  '@requiresScopes',
  '@shareable',
  '@tag',
  'FieldSet',
  'Scope',
  'Policy',
  '@cost',
  '@listSize',
]);

describe('Apollo subgraph compatibility rules', () => {
  it('link: exactly one federation @link, of a supported version, importing known names', () => {
    const links = stripIgnoredCharacters(sdl).match(/@link\(([\s\S]+?)\)/g) ?? [];
    const federation = links
      .map((link) => /url:"https:\/\/specs\.apollo\.dev\/federation\/v([^"]+)"/.exec(link))
      .filter((match) => match !== null);
    expect(federation).toHaveLength(1);
    expect(federation[0]![1]).toMatch(SUPPORTED_VERSIONS);
    const imports = /import:\[(.+?)\]/.exec(federation[0]!.input)?.[1]?.split(/[ ,]/) ?? [];
    for (const name of imports) expect(ALLOWED_IMPORTS).toContain(name.replaceAll('"', ''));
  });

  it('introspection: _service.sdl holds the schema, Query included, without federation types', () => {
    expect(sdl).toContain('type Query');
    for (const federationOnly of ['_service', '_entities', '_Any', '_Entity', '_Service'])
      expect(sdl).not.toMatch(new RegExp(`\\b${federationOnly}\\b`));
  });

  it('key: every entity declares its @key in the SDL', () => {
    const stripped = stripIgnoredCharacters(sdl);
    for (const [typename, fields] of Object.entries(ENTITY_KEYS)) {
      const key = Object.keys(fields).join(' ');
      const declared = new RegExp(
        `type ${typename}( implements [A-Za-z&]+)?@key\\(fields:"${key}"\\)`,
      );
      expect(declared.test(stripped), `@key of ${typename}`).toBe(true);
    }
  });

  it('key: _entities resolves a representation of each entity by its key, __typename included', async () => {
    const { body } = await stack.rest<{
      data: {
        plan: {
          accounts: { id: string }[];
          months: { month: string }[];
          categories: { id: string }[];
          transactions: { id: string }[];
        };
      };
    }>(`/plans/${stack.planId}`);
    const { accounts, months, categories, transactions } = body.data.plan;
    const representations = [
      { __typename: 'Plan', id: stack.planId },
      { __typename: 'Account', planId: stack.planId, id: accounts[0]!.id },
      { __typename: 'Transaction', planId: stack.planId, id: transactions[0]!.id },
      { __typename: 'Month', planId: stack.planId, month: months[0]!.month },
      {
        __typename: 'MonthCategory',
        planId: stack.planId,
        month: months[0]!.month,
        categoryId: categories[0]!.id,
      },
    ];
    const answer = await suiteRequest(
      `query ($representations: [_Any!]!) {
        _entities(representations: $representations) {
          __typename
          ... on Plan { id }
          ... on Account { planId id }
          ... on Transaction { planId id }
          ... on Month { planId month }
          ... on MonthCategory { planId month categoryId }
        }
      }`,
      { representations },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?._entities).toEqual(representations);
  });

  it('answers the ping a router sends', async () => {
    const answer = await suiteRequest('query { __typename }');
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ __typename: 'Query' });
  });

  it('declares _entities and _service as the federation spec does', () => {
    const query = subgraphSchema().getQueryType()!.getFields();
    expect(String(query._entities?.type)).toBe('[_Entity]!');
    expect(query._entities?.args.map((arg) => `${arg.name}: ${arg.type}`)).toEqual([
      'representations: [_Any!]!',
    ]);
    expect(String(query._service?.type)).toBe('_Service!');
    const service = getNamedType(query._service!.type);
    expect(isObjectType(service) && String(service.getFields().sdl?.type)).toBe('String');
    const entity = subgraphSchema().getType('_Entity');
    expect(
      isUnionType(entity) &&
        entity
          .getTypes()
          .map((t) => t.name)
          .sort(),
    ).toEqual(Object.keys(ENTITY_KEYS).sort());
  });
});
