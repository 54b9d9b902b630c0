/**
 * Issue 29's webhook findings, measured against in-process gateways over loopback (the REST
 * sandbox behind them, a receiver on a loopback port, the gateways' timers on a manual clock
 * where time matters, a redis-server of the probe's own where Redis does):
 *
 *   4   what the SQLite file (with its WAL) and Redis hold in clear after an endpoint received a
 *       write: secrets, the token, the URL, the plan id, a payee name, an amount, a memo
 *   9   addresses inside `::/96` (IPv4-compatible IPv6) and the special-purpose ranges: accepted?
 *   10  a restart with another WEBHOOK_KEY: what the endpoints say, what is logged in 60 s
 *   11  a write through the gateway: how long (manual clock) until an endpoint created since the
 *       last sync receives it; the `serverKnowledge` of three writes' events
 *   12  Redis without AOF or RDB: warnings at start and after Redis restarts empty
 *
 *   npx tsx bench/probes/webhooks.ts               # every probe
 *   npx tsx bench/probes/webhooks.ts --only 4,11   # some of them
 *
 * Figures, not assertions: test/webhooks/ proves the bounds; this measures them.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { isPublicAddress, urlProblem } from '../../src/webhooks/target.js';
import { startTestRedis } from '../../test/support/redis-server.js';
import { type Stack, startStack, type TimedStack } from '../../test/support/stack.js';
import { until } from '../../test/support/wait.js';
import {
  countFound,
  type Needles,
  scanRedis,
  scanSqlite,
} from '../../test/webhooks/support/at-rest.js';
import { type Receiver, startReceiver } from '../../test/webhooks/support/receiver.js';
import {
  createEndpoint,
  ENDPOINTS,
  tempDir,
  webhookConfig,
} from '../../test/webhooks/support/webhook-stack.js';
import { report } from './kit.js';

const { values: flags } = parseArgs({ options: { only: { type: 'string' } } });
const ONLY = flags.only ? new Set(flags.only.split(',').map((s) => s.trim())) : null;

const TOKEN = 'webhooks-probe-0000001';
const PAYEE = 'Zebrafish Bakery Probe';
const MEMO = 'quokka memo probe';
const AMOUNT = -7_654_321;
const HOOK_PATH = '/hooks/narwhal-receiver';

const WRITE = `mutation($planId: PlanId!, $accountId: UUID!, $memo: String, $payee: String, $amount: Milliunits!) {
  createTransaction(planId: $planId, input: { accountId: $accountId, date: "2025-06-15", amount: $amount, memo: $memo, payeeName: $payee }) {
    ... on CreateTransactionPayload { transaction { id } }
  }
}`;

async function accountOf(stack: Stack): Promise<string> {
  const { accounts } = await stack.writer.getAccounts(
    { token: stack.token },
    { planId: stack.planId },
  );
  return accounts.find((a) => !a.closed && !a.deleted && a.on_budget)!.id;
}

function write(stack: Stack, accountId: string, memo: string, payee: string | null = null) {
  return stack.gql(WRITE, { planId: stack.planId, accountId, memo, payee, amount: AMOUNT });
}

/** An endpoint with every kind that carries the plan's data, a received write, a rotation. */
async function fill(stack: Stack, receiver: Receiver): Promise<Needles> {
  const accountId = await accountOf(stack);
  const endpoint = await createEndpoint(stack, receiver.url, {
    kinds: ['TRANSACTIONS', 'PAYEES', 'ACCOUNTS'],
  });
  const rotated = await stack.gql<{ rotateWebhookSecret: { secret: string } }>(
    'mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }',
    { id: endpoint.id },
  );
  await write(stack, accountId, MEMO, PAYEE);
  const received = () => receiver.delivered().some((r) => r.body.includes(PAYEE));
  await until(received, 'the new payee delivered', { timeoutMs: 30_000 }).catch(() => {});
  return {
    'first secret': endpoint.secret,
    'rotated secret': rotated.body.data!.rotateWebhookSecret.secret,
    'secret bytes (base64)': endpoint.secret.slice('whsec_'.length),
    token: stack.token,
    'endpoint URL': HOOK_PATH,
    'plan id': stack.planId,
    'payee name': received() ? PAYEE : '(not delivered)',
    amount: String(-AMOUNT),
    memo: MEMO,
  };
}

