/**
 * Reproduces each finding of the second hardening round (issue 18: one admission path for every
 * transport, every cache bounded in bytes) against in-process gateways, and prints what it cost.
 * The probes live by area in `transports/`; each module exports its probes by item number.
 *
 *   npx tsx bench/probes/transports.ts               # every probe
 *   npx tsx bench/probes/transports.ts --only 1,2,9  # some of them
 *
 * Figures, not assertions: the tests in `test/` prove the bounds; this measures them.
 */
import { parseArgs } from 'node:util';
import { probes as admission } from './transports/admission.js';
import { probes as cluster } from './transports/cluster.js';
import type { Probes } from './transports/probe.js';
import { probes as subscriptions } from './transports/subscriptions.js';

const { values: flags } = parseArgs({ options: { only: { type: 'string' } } });
const only = flags.only ? new Set(flags.only.split(',').map((s) => s.trim())) : null;
const all: Probes = { ...admission, ...subscriptions, ...cluster };

console.log(`transport probes, node ${process.version}, ${new Date().toISOString()}`);
for (const item of Object.keys(all).sort(
  (a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10),
)) {
  if (only && !only.has(item)) continue;
  try {
    await all[item]?.();
  } catch (error) {
    console.log(`\n[item ${item}] probe failed: ${error instanceof Error ? error.stack : error}`);
  }
}
process.exit(0);
