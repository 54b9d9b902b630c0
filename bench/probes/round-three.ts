/**
 * Reproduces findings of the third hardening round (issue 29) against in-process gateways and
 * processes on loopback, and prints what they cost. The probes live by area in `round-three/`;
 * each module exports its probes by item number.
 *
 *   npx tsx bench/probes/round-three.ts              # every probe
 *   npx tsx bench/probes/round-three.ts --only 2,6   # some of them
 *
 * Figures, not assertions: the tests in `test/` prove the bounds; this measures them.
 */
import { parseArgs } from 'node:util';
import { probes as bounds } from './round-three/bounds.js';
import type { Probes } from './transports/probe.js';

const { values: flags } = parseArgs({ options: { only: { type: 'string' } } });
const only = flags.only ? new Set(flags.only.split(',').map((s) => s.trim())) : null;
const all: Probes = { ...bounds };

console.log(`round-three probes, node ${process.version}, ${new Date().toISOString()}`);
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
