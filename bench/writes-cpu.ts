/**
 * `npm run bench:writes-cpu`: the gateway's CPU per mutation, for comparing small changes of the
 * write path that `--writes` (wall clock at 50 ms upstream latency) cannot resolve on a shared
 * machine. The sandbox runs in this process without latency; the gateway in its own (as
 * `--writes` runs it), so its CPU is its own: the write, the answer, and the write's delta sync
 * that follows the answer. Each batch sends `--requests` `createTransaction` mutations one after
 * another, selecting only what the REST answer carries (`--writes`' "new id and fields"), then
 * waits for the last delta to settle; each batch (and the warm-up) writes as a token of its own,
 * for the gateway refuses a token's requests past the upstream's hourly 200 (two per mutation
 * with its delta). The figure is the median batch's gateway CPU (process,
 * user and system) per mutation, beside its main thread's (10 ms resolution). The machine's other
 * work still shows in it (compare runs taken in turn, A B A B).
 *
 *   NODE_ENV=production npm run bench:writes-cpu [-- --batches 9 --requests 90]
 *   ... -- --balance       the mutation selecting the account's balance (waits for the delta)
 *   ... -- --transfer      each mutation a transfer to another on-budget account (its payee)
 *   ... -- --cpu-prof DIR  a CPU profile of the gateway process, written to DIR when it closes
 */
import { parseArgs } from 'node:util';
import { createSandbox } from '@plans-gateway/sandbox';
import { createGraphQLClient, createRestClient, isGoodAnswer } from './clients.js';
import { startGatewayProcess } from './gateway-process.js';
import { IDS_ONLY, WITH_BALANCE, warmPlan } from './writes.js';

const TOKEN = 'bench-writes-cpu-token';
const TODAY = new Date().toISOString().slice(0, 10);

const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '9' },
    requests: { type: 'string', default: '90' },
    balance: { type: 'boolean', default: false },
    transfer: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});
const batches = Number(values.batches);
const requests = Number(values.requests);
const profileDir = values['cpu-prof'];
// Two upstream requests per mutation (its write and its delta), and the plan's load.
if (requests * 2 + 1 > 200)
  throw new Error('--requests: at most 99 (a token may send 200 an hour)');

/** The transfer payee of another open on-budget account than `accountId`. */
async function transferPayee(planId: string, accountId: string, token: string): Promise<string> {
  const answer = await rest.get<{
    accounts: { id: string; closed: boolean; on_budget: boolean; transfer_payee_id: string }[];
  }>(`/plans/${planId}/accounts`, token);
  const other = answer.data.accounts.find((a) => !a.closed && a.on_budget && a.id !== accountId);
  if (!other) throw new Error('the plan has no second open on-budget account');
  return other.transfer_payee_id;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const sandbox = await createSandbox({
  port: 0,
  rateLimit: false,
  // The warm-up's token, then one per batch.
  users: Array.from({ length: batches + 1 }, (_, i) => ({
    token: `${TOKEN}-${i}`,
    plans: [{ seed: 1, transactions: 1_200 }],
  })),
});
const gateway = await startGatewayProcess({
  upstreamUrl: sandbox.url,
  maxAgeMs: 3_600_000,
  ...(profileDir ? { execArgv: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
});
const rest = createRestClient(sandbox.url, 1);
const gql = createGraphQLClient(gateway.url, 1);
try {
  const query = values.balance ? WITH_BALANCE : IDS_ONLY;
  let sent = 0;
  /** The plan of user `index` loaded, and its mutation. */
  const writer = async (index: number): Promise<() => Promise<void>> => {
    const token = `${TOKEN}-${index}`;
    const { planId, accountId } = await warmPlan(
      sandbox.users[index]!.planIds[0]!,
      rest,
      gql,
      token,
    );
    const transfer = values.transfer ? await transferPayee(planId, accountId, token) : undefined;
    return async () => {
      sent += 1;
      const input = {
        accountId,
        date: TODAY,
        amount: -1000 - sent,
        memo: `cpu ${sent}`,
        ...(transfer ? { payeeId: transfer } : {}),
      };
      const answer = await gql.request(query, { p: planId, input }, token);
      if (!isGoodAnswer(answer)) throw new Error(`mutation: ${JSON.stringify(answer.body)}`);
    };
  };

  // Warms V8 up; the pause lets the last delta settle before the first batch.
  const warmUp = await writer(0);
  for (let i = 0; i < requests; i += 1) await warmUp();
  await pause(100);
  const process: number[] = [];
  const mainThread: number[] = [];
  for (let batch = 0; batch < batches; batch += 1) {
    const mutation = await writer(batch + 1);
    await pause(100);
    const before = await gateway.figures({ gc: false });
    for (let i = 0; i < requests; i += 1) await mutation();
    // The last mutation's delta is part of its cost.
    await pause(100);
    const after = await gateway.figures({ gc: false });
    process.push((after.cpuMicros - before.cpuMicros) / 1000 / requests);
    mainThread.push((after.mainThreadCpuMicros - before.mainThreadCpuMicros) / 1000 / requests);
  }
  const median = (figures: number[]) =>
    [...figures].sort((a, b) => a - b)[Math.floor(figures.length / 2)]!;
  const range = (figures: number[]) =>
    `min ${Math.min(...figures).toFixed(3)}, max ${Math.max(...figures).toFixed(3)}`;
  console.log(
    `createTransaction (${values.balance ? "the account's balance" : 'the new id and fields'}` +
      `${values.transfer ? ', a transfer' : ''}, ` +
      `NODE_ENV=${globalThis.process.env.NODE_ENV ?? ''}), gateway CPU ms per mutation, ` +
      `median of ${batches} batches of ${requests}:\n` +
      `  process ${median(process).toFixed(3)} (${range(process)})\n` +
      `  main thread ${median(mainThread).toFixed(3)} (${range(mainThread)})`,
  );
} finally {
  await gql.close();
  await gateway.close();
  await rest.close();
  await sandbox.close();
}
