/**
 * Registering endpoints through GraphQL: webhooks off without the operator's key, bad input
 * refused naming the field with nothing stored, every endpoint visible and changeable only by the
 * token that created it, targets refused before and after resolution (SSRF), and a token the
 * upstream stops accepting disables its endpoints with the reason.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { codeGrant, stringField } from '../../packages/sandbox/test/support/oauth.js';
import { tokenKey } from '../../src/upstream/token-key.js';
import { DEFAULT_POLL_INTERVAL_MS, openAccount, outsideWrite } from '../live/support/live.js';
import { startStack, type TimedStack } from '../support/stack.js';
import { until } from '../support/wait.js';
import { type Receiver, startReceiver } from './support/receiver.js';
import {
  CREATE,
  createEndpoint,
  ENDPOINTS,
  tempDir,
  webhookConfig,
} from './support/webhook-stack.js';

const ALICE = 'webhooks-alice-0000001';
const BOB = 'webhooks-bob-000000002';
const dir = tempDir();
const stacks: { close(): Promise<void> }[] = [];
const receivers: Receiver[] = [];

afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});
afterAll(async () => {
  for (const s of stacks.splice(0)) await s.close();
  dir.remove();
});

type Errors = { message: string; extensions: { code: string; field?: string } }[];

async function stackWith(name: string, allowPrivateTargets = true): Promise<TimedStack> {
  const stack = await startStack({
    clock: 'manual',
    timers: 'manual',
    sandbox: {
      rateLimit: false,
      users: [
        { token: ALICE, plans: [{ seed: 11 }] },
        { token: BOB, plans: [{ seed: 12 }] },
      ],
    },
    config: { webhooks: webhookConfig(`${dir.path}/${name}.db`, { allowPrivateTargets }) },
  });
  stacks.push(stack);
  return stack;
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

describe('without WEBHOOK_KEY', () => {
  it('answers WEBHOOKS_DISABLED, saying why', async () => {
    const stack = await startStack({ serve: 'fetch', sandbox: { rateLimit: false } });
    stacks.push(stack);
    const create = await stack.gql(CREATE, {
      input: { planId: stack.planId, url: 'https://hooks.example.com/x', kinds: ['TRANSACTIONS'] },
    });
    const list = await stack.gql('{ webhookEndpoints { id } }');
    for (const answer of [create, list]) {
      const [error] = answer.body.errors as Errors;
      expect(error?.extensions.code).toBe('WEBHOOKS_DISABLED');
      expect(error?.message).toContain('WEBHOOK_KEY');
    }
  });
});

describe('registration', () => {
  let stack: TimedStack;
  beforeAll(async () => {
    stack = await stackWith('registration');
  });

  it('refuses bad input naming the field, and stores nothing', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ url: 'not a url' }, 'input.url', 'absolute URL'],
      [{ url: 'http://hooks.example.com/x' }, 'input.url', 'https'],
      [{ url: 'ftp://hooks.example.com/x' }, 'input.url', 'https'],
      [{ url: 'https://user:pw@hooks.example.com/x' }, 'input.url', 'password'],
      [{ kinds: [] }, 'input.kinds', 'at least one'],
      [{ planId: '4f9b8a9e-0000-4000-8000-000000000000' }, 'input.planId', 'no plan'],
      [{ description: 'x'.repeat(501) }, 'input.description', '500'],
    ];
    for (const [change, field, words] of cases) {
      const input = {
        planId: stack.planId,
        url: 'https://hooks.example.com/x',
        kinds: ['TRANSACTIONS'],
        ...change,
      };
      const answer = await stack.gql(CREATE, { input });
      const [error] = (answer.body.errors ?? []) as Errors;
      expect(error?.extensions, JSON.stringify(change)).toMatchObject({
        code: 'BAD_USER_INPUT',
        field,
      });
      expect(error?.message).toContain(words);
    }
    const unknownKind = await stack.gql(CREATE, {
      input: { planId: stack.planId, url: 'https://hooks.example.com/x', kinds: ['INVOICES'] },
    });
    const [kindError] = unknownKind.body.errors as Errors;
    expect(kindError?.message).toContain('INVOICES');
    // GraphQL refuses a value outside the enum before anything runs, naming where it was.
    expect(kindError?.message).toContain('input.kinds[0]');
    const listed = await stack.gql<{ webhookEndpoints: unknown[] }>('{ webhookEndpoints { id } }');
    expect(listed.body.data?.webhookEndpoints).toEqual([]);
  });

  it("keeps each token's endpoints to itself", async () => {
    const r = await receiver();
    const mine = await createEndpoint(stack, r.url);
    const asBob = { token: BOB };
    const bobList = await stack.gql<{ webhookEndpoints: unknown[] }>(ENDPOINTS, {}, asBob);
    expect(bobList.body.data?.webhookEndpoints).toEqual([]);
    const bobOne = await stack.gql(
      'query($id: ID!) { webhookEndpoint(id: $id) { id } }',
      { id: mine.id },
      asBob,
    );
    expect(bobOne.body.data).toEqual({ webhookEndpoint: null });
    for (const mutation of [
      'mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: { url: "https://bob.example.com/" }) { id } }',
      'mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }',
      'mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }',
    ]) {
      const answer = await stack.gql(mutation, { id: mine.id }, asBob);
      expect((answer.body.errors as Errors)[0]?.extensions.code).toBe('NOT_FOUND');
    }
    const aliceList = await stack.gql<{ webhookEndpoints: { id: string; url: string }[] }>(
      ENDPOINTS,
    );
    expect(aliceList.body.data?.webhookEndpoints).toMatchObject([{ id: mine.id, url: r.url }]);
    const updated = await stack.gql<{ updateWebhookEndpoint: { kinds: string[] } }>(
      'mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: { kinds: [PAYEES], description: "mine" }) { kinds description } }',
      { id: mine.id },
    );
    expect(updated.body.data?.updateWebhookEndpoint).toEqual({
      kinds: ['PAYEES'],
      description: 'mine',
    });
    const deleted = await stack.gql('mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }', {
      id: mine.id,
    });
    expect(deleted.body.data).toEqual({ deleteWebhookEndpoint: mine.id });
  });
});

describe('server-side request forgery', () => {
  let stack: TimedStack;
  beforeAll(async () => {
    stack = await stackWith('ssrf', false);
  });

  it('refuses private, loopback and reserved address literals and http at registration', async () => {
    for (const url of [
      'https://127.0.0.1/hooks',
      'https://10.1.2.3/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hooks',
      'https://[::ffff:192.168.0.1]/hooks',
      'https://[::127.0.0.1]/hooks',
      'https://[::7f00:1]/hooks',
      'http://127.0.0.1:8080/hooks',
    ]) {
      const answer = await stack.gql(CREATE, {
        input: { planId: stack.planId, url, kinds: ['TRANSACTIONS'] },
      });
      expect((answer.body.errors as Errors)[0]?.extensions, url).toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'input.url',
      });
    }
  });

  it('checks the address a name resolves to when connecting, and never sends there', async () => {
    const r = await receiver();
    const endpoint = await createEndpoint(stack, `https://localhost:${r.port}/hooks`);
    await outsideWrite(stack, await openAccount(stack), 'to localhost');
    await stack.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    let attempts: { error: string | null }[] = [];
    await until(async () => {
      const answer = await stack.gql<{
        webhookEndpoints: { id: string; deliveries: { attempts: { error: string | null }[] }[] }[];
      }>(ENDPOINTS);
      const mine = answer.body.data?.webhookEndpoints.find((e) => e.id === endpoint.id);
      attempts = mine?.deliveries[0]?.attempts ?? [];
      return attempts.length > 0;
    }, 'a refused attempt');
    expect(attempts[0]?.error).toMatch(
      /localhost resolves to (127\.0\.0\.1|::1), which is not a public address/,
    );
    expect(r.received).toEqual([]);
  });
});

describe('a token the upstream refuses', () => {
  it('disables its endpoints, with the reason', async () => {
    const stack = await startStack({
      clock: 'manual',
      timers: 'manual',
      sandbox: { rateLimit: false },
      config: {
        maxAgeMs: 600_000,
        webhooks: webhookConfig(`${dir.path}/refused.db`),
      },
    });
    stacks.push(stack);
    const grant = await codeGrant(stack.sandbox.origin, {
      clientId: 'sandbox-demo-client',
      clientSecret: 'sandbox-demo-secret',
      redirectUri: 'http://localhost:8080/oauth/callback',
    });
    const token = stringField(grant, 'access_token');
    const r = await receiver();
    await createEndpoint(stack, r.url, { token });
    // An OAuth token lives 2 hours; the feed's next poll after that is refused (401).
    await stack.scheduler.advance(2 * 3_600_000 + 600_000);
    // The token no longer reads anything: the gateway's own registry shows what GraphQL would.
    const webhooks = stack.gateway.webhooks!;
    const who = { token, tokenKey: tokenKey(token) };
    let listed: { disabledReason: string | null }[] = [];
    await until(async () => {
      listed = await webhooks.endpoints(who);
      return listed[0]?.disabledReason != null;
    }, 'the endpoint disabled');
    expect(listed[0]?.disabledReason).toContain('refused the token');
    expect(stack.gateway.webhooks!.openFeeds()).toEqual([]);
  });
});
