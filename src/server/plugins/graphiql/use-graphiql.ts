import { createHash } from 'node:crypto';
import { ServerResponse } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import { monotonicNow } from '../../../time/clock.js';
import {
  createSystemScheduler,
  type Scheduler,
  type TimerHandle,
} from '../../../time/scheduler.js';
import { preferredEncoding } from '../use-compression.js';
import { type Asset, buildGraphiQLAssets, type GraphiQLAssets } from './assets.js';

/** Asset answers being sent at once; more wait for a free slot by getting 503 + Retry-After. */
export const DEFAULT_MAX_ASSET_READERS = 64;
/** A download that takes no chunk for this long is cut and its slot freed (a write timeout). */
export const DEFAULT_STALL_MS = 10_000;
/** With every slot taken, a download idle this long gives its slot to a new one. */
export const DEFAULT_EVICT_IDLE_MS = 2_000;
const CHUNK_BYTES = 64 * 1024;
/** Shown in the result pane while a subscription's stream is open and no event came yet. */
export const SUBSCRIPTION_WAITING_MESSAGE = [
  'Subscribed: waiting for changes.',
  'Each change of the plan appears here as an event: a write through this gateway at once, a change made elsewhere with the next poll of the plan.',
  'Stop ends the subscription.',
].join('\n');

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
  /**
   * The gateway's public origin when browser sign-in is on: the page shows a "Sign in" link to
   * its `/auth/login`, back to GraphiQL afterwards; GraphiQL's requests then carry the session
   * cookie. @default none
   */
  signIn?: string;
  /**
   * Shown while a subscription waits for its first event, instead of a bare spinner.
   * @default SUBSCRIPTION_WAITING_MESSAGE
   */
  subscriptionWaitingMessage?: string;
  /** @default 64 */
  maxConcurrentReaders?: number;
  /** A download that takes no chunk for this long is cut. @default DEFAULT_STALL_MS */
  stallMs?: number;
  /**
   * With every slot taken, the download idle the longest, if idle at least this long, is cut
   * for a new one. @default DEFAULT_EVICT_IDLE_MS
   */
  evictIdleMs?: number;
  /**
   * The clock and timers of the stall and eviction checks (tests drive them by hand).
   * @default real timers over the monotonic clock
   */
  scheduler?: Scheduler;
}

/** Private: one asset download in flight. */
interface Reader {
  /** When it last took a chunk (or started). */
  lastProgress: number;
  /** Ends the download now (the connection is closed) and frees its slot. */
  cut(): void;
}

/**
 * Serves GraphiQL as a small HTML page (revalidated by ETag) over immutable, content-addressed
 * assets (cached for a year, precompressed once). A slow reader holds a slot, never a copy:
 * every answer streams slices of the same shared buffers.
 *
 * Clients that stop reading cannot keep the others out: a download that takes no chunk for
 * `stallMs` is cut, and when every slot is taken, the download idle the longest (if idle for
 * `evictIdleMs`) is cut to make room; a reader that keeps reading is never cut. A download whose
 * client leaves frees its slot at once.
 */
export function useGraphiQL({
  endpoint = '/graphql',
  title = 'GraphiQL',
  defaultQuery,
  headers,
  additionalHeaders,
  signIn,
  subscriptionWaitingMessage = SUBSCRIPTION_WAITING_MESSAGE,
  maxConcurrentReaders = DEFAULT_MAX_ASSET_READERS,
  stallMs = DEFAULT_STALL_MS,
  evictIdleMs = DEFAULT_EVICT_IDLE_MS,
  scheduler = createSystemScheduler(monotonicNow),
}: GraphiQLOptions = {}): Plugin {
  const now = () => scheduler.now();
  let built: Promise<{ assets: GraphiQLAssets; page: Asset }> | undefined;
  const readers = new Set<Reader>();
  /** Frees a slot for a new download if one is idle long enough; whether one is free now. */
  const makeRoom = (): boolean => {
    if (readers.size < maxConcurrentReaders) return true;
    let stalest: Reader | undefined;
    for (const reader of readers)
      if (!stalest || reader.lastProgress < stalest.lastProgress) stalest = reader;
    if (!stalest || now() - stalest.lastProgress < evictIdleMs) return false;
    stalest.cut();
    return readers.size < maxConcurrentReaders;
  };
  const build = () => {
    built ??= buildGraphiQLAssets().then((assets) => ({
      assets,
      page: pageAsset(
        assets.base,
        {
          title,
          endpoint,
          defaultQuery,
          headers: headers ? JSON.stringify(headers, null, 2) : undefined,
          shouldPersistHeaders: false,
          ...(additionalHeaders ? { additionalHeaders } : {}),
          subscriptionWaitingMessage,
        },
        signIn === undefined
          ? undefined
          : `${signIn}/auth/login?return_to=${encodeURIComponent(`${signIn}${endpoint}`)}`,
      ),
    }));
    return built;
  };

  return {
    async onRequest({ request, url, endResponse, fetchAPI, serverContext }) {
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
      if (!makeRoom()) {
        endResponse(
          new fetchAPI.Response('Busy: too many GraphiQL downloads at once', {
            status: 503,
            headers: { 'retry-after': '1', 'cache-control': 'no-store' },
          }),
        );
        return;
      }
      const response = nodeResponseOf(serverContext);
      let offset = 0;
      let stalled: TimerHandle | undefined;
      let streamController: ReadableStreamDefaultController<Uint8Array> | undefined;
      const reader: Reader = {
        lastProgress: now(),
        cut() {
          release();
          // The node response is stuck waiting for a drain that will not come: close it.
          if (response) response.destroy();
          else streamController?.error(new Error('GraphiQL download stalled'));
        },
      };
      const release = () => {
        stalled?.cancel();
        readers.delete(reader);
      };
      readers.add(reader);
      response?.once('close', release);
      const body = new fetchAPI.ReadableStream<Uint8Array>({
        start(controller) {
          streamController = controller;
        },
        pull(controller) {
          reader.lastProgress = now();
          stalled?.cancel();
          if (offset >= bytes.length) {
            release();
            controller.close();
            return;
          }
          controller.enqueue(bytes.subarray(offset, offset + CHUNK_BYTES));
          offset += CHUNK_BYTES;
          stalled = scheduler.setTimeout(() => reader.cut(), stallMs);
        },
        cancel: release,
      });
      endResponse(new fetchAPI.Response(body, { status: 200, headers: responseHeaders }));
    },
  };
}

/** Private: node's response under yoga's node adapter (absent under `yoga.fetch`). */
function nodeResponseOf(serverContext: unknown): ServerResponse | undefined {
  if (typeof serverContext !== 'object' || serverContext === null) return undefined;
  const response: unknown = (serverContext as { res?: unknown }).res;
  return response instanceof ServerResponse ? response : undefined;
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
function pageAsset(base: string, options: Record<string, unknown>, signIn?: string): Asset {
  const json = JSON.stringify(options).replace(/</g, '\\u003c');
  const escaped = (text: string) => text.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const title = escaped(String(options.title));
  // A plain link (the page runs no inline script): the browser signs in and comes back here.
  const signInLink =
    signIn === undefined
      ? ''
      : `\n    <a id="sign-in" href="${escaped(signIn)}" style="position:fixed;top:8px;right:12px;z-index:10;padding:4px 12px;border-radius:4px;background:#e10098;color:#fff;font:600 14px sans-serif;text-decoration:none">Sign in</a>`;
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
    <div id="root"></div>${signInLink}
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
