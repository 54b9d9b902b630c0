import { createHash } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { preferredEncoding } from '../plugins/use-compression.js';
import { type Asset, buildGraphiQLAssets, type GraphiQLAssets } from './assets.js';

/** Asset answers being sent at once; more wait for a free slot by getting 503 + Retry-After. */
export const DEFAULT_MAX_ASSET_READERS = 64;
const CHUNK_BYTES = 64 * 1024;

/**
 * The page may run only its own scripts (no inline code, no eval), talk only to its own origin,
 * and may not be framed. GraphiQL and Monaco add style elements at run time, hence inline styles.
 */
export const GRAPHIQL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export interface GraphiQLOptions {
  /** Where GraphiQL is served and sends its operations. @default '/graphql' */
  endpoint?: string;
  title?: string;
  defaultQuery?: string;
  /** Headers GraphiQL opens with (e.g. the demo token in embedded mode). */
  headers?: Record<string, string>;
  /** Headers GraphiQL sends with every operation and does not show (e.g. a CSRF header). */
  additionalHeaders?: Record<string, string>;
  /** @default 64 */
  maxConcurrentReaders?: number;
}

/**
 * Serves GraphiQL as a small HTML page (revalidated by ETag) over immutable, content-addressed
 * assets (cached for a year, precompressed once). A slow reader holds a slot, never a copy:
 * every answer streams slices of the same shared buffers.
 */
export function useGraphiQL({
  endpoint = '/graphql',
  title = 'GraphiQL',
  defaultQuery,
  headers,
  additionalHeaders,
  maxConcurrentReaders = DEFAULT_MAX_ASSET_READERS,
}: GraphiQLOptions = {}): Plugin {
  let built: Promise<{ assets: GraphiQLAssets; page: Asset }> | undefined;
  let readers = 0;
  const build = () => {
    built ??= buildGraphiQLAssets().then((assets) => ({
      assets,
      page: pageAsset(assets.base, {
        title,
        endpoint,
        defaultQuery,
        headers: headers ? JSON.stringify(headers, null, 2) : undefined,
        shouldPersistHeaders: false,
        ...(additionalHeaders ? { additionalHeaders } : {}),
      }),
    }));
    return built;
  };

  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      const isPage =
        request.method === 'GET' &&
        (url.pathname === endpoint || url.pathname === `${endpoint}/`) &&
        (request.headers.get('accept') ?? '').includes('text/html');
      if (!isPage && !url.pathname.startsWith('/graphiql/')) return;
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      const { assets, page } = await build();
      const asset = isPage ? page : lookup(assets, url.pathname);
      if (!asset) {
        endResponse(new fetchAPI.Response('Not found', { status: 404 }));
        return;
      }
      const responseHeaders = new fetchAPI.Headers({
        'content-type': asset.contentType,
        etag: asset.etag,
        vary: 'Accept-Encoding',
        'cache-control': isPage ? 'no-cache' : 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      });
      if (isPage) {
        responseHeaders.set('content-security-policy', GRAPHIQL_CSP);
        responseHeaders.set('x-frame-options', 'DENY');
      }
      if (matches(request.headers.get('if-none-match'), asset.etag)) {
        endResponse(new fetchAPI.Response(null, { status: 304, headers: responseHeaders }));
        return;
      }
      const encoding = preferredEncoding(request.headers.get('accept-encoding'));
      const encoded = encoding ? asset.encoded[encoding] : undefined;
      const bytes = encoded ?? asset.identity;
      if (encoded && encoding) responseHeaders.set('content-encoding', encoding);
      responseHeaders.set('content-length', String(bytes.length));
      if (request.method === 'HEAD') {
        endResponse(new fetchAPI.Response(null, { status: 200, headers: responseHeaders }));
        return;
      }
      // The page is a few kilobytes, gone into the socket at once: only assets take a slot.
      if (isPage) {
        endResponse(
          new fetchAPI.Response(new Uint8Array(bytes), { status: 200, headers: responseHeaders }),
        );
        return;
      }
      if (readers >= maxConcurrentReaders) {
        endResponse(
          new fetchAPI.Response('Busy: too many GraphiQL downloads at once', {
            status: 503,
            headers: { 'retry-after': '1', 'cache-control': 'no-store' },
          }),
        );
        return;
      }
      readers += 1;
      let released = false;
      const release = () => {
        if (!released) readers -= 1;
        released = true;
      };
      let offset = 0;
      const body = new fetchAPI.ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= bytes.length) {
            release();
            controller.close();
            return;
          }
          controller.enqueue(bytes.subarray(offset, offset + CHUNK_BYTES));
          offset += CHUNK_BYTES;
        },
        cancel: release,
      });
      endResponse(new fetchAPI.Response(body, { status: 200, headers: responseHeaders }));
    },
  };
}

function lookup(assets: GraphiQLAssets, pathname: string): Asset | undefined {
  if (!pathname.startsWith(assets.base)) return undefined;
  return assets.files.get(pathname.slice(assets.base.length));
}

function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*');
}

// Private: the options travel as JSON in a non-executable script element; `<` is escaped so no
// value (a default query, a header) can close the element.
function pageAsset(base: string, options: Record<string, unknown>): Asset {
  const json = JSON.stringify(options).replace(/</g, '\\u003c');
  const title = String(options.title).replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${title}</title>
    <link rel="icon" href="${base}favicon.ico" />
    <link rel="stylesheet" href="${base}app.css" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run GraphiQL.</noscript>
    <div id="root"></div>
    <script type="application/json" id="graphiql-options">${json}</script>
    <script src="${base}app.js"></script>
    <script src="${base}boot.js" data-base="${base}"></script>
  </body>
</html>
`;
  const identity = Buffer.from(html);
  return {
    contentType: 'text/html; charset=utf-8',
    etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
    identity,
    encoded: {},
  };
}
