/**
 * A JSON document read as it streams, whose large arrays are handed out in parsed batches.
 *
 * Why: a plan export of 1,000,000 transactions is about 600 MB of JSON. Reading it whole and
 * then calling `JSON.parse` holds the text (600 MB), the parsed tree (more) and whatever is built
 * from it at once. Here only the members of one object (`at`, e.g. `data.plan`) that are arrays
 * stream: their elements are cut out of the bytes as they arrive, a batch of about `batchBytes`
 * at a time, and parsed by `JSON.parse` (native, several times faster than any tokenizer written
 * in JavaScript; measured in docs/performance.md). Everything else (the "skeleton": the document
 * with those arrays left empty) is kept and parsed at the end; it is small and bounded. Integers
 * beyond ±(2^53 − 1) (sums of int64 amounts) come out as bigints (`parseExactJson`), not rounded.
 *
 * The scanner only follows strings and brackets to find where elements end; the text of each
 * batch and of the skeleton still goes through `JSON.parse`, so anything malformed fails there
 * or at the end (unbalanced brackets, trailing bytes, a stray comma between batches). Cuts are
 * only made at ASCII delimiters, so a multi-byte UTF-8 character is never split.
 *
 * Most of a streamed array is not scanned at all. Walking every byte in JavaScript cost as much
 * as `JSON.parse` itself, so inside a streamed array the splitter guesses: once a batch is big
 * enough it takes the next `},` (native `indexOf`) as the end of an element and lets
 * `JSON.parse` check the guess. `[` + text + `]` parses only when the guess was right: the text
 * starts at a known element boundary, a `,` inside a string leaves that string unterminated,
 * and one at any depth below the array leaves a bracket unclosed (a prefix never ends inside a
 * number or literal, since it ends with `}`). A wrong guess (a `},` inside a string or a nested
 * object, the array's end, a malformed body) makes the splitter scan that batch byte by byte as
 * before, so results and errors are those of the exact scan; it guesses again from the next
 * element boundary the scan finds, unless the array's guesses are often wrong (elements with
 * nested objects), which are then scanned to the array's end.
 */

import { parseExactJson } from '@plans-gateway/rest-contract';

/** Where the streamed arrays are, and who takes their elements. */
export interface StreamedArrays {
  /** Keys from the root to the object whose array members stream, e.g. `['data', 'plan']`. */
  readonly at: readonly string[];
  /**
   * Called with each batch of elements of the array member `key`, in document order. May throw
   * to stop the read (the error propagates from `write`).
   */
  onElements(key: string, elements: unknown[]): void;
}

export interface SplitterOptions {
  /** Elements are parsed in batches of about this many bytes. @default 64 KiB */
  readonly batchBytes?: number;
  /** Largest skeleton (the document without the streamed arrays' elements). @default 4 MiB */
  readonly maxSkeletonBytes?: number;
  /**
   * Cut the streamed arrays by guessing and checking (see the top of the file) instead of
   * scanning every byte; false only to compare the two. @default true
   */
  readonly guess?: boolean;
}

/** The bytes are not the JSON document expected; `reason` is ours, never document text. */
export class JsonStreamError extends Error {
  override readonly name = 'JsonStreamError';
  readonly code = 'GW_ERR_JSON_STREAM';
}

const DEFAULT_BATCH_BYTES = 64 * 1024;
const DEFAULT_MAX_SKELETON_BYTES = 4 * 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const OPEN_BRACKET = Buffer.from('[');
const CLOSE_BRACKET = Buffer.from(']');
/** Where a guessed cut goes: after an object element, before the comma that follows it. */
const OBJECT_THEN_COMMA = Buffer.from('},');
/** The same for elements whose last member is an array (`months`) or an object. */
const ARRAY_OBJECT_THEN_COMMA = Buffer.from(']},');
const OBJECTS_THEN_COMMA = Buffer.from('}},');
/** Changes of the guessed end per array (see `_learnCut`). */
const MAX_CUT_PATTERN_CHANGES = 2;
/** Without a guess this many batches long, the array is scanned instead (elements not objects). */
const GUESS_SPAN_BATCHES = 4;
/**
 * An array goes on being guessed after a wrong guess while at most one guess in this many was
 * wrong, the first wrong one forgiven: a stray `},` in some text costs one batch's scan, while
 * an array whose elements nest objects is scanned after its second wrong guess.
 */
const GUESSES_PER_WRONG_GUESS = 8;

/**
 * Feed it the document's bytes with `write`, then call `end` for the skeleton. One instance
 * reads one document.
 */
export class JsonArraySplitter {
  private readonly _at: readonly string[];
  private readonly _onElements: StreamedArrays['onElements'];
  private readonly _batchBytes: number;
  private readonly _maxSkeletonBytes: number;
  /** Depth of the streamed arrays themselves (the root object is depth 1). */
  private readonly _arrayDepth: number;
  private readonly _guessEnabled: boolean;

