/**
 * `npm run bench:reconcile`: what one reconciliation costs (issue 33) at `--transactions`
 * (default 100,000): its upstream calls, the bytes of its export, and the gateway's CPU for the
 * whole comparison (export read and built, digests of both sides, the repair), beside a plain
 * cold load of the same plan for reference. The sandbox and the gateway run in this process
 * without latency, so the CPU figures include the sandbox's side of the export (shown apart).
 *
 *   npm run bench:reconcile [-- --transactions 100000]
 */
import { parseArgs } from 'node:util';
import { createSandbox } from '@plans-gateway/sandbox';
import { defaultConfig } from '../src/config/config.js';
import { createGateway } from '../src/gateway/gateway.js';
import { tokenKey } from '../src/upstream/token-key.js';

const TOKEN = 'bench-reconcile-token-0001';
const { values } = parseArgs({
  options: { transactions: { type: 'string', default: '100000' } },
});
const transactions = Number(values.transactions);

const sandbox = await createSandbox({
  port: 0,
  rateLimit: false,
  users: [{ token: TOKEN, plans: [{ seed: 33, transactions }] }],
});
const planId = sandbox.users[0]!.planIds[0]!;
const gateway = createGateway({ ...defaultConfig(sandbox.url), maxAgeMs: 3_600_000 });
const key = tokenKey(TOKEN);
const cpuMs = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return Math.round((used.user + used.system) / 1000);
};

try {
  let start = process.cpuUsage();
  let wall = performance.now();
  await gateway.replicas.read({ token: TOKEN, tokenKey: key, planId, freshness: { maxAgeMs: 0 } });
  const load = { cpuMs: cpuMs(start), wallMs: Math.round(performance.now() - wall) };

  // A change no delta brings: one split line's memo, silently.
  const snapshot = gateway.replicas.peek(key, planId)!.snapshot;
  const split = snapshot
    .transactions({ first: 5_000 })
    .rows.find((row) => snapshot.subtransactionsOf(row.id).length > 0);
  const line = split ? snapshot.subtransactionsOf(split.id)[0] : undefined;
  if (line) sandbox.editSplitLine(planId, line.id, { memo: 'drifted' }, { silent: true });

  const runs: { outcome: string; cpuMs: number; wallMs: number; bytes: number; calls: number }[] =
    [];
  for (let run = 0; run < 3; run++) {
    sandbox.resetCalls();
    start = process.cpuUsage();
    wall = performance.now();
    const result = await gateway.replicas.reconcile({ token: TOKEN, tokenKey: key, planId });
    runs.push({
      outcome: result.outcome,
      cpuMs: cpuMs(start),
      wallMs: Math.round(performance.now() - wall),
      bytes: result.outcome === 'skipped' ? 0 : result.bytes,
      calls: sandbox.calls().length,
    });
  }
  const report = {
    transactions,
    coldLoad: load,
    reconciliations: runs,
    callsPerPlanPerDay: 'one export per plan read that day (RECONCILE_HOURS=24)',
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  await gateway.close();
  await sandbox.close();
}
