/**
 * What the replica tier keeps in Redis, as it is opened again: relayed deltas (also kept in the
 * log), relayed writes and stored snapshots, each sealed with the token's key and bound to its
 * replica (`delta:<rid>`, `write:<rid>`, `snapshot:<rid>`). Opening checks the shape: anything
 * that does not open, or is not what its name says, throws.
 */
import { parseExactJson } from '@plans-gateway/rest-contract';
import type { PlanExport, RelayedSync, SavedEntities } from '../replica/types.js';
import type { TokenSeal } from './seal.js';

export type { PlanExport };

/** A delta one instance fetched, as relayed to the others and kept in the log. */
export interface DeltaRelay {
  readonly from: number;
  readonly to: number;
  /** When the upstream request was sent (its answer is at least that fresh). */
  readonly sentAt: number;
  /** Requested ids that resolved to this plan (`last-used`...). */
  readonly aliases: readonly string[];
  readonly data: PlanExport;
  /** JSON bytes of `data` (memory estimate); not sent, measured on arrival. */
  readonly bytes: number;
}

export interface StoredSnapshot {
  readonly data: PlanExport;
  readonly sentAt: number;
  readonly bytes: number;
  /** When an alias was last resolved to this plan, if the snapshot was found through one. */
  readonly aliasCheckedAt?: number;
  /** Deltas logged after the snapshot, oldest first. */
  readonly deltas: readonly DeltaRelay[];
}

/** The replica store's form of a relayed delta. */
export function relayedDelta(relay: DeltaRelay): RelayedSync {
  return {
    kind: 'delta',
    data: relay.data,
    fromKnowledge: relay.from,
    sentAt: relay.sentAt,
    bytes: relay.bytes,
    aliases: relay.aliases,
  };
}

/** Opens a sealed relayed delta of replica `rid`; throws when it is not one. */
export async function openDelta(seal: TokenSeal, rid: string, blob: Buffer): Promise<DeltaRelay> {
  const opened = await seal.open(blob, `delta:${rid}`);
  const value: unknown = parseExactJson(opened.toString('utf8'));
  if (!isRecord(value) || !isCount(value.from) || !isCount(value.to) || !isTime(value.sentAt)) {
    throw new TypeError('a relayed delta must hold from, to and sentAt');
  }
  const aliases = Array.isArray(value.aliases)
    ? value.aliases.filter((alias): alias is string => typeof alias === 'string')
    : [];
  return {
    from: value.from,
    to: value.to,
    sentAt: value.sentAt,
    aliases,
    data: value.data as PlanExport,
    bytes: opened.length,
  };
}

/** The entity lists a relayed write may carry. */
const SAVED_LISTS = [
  'accounts',
  'categoryGroups',
  'categories',
  'monthCategories',
  'payees',
  'transactions',
  'scheduledTransactions',
] as const;

/** Opens a relayed write of replica `rid`; throws when it is not one. */
export async function openWrite(
  seal: TokenSeal,
  rid: string,
  blob: Buffer,
): Promise<SavedEntities & { readonly serverKnowledge: number }> {
  const value: unknown = parseExactJson((await seal.open(blob, `write:${rid}`)).toString('utf8'));
  if (
    !isRecord(value) ||
    !isCount(value.serverKnowledge) ||
    SAVED_LISTS.some((list) => {
      const rows = value[list];
      return rows !== undefined && (!Array.isArray(rows) || !rows.every(isRecord));
    })
  ) {
    throw new TypeError('a relayed write must hold its knowledge and lists of entities');
  }
  return { ...(value as SavedEntities), serverKnowledge: value.serverKnowledge };
}

/** A snapshot as `LOAD` found it, sealed, with the deltas logged after it. */
export interface SealedSnapshot {
  /** The replica it is stored under. */
  readonly rid: string;
  readonly blob: Buffer;
  readonly deltaBlobs: readonly (Buffer | null)[];
  /** When the alias it was found through was last resolved (epoch ms as text), if any. */
  readonly checked: Buffer | null | undefined;
  /** The replica its data must be of. */
  readonly expected: (data: PlanExport) => string;
}

/** Opens a stored snapshot and its deltas; throws when any is unreadable or not of the replica. */
export async function openSnapshot(
  seal: TokenSeal,
  { rid, blob, deltaBlobs, checked, expected }: SealedSnapshot,
): Promise<StoredSnapshot> {
  const opened = await seal.open(blob, `snapshot:${rid}`);
  const value: unknown = parseExactJson(opened.toString('utf8'));
  if (!isRecord(value) || !isTime(value.sentAt) || !isRecord(value.data)) {
    throw new TypeError('a stored snapshot must hold sentAt and data');
  }
  const data = value.data as unknown as PlanExport;
  if (expected(data) !== rid) {
    throw new TypeError('a stored snapshot is not of the replica it is stored under');
  }
  const deltas: DeltaRelay[] = [];
  for (const each of deltaBlobs) {
    if (each) deltas.push(await openDelta(seal, rid, each));
  }
  const checkedAt = checked ? Number(checked.toString('utf8')) : undefined;
  return {
    data,
    sentAt: value.sentAt,
    bytes: opened.length,
    deltas,
    ...(checkedAt !== undefined && Number.isFinite(checkedAt) ? { aliasCheckedAt: checkedAt } : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