  private _depth = 0;
  private _inString = false;
  private _escaped = false;
  /** Per depth up to the streamed arrays: the container is an object on the path to `at`. */
  private readonly _onPath: boolean[] = [true];
  /** Per depth up to the streamed arrays: the last string seen there (the key of what follows). */
  private readonly _lastString: (string | undefined)[] = [];
  /** Bytes of a string being captured at a shallow depth (keys), if one is. */
  private _capture: number[] | undefined;

  /** The array member streaming now, if the scanner is inside one. */
  private _streaming: string | undefined;
  private readonly _streamed = new Set<string>();
  private _batch: Buffer[] = [];
  private _batchSize = 0;
  /** Where the batch's part in the current chunk starts, when it started in it. */
  private _batchFrom = 0;
  private _cutAtComma = false;
  /**
   * The streaming array's batches are cut by guessing (see the top of the file) rather than by
   * scanning; then `_batch` starts at an element boundary and nothing in it was scanned.
   */
  private _guessing = false;
  /** Guesses made in the streaming array, and how many were wrong. */
  private _guesses = 0;
  private _wrongGuesses = 0;
  /** What a guess takes for an element's end and the comma after it (see `_learnCut`). */
  private _cutPattern: Buffer = OBJECT_THEN_COMMA;
  /** Times `_cutPattern` changed in the streaming array. */
  private _cutPatternChanges = 0;
  private _scannedBytes = 0;

  private readonly _skeleton: Buffer[] = [];
  private _skeletonSize = 0;
  private _skeletonFrom = 0;
  private _done = false;

  constructor(arrays: StreamedArrays, options: SplitterOptions = {}) {
    this._at = arrays.at;
    this._onElements = arrays.onElements.bind(arrays);
    this._batchBytes = options.batchBytes ?? DEFAULT_BATCH_BYTES;
    this._maxSkeletonBytes = options.maxSkeletonBytes ?? DEFAULT_MAX_SKELETON_BYTES;
    this._arrayDepth = arrays.at.length + 2;
    this._guessEnabled = options.guess ?? true;
  }

  write(chunk: Buffer): void {
    if (this._done) throw new Error('JsonArraySplitter: write after end');
    this._take(chunk);
  }

  /** Bytes walked one by one so far (the rest of the streamed arrays was cut by guessing). */
  get scannedBytes(): number {
    return this._scannedBytes;
  }

  // Private: the next bytes of the document, guessed through or scanned.
  private _take(chunk: Buffer): void {
    if (this._guessing) {
      this._guess(chunk, 0);
      return;
    }
    this._scan(chunk);
  }

  // Private: walks `chunk` byte by byte (strings skipped with `indexOf`) until a streamed array
  // opens; the rest of the chunk is then guessed through.
  private _scan(chunk: Buffer): void {
    this._batchFrom = 0;
    this._skeletonFrom = 0;
    const arrayDepth = this._arrayDepth;
    const length = chunk.length;
    let i = 0;
    if (this._inString) i = this._skipString(chunk, 0);
    while (i < length) {
      const c = chunk[i]!;
      switch (c) {
        case QUOTE:
          this._inString = true;
          if (this._depth < arrayDepth) this._capture = [];
          i = this._skipString(chunk, i + 1);
          continue;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          this._depth += 1;
          if (this._depth <= arrayDepth) this._open(c === OPEN_OBJECT, chunk, i);
          if (this._guessing) {
            this._scannedBytes += i + 1;
            this._guess(chunk, i + 1);
            return;
          }
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          if (this._depth === arrayDepth && this._streaming !== undefined) {
            if (c !== CLOSE_ARRAY) throw new JsonStreamError('an array closed by "}"');
            this._closeArray(chunk, i);
          }
          this._depth -= 1;
          if (this._depth < 0) throw new JsonStreamError('a bracket closes nothing');
          break;
        case COMMA:
          if (
            this._depth === arrayDepth &&
            this._streaming !== undefined &&
            this._batchSize + (i - this._batchFrom) >= this._batchBytes
          ) {
            this._cut(chunk, i);
            if (this._guessing) {
              this._scannedBytes += i + 1;
              this._guess(chunk, i + 1);
              return;
            }
          }
          break;
        default:
      }
      i += 1;
    }
    this._scannedBytes += length;
    if (this._streaming !== undefined) {
      this._keepBatch(chunk.subarray(this._batchFrom));
    } else {
      this._keepSkeleton(chunk.subarray(this._skeletonFrom));
    }
  }

