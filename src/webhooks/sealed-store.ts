/**
 * The one place webhook records are sealed and opened: `sealedStore(records, sealer)` is the
 * `WebhookStore` the rest of webhooks use over a backend's `WebhookRecords` (store.ts), and
 * `openSealedStore` checks the key and seals what an older version wrote in clear first.
 *
 * What is sealed (`src/crypto/sealer.ts`), each for the place it is kept (a value moved elsewhere does not
 * open): a token for its token key; an endpoint's plan id, URL, kinds and description for the
 * endpoint, its owner and its feed; a secret for its endpoint; a payload for its endpoint and
 * event; an attempt's error for its delivery. Reasons for disabling are sealed too. A plan is
 * named at rest only by its feed: a keyed digest of the token key and the plan id.
 */
import { aeadOpen } from '../crypto/aead.js';
import {
  createSealer,
  isSealed,
  keyIdOf,
  SealedWithAnotherKeyError,
  type Sealer,
} from '../crypto/sealer.js';
import type { WebhookKind } from './kinds.js';
import type {
  AttemptRecord,
  ClearRows,
  DeliveryRecord,
  EndpointRecord,
  FeedKey,
  StoredEndpoint,
  WebhookRecords,
  WebhookStore,
} from './store.js';

/** What the canary holds: sealed when a store is first opened, opened at every start. */
const CANARY = 'plans-graphql-gateway webhooks';

/** The sealed part of an endpoint. */
interface Details {
  readonly planId: string;
  readonly url: string;
  readonly kinds: readonly WebhookKind[];
  readonly description: string | null;
}

/** `WEBHOOK_KEY` does not open the store: it was sealed under another key. */
export class WebhookKeyError extends Error {
  override readonly name = 'WebhookKeyError';
  readonly code = 'GW_ERR_WEBHOOK_KEY';
}

/**
 * The store over `records` once the key is known to open them: a store that has a canary must
 * open it; one without (new, or written by an older version) has its clear rows sealed first
 * (each legacy token must open with the key, or nothing is changed), then gets its canary.
 * Throws a `WebhookKeyError` naming WEBHOOK_KEY when the key is not the store's.
 */
export async function openSealedStore(
  records: WebhookRecords,
  key: Uint8Array,
): Promise<WebhookStore> {
  const sealer = createSealer(key);
  const wrongKey = (detail: string) =>
    new WebhookKeyError(
      `WEBHOOK_KEY does not open the webhook store (${records.where}): ${detail}. Start with the key it was sealed with; webhooks stay off until then (move the store aside to start anew, losing its endpoints).`,
    );
  const canary = await records.canary();
  if (canary !== undefined) {
    try {
      if (sealer.open(canary, 'canary') !== CANARY) throw new Error('another canary');
    } catch (error) {
      throw wrongKey(describeFailure(error, canary));
    }
    return sealedStore(records, sealer);
  }
  try {
    await records.sealClearRows(clearRows(sealer, key));
    const sample = await records.anyToken();
    if (sample) sealer.open(sample.sealed, `token:${sample.tokenKey}`);
  } catch (error) {
    if (error instanceof WebhookKeyError) throw error;
    if (error instanceof SealedWithAnotherKeyError || error instanceof LegacyTokenError) {
      throw wrongKey(describeFailure(error, undefined));
    }
    throw error;
  }
  await records.setCanary(sealer.seal(CANARY, 'canary'));
  return sealedStore(records, sealer);
}

