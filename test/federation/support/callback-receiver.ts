/**
 * A router's callback endpoint on loopback, for the HTTP callback protocol's tests: it records
 * every message posted to it and answers as the test sets it (204 with the protocol's header,
 * 404 as a router that let the subscription go, or never, as a router that stopped answering).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CallbackMessage {
  readonly kind: string;
  readonly action: 'check' | 'next' | 'complete' | string;
  readonly id: string;
  readonly verifier: string;
  readonly payload?: { data?: Record<string, unknown>; errors?: unknown[] };
  readonly errors?: { message: string; extensions?: { code?: string } }[];
  /** The request's `subscription-protocol` and `content-type` headers. */
  readonly headers: { protocol?: string; contentType?: string };
}

export type Answer = 'ok' | 'gone' | 'hang';

export interface CallbackReceiver {
  /** `http://127.0.0.1:<port>/callback/<id>`. */
  urlFor(id: string): string;
  readonly messages: CallbackMessage[];
  answer: Answer;
  close(): Promise<void>;
}

export async function startCallbackReceiver(): Promise<CallbackReceiver> {
  const held: ServerResponse[] = [];
  const receiver = {
    messages: [] as CallbackMessage[],
    answer: 'ok' as Answer,
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<
        CallbackMessage,
        'headers'
      >;
      const headers: { protocol?: string; contentType?: string } = {};
      const protocol = request.headers['subscription-protocol'];
      if (typeof protocol === 'string') headers.protocol = protocol;
      if (request.headers['content-type']) headers.contentType = request.headers['content-type'];
      receiver.messages.push({ ...body, headers });
      if (receiver.answer === 'hang') {
        held.push(response);
        return;
      }
      response.writeHead(receiver.answer === 'gone' ? 404 : 204, {
        'subscription-protocol': 'callback/1.0',
      });
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    urlFor: (id: string) => `http://127.0.0.1:${port}/callback/${id}`,
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