function found(findings: Record<string, string[]>): string {
  const hits = Object.entries(findings)
    .filter(([, where]) => where.length > 0)
    .map(([name, where]) => `${name} (${where.length})`);
  return hits.length === 0 ? 'none' : hits.join(', ');
}

/** 4. Secrets and plan data at rest, SQLite then Redis. */
async function atRest(): Promise<void> {
  const dir = tempDir();
  const path = `${dir.path}/probe.db`;
  const receiver = await startReceiver(HOOK_PATH);
  const stack = await startStack({
    clock: 'manual',
    timers: 'manual',
    sandbox: { rateLimit: false, users: [{ token: TOKEN, plans: [{ seed: 29 }] }] },
    config: { webhooks: webhookConfig(path) },
  });
  try {
    const needles = await fill(stack, receiver);
    const running = scanSqlite(path, needles);
    await stack.close();
    const closed = scanSqlite(path, needles);
    report('4 SQLite (webhooks.db, -wal, -shm)', {
      'needles found while running': `${countFound(running)} of ${Object.keys(needles).length}: ${found(running)}`,
      'needles found after close': `${countFound(closed)} of ${Object.keys(needles).length}: ${found(closed)}`,
    });
  } finally {
    await stack.close();
    await receiver.close();
    dir.remove();
  }

  const redis = await startTestRedis({ own: true });
  const redisReceiver = await startReceiver(HOOK_PATH);
  const clustered = await startStack({
    clock: 'manual',
    timers: 'manual',
    sandbox: { rateLimit: false, users: [{ token: TOKEN, plans: [{ seed: 29 }] }] },
    config: {
      redisUrl: redis.url,
      cluster: {
        ...(await import('../../src/config/config.js')).DEFAULT_CLUSTER,
        keyPrefix: redis.prefix,
      },
      webhooks: webhookConfig(':memory:'),
    },
  });
  try {
    const needles = await fill(clustered, redisReceiver);
    const findings = await scanRedis(redis.client, needles);
    const keys = (await redis.client.keys('*')).length;
    report('4 Redis (every key: names and values)', {
      keys,
      'needles found': `${countFound(findings)} of ${Object.keys(needles).length}: ${found(findings)}`,
    });
  } finally {
    await clustered.close();
    await redisReceiver.close();
    await redis.close();
  }
}

/** 9. Addresses inside ::/96 and other special-purpose ranges. */
async function addresses(): Promise<void> {
  const compatible = [
    '::127.0.0.1',
    '::7f00:1',
    '::a9fe:a9fe',
    '::10.0.0.1',
    '::c0a8:101',
    '::1.2.3.4',
  ];
  const urls = [
    'https://[::127.0.0.1]/',
    'https://[::7f00:1]/',
    'https://[::a9fe:a9fe]/latest/meta-data',
  ];
  // One address of each special-purpose range the address check did not list before.
  const others = [
    '192.31.196.1',
    '192.52.193.1',
    '192.175.48.1',
    '255.255.255.255',
    '2001:1::1',
    '2001:3::1',
    '2001:4:112::1',
    '2001:20::1',
    '2620:4f:8000::1',
    '3fff::1',
    '5f00::1',
    '100:0:0:1::1',
    'fec0::1',
    '::ffff:0:7f00:1',
  ];
  // NAT64 (DNS64 on an IPv6-only host): judged by the IPv4 address carried.
  const nat64 = ['64:ff9b::8.8.8.8', '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe'];
  report('9 IPv4-compatible IPv6 and other special-purpose addresses', {
    '::/96 addresses judged public': `${compatible.filter(isPublicAddress).length} of ${compatible.length} (${compatible.filter(isPublicAddress).join(', ') || 'none'})`,
    '::/96 URLs accepted for an endpoint': `${urls.filter((u) => urlProblem(u, false) === null).length} of ${urls.length}`,
    'other special-purpose samples judged public': `${others.filter(isPublicAddress).length} of ${others.length} (${others.filter(isPublicAddress).join(', ') || 'none'})`,
    'NAT64 addresses judged public': `${nat64.filter(isPublicAddress).join(', ') || 'none'} (of ${nat64.join(', ')})`,
  });
}

