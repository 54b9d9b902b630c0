/**
 * Persisted documents on the admission path: what text a hash names (the manifest of registered
 * operations, then the documents clients registered through automatic persisted queries), and,
 * with `only`, whether an operation is one of the manifest's (trusted documents).
 */
import { readFileSync } from 'node:fs';
import type { GraphQLError } from 'graphql';
import { gatewayError } from '../errors/codes.js';

/** Registered operations by hash, as graphql-codegen's client preset writes them. */
export type DocumentManifest = ReadonlyMap<string, string>;

export interface DocumentSources {
  /** Registered operations; their hashes work from the first request. */
  readonly manifest?: DocumentManifest | undefined;
  /** Run nothing but the manifest's operations. */
  readonly only: boolean;
  /** Texts clients registered by hash (automatic persisted queries), if that is on. */
  readonly registered?: ((hash: string) => string | undefined) | undefined;
}

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

/** The hash of Apollo's persisted-query extension (`extensions.persistedQuery.sha256Hash`). */
export function persistedHashOf(extensions: unknown): string | null {
  if (typeof extensions !== 'object' || extensions === null) return null;
  const persisted: unknown = (extensions as Record<string, unknown>).persistedQuery;
  if (typeof persisted !== 'object' || persisted === null) return null;
  const hash: unknown = (persisted as Record<string, unknown>).sha256Hash;
  return typeof hash === 'string' && hash !== '' ? hash : null;
}

/**
 * The text of an operation: the one sent, or, when none was, the one its hash names. A hash no one
 * registered is refused; without any source of hashes the request is left as it came.
 */
export function resolveText(
  sources: DocumentSources,
  query: string | null | undefined,
  extensions: unknown,
): { query: string | null | undefined } | { refused: GraphQLError } {
  if (typeof query === 'string' && query !== '') return { query };
  const hash = persistedHashOf(extensions);
  if (hash === null) return sources.only ? { refused: textNotAllowed() } : { query };
  const text = sources.manifest?.get(hash) ?? sources.registered?.(hash);
  if (text !== undefined) return { query: text };
  if (sources.only) return { refused: notRegistered() };
  // Automatic persisted queries: the client answers this by sending the text with its hash.
  if (sources.registered)
    return { refused: gatewayError('PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND') };
  return sources.manifest ? { refused: notRegistered() } : { query };
}

/**
 * With `only`, an operation runs if it came by the hash of a manifest entry (or as that entry's
 * exact text beside its hash); any other text is refused.
 */
export function untrusted(
  sources: DocumentSources,
  query: string,
  extensions: unknown,
): GraphQLError | null {
  if (!sources.only) return null;
  const hash = persistedHashOf(extensions);
  if (hash !== null && sources.manifest?.get(hash) === query) return null;
  if (hash !== null && !sources.manifest?.has(hash)) return notRegistered();
  return textNotAllowed();
}

function textNotAllowed(): GraphQLError {
  return gatewayError(
    'This gateway runs registered operations only (trusted documents): send the ' +
      "operation's hash in extensions.persistedQuery.sha256Hash instead of its text.",
    'PERSISTED_QUERY_ONLY',
  );
}

function notRegistered(): GraphQLError {
  return gatewayError(
    'This operation is not registered: the gateway runs only the operations in its ' +
      'trusted documents manifest.',
    'PERSISTED_QUERY_NOT_IN_LIST',
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