/** `WebhookStore` over `records`, sealing what goes in and opening what comes out. */
export function sealedStore(records: WebhookRecords, sealer: Sealer): WebhookStore {
  const { feedOf, toStored, open, openDetails, sealDetails } = endpointSealing(sealer);
  const stored = (key: FeedKey) => ({
    tokenKey: key.tokenKey,
    feed: feedOf(key.tokenKey, key.planId),
  });
  const maybe = (e: StoredEndpoint | undefined) => (e === undefined ? undefined : open(e));
  const payloadContext = (d: { endpointId: string; eventId: string }) =>
    `payload:${d.endpointId}:${d.eventId}`;
  const openDelivery = (d: DeliveryRecord): DeliveryRecord => ({
    ...d,
    payload: sealer.open(d.payload, payloadContext(d)),
  });
  const openAttempt =
    (seq: number) =>
    (a: AttemptRecord): AttemptRecord => ({
      ...a,
      error: a.error === null ? null : sealer.open(a.error, `attempt:${seq}`),
    });

  return {
    shared: records.shared,
    claimFeed: (key, owner, ttlMs) => records.claimFeed(stored(key), owner, ttlMs),
    releaseFeed: (key, owner) => records.releaseFeed(stored(key), owner),
    async createEndpoint(endpoint, secret, token) {
      await records.createEndpoint(
        toStored(endpoint),
        sealer.seal(secret, `secret:${endpoint.id}`),
        sealer.seal(token, `token:${endpoint.tokenKey}`),
      );
    },
    endpoint: async (id) => maybe(await records.endpoint(id)),
    endpointsOf: async (tokenKey) => (await records.endpointsOf(tokenKey)).map(open),
    feedEndpoints: async (key) => (await records.feedEndpoints(stored(key))).map(open),
    async updateEndpoint(id, patch, now) {
      const current = await records.endpoint(id);
      if (!current) return undefined;
      const details = openDetails(current);
      const changed =
        patch.url !== undefined || patch.kinds !== undefined || patch.description !== undefined;
      return maybe(
        await records.updateEndpoint(
          id,
          {
            ...(changed
              ? {
                  details: sealDetails(current, {
                    planId: details.planId,
                    url: patch.url ?? details.url,
                    kinds: patch.kinds ?? details.kinds,
                    description:
                      patch.description === undefined ? details.description : patch.description,
                  }),
                }
              : {}),
            ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
            ...(patch.enabled === false
              ? { disabledReason: sealer.seal('Disabled by its owner.', 'reason') }
              : {}),
          },
          now,
        ),
      );
    },
    deleteEndpoint: (id) => records.deleteEndpoint(id),
    async secrets(endpointId, now) {
      return (await records.secrets(endpointId, now)).map((s) =>
        sealer.open(s, `secret:${endpointId}`),
      );
    },
    rotateSecret: (endpointId, secret, now, previousUntil) =>
      records.rotateSecret(
        endpointId,
        sealer.seal(secret, `secret:${endpointId}`),
        now,
        previousUntil,
      ),
    async token(tokenKey) {
      const sealed = await records.token(tokenKey);
      return sealed === undefined ? undefined : sealer.open(sealed, `token:${tokenKey}`);
    },
    async feeds() {
      return (await records.feeds()).map((e) => ({
        tokenKey: e.tokenKey,
        planId: openDetails(e).planId,
      }));
    },
    cursor: (key) => records.cursor(stored(key)),
    enqueue: (key, cursor, deliveries, now, owner) =>
      records.enqueue(
        stored(key),
        cursor,
        deliveries.map((d) => ({ ...d, payload: sealer.seal(d.payload, payloadContext(d)) })),
        now,
        owner,
      ),
    async due(now, limit, busy, owner, holdMs) {
      const claimed = await records.due(now, limit, busy, owner, holdMs);
      const out: DeliveryRecord[] = [];
      for (const delivery of claimed) {
        try {
          out.push(openDelivery(delivery));
        } catch (error) {
          // Altered at rest: the endpoint stops (its owner sees why) rather than its queue
          // blocking every other, or the delivery going out unsigned by what was meant.
          await records.release(delivery, owner);
          await records.disableEndpoint(
            delivery.endpointId,
            sealer.seal(
              `Event ${delivery.eventId} in the outbox does not open (${error instanceof Error ? error.message : 'unreadable'}): it was altered where it is stored. The events after it wait; delete the endpoint or enable it again to retry.`,
              'reason',
            ),
            now,
          );
        }
      }
      return out;
    },
    release: (delivery, owner) => records.release(delivery, owner),
    nextDueAt: (after) => records.nextDueAt(after),
    recordAttempt: (delivery, attempt, next, owner) =>
      records.recordAttempt(
        delivery,
        {
          ...attempt,
          error:
            attempt.error === null ? null : sealer.seal(attempt.error, `attempt:${delivery.seq}`),
        },
        next,
        owner,
      ),
    disableEndpoint: (id, reason, now) =>
      records.disableEndpoint(id, sealer.seal(reason, 'reason'), now),
    disableFeeds: (tokenKey, planId, reason, now) =>
      records.disableFeeds(
        tokenKey,
        planId === null ? null : feedOf(tokenKey, planId),
        sealer.seal(reason, 'reason'),
        now,
      ),
    async deliveries(endpointId, limit, before) {
      return (await records.deliveries(endpointId, limit, before)).map(openDelivery);
    },
    async deliveryOfEvent(eventId) {
      const found = await records.deliveryOfEvent(eventId);
      return found === undefined ? undefined : openDelivery(found);
    },
    async attempts(seq) {
      return (await records.attempts(seq)).map(openAttempt(seq));
    },
    async redeliver(eventId, now) {
      const copy = await records.redeliver(eventId, now);
      return copy === undefined ? undefined : openDelivery(copy);
    },
    ...(records.onAvailable ? { onAvailable: records.onAvailable } : {}),
    close: () => records.close(),
  };
}

