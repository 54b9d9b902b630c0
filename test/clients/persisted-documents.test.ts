import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDocumentManifest } from '../../src/admission/trusted-documents.js';
import { createDocumentStore } from '../../src/server/plugins/use-persisted-documents.js';
import { type Stack, startStack } from '../support/stack.js';
import { countResolvers, type ResolverCounter } from './support/recorders.js';

const MANIFEST = new URL('../../examples/generated/persisted-documents.json', import.meta.url)
  .pathname;
const manifest = loadDocumentManifest(MANIFEST);
const hashOf = (operation: string) =>
  [...manifest].find(([, text]) => text.includes(`query ${operation}(`))![0];

describe('trusted documents (only the manifest graphql-codegen wrote runs)', () => {
  let stack: Stack;
  let resolvers: ResolverCounter;
  beforeAll(async () => {
    resolvers = countResolvers();
    stack = await startStack({
      config: { trustedDocuments: { manifestPath: MANIFEST, only: true } },
      deps: { plugins: [resolvers.plugin] },
    });
  });
  afterAll(() => stack.close());

  const send = (body: unknown) =>
    fetch(stack.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.token}` },
      body: JSON.stringify(body),
    });
  const persisted = (sha256Hash: string) => ({ persistedQuery: { version: 1, sha256Hash } });

  it('runs a registered operation sent by its hash', async () => {
    const response = await send({ extensions: persisted(hashOf('PlanHeader')) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { plan: { name: string } } };
    expect(body.data.plan.name).toBeTruthy();
  });

  it('refuses any other document before execution, naming why', async () => {
    stack.resetUpstreamCalls();
    const before = resolvers.count();
    const text = await send({ query: '{ plan(id: "last-used") { id name } }' });
    expect(text.status).toBe(400);
    expect(await text.json()).toMatchObject({
      errors: [
        {
          message: expect.stringContaining('registered operations only'),
          extensions: { code: 'PERSISTED_QUERY_ONLY' },
        },
      ],
    });
    const unknown = await send({ extensions: persisted('0'.repeat(64)) });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({
      errors: [{ extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST' } }],
    });
    // Nothing ran: no resolver, no upstream call.
    expect(resolvers.count()).toBe(before);
    expect(stack.upstreamCalls()).toEqual([]);
  });
});

describe('automatic persisted queries', () => {
  it('keep hash-only requests working for registered operations from the first request', async () => {
    const stack = await startStack({
      config: { trustedDocuments: { manifestPath: MANIFEST, only: false } },
    });
    try {
      const response = await fetch(stack.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.token}` },
        body: JSON.stringify({
          extensions: { persistedQuery: { version: 1, sha256Hash: hashOf('PlanHeader') } },
        }),
      });
      expect(response.status).toBe(200);
      // Anything else still runs in this mode.
      expect((await stack.gql('{ plan(id: "last-used") { id } }')).body.errors).toBeUndefined();
    } finally {
      await stack.close();
    }
  });

  it('bound their store in entries and bytes; registered documents are never evicted', async () => {
    const store = createDocumentStore(
      { maxEntries: 2, maxBytes: 100 },
      new Map([['registered', 'query Registered { user { id } }']]),
    );
    await store.set('a', 'x'.repeat(40));
    await store.set('b', 'y'.repeat(40));
    await store.set('c', 'z'.repeat(40));
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('c')).toBe('z'.repeat(40));
    await store.set('big', 'w'.repeat(200));
    expect(await store.get('big')).toBeUndefined();
    await store.set('registered', 'query Other { user { id } }');
    expect(await store.get('registered')).toBe('query Registered { user { id } }');
  });

  it('refuse a manifest that cannot be used, naming the file and the entry', () => {
    const dir = mkdtempSync(join(tmpdir(), 'manifest-'));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    expect(() => loadDocumentManifest(join(dir, 'absent.json'))).toThrow(
      /absent\.json cannot be read/,
    );
    expect(() => loadDocumentManifest(file('bad.json', '{'))).toThrow(/bad\.json is not JSON/);
    expect(() => loadDocumentManifest(file('list.json', '[]'))).toThrow(/JSON object of hash/);
    expect(() => loadDocumentManifest(file('entry.json', '{"abc": 1}'))).toThrow(/"abc"/);
    expect(() => loadDocumentManifest(file('empty.json', '{}'))).toThrow(/empty/);
  });
});
