import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';
import { addVary } from './vary.js';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export type Encoding = 'br' | 'gzip';

export interface CompressionOptions {
  /** Smaller bodies go out as they are. @default 1024 */
  minBytes?: number;
  /**
   * Brotli quality. 11 (the maximum) costs ~10x the CPU of 4 for ~10% smaller answers, which a
   * per-request answer cannot afford. @default 4
   */
  brotliQuality?: number;
  /** @default 6 (zlib's default) */
  gzipLevel?: number;
}

/**
 * gzip or brotli for answers over `minBytes` when the client accepts it. Written here rather than
 * taken from @whatwg-node/server's `useContentEncoding`, which compresses every body whatever
 * its size, ignores q-values, sends no `Vary`, offers no brotli on Node 20, and also inflates
 * compressed request bodies (a zip bomb past the body-size limit). Compression runs on libuv's
 * thread pool, off the event loop. Streams (SSE, multipart) and encoded bodies are left alone.
 */
export function useCompression({
  minBytes = 1024,
  brotliQuality = 4,
  gzipLevel = 6,
}: CompressionOptions = {}): Plugin {
  return {
    async onResponse({ request, response, setResponse, fetchAPI }) {
      const encoding = preferredEncoding(request.headers.get('accept-encoding'));
      const type = response.headers.get('content-type') ?? '';
      if (
        request.method === 'HEAD' ||
        !hasBody(response) ||
        response.headers.has('content-encoding') ||
        /event-stream|multipart/.test(type)
      )
        return;
      // Caches must keep one copy per encoding.
      addVary(response.headers, 'Accept-Encoding');
      if (encoding === null) return;
      const length = Number(response.headers.get('content-length') ?? Number.NaN);
      if (length < minBytes) return;
      const plain = Buffer.from(await response.arrayBuffer());
      const headers = new fetchAPI.Headers(response.headers);
      if (plain.length < minBytes) {
        setResponse(new fetchAPI.Response(plain, { status: response.status, headers }));
        return;
      }
      const body = await compressBody(plain, encoding, { brotliQuality, gzipLevel });
      headers.set('content-encoding', encoding);
      headers.set('content-length', String(body.length));
      setResponse(new fetchAPI.Response(body, { status: response.status, headers }));
    },
  };
}

/**
 * Whether `response` has a body, without reading `body`: whatwg-node's Response (yoga's on Node)
 * builds a stream and a proxy for it on every read of `body` (~1.5 % of a warm miss's CPU), and
 * keeps what it was made with as `bodyInit` (null exactly when `body` is). Any other Response is
 * asked for `body`.
 */
export function hasBody(response: Response): boolean {
  if ('bodyInit' in response) return (response as { bodyInit: unknown }).bodyInit != null;
  return response.body !== null;
}

/** One body compressed, on libuv's thread pool (the answer cache compresses each answer once). */
export function compressBody(
  plain: Buffer,
  encoding: Encoding,
  {
    brotliQuality = 4,
    gzipLevel = 6,
  }: Pick<CompressionOptions, 'brotliQuality' | 'gzipLevel'> = {},
): Promise<Buffer<ArrayBuffer>> {
  // zlib's callbacks give a Buffer of its own ArrayBuffer (never a shared one).
  return (
    encoding === 'br'
      ? brotliAsync(plain, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: brotliQuality,
            [constants.BROTLI_PARAM_SIZE_HINT]: plain.length,
          },
        })
      : gzipAsync(plain, { level: gzipLevel })
  ) as Promise<Buffer<ArrayBuffer>>;
}

/**
 * The encoding to use for an `Accept-Encoding` header: the acceptable one (q > 0) with the
 * highest q, brotli winning ties; `*` stands for either. Null when neither is acceptable.
 */
export function preferredEncoding(header: string | null): Encoding | null {
  if (!header) return null;
  if (header.length > PREFERRED_MAX_CHARS) return parsePreferred(header);
  const known = preferred.get(header);
  if (known !== undefined) return known;
  const chosen = parsePreferred(header);
  // Clients send a handful of distinct headers: a few kept spare parsing each request's.
  if (preferred.size >= PREFERRED_MAX_ENTRIES) preferred.clear();
  preferred.set(header, chosen);
  return chosen;
}

/** `Accept-Encoding` values already read (bounded: cleared when full). */
const preferred = new Map<string, Encoding | null>();
const PREFERRED_MAX_ENTRIES = 64;
const PREFERRED_MAX_CHARS = 256;

function parsePreferred(header: string): Encoding | null {
  const q: Partial<Record<Encoding | '*', number>> = {};
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (name === 'br' || name === 'gzip' || name === '*')
      q[name] = Number.isFinite(value) ? value : 0;
  }
  const br = q.br ?? q['*'] ?? 0;
  const gz = q.gzip ?? q['*'] ?? 0;
  if (br <= 0 && gz <= 0) return null;
  return br >= gz ? 'br' : 'gzip';
}
