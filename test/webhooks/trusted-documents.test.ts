/**
 * Webhooks under `TRUSTED_DOCUMENTS_ONLY`: an endpoint's feed is the gateway's own subscription,
 * not a client's text, so it runs and delivers where a client's text would be refused.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_POLL_INTERVAL_MS, openAccount, outsideWrite } from '../live/support/live.js';
import { startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { type Receiver, startReceiver } from './support/receiver.js';
import { createEndpoint, tempDir, webhookConfig } from './support/webhook-stack.js';

const MANIFEST = fileURLToPath(
  new URL('../../examples/generated/persisted-documents.json', import.meta.url),
);
const dir = tempDir();
const webhooks = webhookConfig(`${dir.path}/trusted.db`);
let stack: TimedStack;
let receiver: Receiver;

beforeAll(async () => {
  stack = await startStack({ clock: 'manual', timers: 'manual', sandbox: { rateLimit: false } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await stack.close();
  dir.remove();
});

it('delivers from a gateway that runs registered operations only', async () => {
  const accountId = await openAccount(stack);
  // Registered through a gateway that takes text, then served by one that takes only hashes.
  const registering = await stack.addGateway({ config: { webhooks } });
  await createEndpoint({ gql: registering.gql, planId: stack.planId }, receiver.url);
  await registering.close();
  const strict = await stack.addGateway({
    config: { webhooks, trustedDocuments: { manifestPath: MANIFEST, only: true } },
  });
  const refused = await strict.gql('{ plans { id } }');
  expect(refused.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ONLY');

  // The stored endpoint's feed subscribes through the strict gateway's admission path.
  await until(() => strict.gateway.live.stats().subscribers >= 1, 'the feed');
  const written = await outsideWrite(stack, accountId, 'trusted only');
  await stack.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
  await until(() => receiver.delivered().length >= 1, 'a delivery');
  expect(receiver.received[0]?.body).toContain(written.id);
});
