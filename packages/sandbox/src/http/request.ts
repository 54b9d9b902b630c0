/** Reading what a request carries: its body (bounded), token and parameters. */
import type { IncomingMessage } from 'node:http';
import { badRequest } from '../core/errors.js';

/** @default 32 MiB: a batch of tens of thousands of transactions fits. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

export class BodyTooLargeError extends Error {}

export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new BodyTooLargeError(`request body exceeds ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', (error) => {
      if (!failed) reject(error);
    });
  });
}

/** Parses a JSON body; `undefined` for an empty body. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw badRequest(`The request body is not valid JSON: ${reason}`);
  }
}

/** The bearer token from the Authorization header, else the `access_token` query parameter. */
export function presentedToken(
  req: IncomingMessage,
  query: Readonly<Record<string, string>>,
): string | null {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const match = /^bearer\s+(.+)$/i.exec(header.trim());
    return match ? (match[1] as string).trim() : '';
  }
  return query.access_token ?? null;
}

/** Query parameters as a plain record (the last value wins when one repeats). */
export function queryRecord(params: URLSearchParams): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [key, value] of params) record[key] = value;
  return record;
}

/** Form fields of an `application/x-www-form-urlencoded` (or JSON) body. */
export function formFields(req: IncomingMessage, text: string): Record<string, string> {
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null) return {};
      const fields: Record<string, string> = {};
      for (const [key, value] of Object.entries(parsed)) {
        if (typeof value === 'string' || typeof value === 'number') fields[key] = String(value);
      }
      return fields;
    } catch {
      return {};
    }
  }
  return queryRecord(new URLSearchParams(text));
}
