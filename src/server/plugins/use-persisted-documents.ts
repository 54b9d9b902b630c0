import { readFileSync } from 'node:fs';
import { type APQStore, useAPQ } from '@graphql-yoga/plugin-apq';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { PersistedQueriesConfig } from '../../config/config.js';
import type { ErrorCode } from '../../contracts/error-codes.js';

/** Registered operations by hash, as graphql-codegen's client preset writes them. */
export type DocumentManifest = ReadonlyMap<string, string>;

export interface PersistedDocumentsOptions {
  /** Automatic persisted queries, or `false` to refuse hash-only requests the manifest lacks. */
  apq: PersistedQueriesConfig | false;
  /** Registered operations; hash-only requests find them without a first full request. */
  manifest?: DocumentManifest;
  /**
   * Run nothing but the manifest's operations (trusted documents). Requires `manifest`.
   * @default false
   */
  only?: boolean;
}

/** Error codes a client can tell apart (Apollo's link retries on PERSISTED_QUERY_NOT_FOUND only). */
const NOT_REGISTERED: ErrorCode = 'PERSISTED_QUERY_NOT_IN_LIST';
const REGISTERED_ONLY: ErrorCode = 'PERSISTED_QUERY_ONLY';

/**
 * Reads `persisted-documents.json`: a JSON object mapping each operation's hash to its text.
 * Throws an error naming the file and the entry at fault; an empty manifest is refused too, since
 * with `only` it would lock every client out.
 */
export function loadDocumentManifest(path: string): DocumentManifest {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`trusted documents manifest ${path} cannot be read: ${messageOf(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`trusted documents manifest ${path} is not JSON: ${messageOf(error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(
      `trusted documents manifest ${path} must be a JSON object of hash → document text`,
    );
  }
  const manifest = new Map<string, string>();
  for (const [hash, document] of Object.entries(parsed)) {
    if (typeof document !== 'string' || document.trim() === '') {
      throw new Error(
        `trusted documents manifest ${path}: the entry ${JSON.stringify(hash)} must be the document text`,
      );
    }
    manifest.set(hash, document);
  }
  if (manifest.size === 0) throw new Error(`trusted documents manifest ${path} is empty`);
  return manifest;
}

/**
 * Persisted documents, in one of three modes:
 * - APQ (default): Apollo's automatic persisted queries. A hash-only request runs the document
 *   registered under that hash (the manifest's first, then those clients registered); on a miss
 *   the answer is `PersistedQueryNotFound` and the client sends hash and text, which registers
 *   the text once its SHA-256 is checked. The store is bounded in entries and bytes.
 * - Manifest without `only`: registered hashes work from the first request; anything else runs.
 * - `only` (trusted documents): the manifest is the allowlist. Text is refused and unknown hashes
 *   too, in `onParams`, before parsing, validation or execution.
 */
export function usePersistedDocuments({
  apq,
  manifest,
  only = false,
}: PersistedDocumentsOptions): Plugin[] {
  if (only) {
    if (!manifest)
      throw new Error('trustedDocuments.only needs a manifest of registered documents');
    return [
      usePersistedOperations({
        getPersistedOperation: (hash) => manifest.get(hash) ?? null,
        allowArbitraryOperations: false,
        customErrors: {
          persistedQueryOnly: {
            message:
              'This gateway runs registered operations only (trusted documents): send the ' +
              "operation's hash in extensions.persistedQuery.sha256Hash instead of its text.",
            extensions: { code: REGISTERED_ONLY, http: { status: 400 } },
          },
          keyNotFound: {
            message:
              'No operation: send a registered hash in extensions.persistedQuery.sha256Hash ' +
              '(this gateway runs registered operations only).',
            extensions: { code: REGISTERED_ONLY, http: { status: 400 } },
          },
          notFound: {
            message:
              'This operation is not registered: the gateway runs only the operations in its ' +
              'trusted documents manifest.',
            extensions: { code: NOT_REGISTERED, http: { status: 400 } },
          },
        },
      }) as Plugin,
    ];
  }
  if (apq) return [useAPQ({ store: createDocumentStore(apq, manifest) })];
  if (manifest) {
    return [
      usePersistedOperations({
        getPersistedOperation: (hash) => manifest.get(hash) ?? null,
        allowArbitraryOperations: true,
      }) as Plugin,
    ];
  }
  return [];
}

/**
 * The APQ store: the manifest (never evicted, never overwritten), then what clients registered,
 * least recently used first to go. The byte bound matters more than the count: a registration
 * can be as large as a request body.
 */
export function createDocumentStore(
  { maxEntries, maxBytes }: PersistedQueriesConfig,
  manifest: DocumentManifest = new Map(),
): APQStore {
  const registered = new LRUCache<string, string>({
    max: maxEntries,
    maxSize: maxBytes,
    sizeCalculation: (document) => Math.max(1, Buffer.byteLength(document)),
  });
  return {
    get: (hash) => manifest.get(hash) ?? registered.get(hash),
    set(hash, document) {
      if (!manifest.has(hash)) registered.set(hash, document);
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
