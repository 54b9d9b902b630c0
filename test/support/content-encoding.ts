import { brotliDecompressSync, gunzipSync } from 'node:zlib';

/** A body as sent with `Content-Encoding: encoding` (br, gzip or none), decoded. */
export function decodedBody(bytes: Buffer, encoding: string | undefined): Buffer {
  if (encoding === 'br') return brotliDecompressSync(bytes);
  if (encoding === 'gzip') return gunzipSync(bytes);
  return bytes;
}
