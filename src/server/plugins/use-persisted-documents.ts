import { useAPQ } from '@graphql-yoga/plugin-apq';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import {
  type DocumentManifest,
  type DocumentSources,
  loadDocumentManifest,
} from '../../admission/trusted-documents.js';
import type { GatewayConfig, PersistedQueriesConfig } from '../../config/config.js';

/** The persisted-query store: sync, as the admission path reads it. */
export interface DocumentStore {
  get(hash: string): string | undefined;
  set(hash: string, document: string): void;
}

export interface PersistedDocuments {
  /** Where the admission path finds the text of a hash, and whether only the manifest runs. */
  sources: DocumentSources;
  /** yoga plugins of the HTTP transport (automatic persisted queries), before admission. */
  plugins: Plugin[];
}

/**
 * Persisted documents, in one of three modes:
 * - APQ (default): Apollo's automatic persisted queries. A hash-only request runs the document
 *   registered under that hash (the manifest's first, then those clients registered); on a miss
 *   the answer is `PersistedQueryNotFound` and the client sends hash and text, which registers
 *   the text once its SHA-256 is checked. The store is bounded in entries and bytes.
 * - Manifest without `only`: registered hashes work from the first request; anything else runs.
 * - `only` (trusted documents): the manifest is the allowlist, enforced by the admission path on
 *   every transport: text is refused and unknown hashes too, before anything runs.
 *
 * Hashes name texts on the admission path (so over WebSocket too); over HTTP, `useAPQ` also
 * speaks the registration protocol.
 */
export function persistedDocuments(
  config: Pick<GatewayConfig, 'persistedQueries' | 'trustedDocuments'>,
): PersistedDocuments {
  const manifest = config.trustedDocuments
    ? loadDocumentManifest(config.trustedDocuments.manifestPath)
    : undefined;
  const only = config.trustedDocuments?.only ?? false;
  if (only || !config.persistedQueries) return { sources: { manifest, only }, plugins: [] };
  const store = createDocumentStore(config.persistedQueries, manifest);
  return {
    sources: { manifest, only, registered: (hash) => store.get(hash) },
    plugins: [useAPQ({ store })],
  };
}

/**
 * The APQ store: the manifest (never evicted, never overwritten), then what clients registered,
 * least recently used first to go. The byte bound matters more than the count: a registration
 * can be as large as a request body.
 */
export function createDocumentStore(
  { maxEntries, maxBytes }: PersistedQueriesConfig,
  manifest: DocumentManifest = new Map(),
): DocumentStore {
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
