/**
 * A webhook receiver on a loopback port: it records every request (headers and body) and answers
 * with the status the test sets, or holds the request open (`hold`) until released.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly status: number;
}

export interface Receiver {
  readonly url: string;
  readonly port: number;
  /** Every request, in arrival order, with the status it was answered (0: held). */
  readonly received: Received[];
  /** Status of the next answers. @default 204 */
  status: number;
  /** Hold requests open (no answer) until `release()`. */
  hold: boolean;
  /** Answers every held request with `status`. */
  release(): void;
  /** Requests held open now. */
  heldCount(): number;
  /** Held requests whose sender went away (its connection closed) without an answer. */
  abandoned(): number;
  /** Requests answered with a 2xx. */
  delivered(): Received[];
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const held: (() => void)[] = [];
  let abandoned = 0;
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    status: 204,
    hold: false,
    release() {
      for (const answer of held.splice(0)) answer();
    },
    heldCount: () => held.length,
    abandoned: () => abandoned,
    delivered: () => receiver.received.filter((r) => r.status >= 200 && r.status < 300),
    close: async () => {
      receiver.release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const answer = () => {
        const status = receiver.status;
        receiver.received.push({ headers: request.headers, body, status });
        response.statusCode = status;
        response.end(status >= 300 ? 'not now' : '');
      };
      if (receiver.hold) {
        held.push(answer);
        response.on('close', () => {
          if (!response.writableEnded) abandoned += 1;
        });
      } else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  Object.assign(receiver, { port, url: `http://127.0.0.1:${port}${path}` });
  return receiver;
}
