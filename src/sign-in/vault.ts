/**
 * Sign-in's records as the rest of it sees them: JSON values sealed under the operator's key for
 * their kind and id, under ids that are keyed digests of the id given (a session's cookie value,
 * a `state`, a grant id), so the store holds nothing that opens a session or names one. A value
 * past its own end (`expiresAt`, by the gateway's clock) is as good as missing, whatever the
 * backend still holds.
 */
import type { Sealer } from '../crypto/sealer.js';
import type { RecordKind, SignInRecords } from './records.js';

export interface Ending {
  /** Epoch ms, by the gateway's clock. */
  readonly expiresAt: number;
}

export interface Vault {
  read<T extends Ending>(kind: RecordKind, id: string): Promise<T | undefined>;
  write(kind: RecordKind, id: string, value: Ending): Promise<void>;
  /** Read and removed in one step: good once. */
  take<T extends Ending>(kind: RecordKind, id: string): Promise<T | undefined>;
  remove(kind: RecordKind, id: string): Promise<void>;
  count(kind: RecordKind): Promise<number>;
  close(): Promise<void>;
}

export function createVault(
  records: SignInRecords,
  sealer: Sealer,
  options: { now: () => number; max: Readonly<Record<RecordKind, number>> },
): Vault {
  const { now, max } = options;
  const stored = (kind: RecordKind, id: string) => sealer.digest(`sign-in ${kind}`, id);
  const opened = <T extends Ending>(kind: RecordKind, key: string, sealed: string | undefined) => {
    if (sealed === undefined) return undefined;
    let value: T;
    try {
      value = JSON.parse(sealer.open(sealed, `${kind}:${key}`)) as T;
    } catch {
      // Altered, or sealed under a key this gateway does not hold: as if it were not there.
      return undefined;
    }
    return value.expiresAt > now() ? value : undefined;
  };
  return {
    async read<T extends Ending>(kind: RecordKind, id: string) {
      const key = stored(kind, id);
      return opened<T>(kind, key, await records.get(kind, key, now()));
    },
    async write(kind, id, value) {
      const key = stored(kind, id);
      await records.put(kind, key, sealer.seal(JSON.stringify(value), `${kind}:${key}`), {
        expiresAt: value.expiresAt,
        now: now(),
        max: max[kind],
      });
    },
    async take<T extends Ending>(kind: RecordKind, id: string) {
      const key = stored(kind, id);
      return opened<T>(kind, key, await records.take(kind, key, now()));
    },
    remove: (kind, id) => records.delete(kind, stored(kind, id)),
    count: (kind) => records.count(kind),
    close: () => records.close(),
  };
}