/**
 * Private: how rows written before sealing become sealed ones. Values already sealed are kept
 * (a migration cut short resumes); tokens sealed by the older format are opened with the raw key
 * and sealed again.
 */
function clearRows(sealer: Sealer, key: Uint8Array): ClearRows {
  const keep = (value: string, seal: () => string) => (isSealed(value) ? value : seal());
  return {
    token(tokenKey, sealed) {
      if (isSealed(sealed)) {
        sealer.open(sealed, `token:${tokenKey}`);
        return sealed;
      }
      return sealer.seal(openLegacyToken(key, sealed, tokenKey), `token:${tokenKey}`);
    },
    feed: (tokenKey, planId) => sealer.digest('feed', tokenKey, planId),
    endpoint: (e) => endpointSealing(sealer).toStored(e),
    secret: (endpointId, secret) => keep(secret, () => sealer.seal(secret, `secret:${endpointId}`)),
    payload: (endpointId, eventId, payload) =>
      keep(payload, () => sealer.seal(payload, `payload:${endpointId}:${eventId}`)),
    error: (seq, error) => keep(error, () => sealer.seal(error, `attempt:${seq}`)),
  };
}

/** Private: an endpoint to and from its stored form. */
function endpointSealing(sealer: Sealer) {
  const feedOf = (tokenKey: string, planId: string) => sealer.digest('feed', tokenKey, planId);
  // The details open only on the row of that endpoint, owner and feed: moved to another
  // owner's row (so that its plan would be polled with another token), they do not open.
  const context = (e: Pick<StoredEndpoint, 'id' | 'tokenKey' | 'feed'>) =>
    `endpoint:${e.id}:${e.tokenKey}:${e.feed}`;
  const sealDetails = (e: Pick<StoredEndpoint, 'id' | 'tokenKey' | 'feed'>, details: Details) =>
    sealer.seal(JSON.stringify(details), context(e));
  const openDetails = (e: StoredEndpoint): Details =>
    JSON.parse(sealer.open(e.details, context(e))) as Details;
  return {
    feedOf,
    sealDetails,
    openDetails,
    toStored(e: EndpointRecord): StoredEndpoint {
      const at = { id: e.id, tokenKey: e.tokenKey, feed: feedOf(e.tokenKey, e.planId) };
      const { planId, url, kinds, description } = e;
      return {
        ...at,
        createdAt: e.createdAt,
        startKnowledge: e.startKnowledge,
        details: sealDetails(at, { planId, url, kinds, description }),
        disabledReason: e.disabledReason === null ? null : sealer.seal(e.disabledReason, 'reason'),
        disabledAt: e.disabledAt,
      };
    },
    open(e: StoredEndpoint): EndpointRecord {
      const details = openDetails(e);
      return {
        id: e.id,
        tokenKey: e.tokenKey,
        planId: details.planId,
        url: details.url,
        kinds: details.kinds,
        description: details.description,
        createdAt: e.createdAt,
        startKnowledge: e.startKnowledge,
        disabledReason: e.disabledReason === null ? null : sealer.open(e.disabledReason, 'reason'),
        disabledAt: e.disabledAt,
      };
    },
  };
}

/** A token sealed by the older format that does not open with the key. */
class LegacyTokenError extends Error {
  override readonly name = 'LegacyTokenError';
  readonly code = 'GW_ERR_LEGACY_TOKEN';
}

/**
 * Private: a token sealed before the sealer existed: `v1.<iv>.<tag>.<ciphertext>`, AES-256-GCM
 * under the raw key with the token key as additional data.
 */
function openLegacyToken(key: Uint8Array, sealed: string, tokenKey: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined) {
    throw new LegacyTokenError('a stored token in no format this version knows');
  }
  try {
    const parts = {
      iv: Buffer.from(iv, 'base64url'),
      ciphertext: Buffer.from(body, 'base64url'),
      tag: Buffer.from(tag, 'base64url'),
    };
    return aeadOpen(key, parts, tokenKey).toString('utf8');
  } catch {
    throw new LegacyTokenError('a token sealed by an earlier version does not open with it');
  }
}

/** Private: why the key does not open the store, without quoting anything stored. */
function describeFailure(error: unknown, sealed: string | undefined): string {
  if (error instanceof SealedWithAnotherKeyError) {
    return `it was sealed under the key with id ${error.sealedWith}, and this key's id is ${error.current}`;
  }
  if (error instanceof LegacyTokenError) return error.message;
  const id = sealed === undefined ? undefined : keyIdOf(sealed);
  return id === undefined ? 'its canary does not open' : `its canary (key id ${id}) does not open`;
}
