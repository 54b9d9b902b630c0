/**
 * The client of `miss-path.ts`, in a process of its own so that the probe's process CPU is the
 * servers' alone: on each message `{ port, body, count, nonce }` it sends `count` sequential
 * POSTs over one keep-alive connection (`nonce`: a counter put into each body's variables), reads
 * every body, and answers with how many bodies were wrong.
 */
import { Agent, request } from 'node:http';

interface Batch {
  readonly port: number;
  readonly query: string;
  readonly variables: Record<string, unknown>;
  readonly count: number;
  /** Put a counter into `variables.nonce` (the gateway's misses) or send the same body each time. */
  readonly nonce: boolean;
  readonly authorization?: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
let nonce = 0;

function post(batch: Batch): Promise<string> {
  nonce += 1;
  const body = JSON.stringify({
    query: batch.query,
    variables: batch.nonce ? { ...batch.variables, nonce } : batch.variables,
  });
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        agent,
        port: batch.port,
        host: '127.0.0.1',
        path: '/graphql',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(batch.authorization ? { authorization: batch.authorization } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        response.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

process.on('message', (batch: Batch) => {
  void (async () => {
    let wrong = 0;
    let sample = '';
    for (let i = 0; i < batch.count; i += 1) {
      const text = await post(batch);
      if (!text.startsWith('{"data":') || text.includes('"errors"')) {
        wrong += 1;
        sample = text.slice(0, 300);
      }
    }
    process.send?.({ wrong, sample });
  })();
});
