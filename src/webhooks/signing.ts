/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): `webhook-id`,
 * `webhook-timestamp` (seconds) and `webhook-signature`, a space-separated list of `v1,<base64>`
 * HMAC-SHA256 over `id.timestamp.body`, one per secret that signs: the current one, and during a
 * rotation's overlap the previous one too, so a receiver that still holds it keeps verifying.
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new secret: `whsec_` and 32 random bytes in base64, as the reference libraries read it. */
export function newSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/** A new event id: unique, and what receivers deduplicate on (`webhook-id`). */
export function newEventId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

export interface SignedHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

export function signedHeaders(
  eventId: string,
  timestampSeconds: number,
  body: string,
  secrets: readonly string[],
): SignedHeaders {
  const content = `${eventId}.${timestampSeconds}.${body}`;
  const signatures = secrets.map((secret) => {
    const key = Buffer.from(
      secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret,
      'base64',
    );
    return `v1,${createHmac('sha256', key).update(content, 'utf8').digest('base64')}`;
  });
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  };
}
