/**
 * GraphiQL's files as shared, immutable bytes: built once per process on first use (the bundle
 * weighs ~9 MB of text), each with its gzip and brotli forms and a content hash, so every page
 * view costs a few kilobytes of HTML and the browser caches the rest for a year. Nothing is
 * built for a gateway that never serves GraphiQL.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Encoding } from '../use-compression.js';

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

/**
 * Hands the page's options to GraphiQL without inline script, so the CSP can forbid it. Also
 * says so while a subscription waits for its first event: GraphiQL shows only a spinner until
 * a result comes, and a plan may not change for minutes. GraphiQL sends subscriptions as event
 * streams through `fetch`, so the note shows once such a stream is open and goes with its first
 * event, its end, or Stop.
 *
 * With sign-in on (a `#sign-in` link on the page), it asks `/auth/session` who is signed in; when
 * someone is, the link gives way to a "Sign out" button, which posts `/auth/logout` (with a
 * header a form cannot send, as the gateway's CSRF check wants) and brings the link back.
 */
const BOOT_SCRIPT = `(function () {
  var options = JSON.parse(document.getElementById('graphiql-options').textContent);
  var waiting = options.subscriptionWaitingMessage;
  delete options.subscriptionWaitingMessage;
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
  if (waiting) noteWaitingSubscriptions(waiting);
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
  var signInLink = document.getElementById('sign-in');
  if (signInLink) offerSignOut(signInLink);

  function offerSignOut(link) {
    var button = document.createElement('button');
    button.id = 'sign-out';
    button.type = 'button';
    button.textContent = 'Sign out';
    button.style.cssText = link.style.cssText + ';border:0;cursor:pointer;display:none';
    link.parentNode.insertBefore(button, link.nextSibling);
    var show = function (signedIn, who) {
      link.style.display = signedIn ? 'none' : '';
      button.style.display = signedIn ? '' : 'none';
      button.title = signedIn ? 'Signed in as user ' + who : '';
      document.body.setAttribute('data-signed-in', signedIn ? 'yes' : 'no');
    };
    button.addEventListener('click', function () {
      button.disabled = true;
      fetch('/auth/logout', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'x-requested-with': 'graphiql' }
      }).then(function (answer) {
        button.disabled = false;
        if (answer.status === 204) show(false);
      }, function () { button.disabled = false; });
    });
    fetch('/auth/session', { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then(function (answer) { return answer.ok ? answer.json() : { signedIn: false }; })
      .then(function (session) {
        show(session.signedIn === true, session.user ? session.user.id : '');
      }, function () { show(false); });
  }

  function noteWaitingSubscriptions(message) {
    var fetchFirst = window.fetch.bind(window);
    window.fetch = function (input, init) {
      var answer = fetchFirst(input, init);
      var accept = new Headers((init && init.headers) || {}).get('accept') || '';
      if (accept.indexOf('text/event-stream') === -1) return answer;
      return answer.then(function (response) {
        var type = response.headers.get('content-type') || '';
        if (!response.ok || !response.body || type.indexOf('text/event-stream') === -1) return response;
        return new Response(watched(response.body, message), {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers
        });
      });
    };
  }

  function watched(body, message) {
    var reader = body.getReader();
    var decoder = new TextDecoder();
    var tail = '';
    var note = showNote(message);
    return new ReadableStream({
      pull: function (controller) {
        return reader.read().then(function (chunk) {
          if (chunk.done) {
            note.remove();
            controller.close();
            return;
          }
          // An event has a data line; keep-alive comments (":") do not.
          tail = (tail + decoder.decode(chunk.value, { stream: true })).slice(-4096);
          if (/(^|\\n)data:/.test(tail)) note.remove();
          controller.enqueue(chunk.value);
        }, function (error) {
          note.remove();
          controller.error(error);
        });
      },
      cancel: function (reason) {
        note.remove();
        return reader.cancel(reason);
      }
    });
  }

  function showNote(message) {
    var note = document.createElement('div');
    note.className = 'plans-subscription-waiting';
    note.setAttribute('role', 'status');
    note.textContent = message;
    note.style.cssText = 'position:absolute;top:4.5rem;left:1.5rem;right:1.5rem;' +
      'font:0.95rem/1.5 sans-serif;color:hsl(219,15%,40%);white-space:pre-line;z-index:1';
    var attach = function () {
      var pane = document.querySelector('.graphiql-response');
      if (!pane) return setTimeout(attach, 50);
      if (!note.isConnected && !note.dataset.removed) {
        pane.style.position = 'relative';
        pane.appendChild(note);
      }
    };
    attach();
    return {
      remove: function () {
        note.dataset.removed = 'yes';
        note.remove();
      }
    };
  }
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