/** 10. A restart with another key. */
async function wrongKey(): Promise<void> {
  const dir = tempDir();
  const path = `${dir.path}/wrong-key.db`;
  const receiver = await startReceiver();
  const first = await startStack({
    clock: 'manual',
    timers: 'manual',
    sandbox: { rateLimit: false, users: [{ token: TOKEN, plans: [{ seed: 29 }] }] },
    config: { webhooks: webhookConfig(path) },
  });
  await createEndpoint(first, receiver.url);
  await first.close();
  const second = await startStack({
    clock: 'manual',
    timers: 'manual',
    log: true,
    sandbox: { rateLimit: false, users: [{ token: TOKEN, plans: [{ seed: 29 }] }] },
    config: { webhooks: webhookConfig(path, { key: randomBytes(32) }) },
  });
  try {
    for (let s = 0; s < 60; s += 1) await second.scheduler.advance(1_000);
    const errors = second.log.filter((line) => line.level === 'error');
    const naming = second.log.filter((line) => JSON.stringify(line).includes('WEBHOOK_KEY'));
    const listed = await second.gql<{ webhookEndpoints: { enabled: boolean }[] }>(ENDPOINTS);
    report('10 restart with another WEBHOOK_KEY, 60 s (manual clock)', {
      'error lines logged': errors.length,
      'of which Decipheriv / stack traces': errors.filter((l) =>
        String(l.stack ?? '').includes('Decipheriv'),
      ).length,
      'log lines naming WEBHOOK_KEY': naming.length,
      'webhookEndpoints answers': listed.body.errors
        ? `${listed.body.errors[0]?.extensions?.code}: ${listed.body.errors[0]?.message}`
        : `enabled: ${JSON.stringify(listed.body.data?.webhookEndpoints.map((e) => e.enabled))}`,
    });
  } finally {
    await second.close();
    await receiver.close();
    dir.remove();
  }
}

