/**
 * Milliunits that stay exact past 2^53. The interface's amounts are int64: one transaction or
 * assignment fits a JavaScript number (requests are refused beyond ±(2^53 − 1)), but their sums
 * (an account's balance, a category's activity and the balance it carries from month to month,
 * the months' totals and Ready to Assign) need not. Such a sum is an `Exact`: a number while it
 * is a safe integer, which is nearly always and costs nothing, and a bigint beyond, so the
 * arithmetic never rounds. The form is canonical (a value in the safe range is always a number),
 * so `===` compares two of them.
 *
 * Answers carry a bigint as the JSON integer it is (`toJson`).
 */

export type Exact = number | bigint;

/** `T` with every number widened to `Exact`: what the presenters build and `toJson` writes. */
export type Exactly<T> = T extends number
  ? Exact
  : T extends readonly (infer Item)[]
    ? Exactly<Item>[]
    : T extends object
      ? { [Key in keyof T]: Exactly<T[Key]> }
      : T;

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The canonical form of an integer: a number when it is safe. */
export function exact(value: bigint): Exact {
  return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value;
}

export function add(a: Exact, b: Exact): Exact {
  if (typeof a === 'number' && typeof b === 'number') {
    const sum = a + b;
    // Both are safe integers: a safe result is exact, and an inexact one is never safe.
    if (Number.isSafeInteger(sum)) return sum;
  }
  return exact(BigInt(a) + BigInt(b));
}

export function subtract(a: Exact, b: Exact): Exact {
  if (typeof a === 'number' && typeof b === 'number') {
    const difference = a - b;
    if (Number.isSafeInteger(difference)) return difference;
  }
  return exact(BigInt(a) - BigInt(b));
}

export function negate(a: Exact): Exact {
  return typeof a === 'number' ? 0 - a : exact(-a);
}

export function max(a: Exact, b: Exact): Exact {
  return a >= b ? a : b;
}

export function min(a: Exact, b: Exact): Exact {
  return a <= b ? a : b;
}

/** `a × factor` for a small integer factor. */
export function multiply(a: Exact, factor: number): Exact {
  if (typeof a === 'number') {
    const product = a * factor;
    if (Number.isSafeInteger(product)) return product;
  }
  return exact(BigInt(a) * BigInt(factor));
}

/** Below this, a number divided by a small divisor rounds up the same as the exact quotient. */
const SMALL = 2 ** 40;

/** `⌈a / divisor⌉` for a positive integer divisor (up to a few thousand). */
export function ceilDivide(a: Exact, divisor: number): Exact {
  if (typeof a === 'number' && Math.abs(a) <= SMALL) return Math.ceil(a / divisor) + 0;
  const big = BigInt(a);
  const d = BigInt(divisor);
  const quotient = big / d; // truncates towards zero
  return exact(big % d > 0n ? quotient + 1n : quotient);
}

/** Whether an amount is within the interface's int64. */
export function isInt64(value: Exact): boolean {
  return typeof value === 'number' || (value >= -(2n ** 63n) + 1n && value <= 2n ** 63n - 1n);
}
