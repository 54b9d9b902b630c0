/**
 * Deterministic pseudo-random numbers (sfc32), so a seed always yields the same plan, the same
 * latency jitter and the same fault pattern. Never use Math.random in the sandbox.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A lower-case version 4 UUID drawn from this generator. */
  uuid(): string;
}

/** Private: mixes any list of integers into the four 32-bit words sfc32 starts from. */
function seedWords(parts: readonly number[]): [number, number, number, number] {
  let h1 = 0x9e3779b9;
  let h2 = 0x243f6a88;
  let h3 = 0xb7e15162;
  let h4 = 0x85a308d3;
  for (const part of parts) {
    const low = part >>> 0;
    const high = Math.floor(part / 2 ** 32) >>> 0;
    for (const word of [low, high]) {
      h1 = Math.imul(h1 ^ word, 0x85ebca6b);
      h2 = Math.imul(h2 ^ h1, 0xc2b2ae35);
      h3 = Math.imul(h3 ^ h2, 0x27d4eb2f);
      h4 = Math.imul(h4 ^ h3, 0x165667b1);
      h1 ^= h4 >>> 15;
    }
  }
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A generator seeded by one or more integers (e.g. seed, user index, plan index). */
export function createRandom(...seed: number[]): Random {
  let [a, b, c, d] = seedWords(seed);
  const nextWord = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return t >>> 0;
  };
  // Warm up so close seeds diverge.
  for (let i = 0; i < 12; i++) nextWord();

  const next = (): number => nextWord() / 4294967296;
  const byte = (word: number, shift: number): string => HEX[(word >>> shift) & 0xff] as string;
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError('Random.pick: empty list');
      return items[Math.floor(next() * items.length)] as T;
    },
    uuid() {
      const w0 = nextWord();
      const w1 = nextWord();
      const w2 = nextWord();
      const w3 = nextWord();
      const version = HEX[((w1 >>> 8) & 0x0f) | 0x40] as string;
      const variant = HEX[((w2 >>> 24) & 0x3f) | 0x80] as string;
      return (
        byte(w0, 24) +
        byte(w0, 16) +
        byte(w0, 8) +
        byte(w0, 0) +
        '-' +
        byte(w1, 24) +
        byte(w1, 16) +
        '-' +
        version +
        byte(w1, 0) +
        '-' +
        variant +
        byte(w2, 16) +
        '-' +
        byte(w2, 8) +
        byte(w2, 0) +
        byte(w3, 24) +
        byte(w3, 16) +
        byte(w3, 8) +
        byte(w3, 0)
      );
    },
  };
}
