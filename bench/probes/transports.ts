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

import { runProbes } from './kit.js';
import { probes as admission } from './transports/admission.js';
import { probes as cluster } from './transports/cluster.js';
import { probes as subscriptions } from './transports/subscriptions.js';

await runProbes('transport probes', { ...admission, ...subscriptions, ...cluster });