/** 11. Writes through the gateway, endpoints created since the last sync. */
async function writes(): Promise<void> {
  const dir = tempDir();
  const stack: TimedStack = await startStack({
    clock: 'manual',
    timers: 'manual',
    sandbox: { rateLimit: false, users: [{ token: TOKEN, plans: [{ seed: 29 }] }] },
    config: { webhooks: webhookConfig(`${dir.path}/writes.db`) },
  });
  const receivers = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
  const [older, newer, first] = receivers as [Receiver, Receiver, Receiver];
  const payees = await stack.gql<{ plan: { payees: { id: string; name: string }[] } }>(
    'query($planId: PlanId!) { plan(id: $planId) { payees { id name } } }',
    { planId: stack.planId },
  );
  const payee = payees.body.data!.plan.payees.find((p) => !p.name.startsWith('Transfer'))!;
  const rename = (name: string) =>
    stack.gql(
      `mutation($planId: PlanId!, $payeeId: UUID!, $name: String!) {
        updatePayee(planId: $planId, payeeId: $payeeId, input: { name: $name }) { __typename }
      }`,
      { planId: stack.planId, payeeId: payee.id, name },
    );
  const got = (receiver: Receiver, name: string) =>
    receiver.delivered().some((r) => r.body.includes(name));
  /** Manual seconds until `receiver` has `name` (moving the clock a second at a time). */
  const secondsUntil = async (receiver: Receiver, name: string): Promise<string> => {
    for (let waited = 0; waited <= 120; waited += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (got(receiver, name)) return `${waited} s`;
      await stack.scheduler.advance(1_000);
    }
    return 'not within 120 s';
  };
  try {
    // The plan's first endpoint, then at once a rename (a payee write has no delta after it).
    const solo = await createEndpoint(stack, first.url, { kinds: ['PAYEES'] });
    await rename('Renamed right after the first endpoint');
    const firstLatency = await secondsUntil(first, 'Renamed right after the first endpoint');
    await stack.gql('mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }', { id: solo.id });

    const old = await createEndpoint(stack, older.url, { kinds: ['PAYEES'] });
    await stack.scheduler.advance(36_000);
    const fresh = await createEndpoint(stack, newer.url, { kinds: ['PAYEES'] });
    await rename('Renamed after a new endpoint');
    const newLatency = await secondsUntil(newer, 'Renamed after a new endpoint');
    const olderBefore = older.delivered().length;
    for (const name of ['Rename two', 'Rename three', 'Rename four']) await rename(name);
    await until(() => older.delivered().length >= olderBefore + 3, 'three renames', {
      timeoutMs: 10_000,
    }).catch(() => {});
    const events = (receiver: Receiver, secret: string) =>
      receiver.delivered().map((r) => {
        const body = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as {
          data: { serverKnowledge: number; origin: string; payees?: { name: string }[] };
        };
        return {
          label: `${body.data.origin}@${body.data.serverKnowledge}`,
          knowledge: body.data.serverKnowledge,
        };
      });
    const renames = events(older, old.secret).slice(olderBefore);
    report('11 writes through the gateway (manual clock)', {
      "a rename right after the plan's first endpoint was created, received after": firstLatency,
      'a rename after an endpoint was created since the last sync, received after': newLatency,
      'three more renames: events of an endpoint (origin@knowledge)': renames
        .map((e) => e.label)
        .join(' '),
      'events sharing a serverKnowledge':
        renames.length - new Set(renames.map((e) => e.knowledge)).size,
      'the newer endpoint': events(newer, fresh.secret)
        .map((e) => e.label)
        .join(' '),
    });
  } finally {
    await stack.close();
    for (const receiver of receivers) await receiver.close();
    dir.remove();
  }
}

/** 12. Redis without persistence: what is said at start and when it comes back empty. */
async function persistence(): Promise<void> {
  const redis = await startTestRedis({ own: true });
  const { DEFAULT_CLUSTER } = await import('../../src/config/config.js');
  const stack = await startStack({
    log: true,
    sandbox: { rateLimit: false, users: [{ token: TOKEN, plans: [{ seed: 29 }] }] },
    config: {
      redisUrl: redis.url,
      cluster: { ...DEFAULT_CLUSTER, keyPrefix: redis.prefix },
      webhooks: webhookConfig(':memory:'),
    },
  });
  const mentions = () =>
    stack.log.filter((line) => /persist|AOF|RDB/i.test(JSON.stringify(line))).length;
  try {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const atStart = mentions();
    await redis.stop();
    await redis.start();
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    report('12 Redis without AOF or RDB', {
      'warnings at start': atStart,
      'warnings after Redis restarted empty': mentions() - atStart,
    });
  } finally {
    await stack.close();
    await redis.close();
  }
}

const probes: Record<string, () => Promise<void>> = {
  '4': atRest,
  '9': addresses,
  '10': wrongKey,
  '11': writes,
  '12': persistence,
};

console.log(`webhook probes, node ${process.version}, ${new Date().toISOString()}`);
for (const [item, probe] of Object.entries(probes)) {
  if (ONLY && !ONLY.has(item)) continue;
  try {
    await probe();
  } catch (error) {
    console.log(`\n[item ${item}] probe failed: ${error instanceof Error ? error.stack : error}`);
  }
}
process.exit(0);
