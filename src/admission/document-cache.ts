/**
 * Parsed documents by the SHA-256 of their text, bounded in estimated heap bytes and in entries.
 * Keys are digests, never the text (yoga's own cache keyed 1,024 entries by whole documents, and
 * kept failed parses too). What goes in is decided by the admission path: only documents that
 * passed it, never a text that failed to parse.
 */
import { createHash } from 'node:crypto';
import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { DocumentCacheConfig } from '../config/config.js';
import { HEAP_BYTES_PER_TOKEN } from './bounded-parse.js';

export interface DocumentCache {
  get(digest: string): DocumentNode | undefined;
  /** Keeps `document`, parsed from a text of `length` characters in `tokens` tokens. */
  set(digest: string, document: DocumentNode, size: { length: number; tokens: number }): void;
  /** Drops `document` (one that failed validation, say) if it is kept. */
  forget(document: DocumentNode): void;
  stats(): { entries: number; bytes: number };
}

/** The key of a document's text. */
export function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * A document holds its whole text (locations point into it; a two-byte string takes 2 bytes a
 * character) and a node, a location and a lexer token for each token.
 */
export function estimatedBytes({ length, tokens }: { length: number; tokens: number }): number {
  return 2 * length + HEAP_BYTES_PER_TOKEN * tokens;
}

export function createDocumentCache({ maxBytes, maxEntries }: DocumentCacheConfig): DocumentCache {
  const documents = new LRUCache<string, { document: DocumentNode; bytes: number }>({
    max: maxEntries,
    maxSize: maxBytes,
    sizeCalculation: (entry) => Math.max(1, entry.bytes),
  });
  const digests = new WeakMap<DocumentNode, string>();
  return {
    get: (digest) => documents.get(digest)?.document,
    set(digest, document, size) {
      documents.set(digest, { document, bytes: estimatedBytes(size) });
      digests.set(document, digest);
    },
    forget(document) {
      const digest = digests.get(document);
      if (digest !== undefined && documents.get(digest)?.document === document)
        documents.delete(digest);
    },
    stats: () => ({ entries: documents.size, bytes: documents.calculatedSize }),
  };
}
