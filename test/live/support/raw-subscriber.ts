/**
 * A subscriber over a raw socket that sends its subscription (GraphQL over SSE) and then never
 * reads: the kernel's buffers fill and the gateway's writes wait, as with a stalled client.
 */
import { connect, type Socket } from 'node:net';

/** POSTs `body` to `url` as a `text/event-stream` subscription, then stops reading. */
export function neverReading(url: string, token: string, body: string): Promise<Socket> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.pause();
      socket.write(
        [
          'POST /graphql HTTP/1.1',
          `host: 127.0.0.1:${port}`,
          'content-type: application/json',
          'accept: text/event-stream',
          `authorization: Bearer ${token}`,
          `content-length: ${Buffer.byteLength(body)}`,
          '',
          body,
        ].join('\r\n'),
      );
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Reads what the socket holds from now on, until the stream completes or the socket closes. */
export function readToEnd(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('event: complete')) resolve(text);
    });
    socket.on('close', () => resolve(text));
    socket.resume();
  });
}
