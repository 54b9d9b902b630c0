/**
 * Reproduces the MCP findings of the third hardening round (issue 29: items 1, 3, 7 and 8)
 * against an in-process gateway with MCP at `/mcp` (the REST sandbox behind it, loopback only),
 * and prints what they cost:
 *
 * - 1: one session subscribes many distinct month URIs, then one write: notifications, bytes,
 *   CPU; then a session whose notification stream is never read: RSS and heap per write,
 *   `/health` meanwhile, and how the stream ends;
 * - 3: 125 tokens x 8 sessions fill the session table; what a newcomer gets, with and without
 *   the flooder's pings; the heap a session costs;
 * - 7: an argument of 900 KB: the size of the error, over Streamable HTTP and over stdio;
 * - 8: a DNS-rebinding page (a foreign `Origin` and `Host`) with the default `CORS_ORIGINS=*`.
 *
 *   npx tsx bench/probes/mcp.ts                     # every probe, about a minute
 *   npx tsx bench/probes/mcp.ts --only 1 --uris 20000
 *
 * Figures, not assertions: the tests in `test/mcp/` prove the bounds; this measures them.
 */
import { parseArgs } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { connectHttp, launchStdio, textOf } from '../../test/mcp/support/mcp-clients.js';
import {
  INITIALIZE,
  neverReadingStream,
  openSession,
  ping,
  rpcAt,
  subscribeAt,
} from '../../test/mcp/support/raw-mcp.js';
import { type Stack, startStack } from '../../test/support/stack.js';
import { cpu, heapAfterGc, mb, ms, report, sandboxWith, sleep } from './kit.js';

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    uris: { type: 'string', default: '10000' },
    writes: { type: 'string', default: '5' },
  },
});
const only = flags.only ? new Set(flags.only.split(',').map((s) => s.trim())) : null;
const URIS = Number(flags.uris);
const WRITES = Number(flags.writes);
/** A probe stops waiting for notifications this long after the last one. */
const QUIET_MS = 1_000;

/** Month URIs of `planId` on distinct days from 1 January 1000 on. */
function dayUris(planId: string, count: number): string[] {
  const start = Date.UTC(1000, 0, 1);
  return Array.from(
    { length: count },
    (_, i) =>
      `plans://${planId}/months/${new Date(start + i * 86_400_000).toISOString().slice(0, 10)}/budget`,
  );
}

/** Month URIs of every day (1 to 28) of every month the plan has. */
async function inPlanUris(client: Client, planId: string): Promise<string[]> {
  const listed = (await client.callTool({ name: 'list_plans', arguments: {} })) as unknown as {
    structuredContent: { plans: { id: string; firstMonth: string; lastMonth: string }[] };
  };
  const plan = listed.structuredContent.plans.find((p) => p.id === planId);
  if (!plan) throw new Error(`no plan ${planId}`);
  const uris: string[] = [];
  const month = new Date(plan.firstMonth);
  while (month.toISOString().slice(0, 10) <= plan.lastMonth) {
    for (let day = 1; day <= 28; day += 1)
      uris.push(
        `plans://${planId}/months/${month.toISOString().slice(0, 8)}${String(day).padStart(2, '0')}/budget`,
      );
    month.setUTCMonth(month.getUTCMonth() + 1);
  }
  return uris;
}

/** Runs `work` over `items`, `width` at a time; counts what failed. */
async function inBatches<T>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<unknown>,
): Promise<number> {
  let failed = 0;
  for (let i = 0; i < items.length; i += width) {
    const settled = await Promise.allSettled(items.slice(i, i + width).map(work));
    failed += settled.filter((s) => s.status === 'rejected').length;
  }
  return failed;
}

/** `/health`'s slowest answer while `work` runs (polled every 50 ms). */
async function healthDuring<T>(stack: Stack, work: () => Promise<T>) {
  const healthUrl = stack.url.replace('/graphql', '/health');
  let slowest = 0;
  let done = false;
  const poll = (async () => {
    while (!done) {
      const started = performance.now();
      await fetch(healthUrl).then((r) => r.arrayBuffer());
      slowest = Math.max(slowest, performance.now() - started);
      await sleep(50);
    }
  })();
  const result = await work();
  done = true;
  await poll;
  return { result, slowest };
}

/** What a write needs: an on-budget account and a category of the plan. */
async function writeTargets(client: Client, planId: string) {
  const overview = (await client.callTool({
    name: 'plan_overview',
    arguments: { planId },
  })) as unknown as {
    structuredContent: { plan: { accounts: { id: string; onBudget: boolean; closed: boolean }[] } };
  };
  const month = (await client.callTool({
    name: 'month_budget',
    arguments: { planId },
  })) as unknown as {
    structuredContent: { plan: { month: { categories: { categoryId: string; name: string }[] } } };
  };
  const account = overview.structuredContent.plan.accounts.find((a) => a.onBudget && !a.closed);
  const { categories } = month.structuredContent.plan.month;
  const category = categories.find((c) => c.name === 'Groceries') ?? categories[0];
  if (!account || !category) throw new Error('no account or category to write with');
  return { accountId: account.id, categoryId: category.categoryId };
}

