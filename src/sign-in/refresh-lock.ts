/**
 * Refresh exactly once per cluster. A grant's refresh token can be used once: two instances (or
 * two requests) that find its upstream token expiring at once must make one refresh call, and
 * both go on with its answer. In one process the grant book's own single flight is enough
 * (`localRefreshLock`); with Redis, the refresh takes the grant's lease first (the cluster's
 * signed leases, `src/cluster/redis-leases.ts`, tagged with the operator's key), and an instance
 * that finds it held waits for the holder's announcement (published once the new pair is
 * stored), or for the lease to pass on when its holder died, then reads the grant again.
 *
 * The same channel tells every instance that a grant ended (`onEnded` of the grant book).
 */
import { randomBytes } from 'node:crypto';
import type { RedisLink } from '../cluster/redis.js';
import { releaseLease, takeLease } from '../cluster/redis-leases.js';
import type { Signer } from '../crypto/signer.js';
import type { Scheduler } from '../time/scheduler.js';

export type GrantNews = 'refreshed' | 'ended';

export interface RefreshLock {
  /**
   * Runs `refresh` when this instance may refresh the grant now (`ran: true`); else waits until
   * the instance that does announces it, or a while has passed (`ran: false`: read it again).
   */
  exclusive<T>(
    grantKey: string,
    refresh: () => Promise<T>,
  ): Promise<{ ran: true; value: T } | { ran: false }>;
  /** Tells every instance (this one included) what became of a grant. */
  announce(news: GrantNews, grantKey: string): void;
  onNews(listener: (news: GrantNews, grantKey: string) => void): () => void;
  close(): void;
}

export function localRefreshLock(): RefreshLock {
  const listeners = new Set<(news: GrantNews, grantKey: string) => void>();
  return {
    exclusive: async (_grantKey, refresh) => ({ ran: true, value: await refresh() }),
    announce(news, grantKey) {
      for (const listener of listeners) listener(news, grantKey);
    },
    onNews(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {},
  };
}

export interface RedisRefreshLockOptions {
  link: RedisLink;
  /** The operator key's signer: only instances holding it may hold a lease or announce. */
  signer: Signer;
  scheduler: Scheduler;
  /** Longer than a token call may take (its timeout is 10 s). @default 30_000 */
  leaseMs?: number;
  /** How long a waiting instance waits for an announcement before it looks again. @default 1_000 */
  recheckMs?: number;
  onRejected?: (what: string) => void;
}

export function redisRefreshLock(options: RedisRefreshLockOptions): RefreshLock {
  const { link, signer, scheduler, leaseMs = 30_000, recheckMs = 1_000 } = options;
  const owner = randomBytes(8).toString('base64url');
  const channel = `${link.prefix}si:news`;
  const leaseKey = (grantKey: string) => `${link.prefix}si:refresh:${grantKey}`;
  const listeners = new Set<(news: GrantNews, grantKey: string) => void>();
  const waiting = new Map<string, Set<() => void>>();
  const tell = (news: GrantNews, grantKey: string) => {
    for (const wake of waiting.get(grantKey) ?? []) wake();
    for (const listener of listeners) listener(news, grantKey);
  };
  const unsubscribe = link.subscribe(channel, (message) => {
    const text = message.toString('utf8');
    const space = text.lastIndexOf(' ');
    if (space < 0 || !signer.verify(text.slice(0, space), text.slice(space + 1), channel)) {
      options.onRejected?.('a sign-in announcement that failed authentication');
      return;
    }
    const [news, grantKey, from] = text.slice(0, space).split(' ');
    if (from === owner || !grantKey) return;
    if (news === 'refreshed' || news === 'ended') tell(news, grantKey);
  });
  return {
    async exclusive(grantKey, refresh) {
      // Listening before asking for the lease: an announcement between the two is not missed.
      let wake = () => {};
      const announced = new Promise<void>((resolve) => {
        wake = resolve;
      });
      const wakers = waiting.get(grantKey) ?? new Set();
      wakers.add(wake);
      waiting.set(grantKey, wakers);
      try {
        const held = await takeLease(link, {
          key: leaseKey(grantKey),
          owner,
          ttlMs: leaseMs,
          signer,
          now: scheduler.now,
          what: 'a sign-in refresh lease',
          onRejected: options.onRejected ?? (() => {}),
        });
        // Redis away: this instance refreshes alone (the grant's own store is away too, so
        // nobody else can have read the refresh token meanwhile).
        if (held !== false) {
          try {
            return { ran: true, value: await refresh() };
          } finally {
            void releaseLease(link, leaseKey(grantKey), owner);
          }
        }
        let timer: { cancel(): void } | undefined;
        await Promise.race([
          announced,
          new Promise<void>((resolve) => {
            timer = scheduler.setTimeout(resolve, recheckMs);
          }),
        ]);
        timer?.cancel();
        return { ran: false };
      } finally {
        wakers.delete(wake);
        if (wakers.size === 0) waiting.delete(grantKey);
      }
    },
    announce(news, grantKey) {
      tell(news, grantKey);
      const text = `${news} ${grantKey} ${owner}`;
      void link.publish(channel, Buffer.from(`${text} ${signer.sign(text, channel)}`));
    },
    onNews(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: unsubscribe,
  };
}
