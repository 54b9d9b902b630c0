import { LRUCache } from 'lru-cache';
import { compressBody, type Encoding } from './use-compression.js';

/** An answer as it went out, by the ETag that names it. */
export interface StoredAnswer {
  /** The JSON body as UTF-8 bytes, without `extensions.upstream` (that figure is the request's own). */
  readonly bytes: Buffer<ArrayBuffer>;
  readonly contentType: string;
  /** Whether the body has an `extensions` member (a hit's metrics are spliced into it otherwise). */
  readonly hasExtensions: boolean;
  /** The query's name, for the report of a replay. */
  readonly operationName: string | null;
  /** The body compressed, once per encoding, on the first replay that accepted it. */
  readonly encoded?: Partial<Readonly<Record<Encoding, Buffer<ArrayBuffer>>>>;
}

/** How a stored answer goes out: its bytes, and their `Content-Encoding` (null: as they are). */
export interface Representation {
  readonly body: Buffer<ArrayBuffer>;
  readonly encoding: Encoding | null;
}

/** How answers are compressed: as `useCompression` would (`COMPRESSION_MIN_BYTES`). */
export interface AnswerCompression {
  /** Smaller answers go out as they are. */
  readonly minBytes: number;
  readonly brotliQuality?: number;
  readonly gzipLevel?: number;
}

/**
 * The bodies of answers, by their strong ETag. An ETag is a digest of the token, the document,
 * the variables, the media type, the schema and the version of every replica the answer read,
 * so a body found under it is the answer execution would give now: nothing here is ever
 * invalidated, an answer whose replicas moved is simply never named again and ages out.
 * Bounded in bytes (each answer with its compressed copies); one answer may take at most an
 * eighth of the budget.
 */
export interface AnswerCache {
  get(etag: string): StoredAnswer | undefined;
  /**
   * Whether an answer executed under `etag` is worth keeping: true from the second time an
   * ETag is answered by execution (or when its answer is held already). The first sight is only
   * noted (a bounded set of ETags), so an answer no one asks for again (a client sending its
   * values inside the text, a replica that moved) costs no copy of its body and pushes no kept
   * answer out: storing every miss cost about 15 % of a warm miss's CPU (docs/performance.md).
   */
  worthKeeping(etag: string): boolean;
  set(etag: string, answer: StoredAnswer): void;
  /**
   * The bytes of `answer` in `encoding`: compressed the first time an encoding is asked for and
   * kept with it (a replay never compresses again); as they are below the compression threshold,
   * without compression, or for `null`.
   */
  representation(
    etag: string,
    answer: StoredAnswer,
    encoding: Encoding | null,
  ): Representation | Promise<Representation>;
  stats(): { answers: number; bytes: number };
}

/** ETags remembered as answered once: about 100 bytes each, 1 MB at most. */
const DEFAULT_MAX_SIGHTINGS = 10_000;

/** Per entry besides the bodies: the ETag key, the entry object, the LRU's own bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 200;

export function createAnswerCache({
  maxBytes,
  compression = false,
  maxSightings = DEFAULT_MAX_SIGHTINGS,
}: {
  maxBytes: number;
  /** @default false: answers go out as they are */
  compression?: AnswerCompression | false;
  /** ETags answered once whose next answer will be kept (the oldest are forgotten). @default 10_000 */
  maxSightings?: number;
}): AnswerCache {
  /** ETags answered once by execution: the next answer under one of them is kept. */
  const sightings = new LRUCache<string, true>({ max: Math.max(1, maxSightings) });
  const answers = new LRUCache<string, StoredAnswer>({
    maxSize: maxBytes,
    maxEntrySize: Math.max(1, Math.floor(maxBytes / 8)),
    sizeCalculation: (answer, etag) =>
      answer.bytes.length +
      (answer.encoded?.br?.length ?? 0) +
      (answer.encoded?.gzip?.length ?? 0) +
      etag.length +
      ENTRY_OVERHEAD_BYTES,
  });
  /** Compressions under way, so concurrent first replays compress once. */
  const pending = new Map<string, Promise<Buffer<ArrayBuffer>>>();
  return {
    get: (etag) => answers.get(etag),
    worthKeeping(etag) {
      if (sightings.delete(etag) || answers.has(etag)) return true;
      sightings.set(etag, true);
      return false;
    },
    set(etag, answer) {
      answers.set(etag, answer);
    },
    representation(etag, answer, encoding) {
      const plain: Representation = { body: answer.bytes, encoding: null };
      if (encoding === null || compression === false || answer.bytes.length < compression.minBytes)
        return plain;
      const held = answer.encoded?.[encoding];
      if (held) return { body: held, encoding };
      const key = `${encoding}:${etag}`;
      let compressing = pending.get(key);
      if (!compressing) {
        compressing = compressBody(answer.bytes, encoding, compression).then((body) => {
          const current = answers.peek(etag);
          // A new object: lru-cache recounts an entry's size only when its value changes.
          if (current)
            answers.set(etag, { ...current, encoded: { ...current.encoded, [encoding]: body } });
          return body;
        });
        pending.set(key, compressing);
        void compressing.then(
          () => pending.delete(key),
          () => pending.delete(key),
        );
      }
      return compressing.then((body) => ({ body, encoding }));
    },
    stats: () => ({ answers: answers.size, bytes: answers.calculatedSize }),
  };
}
