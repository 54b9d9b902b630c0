/** JSON integers past 2^53 read as bigints and written as integers (src/exact-json.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseExactJson, stringifyExactJson } from '../src/index.js';

const MAX = Number.MAX_SAFE_INTEGER;

describe('parseExactJson', () => {
  it('reads an integer beyond ±(2^53 − 1) as the bigint it is, every digit', () => {
    expect(parseExactJson('{"balance":9007199254740993}')).toEqual({
      balance: 9_007_199_254_740_993n,
    });
    expect(parseExactJson('[-18014398509481983, 9223372036854775807]')).toEqual([
      -18_014_398_509_481_983n,
      9_223_372_036_854_775_807n,
    ]);
  });

  it('finds an integer past 2^53 wherever it starts in the text', () => {
    for (let offset = 0; offset < 40; offset++) {
      const text = `${' '.repeat(offset)}["${'7'.repeat(offset % 20)}",9007199254740993,15]`;
      expect(parseExactJson(text)).toEqual(['7'.repeat(offset % 20), 9_007_199_254_740_993n, 15]);
    }
  });

  it('keeps safe integers, fractions and exponents as numbers, as JSON.parse does', () => {
    const text = `{"a":${MAX},"b":${-MAX},"c":1234567890123456.5,"d":1e20,"e":12345678901234567e2}`;
    expect(parseExactJson(text)).toEqual(JSON.parse(text));
  });

  it('leaves digits inside strings alone, escaped quotes included', () => {
    const text =
      '{"memo":"card 12345678901234567890","note":"say \\"99999999999999999\\"","n":99999999999999999}';
    expect(parseExactJson(text)).toEqual({
      memo: 'card 12345678901234567890',
      note: 'say "99999999999999999"',
      n: 99_999_999_999_999_999n,
    });
  });

  it('is not fooled by a string that looks like its own marker', () => {
    const text = '["\\u0000exact:123","\\u0000exact+:456",12345678901234567890]';
    expect(parseExactJson(text)).toEqual([
      '\u0000exact:123',
      '\u0000exact+:456',
      12_345_678_901_234_567_890n,
    ]);
  });

  it('throws what JSON.parse throws on text that is not JSON', () => {
    expect(() => parseExactJson('[12345678901234567890')).toThrow(SyntaxError);
    expect(() => parseExactJson('{"a":}')).toThrow(SyntaxError);
  });
});

describe('stringifyExactJson', () => {
  it('writes a bigint as its integer and everything else as JSON.stringify does', () => {
    expect(stringifyExactJson({ a: 2n ** 60n, b: [-(2n ** 55n)], c: 'x', d: 1.5 })).toBe(
      `{"a":${2n ** 60n},"b":[${-(2n ** 55n)}],"c":"x","d":1.5}`,
    );
    expect(stringifyExactJson({ a: 1, b: null })).toBe('{"a":1,"b":null}');
  });
});

describe('round trip', () => {
  const amount = fc.oneof(
    fc.bigInt({ min: -(2n ** 63n) + 1n, max: 2n ** 63n - 1n }),
    fc.constantFrom(BigInt(MAX) + 1n, -BigInt(MAX) - 1n, BigInt(MAX) + 2n),
  );
  // The canonical form the parser gives: a number while safe, a bigint beyond.
  const canonical = (value: bigint): number | bigint =>
    value >= -BigInt(MAX) && value <= BigInt(MAX) ? Number(value) : value;

  it('gives back every integer of int64 exactly, among strings full of digits', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ amount, memo: fc.stringMatching(/^[0-9"\\ a-z]{0,40}$/) }), {
          maxLength: 20,
        }),
        (rows) => {
          const model = rows.map((row) => ({ amount: canonical(row.amount), memo: row.memo }));
          expect(parseExactJson(stringifyExactJson(model))).toEqual(model);
        },
      ),
      { seed: 53, numRuns: 200 },
    );
  });
});