async function subscriptions(): Promise<void> {
  const stack = await startStack({ sandbox: { rateLimit: false }, mcp: { writes: true } });
  try {
    const client = await connectHttp(stack.mcpUrl, stack.token);
    let notified = 0;
    let notifiedBytes = 0;
    let last = performance.now();
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      notified += 1;
      notifiedBytes += Buffer.byteLength(JSON.stringify(notification));
      last = performance.now();
    });
    const far = dayUris(stack.planId, URIS);
    const inPlan = await inPlanUris(client, stack.planId);
    const uris = [...far, ...inPlan];
    const started = performance.now();
    const refusedFar = await inBatches(far, 50, (uri) => client.subscribeResource({ uri }));
    const refusedInPlan = await inBatches(inPlan, 50, (uri) => client.subscribeResource({ uri }));
    const subscribing = performance.now() - started;
    const targets = await writeTargets(client, stack.planId);
    const write = (memo: string) =>
      client.callTool({
        name: 'create_transaction',
        arguments: {
          planId: stack.planId,
          ...targets,
          date: new Date().toISOString().slice(0, 10),
          amount: '-1.00',
          memo,
        },
      });
    const quiet = async () => {
      last = performance.now();
      while (performance.now() - last < QUIET_MS) await sleep(100);
    };
    notified = 0;
    notifiedBytes = 0;
    const { cpuMs } = await cpu(async () => {
      await write('probe: one write');
      await quiet();
    });
    report('1', {
      'distinct month URIs asked, from 1000-01-01 on': `${URIS}, ${refusedFar} refused`,
      "distinct month URIs asked, every day of the plan's months": `${inPlan.length}, ${refusedInPlan} refused`,
      'time to subscribe': ms(subscribing),
      'notifications for one write': notified,
      'their bytes (JSON)': notifiedBytes,
      'CPU (write until quiet, less 1 s idle)': ms(cpuMs),
    });

    // A second session subscribes the same URIs and never reads its stream.
    const sessionId = await openSession(stack.mcpUrl, stack.token);
    if (typeof sessionId !== 'string') throw new Error(`no second session: ${sessionId}`);
    const stalledRefused = await inBatches(uris, 50, async (uri) => {
      const refusal = await subscribeAt(stack.mcpUrl, stack.token, sessionId, uri);
      if (refusal) throw new Error(refusal);
    });
    const socket = await neverReadingStream(stack.mcpUrl, stack.token, sessionId);
    let ended = false;
    socket.once('end', () => {
      ended = true;
    });
    const held = () => {
      heapAfterGc();
      const { heapUsed, arrayBuffers } = process.memoryUsage();
      return heapUsed + arrayBuffers;
    };
    const before = held();
    const perWrite: string[] = [];
    let slowestHealth = 0;
    for (let i = 0; i < WRITES; i += 1) {
      const { slowest } = await healthDuring(stack, async () => {
        await write(`probe: stalled ${i}`);
        await quiet();
      });
      slowestHealth = Math.max(slowestHealth, slowest);
      perWrite.push(mb(held() - before));
    }
    // What the stream holds for the reader, once it reads (bounded: 5 s).
    socket.resume();
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      if (received.length < 64 * 1024 * 1024) received += chunk.toString('utf8');
    });
    const reading = performance.now();
    while (!ended && performance.now() - reading < 5_000) await sleep(100);
    const reason = /"level":"(?:warning|error)"[^\n]*/.exec(received)?.[0] ?? '(none)';
    report('1', {
      'stalled session: the same URIs, refused': stalledRefused,
      'heap and buffers after GC, growth after each write': perWrite.join('; '),
      '/health slowest during the writes': ms(slowestHealth),
      'stream ended by the gateway': ended,
      'bytes the stream then delivered': received.length,
      'last message': reason.slice(0, 200),
    });
    socket.destroy();
    await client.close();
  } finally {
    await stack.close();
  }
}

async function sessionTable(): Promise<void> {
  const tokens = Array.from(
    { length: 126 },
    (_, i) => `mcp-probe-token-${String(i).padStart(4, '0')}`,
  );
  const stack = await startStack({
    sandbox: {
      rateLimit: false,
      users: tokens.map((token, i) => ({ token, plans: [{ seed: 5 + i, transactions: 10 }] })),
    },
    mcp: {},
  });
  try {
    const flooders = tokens.slice(0, 125);
    const newcomer = tokens[125] as string;
    const before = heapAfterGc();
    const started = performance.now();
    const sessions: { token: string; id: string }[] = [];
    const statuses = new Map<string | number, number>();
    await inBatches(
      flooders.flatMap((token) => Array.from({ length: 8 }, () => token)),
      25,
      async (token) => {
        const id = await openSession(stack.mcpUrl, token);
        if (typeof id === 'string') sessions.push({ token, id });
        const key = typeof id === 'string' ? 200 : id;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      },
    );
    const filling = performance.now() - started;
    const heldBytes = heapAfterGc() - before;
    const first = await openSession(stack.mcpUrl, newcomer);
    // The flooder pings every session, then the newcomer tries again.
    await inBatches(sessions, 25, (s) => ping(stack.mcpUrl, s.token, s.id));
    const second = await openSession(stack.mcpUrl, newcomer);
    report('3', {
      'sessions opened (125 tokens x 8)': [...statuses].map(([k, v]) => `${v} x ${k}`).join(', '),
      'time to fill': ms(filling),
      'sessions held': stack.mcp?.sessions() ?? 0,
      'heap they hold (after GC)': `${mb(heldBytes)}, ${(heldBytes / Math.max(1, sessions.length) / 1024).toFixed(1)} KB a session`,
      'newcomer (another token)': typeof first === 'string' ? '200, a session' : first,
      'newcomer again, after the flooder pinged all':
        typeof second === 'string' ? '200, a session' : second,
    });
  } finally {
    await stack.close();
  }
}

