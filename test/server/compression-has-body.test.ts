/**
 * `hasBody` (src/server/plugins/use-compression.ts) answers as `response.body !== null` would,
 * for yoga's Response on Node (whatwg-node's, read without building its stream) and for Node's
 * own: a body of text, of bytes, of a stream, an empty text, and none.
 */
import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { hasBody } from '../../src/server/plugins/use-compression.js';

const bodies = (): [string, BodyInit | null | undefined][] => [
  ['text', '{"data":{}}'],
  ['empty text', ''],
  ['bytes', new Uint8Array([1, 2, 3])],
  ['stream', new ReadableStream({ start: (c) => c.close() })],
  ['null', null],
  ['none', undefined],
];

const { Response: YogaResponse } = createYoga({
  schema: createSchema({ typeDefs: 'type Query { a: Int }' }),
  logging: false,
}).fetchAPI;

describe('hasBody', () => {
  it("reads whatwg-node's Response without its stream", () => {
    expect('bodyInit' in new YogaResponse('x')).toBe(true);
  });

  for (const [kind, make] of [
    ['whatwg-node', (b: BodyInit | null | undefined) => new YogaResponse(b)],
    ['node', (b: BodyInit | null | undefined) => new Response(b)],
  ] as const)
    it(`agrees with body !== null (${kind})`, () => {
      for (const [name, body] of bodies()) {
        const expected = make(body).body !== null;
        expect([name, hasBody(make(body))]).toEqual([name, expected]);
      }
    });
});
