/**
 * Stacks with webhooks on: a key, a SQLite file in a temporary folder, private targets allowed
 * (the receivers are on loopback), short retries; and the GraphQL operations that manage
 * endpoints.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_WEBHOOKS, type WebhooksConfig } from '../../../src/config/config.js';
import type { Stack } from '../../support/stack.js';

/** A temporary folder for a suite's SQLite files; `remove()` in afterAll. */
export function tempDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'webhooks-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function webhookConfig(
  databasePath: string,
  overrides: Partial<WebhooksConfig> = {},
): WebhooksConfig {
  return {
    ...DEFAULT_WEBHOOKS,
    key: randomBytes(32),
    databasePath,
    allowPrivateTargets: true,
    retryBaseMs: 1_000,
    retryMaxDelayMs: 60_000,
    ...overrides,
  };
}

export const CREATE = `mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { secret endpoint { id planId url kinds enabled disabledReason } }
}`;

export const ENDPOINTS = `{ webhookEndpoints { id url kinds enabled disabledReason
  deliveries(first: 100) { eventId serverKnowledge state attempts { succeeded responseStatus durationMs error } } } }`;

export interface CreatedEndpoint {
  readonly id: string;
  readonly secret: string;
}

/** Creates an endpoint through GraphQL; fails the test on errors. */
export async function createEndpoint(
  stack: Pick<Stack, 'gql' | 'planId'>,
  url: string,
  { kinds = ['TRANSACTIONS', 'ACCOUNTS'], token }: { kinds?: string[]; token?: string } = {},
): Promise<CreatedEndpoint> {
  const answer = await stack.gql<{
    createWebhookEndpoint: { secret: string; endpoint: { id: string } };
  }>(CREATE, { input: { planId: stack.planId, url, kinds } }, token ? { token } : {});
  const created = answer.body.data?.createWebhookEndpoint;
  if (!created) throw new Error(`createWebhookEndpoint failed: ${JSON.stringify(answer.body)}`);
  return { id: created.endpoint.id, secret: created.secret };
}
