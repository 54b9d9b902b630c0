/**
 * GraphiQL's files as shared, immutable bytes: built once per process on first use (the bundle
 * weighs ~9 MB of text), each with its gzip and brotli forms and a content hash, so every page
 * view costs a few kilobytes of HTML and the browser caches the rest for a year. Nothing is
 * built for a gateway that never serves GraphiQL.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Encoding } from '../plugins/use-compression.js';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

export interface Asset {
  readonly contentType: string;
  readonly etag: string;
  readonly identity: Buffer;
  /** Present when smaller than the identity bytes. */
  readonly encoded: Partial<Record<Encoding, Buffer>>;
}

export interface GraphiQLAssets {
  /** URL path prefix of this build, e.g. `/graphiql/3f2a9c1e/`: it changes whenever a byte does. */
  readonly base: string;
  readonly files: ReadonlyMap<string, Asset>;
}

/** Hands the page's options to GraphiQL without inline script, so the CSP can forbid it. */
const BOOT_SCRIPT = `(function () {
  var options = JSON.parse(document.getElementById('graphiql-options').textContent);
  var base = document.currentScript.getAttribute('data-base');
  var workers = {
    editorWorkerService: base + 'editor.worker.js',
    json: base + 'json.worker.js',
    graphql: base + 'graphql.worker.js'
  };
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (moduleId, label) { return workers[label]; }
  };
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
})();
`;

/** Builds the assets (hashing and compressing them off the event loop where zlib allows). */
export async function buildGraphiQLAssets(): Promise<GraphiQLAssets> {
  const bundle = await import('@graphql-yoga/render-graphiql/graphiql');
  const js = 'text/javascript; charset=utf-8';
  const sources: [string, string, Buffer][] = [
    ['app.js', js, Buffer.from(bundle.js)],
    ['app.css', 'text/css; charset=utf-8', Buffer.from(bundle.css)],
    ['boot.js', js, Buffer.from(BOOT_SCRIPT)],
    ['editor.worker.js', js, Buffer.from(bundle.editorWorkerService)],
    ['json.worker.js', js, Buffer.from(bundle.jsonWorker)],
    ['graphql.worker.js', js, Buffer.from(bundle.graphqlWorker)],
    ['favicon.ico', 'image/x-icon', faviconBytes(bundle.favicon)],
  ];
  const all = createHash('sha256');
  const files = new Map<string, Asset>();
  for (const [name, contentType, identity] of sources) {
    const digest = createHash('sha256').update(identity).digest('base64url').slice(0, 22);
    all.update(digest);
    files.set(name, {
      contentType,
      etag: `"${digest}"`,
      identity,
      encoded: await encodings(identity),
    });
  }
  return { base: `/graphiql/${all.digest('hex').slice(0, 12)}/`, files };
}

// Private: brotli at quality 5 takes ~0.25 s for the 5 MB bundle (quality 11 takes 14 s) and is
// done once per process.
async function encodings(identity: Buffer): Promise<Partial<Record<Encoding, Buffer>>> {
  if (identity.length < 1024) return {};
  const [br, gz] = await Promise.all([
    brotliAsync(identity, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 5,
        [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
      },
    }),
    gzipAsync(identity, { level: 9 }),
  ]);
  const encoded: Partial<Record<Encoding, Buffer>> = {};
  if (br.length < identity.length) encoded.br = br;
  if (gz.length < identity.length) encoded.gzip = gz;
  return encoded;
}

// Private: the bundle carries its icon as a data URL; served as a file it is cached like the rest.
function faviconBytes(dataUrl: string): Buffer {
  const comma = dataUrl.indexOf(',');
  return Buffer.from(dataUrl.slice(comma + 1), 'base64');
}
