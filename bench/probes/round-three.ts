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

import { runProbes } from './kit.js';
import { probes as bounds } from './round-three/bounds.js';

await runProbes('round-three probes', { ...bounds });
