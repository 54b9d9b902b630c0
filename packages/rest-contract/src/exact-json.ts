/**
 * JSON text whose integers stay exact past 2^53. The interface's amounts are int64; one amount
 * fits a JavaScript number, but a sum (an account's balance, a category's carried balance, a
 * month's figures) need not, and `JSON.parse` rounds such an integer to the nearest double
 * without a word. Here an integer literal beyond ±(2^53 − 1) is read as a bigint and a bigint
 * is written as the integer literal it is, so a value survives a round trip digit for digit.
 * Every other value is what `JSON.parse` / `JSON.stringify` make of it.
 *
 * Cost: texts without a run of 16 digits (nearly all) take the plain path after a sparse scan
 * (about a tenth of `JSON.parse`'s time); the others are scanned, then parsed twice, the second
 * time with a reviver (several times `JSON.parse`'s time: only the rare batch holding such a sum,
 * or a memo with 16 digits in a row, pays it).
 */
import { randomUUID } from 'node:crypto';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The fewest digits an integer beyond ±(2^53 − 1) has (2^53 has 16). */
const LONG_RUN = 16;

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * Private: whether `text` has a run of `LONG_RUN` digits. A run that long covers one position of
 * every residue modulo `LONG_RUN`, so only every 16th character is looked at until a digit is
 * (then its run is measured): a tenth of `JSON.parse`'s time, where `/\d{16}/` took longer than
 * the parse itself.
 */
function hasLongDigitRun(text: string): boolean {
  for (let i = LONG_RUN - 1; i < text.length; i += LONG_RUN) {
    if (!isDigit(text.charCodeAt(i))) continue;
    let start = i;
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
    let end = i + 1;
    while (end < text.length && isDigit(text.charCodeAt(end))) end++;
    if (end - start >= LONG_RUN) return true;
    i = end - 1; // the next run starts past `end`; its 16 positions include one checked next
  }
  return false;
}

/**
 * `JSON.parse`, except that an integer literal beyond ±(2^53 − 1) becomes a bigint. Integers
 * written with a fraction or an exponent (`1.0`, `1e20`) are numbers, as `JSON.parse` makes
 * them: they are not exact integers on the wire either. Throws what `JSON.parse` throws.
 */
export function parseExactJson(text: string): unknown {
  const plain: unknown = JSON.parse(text);
  if (!hasLongDigitRun(text)) return plain;
  // The text is JSON (it parsed), so the scan below knows where its strings are.
  const marker = markerAbsentFrom(text);
  const marked = markLargeIntegers(text, marker);
  if (marked === text) return plain;
  const prefix = `\u0000${marker}:`;
  return JSON.parse(marked, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(prefix)
      ? BigInt(value.slice(prefix.length))
      : value,
  );
}

/** Private: a marker no string of `text` holds (strings hold a NUL only as `\u0000`). */
function markerAbsentFrom(text: string): string {
  let marker = 'exact';
  while (text.includes(`\\u0000${marker}:`)) marker += '+';
  return marker;
}

const QUOTE = 34; // "
const BACKSLASH = 92;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;

function isNumberChar(code: number): boolean {
  // digits, '-', '+', '.', 'e', 'E'
  return (
    (code >= ZERO && code <= NINE) ||
    code === 45 ||
    code === 43 ||
    code === 46 ||
    (code | 32) === 101
  );
}

/**
 * Private: `text` (valid JSON) with every integer literal beyond ±(2^53 − 1) outside strings
 * replaced by a string of `marker` and its digits; `text` itself when there is none.
 */
function markLargeIntegers(text: string, marker: string): string {
  const pieces: string[] = [];
  let copiedTo = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i++;
      while (i < text.length) {
        const inner = text.charCodeAt(i);
        if (inner === BACKSLASH) i += 2;
        else if (inner === QUOTE) break;
        else i++;
      }
      i++;
      continue;
    }
    if (code !== MINUS && (code < ZERO || code > NINE)) {
      i++;
      continue;
    }
    const start = i;
    while (i < text.length && isNumberChar(text.charCodeAt(i))) i++;
    const literal = text.slice(start, i);
    if (/^-?\d{16,}$/.test(literal)) {
      const value = BigInt(literal);
      if (value > MAX_SAFE || value < -MAX_SAFE) {
        pieces.push(text.slice(copiedTo, start), `"\\u0000${marker}:${literal}"`);
        copiedTo = i;
      }
    }
  }
  if (copiedTo === 0) return text;
  pieces.push(text.slice(copiedTo));
  return pieces.join('');
}

/**
 * Private: marks a bigint while `JSON.stringify` writes it as a string, so the quotes can come
 * off afterwards. The NUL and the per-process nonce keep any stored string from looking like one.
 */
const BIG_MARK = `\u0000exact-${randomUUID()}:`;
const MARKED = new RegExp(`"${BIG_MARK.replace('\u0000', '\\\\u0000')}(-?\\d+)"`, 'g');

/**
 * `JSON.stringify` (of a value it does not leave undefined), except that a bigint is written as
 * the JSON integer it is. Values without one take the plain path.
 */
export function stringifyExactJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    const marked = JSON.stringify(value, (_key, field: unknown) =>
      typeof field === 'bigint' ? `${BIG_MARK}${field}` : field,
    );
    return (marked ?? 'null').replace(MARKED, '$1');
  }
}
