import { readdirSync, readFileSync } from 'node:fs';
import {
  type DocumentNode,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  parse,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';
import { DASHBOARD_QUERY } from '../../src/server/example-queries.js';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/**
 * Every GraphQL document a reader copies from: the blocks of README.md and docs/*.md, bench
 * operations, examples, GraphiQL.
 */
function exampleDocuments(): [string, string][] {
  const pages = [
    'README.md',
    ...readdirSync(new URL('docs/', root))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
  const blocks = pages.flatMap((page) =>
    [...read(page).matchAll(/```graphql\n([\s\S]*?)```/g)].map((match, i): [string, string] => [
      `${page} block ${i + 1}`,
      match[1]!,
    ]),
  );
  const files = (folder: string) =>
    readdirSync(new URL(folder, root))
      .filter((name) => name.endsWith('.graphql'))
      .map((name): [string, string] => [`${folder}${name}`, read(`${folder}${name}`)]);
  return [
    ...blocks,
    ...files('bench/'),
    ...files('examples/operations/'),
    ['GraphiQL default query', DASHBOARD_QUERY],
  ];
}

function isAstNode(value: unknown): value is { kind: Kind } {
  return typeof value === 'object' && value !== null && 'kind' in value;
}

function isNode(type: ReturnType<typeof getNamedType>): boolean {
  if (isInterfaceType(type)) return type.name === 'Node';
  return isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node');
}

/** Selections of a Node type that leave its `id` out: client caches cannot normalize them. */
function selectionsWithoutId(document: DocumentNode): string[] {
  const typeInfo = new TypeInfo(schema);
  const missing: string[] = [];
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      SelectionSet(node, _key, parent) {
        // A fragment's fields join its parent's selection, which carries the id.
        if (isAstNode(parent) && parent.kind === Kind.INLINE_FRAGMENT) return;
        const type = typeInfo.getType() ?? typeInfo.getParentType();
        const named = type ? getNamedType(type) : null;
        if (!named || !isNode(named)) return;
        const hasId = node.selections.some(
          (selection) => selection.kind === Kind.FIELD && selection.name.value === 'id',
        );
        if (!hasId) missing.push(`${named.name} at line ${node.loc?.startToken.line ?? '?'}`);
      },
    }),
  );
  return missing;
}

describe('example documents', () => {
  const documents = exampleDocuments();

  it('are found: documentation blocks, bench operations and the GraphiQL query', () => {
    expect(documents.length).toBeGreaterThan(8);
  });

  it.each(documents)('%s selects the id of every object that has one', (_name, text) => {
    expect(selectionsWithoutId(parse(text))).toEqual([]);
  });
});
