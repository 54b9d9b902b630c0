/**
 * The streaming splitter hands out exactly the elements `JSON.parse` finds, whatever the chunk
 * boundaries and batch size, and refuses what `JSON.parse` would refuse.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonArraySplitter, JsonStreamError } from '../../src/upstream/json-array-stream.js';
import { cutAt } from '../support/chunks.js';

/** Feeds `text` cut at `cuts` (byte offsets) and returns the elements by key and the skeleton. */
function split(text: string, cuts: readonly number[] = [], batchBytes?: number, guess = true) {
  const bytes = Buffer.from(text, 'utf8');
  const elements: Record<string, unknown[]> = {};
  const batches: number[] = [];
  const splitter = new JsonArraySplitter(
    {
      at: ['data', 'plan'],
      onElements(key, batch) {
        batches.push(batch.length);
        elements[key] = [...(elements[key] ?? []), ...batch];
      },
    },
    batchBytes === undefined ? { guess } : { batchBytes, guess },
  );
  for (const piece of cutAt(bytes, cuts)) splitter.write(piece);
  const skeleton = splitter.end();
  return { elements, skeleton, batches, scanned: splitter.scannedBytes, bytes: bytes.length };
}

/** What the splitter should produce for a document: the arrays of data.plan, and the rest. */
function expected(document: { data: { plan: Record<string, unknown> } }) {
  const elements: Record<string, unknown[]> = {};
  const plan: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(document.data.plan)) {
    if (Array.isArray(value)) {
      if (value.length > 0) elements[key] = value;
      plan[key] = [];
    } else {
      plan[key] = value;
    }
  }
  return { elements, skeleton: { ...document, data: { ...document.data, plan } } };
}

const tricky = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('"', '\\', '\\"', '"\\', '[', ']', '{', '}', ',', '☕', '𝄞', 'naïve', '\u0000'),
);
const row = fc.record({
  id: fc.uuid(),
  memo: fc.option(tricky),
  amount: fc.integer(),
  nested: fc.array(
    fc.record({ k: tricky, v: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null)) }),
    {
      maxLength: 3,
    },
  ),
});
const documents = fc.record({
  data: fc.record({
    plan: fc.record({
      id: fc.uuid(),
      name: tricky,
      transactions: fc.array(row, { maxLength: 30 }),
      subtransactions: fc.array(row, { maxLength: 10 }),
      currency_format: fc.record({ symbol: tricky, digits: fc.integer({ min: 0, max: 3 }) }),
      empty: fc.constant([]),
      numbers: fc.array(fc.integer(), { maxLength: 5 }),
    }),
    server_knowledge: fc.nat(),
  }),
});

