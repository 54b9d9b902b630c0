/**
 * The parse floor of a cold load (`bench/large-plans.ts`), in a fresh process of its own as the
 * gateway is: download the plan export with `node:http`, keep its chunks, join them once and
 * `JSON.parse` the text. Nothing is checked, shared or indexed: what any Node process must pay
 * to hold the export parsed. Like the gateway, it first downloads and parses a small export (of
 * the warm-up token) so its code paths are compiled before the measured one.
 *
 * An export longer than V8's longest string (about 512 MB: 1,000,000 transactions) cannot be
 * parsed whole by anyone; it is then cut into batches of 64 KiB at element boundaries by the
 * gateway's own splitter (`src/upstream/json-array-stream.ts`) and each batch `JSON.parse`d,
 * the rows kept (the `mode` printed says which).
 *
 * Run as `node --import tsx parse-floor-child.ts <warm-up url> <warm-up token> <url> <token>`;
 * prints one JSON line: `{ seconds, cpuSeconds, mode, bytes, transactions }`.
 */
import { constants } from 'node:buffer';
import { request } from 'node:http';
import { JsonArraySplitter } from '../src/upstream/json-array-stream.js';

const [warmUrl, warmToken, url, token] = process.argv.slice(2);
if (!warmUrl || !warmToken || !url || !token) {
  throw new Error('parse-floor-child: <warm-up url> <warm-up token> <url> <token>');
}

/** Private: the body of `GET target` as one buffer (chunks joined once). */
function download(target: string, bearer: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = request(target, { headers: { authorization: `Bearer ${bearer}` } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`${target}: HTTP ${res.statusCode}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => resolve(Buffer.concat(chunks, size)));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function parseOnce(target: string, bearer: string) {
  const bytes = await download(target, bearer);
  if (bytes.length < constants.MAX_STRING_LENGTH) {
    const document = JSON.parse(bytes.toString('utf8')) as {
      data: { plan: { transactions: unknown[] } };
    };
    return {
      mode: 'whole',
      bytes: bytes.length,
      transactions: document.data.plan.transactions.length,
    };
  }
  const kept = new Map<string, unknown[][]>();
  const splitter = new JsonArraySplitter({
    at: ['data', 'plan'],
    onElements(key, elements) {
      const batches = kept.get(key);
      if (batches) batches.push(elements);
      else kept.set(key, [elements]);
    },
  });
  const CHUNK = 64 * 1024;
  for (let at = 0; at < bytes.length; at += CHUNK) splitter.write(bytes.subarray(at, at + CHUNK));
  splitter.end();
  const transactions = (kept.get('transactions') ?? []).reduce((n, batch) => n + batch.length, 0);
  return { mode: 'batches', bytes: bytes.length, transactions };
}

await parseOnce(warmUrl, warmToken);
const cpu = process.cpuUsage();
const started = performance.now();
const parsed = await parseOnce(url, token);
const seconds = (performance.now() - started) / 1000;
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ seconds, cpuSeconds: (used.user + used.system) / 1e6, ...parsed }));
