import { describe, expect, it } from 'vitest';
import {
  defaultReplicaBytes,
  MIN_DEFAULT_REPLICA_BYTES,
  processMemoryBytes,
} from '../../src/config/config.js';
import { parseSettings } from '../../src/config/settings.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

describe("REPLICA_MAX_MB's default follows the memory the process has", () => {
  it('is the least of the heap limit, the container and the machine', () => {
    expect(processMemoryBytes(4 * GiB, 0, 16 * GiB)).toBe(4 * GiB);
    // A container of 1 GiB on a large machine: the container decides.
    expect(processMemoryBytes(4 * GiB, 1 * GiB, 64 * GiB)).toBe(1 * GiB);
    // No cgroup limit: Node reports a number larger than the machine.
    expect(processMemoryBytes(2 * GiB, 2 ** 62, 8 * GiB)).toBe(2 * GiB);
    expect(processMemoryBytes(8 * GiB, 0, 3 * GiB)).toBe(3 * GiB);
  });

  it('gives the replicas half of it, whole MiB, never less than the floor', () => {
    expect(defaultReplicaBytes(4 * GiB)).toBe(2 * GiB);
    // Enough for a 1,000,000-transaction plan (about 440 MB) where the heap allows 2 GB.
    expect(defaultReplicaBytes(2 * GiB)).toBeGreaterThan(440 * MiB);
    expect(defaultReplicaBytes(1000 * MiB + 123)).toBe(500 * MiB);
    expect(defaultReplicaBytes(32 * MiB)).toBe(MIN_DEFAULT_REPLICA_BYTES);
  });

  it('is what the settings use when REPLICA_MAX_MB is not set, and the setting wins', () => {
    const unset = parseSettings([], {});
    const set = parseSettings([], { REPLICA_MAX_MB: '300' });
    if (unset.kind !== 'run' || set.kind !== 'run') throw new Error('expected run settings');
    expect(unset.settings.replicaMaxBytes).toBe(defaultReplicaBytes());
    expect(set.settings.replicaMaxBytes).toBe(300 * MiB);
  });
});
