import { LRUCache } from 'lru-cache';

/** An answer as it went out, by the ETag that names it. */
export interface StoredAnswer {
  /** The JSON body without `extensions.upstream` (that figure is the request's own). */
  readonly body: string;
  readonly contentType: string;
  /** Whether `body` has an `extensions` member (a hit's metrics are spliced into it otherwise). */
  readonly hasExtensions: boolean;
  /** The query's name, for the report of a replay. */
  readonly operationName: string | null;
}

/**
 * The bodies of answers, by their strong ETag. An ETag is a digest of the token, the document,
 * the variables, the media type, the schema and the version of every replica the answer read,
 * so a body found under it is the answer execution would give now: nothing here is ever
 * invalidated, an answer whose replicas moved is simply never named again and ages out.
 * Bounded in bytes; one answer may take at most an eighth of the budget.
 */
export interface AnswerCache {
  get(etag: string): StoredAnswer | undefined;
  set(etag: string, answer: StoredAnswer): void;
  stats(): { answers: number; bytes: number };
}

/** Per entry besides the body: the ETag key, the entry object, the LRU's own bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 200;

export function createAnswerCache({ maxBytes }: { maxBytes: number }): AnswerCache {
  const answers = new LRUCache<string, StoredAnswer>({
    maxSize: maxBytes,
    maxEntrySize: Math.max(1, Math.floor(maxBytes / 8)),
    // One-byte strings for ASCII JSON; two for anything else, counted as the worse case.
    sizeCalculation: (answer, etag) => answer.body.length * 2 + etag.length + ENTRY_OVERHEAD_BYTES,
  });
  return {
    get: (etag) => answers.get(etag),
    set(etag, answer) {
      answers.set(etag, answer);
    },
    stats: () => ({ answers: answers.size, bytes: answers.calculatedSize }),
  };
}