async function argumentEchoes(): Promise<void> {
  const big = 'x'.repeat(900_000);
  const stack = await startStack({ sandbox: { rateLimit: false }, mcp: { writes: true } });
  let client: Client | undefined;
  try {
    client = await connectHttp(stack.mcpUrl, stack.token);
    const sizes = async (c: Client) => {
      const date = (await c.callTool({
        name: 'search_transactions',
        arguments: { sinceDate: big },
      })) as CallToolResult;
      const name = (await c.callTool({
        name: 'search_transactions',
        arguments: { [big]: 1 },
      })) as CallToolResult;
      const amount = (await c
        .callTool({
          name: 'create_transaction',
          arguments: {
            accountId: '0f0e8c27-5d4c-4d8c-9d9a-0a6f5a3f1b11',
            date: '2026-01-01',
            amount: big,
          },
        })
        .catch((error: unknown) => ({
          content: [{ type: 'text', text: String(error) }],
        }))) as CallToolResult;
      const resource = await c
        .subscribeResource({ uri: `plans://${big}` })
        .then(() => 'accepted')
        .catch((error: unknown) => String(error));
      return {
        'sinceDate of 900 KB: error text': `${textOf(date).length} chars`,
        'an argument named by 900 KB: error text': `${textOf(name).length} chars`,
        'an amount of 900 KB: error text': `${textOf(amount).length} chars`,
        'resources/subscribe of a 900 KB URI: error': `${resource.length} chars`,
      };
    };
    report('7', { transport: 'Streamable HTTP', ...(await sizes(client)) });
    const sandbox = await sandboxWith({});
    const stdio = await launchStdio({
      UPSTREAM_URL: sandbox.url,
      PLANS_TOKEN: sandbox.users[0]?.token ?? '',
      MCP_WRITES: 'on',
    });
    try {
      let bytes = 0;
      // What the server wrote on stdout, in all (the errors dominate).
      const transport = stdio.client.transport as { onmessage?: (m: unknown) => void };
      const own = transport.onmessage;
      transport.onmessage = (message) => {
        bytes += Buffer.byteLength(JSON.stringify(message));
        own?.(message);
      };
      report('7', { transport: 'stdio', ...(await sizes(stdio.client)), 'bytes on stdout': bytes });
    } finally {
      await stdio.client.close().catch(() => {});
      stdio.killGroup();
      await sandbox.close();
    }
  } finally {
    await client?.close();
    await stack.close();
  }
}

async function origins(): Promise<void> {
  const stack = await startStack({ sandbox: { rateLimit: false }, mcp: {} });
  try {
    const { port } = new URL(stack.mcpUrl);
    const auth = { authorization: `Bearer ${stack.token}` };
    const rebound = await rpcAt(stack.mcpUrl, INITIALIZE, {
      ...auth,
      host: `rebound.example:${port}`,
      origin: `http://rebound.example:${port}`,
    });
    const foreign = await rpcAt(stack.mcpUrl, INITIALIZE, {
      ...auth,
      origin: 'https://elsewhere.example',
    });
    const own = await rpcAt(stack.mcpUrl, INITIALIZE, {
      ...auth,
      origin: `http://127.0.0.1:${port}`,
    });
    const none = await rpcAt(stack.mcpUrl, INITIALIZE, auth);
    report('8', {
      CORS_ORIGINS: '* (the default)',
      'Origin and Host rebound.example (DNS rebinding)': rebound.status,
      'Origin https://elsewhere.example': foreign.status,
      'Origin http://127.0.0.1:<port> (its own)': own.status,
      'no Origin (not a browser)': none.status,
    });
  } finally {
    await stack.close();
  }
}

const all: Record<string, () => Promise<void>> = {
  '1': subscriptions,
  '3': sessionTable,
  '7': argumentEchoes,
  '8': origins,
};
// The SDK client's fetches share one AbortSignal: thousands of requests warn, harmlessly.
process.removeAllListeners('warning');
console.log(`mcp probes, node ${process.version}, ${new Date().toISOString()}`);
for (const [item, probe] of Object.entries(all)) {
  if (only && !only.has(item)) continue;
  try {
    await probe();
  } catch (error) {
    console.log(`\n[item ${item}] probe failed: ${error instanceof Error ? error.stack : error}`);
  }
}
process.exit(0);
