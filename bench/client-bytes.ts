/**
 * Bytes on the wire for the dashboard, as a mobile client sends it: a plain POST of the query
 * text against an APQ GET of its hash with compression, and the 304 a revalidation costs.
 * Counts the request line, headers and body each way (HTTP/1.1, as undici sends and receives
 * them). `npx tsx bench/client-bytes.ts`
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { startStack } from '../test/support/stack.js';

const DASHBOARD = readFileSync(new URL('dashboard.graphql', import.meta.url), 'utf8');
const stack = await startStack({ config: { metrics: 'on-request' } });
const token = stack.token;

interface Exchange {
  readonly label: string;
  readonly sent: number;
  readonly received: number;
  readonly status: number;
  readonly etag?: string;
}

function headerBytes(headers: Record<string, string>): number {
  return Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
}

async function exchange(
  label: string,
  url: URL,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
): Promise<Exchange> {
  const headers = { host: url.host, ...init.headers };
  const sent =
    `${init.method} ${url.pathname}${url.search} HTTP/1.1\r\n`.length +
    headerBytes(headers) +
    2 +
    Buffer.byteLength(init.body ?? '');
  const response = await request(url, {
    method: init.method,
    headers: init.headers,
    ...(init.body ? { body: init.body } : {}),
  });
  const body = Buffer.from(await response.body.arrayBuffer());
  const raw = Object.entries(response.headers).map(([k, v]) => [k, String(v)]);
  const received =
    'HTTP/1.1 200 OK\r\n'.length + headerBytes(Object.fromEntries(raw)) + 2 + body.length;
  const etag = response.headers.etag;
  return {
    label,
    sent,
    received,
    status: response.statusCode,
    ...(typeof etag === 'string' ? { etag } : {}),
  };
}

const auth = { authorization: `Bearer ${token}` };
const url = new URL(stack.url);
// Warm the replica so every exchange below measures the same answer.
await stack.gql(DASHBOARD);

const plain = await exchange('plain POST, no compression', url, {
  method: 'POST',
  headers: { ...auth, 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify({ query: DASHBOARD }),
});

const hash = createHash('sha256').update(DASHBOARD).digest('hex');
const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } });
// Registers the text (APQ's one full request), then measures the hash-only GET.
await exchange('APQ registration', url, {
  method: 'POST',
  headers: { ...auth, 'content-type': 'application/json' },
  body: JSON.stringify({ query: DASHBOARD, extensions: JSON.parse(extensions) }),
});
const apqUrl = new URL(stack.url);
apqUrl.searchParams.set('extensions', extensions);
const apq = await exchange('APQ GET + br', apqUrl, {
  method: 'GET',
  headers: { ...auth, accept: 'application/json', 'accept-encoding': 'br, gzip' },
});
const gzip = await exchange('APQ GET + gzip', apqUrl, {
  method: 'GET',
  headers: { ...auth, accept: 'application/json', 'accept-encoding': 'gzip' },
});
const revalidated = await exchange('APQ GET, If-None-Match (304)', apqUrl, {
  method: 'GET',
  headers: {
    ...auth,
    accept: 'application/json',
    'accept-encoding': 'br, gzip',
    'if-none-match': apq.etag ?? '',
  },
});

console.log(
  'exchange'.padEnd(34),
  'status',
  'sent B'.padStart(8),
  'received B'.padStart(11),
  'total'.padStart(8),
);
for (const e of [plain, apq, gzip, revalidated]) {
  const total = e.sent + e.received;
  console.log(
    e.label.padEnd(34),
    String(e.status).padStart(6),
    String(e.sent).padStart(8),
    String(e.received).padStart(11),
    `${String(total).padStart(8)}  (${((100 * total) / (plain.sent + plain.received)).toFixed(1)}%)`,
  );
}
await stack.close();