  /**
   * Private: bytes of a streaming array from `from`, the batch so far starting at an element
   * boundary. Each time the batch is big enough, the next `},` (or the end `_learnCut` found)
   * is taken as its end and checked
   * by parsing; a wrong guess hands the batch and the rest of the chunk to the scanner.
   */
  private _guess(chunk: Buffer, from: number): void {
    let start = from;
    const length = chunk.length;
    const pattern = this._cutPattern;
    while (start < length) {
      const probe = start + Math.max(0, this._batchBytes - this._batchSize - 1);
      const at = probe < length ? chunk.indexOf(pattern, probe) : -1;
      if (at < 0) {
        this._keepBatch(chunk.subarray(start));
        if (this._batchSize > GUESS_SPAN_BATCHES * this._batchBytes) {
          this._guesses += 1;
          this._wrongGuesses += 1;
          this._stopGuessing();
        }
        return;
      }
      // The guessed element ends before the pattern's comma.
      const comma = at + pattern.length - 1;
      this._keepBatch(chunk.subarray(start, comma));
      this._guesses += 1;
      const elements = this._parseBatch();
      if (elements === undefined) {
        this._wrongGuesses += 1;
        this._stopGuessing();
        this._take(chunk.subarray(comma));
        return;
      }
      this._batch = [];
      this._batchSize = 0;
      this._cutAtComma = true;
      this._onElements(this._streaming!, elements);
      start = comma + 1;
    }
  }

  // Private: the guessed batch was wrong (or the document ends): its bytes are scanned again
  // from the element boundary it starts at, until a cut of the scanner lets guessing resume.
  private _stopGuessing(): void {
    this._guessing = false;
    const pieces = this._batch;
    this._batch = [];
    this._batchSize = 0;
    for (const piece of pieces) this._take(piece);
  }

  /** The batch's elements, or undefined when `[` + batch + `]` is not JSON. */
  private _parseBatch(): unknown[] | undefined {
    try {
      const text = Buffer.concat(
        [OPEN_BRACKET, ...this._batch, CLOSE_BRACKET],
        this._batchSize + 2,
      ).toString();
      return parseExactJson(text) as unknown[];
    } catch {
      return undefined;
    }
  }

  /**
   * Private: from `from` inside a string, the position after its closing quote, or the chunk's
   * length when the string goes on (then `_escaped` says whether the next byte is escaped).
   * Finds quotes with `indexOf` (native) and counts the backslashes before each.
   */
  private _skipString(chunk: Buffer, from: number): number {
    let start = from;
    if (this._escaped) {
      this._escaped = false;
      start += 1;
    }
    let search = start;
    for (;;) {
      const quote = chunk.indexOf(QUOTE, search);
      if (quote < 0) {
        let k = chunk.length - 1;
        while (k >= start && chunk[k] === BACKSLASH) k -= 1;
        this._escaped = (chunk.length - 1 - k) % 2 === 1;
        if (this._capture) keep(this._capture, chunk, from, chunk.length);
        return chunk.length;
      }
      let k = quote - 1;
      while (k >= start && chunk[k] === BACKSLASH) k -= 1;
      if ((quote - 1 - k) % 2 === 0) {
        this._inString = false;
        if (this._capture) {
          keep(this._capture, chunk, from, quote);
          this._endCapture();
        }
        return quote + 1;
      }
      search = quote + 1;
    }
  }

  /** The document with every streamed array empty; throws when it is incomplete or malformed. */
  end(): unknown {
    if (this._done) throw new Error('JsonArraySplitter: end called twice');
    // Bytes held for a guess are scanned now; they may open (and guess through) another array.
    while (this._guessing) this._stopGuessing();
    this._done = true;
    if (this._inString || this._depth !== 0) throw new JsonStreamError('the document is cut short');
    let document: unknown;
    try {
      document = parseExactJson(Buffer.concat(this._skeleton, this._skeletonSize).toString('utf8'));
    } catch {
      throw new JsonStreamError('not JSON');
    }
    return document;
  }

  // Private: a container opens at this._depth (shallow enough to matter).
  private _open(isObject: boolean, chunk: Buffer, at: number): void {
    const depth = this._depth;
    const parent = depth - 1;
    const key = this._lastString[parent];
    this._lastString[depth] = undefined;
    // The root is on the path; below it, an object under the next key of `at`.
    const onPath =
      depth === 1
        ? isObject
        : this._onPath[parent] === true &&
          isObject &&
          depth - 1 <= this._at.length &&
          key === this._at[depth - 2];
    this._onPath[depth] = onPath;
    if (
      !isObject &&
      depth === this._arrayDepth &&
      this._onPath[parent] === true &&
      key !== undefined
    ) {
      if (this._streamed.has(key)) throw new JsonStreamError(`the array "${key}" appears twice`);
      this._streamed.add(key);
      this._streaming = key;
      // The skeleton keeps the opening bracket; the elements go to batches.
      this._keepSkeleton(chunk.subarray(this._skeletonFrom, at + 1));
      this._batch = [];
      this._batchSize = 0;
      this._batchFrom = at + 1;
      this._cutAtComma = false;
      this._guessing = this._guessEnabled;
      this._guesses = 0;
      this._wrongGuesses = 0;
      this._cutPattern = OBJECT_THEN_COMMA;
      this._cutPatternChanges = 0;
    }
  }

