import type { Probes } from './probe.js';

export const probes: Probes = {};
