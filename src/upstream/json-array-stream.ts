/**
 * A JSON document read as it streams, whose large arrays are handed out in parsed batches.
 *
 * Why: a plan export of 1,000,000 transactions is about 600 MB of JSON. Reading it whole and
 * then calling `JSON.parse` holds the text (600 MB), the parsed tree (more) and whatever is built
 * from it at once. Here only the members of one object (`at`, e.g. `data.plan`) that are arrays
 * stream: their elements are cut out of the bytes as they arrive, a batch of about `batchBytes`
 * at a time, and parsed by `JSON.parse` (native, several times faster than any tokenizer written
 * in JavaScript; measured in docs/performance.md). Everything else (the "skeleton": the document
 * with those arrays left empty) is kept and parsed at the end; it is small and bounded.
 *
 * The scanner only follows strings and brackets to find where elements end; the text of each
 * batch and of the skeleton still goes through `JSON.parse`, so anything malformed fails there
 * or at the end (unbalanced brackets, trailing bytes, a stray comma between batches). Cuts are
 * only made at ASCII delimiters, so a multi-byte UTF-8 character is never split.
 */

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
  /** Elements are parsed in batches of about this many bytes. @default 256 KiB */
  readonly batchBytes?: number;
  /** Largest skeleton (the document without the streamed arrays' elements). @default 4 MiB */
  readonly maxSkeletonBytes?: number;
}

/** The bytes are not the JSON document expected; `reason` is ours, never document text. */
export class JsonStreamError extends Error {
  override readonly name = 'JsonStreamError';
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
  }

  write(chunk: Buffer): void {
    if (this._done) throw new Error('JsonArraySplitter: write after end');
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
          }
          break;
        default:
      }
      i += 1;
    }
    if (this._streaming !== undefined) {
      this._keepBatch(chunk.subarray(this._batchFrom));
    } else {
      this._keepSkeleton(chunk.subarray(this._skeletonFrom));
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
    this._done = true;
    if (this._inString || this._depth !== 0) throw new JsonStreamError('the document is cut short');
    let document: unknown;
    try {
      document = JSON.parse(Buffer.concat(this._skeleton, this._skeletonSize).toString('utf8'));
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
    }
  }

  // Private: a comma between two elements of the streaming array: the batch so far is parsed.
  private _cut(chunk: Buffer, at: number): void {
    this._keepBatch(chunk.subarray(this._batchFrom, at));
    this._flush(false);
    this._batchFrom = at + 1;
    this._cutAtComma = true;
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
      elements = JSON.parse(text);
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
