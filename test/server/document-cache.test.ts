/**
 * Documents are bounded in bytes (issue 18, item 2): a document's text by MAX_DOCUMENT_BYTES
 * (comments included), its tokens counting comments, and the parsed-document cache by an
 * estimate of its heap bytes; a text that fails to parse or validate is never kept. Over real
 * HTTP: padded and failing documents by the hundred leave the heap where the budget says.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWithin } from '../../src/admission/bounded-parse.js';
import {
  createDocumentCache,
  digestOf,
  estimatedBytes,
} from '../../src/admission/document-cache.js';
import { DEFAULT_LIMITS } from '../../src/config/config.js';
import type { Gateway } from '../../src/gateway/gateway.js';
import { type Stack, startStack } from '../support/stack.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const heapAfterGc = () => {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
};

const BOUNDS = { tokens: 20, nesting: 4 };

describe('parsing within bounds', () => {
  it('counts comments as tokens, however they are spread', () => {
    expect(parseWithin('{ a b c }', BOUNDS).ok).toBe(true);
    const commented = parseWithin(`${'# note\n'.repeat(20)}{ a }`, BOUNDS);
    expect(commented).toMatchObject({
      ok: false,
      error: { extensions: { code: 'OPERATION_TOO_COMPLEX', limit: 'tokens', max: 20 } },
    });
    // One long comment is one token: the byte limit, not the token limit, bounds it.
    expect(parseWithin(`#${'x'.repeat(10_000)}\n{ a }`, BOUNDS)).toMatchObject({
      ok: true,
      tokens: 4,
    });
  });

  it('refuses brackets nested deeper than the bound before graphql-js recurses into them', () => {
    expect(parseWithin('{ a(x: [[1]]) }', BOUNDS).ok).toBe(true);
    const deep = `{ a(x: ${'['.repeat(20_000)}1${']'.repeat(20_000)}) }`;
    expect(parseWithin(deep, { tokens: 100_000, nesting: 64 })).toMatchObject({
      ok: false,
      error: { extensions: { code: 'OPERATION_TOO_COMPLEX', limit: 'nesting', max: 64 } },
    });
    // graphql-js alone overflows its stack on this.
    expect(() => parse(deep)).toThrow(RangeError);
  });

  it('answers a syntax error with GRAPHQL_PARSE_FAILED and where it is', () => {
    expect(parseWithin('{ a', BOUNDS)).toMatchObject({
      ok: false,
      error: {
        message: expect.stringContaining('Syntax Error'),
        extensions: { code: 'GRAPHQL_PARSE_FAILED' },
        locations: [{ line: 1, column: 4 }],
      },
    });
  });
});

describe('the document cache', () => {
  it('keeps documents by digest within its byte budget, least recently used first to go', () => {
    const size = { length: 1_000, tokens: 10 };
    const each = estimatedBytes(size);
    const cache = createDocumentCache({ maxBytes: each * 3, maxEntries: 100 });
    const documents = Array.from({ length: 5 }, (_, i) => parse(`{ a${i} }`));
    documents.forEach((document, i) => {
      cache.set(digestOf(`{ a${i} }`), document, size);
    });
    expect(cache.stats()).toEqual({ entries: 3, bytes: each * 3 });
    expect(cache.get(digestOf('{ a0 }'))).toBeUndefined();
    expect(cache.get(digestOf('{ a4 }'))).toBe(documents[4]);
    cache.forget(documents[4]!);
    expect(cache.get(digestOf('{ a4 }'))).toBeUndefined();
    // A document larger than the whole budget is not kept at all.
    cache.set(digestOf('{ huge }'), parse('{ huge }'), { length: each * 3, tokens: 3 });
    expect(cache.get(digestOf('{ huge }'))).toBeUndefined();
  });
});

describe('over HTTP', () => {
  const CACHE_BYTES = 4 * 1024 * 1024;
  let gateway: Gateway;
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      serve: 'fetch',
      config: { documentCache: { maxBytes: CACHE_BYTES, maxEntries: 1_000 } },
    });
    ({ gateway } = stack);
  });
  afterAll(() => stack.close());

  const post = async (query: string) => {
    const response = await stack.fetch(stack.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as {
      errors?: { extensions?: { code?: string; limit?: string } }[];
    };
    const error = body.errors?.[0]?.extensions;
    return `${response.status} ${error ? `${error.code}${error.limit ? `:${error.limit}` : ''}` : 'ok'}`;
  };
  const each = async (count: number, send: (i: number) => Promise<string>) => {
    const answers = new Map<string, number>();
    for (let i = 0; i < count; i += 4) {
      const batch = await Promise.all([0, 1, 2, 3].map((j) => send(i + j)));
      for (const answer of batch) answers.set(answer, (answers.get(answer) ?? 0) + 1);
    }
    return Object.fromEntries(answers);
  };

  it('refuses documents over MAX_DOCUMENT_BYTES without keeping anything of them', async () => {
    const padding = `#${'x'.repeat(900_000)}\n`;
    const before = gateway.admission.stats();
    expect(await each(40, (i) => post(`${padding}query Q${i} { __typename }`))).toEqual({
      '413 OPERATION_TOO_COMPLEX:documentBytes': 40,
    });
    expect(gateway.admission.stats()).toEqual(before);
    expect(DEFAULT_LIMITS.documentBytes).toBe(100 * 1024);
  });

  it('keeps padded documents within the cache budget, and failures not at all', async () => {
    const padding = `#${'y'.repeat(80_000)}\n`;
    const heapBefore = heapAfterGc();
    expect(await each(248, (i) => post(`${padding}query P${i} { __typename }`))).toEqual({
      '200 ok': 248,
    });
    const kept = gateway.admission.stats();
    expect(kept.documentBytes).toBeLessThanOrEqual(CACHE_BYTES);
    expect(kept.documents).toBeLessThan(248);
    expect(await each(248, (i) => post(`${padding}query F${i} { __typename `))).toEqual({
      '400 GRAPHQL_PARSE_FAILED': 248,
    });
    expect(await each(40, (i) => post(`query V${i} { noSuchField }`))).toEqual({
      '200 GRAPHQL_VALIDATION_FAILED': 40,
    });
    const aliases = Array.from(
      { length: DEFAULT_LIMITS.aliases + 1 },
      (_, a) => `a${a}: __typename`,
    );
    expect(await each(40, (i) => post(`query A${i} { ${aliases.join(' ')} }`))).toEqual({
      '400 OPERATION_TOO_COMPLEX:aliases': 40,
    });
    expect(gateway.admission.stats()).toEqual(kept);
    // 496 texts of 80 KB went through: kept whole (yoga's caches keyed by text), about 80 MB,
    // four times the bound.
    expect(heapAfterGc() - heapBefore).toBeLessThan(CACHE_BYTES + 16 * 1024 * 1024);
  });
});