describe('the streaming splitter', () => {
  it('finds what JSON.parse finds, cut anywhere, in batches of any size, guessing or not (property)', () => {
    fc.assert(
      fc.property(
        documents,
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.integer({ min: 1, max: 4096 }),
        fc.boolean(),
        fc.boolean(),
        (document, cuts, batchBytes, pretty, guess) => {
          const text = JSON.stringify(document, null, pretty ? 2 : undefined);
          const length = Buffer.byteLength(text);
          const result = split(
            text,
            cuts.map((cut) => cut % length),
            batchBytes,
            guess,
          );
          const want = expected(document);
          expect(result.elements).toEqual(want.elements);
          expect(result.skeleton).toEqual(want.skeleton);
        },
      ),
      { numRuns: 300, seed: 20261126 },
    );
  });

  it('splits a multi-byte character across chunks without harm', () => {
    const text = JSON.stringify({ data: { plan: { rows: [{ memo: 'a☕b𝄞c' }] } } });
    const at = Buffer.from(text).indexOf(Buffer.from('☕')) + 1;
    expect(split(text, [at, at + 1]).elements).toEqual({ rows: [{ memo: 'a☕b𝄞c' }] });
  });

  it('parses in batches, not the whole array at once', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ id: i, pad: 'x'.repeat(100) }));
    const { batches } = split(JSON.stringify({ data: { plan: { rows } } }), [], 4096);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(1000);
    // About 4 KiB of text per batch: a row is about 120 bytes.
    expect(Math.max(...batches)).toBeLessThanOrEqual(36);
    expect(batches.length).toBeGreaterThanOrEqual(28);
  });

  it('cuts an array of objects by guessing, without walking its bytes', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => ({ id: i, memo: `row ${i}`, n: null }));
    const text = JSON.stringify({ data: { plan: { rows, name: 'x' } } });
    const result = split(text, [1000, 50_000], 4096);
    expect(result.elements).toEqual({ rows });
    expect(result.skeleton).toEqual({ data: { plan: { rows: [], name: 'x' } } });
    expect(result.scanned).toBeLessThan(result.bytes / 10);
  });

  it('scans only around a "},", not the rest of the array, when one sits inside a string', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => ({ id: i, memo: `row ${i}` }));
    // Longer than a batch: some guess lands inside them.
    rows[20]!.memo = '},{"id":-1}'.repeat(40);
    rows[900]!.memo = '\\},'.repeat(150);
    const text = JSON.stringify({ data: { plan: { rows } } });
    const result = split(text, [], 256);
    expect(result.elements).toEqual({ rows });
    expect(result.scanned).toBeLessThan(result.bytes / 4);
  });

  it('guesses at the end the scan found when elements end with a nested array (months)', () => {
    const lines = (i: number) => Array.from({ length: 100 }, (_, k) => ({ line: k, of: i }));
    const rows = Array.from({ length: 50 }, (_, i) => ({ id: i, lines: lines(i) }));
    const text = JSON.stringify({ data: { plan: { rows } } });
    for (const chunks of [[], [7, 3000, 3001, 20_000]]) {
      const result = split(text, chunks, 1024);
      expect(result.elements).toEqual({ rows });
      // Guessing at "},", every guess lands between two lines: all of it was scanned.
      expect(result.scanned).toBeLessThan(result.bytes / 4);
    }
  });

  it('scans to its end an array whose guesses keep landing inside elements', () => {
    const lines = (i: number) => Array.from({ length: 5 }, (_, k) => ({ line: k, of: i }));
    // "]}," between an element's groups (nine times) and at its end.
    const rows = Array.from({ length: 50 }, (_, i) => ({
      id: i,
      groups: Array.from({ length: 10 }, () => ({ lines: lines(i) })),
    }));
    const text = JSON.stringify({ data: { plan: { rows } } });
    // Elements of about 1 KB: most guesses 3 KB on land between two groups.
    const result = split(text, [], 3000);
    expect(result.elements).toEqual({ rows });
    expect(result.scanned).toBeGreaterThan(result.bytes * 0.5);
  });

  it('cuts elements whose ends change along the array, by guess or by scan alike', () => {
    const rows = Array.from({ length: 600 }, (_, i) =>
      i % 3 === 0
        ? { id: i, lines: [{ a: i }, { b: '},]},}},' }] }
        : i % 3 === 1
          ? { id: i, tail: { k: { deep: i } } }
          : { id: i, memo: `é☕ ${i} ]},` },
    );
    const text = JSON.stringify({ data: { plan: { rows } } });
    for (const batch of [64, 256, 1024]) {
      for (const chunks of [[], [5, 100, 101, 2000, 4001, 9000]]) {
        expect(split(text, chunks, batch).elements).toEqual({ rows });
      }
    }
  });

  const refused: [string, string][] = [
    ['a trailing comma', '{"data":{"plan":{"rows":[1,2,]}}}'],
    ['two commas', '{"data":{"plan":{"rows":[1,,2]}}}'],
    ['a leading comma', '{"data":{"plan":{"rows":[,1]}}}'],
    ['a missing comma', '{"data":{"plan":{"rows":[{"a":1}{"b":2}]}}}'],
    ['an array closed by a brace', '{"data":{"plan":{"rows":[1,2}}}}'],
    ['a cut-short document', '{"data":{"plan":{"rows":[1,2]}}'],
    ['bytes after the end', '{"data":{"plan":{"rows":[1]}}} x'],
    ['a bracket closing nothing', ']'],
    ['an unterminated string', '{"data":{"plan":{"rows":["abc]}}}'],
  ];
  for (const [what, text] of refused) {
    it(`refuses ${what}, cut anywhere, in any batch size`, () => {
      expect(() => JSON.parse(text)).toThrow();
      for (let cut = 0; cut <= text.length; cut++) {
        for (const batchBytes of [1, 3, 1024]) {
          for (const guess of [true, false]) {
            expect(() => split(text, [cut], batchBytes, guess), `cut at ${cut}`).toThrow(
              JsonStreamError,
            );
          }
        }
      }
    });
  }

  it('refuses an array given twice (JSON.parse would silently keep the last)', () => {
    expect(() => split('{"data":{"plan":{"rows":[1],"rows":[2]}}}')).toThrow(/appears twice/);
  });

  it('holds no more than its cap outside the streamed arrays', () => {
    const text = JSON.stringify({ data: { plan: { name: 'x'.repeat(5000), rows: [] } } });
    const splitter = new JsonArraySplitter(
      { at: ['data', 'plan'], onElements: () => {} },
      { maxSkeletonBytes: 4096 },
    );
    expect(() => splitter.write(Buffer.from(text))).toThrow(/more than 4096 bytes outside/);
  });

  it('stops when the taker throws, with its error', () => {
    const failure = new Error('row 3 is wrong');
    const splitter = new JsonArraySplitter(
      {
        at: ['data', 'plan'],
        onElements() {
          throw failure;
        },
      },
      { batchBytes: 1 },
    );
    expect(() => splitter.write(Buffer.from('{"data":{"plan":{"rows":[1,2,3]}}}'))).toThrow(
      failure,
    );
  });
});