  // Private: a comma between two elements of the streaming array: the batch so far is parsed,
  // and the next one may be guessed again (see GUESSES_PER_WRONG_GUESS).
  private _cut(chunk: Buffer, at: number): void {
    this._keepBatch(chunk.subarray(this._batchFrom, at));
    this._flush(false);
    this._batchFrom = at + 1;
    this._cutAtComma = true;
    this._learnCut(chunk, at);
    this._guessing =
      this._guessEnabled &&
      (this._wrongGuesses - 1) * GUESSES_PER_WRONG_GUESS <= this._guesses - this._wrongGuesses;
  }

  /**
   * Private: the scanner found an element's end before the comma at `at`. Elements that end
   * by closing a nested container (`months`: `...}]},`) hold `},` inside them, so guessing
   * at `},` keeps failing; guessing at the end the scan found (`]},`, `}},`) fits them. A few
   * changes at most per array, each giving guessing a new start, so an array whose elements
   * end every which way ends up scanned as before.
   */
  private _learnCut(chunk: Buffer, at: number): void {
    if (at < 2 || chunk[at - 1] !== CLOSE_OBJECT) return;
    const before = chunk[at - 2]!;
    const pattern =
      before === CLOSE_ARRAY
        ? ARRAY_OBJECT_THEN_COMMA
        : before === CLOSE_OBJECT
          ? OBJECTS_THEN_COMMA
          : OBJECT_THEN_COMMA;
    if (pattern === this._cutPattern || this._cutPatternChanges >= MAX_CUT_PATTERN_CHANGES) return;
    this._cutPattern = pattern;
    this._cutPatternChanges += 1;
    this._guesses = 0;
    this._wrongGuesses = 0;
  }

  // Private: the streaming array closes at `at`: its last batch is parsed.
  private _closeArray(chunk: Buffer, at: number): void {
    this._keepBatch(chunk.subarray(this._batchFrom, at));
    this._flush(true);
    this._streaming = undefined;
    this._skeletonFrom = at;
  }

  private _flush(last: boolean): void {
    const key = this._streaming!;
    const pieces = this._batch;
    const size = this._batchSize;
    this._batch = [];
    this._batchSize = 0;
    if (isBlank(pieces)) {
      // `[]` is fine; an empty stretch after a cut means a stray comma (`[1,]`, `[1,,2]`).
      if (last && !this._cutAtComma) return;
      throw new JsonStreamError(`an empty element in "${key}"`);
    }
    let elements: unknown;
    try {
      const text = Buffer.concat([OPEN_BRACKET, ...pieces, CLOSE_BRACKET], size + 2).toString();
      elements = parseExactJson(text);
    } catch {
      throw new JsonStreamError(`an element of "${key}" is not JSON`);
    }
    this._onElements(key, elements as unknown[]);
  }

  private _keepBatch(piece: Buffer): void {
    if (piece.length === 0) return;
    this._batch.push(piece);
    this._batchSize += piece.length;
  }

  private _keepSkeleton(piece: Buffer): void {
    if (piece.length === 0) return;
    this._skeletonSize += piece.length;
    if (this._skeletonSize > this._maxSkeletonBytes) {
      throw new JsonStreamError(
        `more than ${this._maxSkeletonBytes} bytes outside the streamed arrays`,
      );
    }
    // A copy: the chunk it comes from may be large and is otherwise free to go.
    this._skeleton.push(Buffer.from(piece));
  }

  // Private: a string at a shallow depth ended; it may be the key of what opens next.
  private _endCapture(): void {
    const bytes = this._capture!;
    this._capture = undefined;
    try {
      const text = `"${Buffer.from(bytes).toString()}"`;
      this._lastString[this._depth] = JSON.parse(text) as string;
    } catch {
      throw new JsonStreamError('a key is not a JSON string');
    }
  }
}

/** Private: appends bytes [from, to) of `chunk` to `bytes`. */
function keep(bytes: number[], chunk: Buffer, from: number, to: number): void {
  for (let k = from; k < to; k++) bytes.push(chunk[k]!);
}

/** Private: whether the pieces hold only JSON whitespace. */
function isBlank(pieces: readonly Buffer[]): boolean {
  for (const piece of pieces) {
    for (const byte of piece) {
      if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return false;
    }
  }
  return true;
}
