/**
 * `createPlanFetch(options)`: the replica store's `fetchPlan`, the one way the gateway asks the
 * upstream for a plan (a read's sync, a poll, a live replay's backfill). See README.md here.
 */
import type { UpstreamMeter } from '../operation/upstream-calls.js';
import { largestExportBytes } from '../replica/cache.js';
import { PlanBuilder } from '../replica/plan-builder.js';
import { monthOf } from '../replica/plan-state.js';
import type { FetchPlanRequest, FetchPlanResult } from '../replica/store.js';
import type { PlanExport } from '../replica/types.js';
import { assertExportHead } from '../replica/validate.js';
import type { Clock } from '../time/clock.js';
import type { UpstreamClient } from '../upstream/client.js';
import { createTooLargeMemo } from './too-large.js';

export type SyncKind = 'export' | 'delta';

export interface PlanFetchOptions {
  upstream: Pick<UpstreamClient, 'getPlanById' | 'stream'>;
  /** The replica store's budget (`REPLICA_MAX_MB`): an export its replica cannot fit is not read. */
  maxBytes: number;
  now: Clock;
  /** Each sync's kind and result, as it ends (the sync metrics). @default none */
  onSync?: (kind: SyncKind, result: 'ok' | 'error') => void;
}

/**
 * `getPlanById` for the store, counted in the sync metrics. The operation whose read started a
 * sync pays for it: its meter rides along with the read. A full export streams into a
 * `PlanBuilder` as it arrives (never held whole), up to the largest export the replica budget
 * can hold; a delta is read whole (it holds what changed).
 */
export function createPlanFetch(
  options: PlanFetchOptions,
): (request: FetchPlanRequest) => Promise<FetchPlanResult> {
  const { upstream, now, onSync = () => {} } = options;
  const maxExportBytes = largestExportBytes(options.maxBytes);
  const tooLarge = createTooLargeMemo(now);
  return async (request) => {
    const { token, tokenKey, planId, lastKnowledgeOfServer, signal, meter: readMeter } = request;
    const { onProgress } = request;
    let bytes = 0;
    const outer = isUpstreamMeter(readMeter) ? readMeter : undefined;
    const meter: UpstreamMeter = {
      record(call) {
        bytes = call.responseBytes ?? bytes;
        outer?.record(call);
      },
      ...(outer?.trace ? { trace: outer.trace.bind(outer) } : {}),
    };
    const kind = lastKnowledgeOfServer === undefined ? 'export' : 'delta';
    // The key admission made travels with the token: the client does not digest it again.
    const call = { token, tokenKey, meter, ...(signal ? { signal } : {}) };
    try {
      if (lastKnowledgeOfServer !== undefined) {
        const data = await upstream.getPlanById(call, { planId, lastKnowledgeOfServer });
        onSync(kind, 'ok');
        return { data, bytes };
      }
      tooLarge.check(tokenKey, planId);
      let builder: PlanBuilder | undefined;
      const head = await tooLarge.note(
        tokenKey,
        planId,
        upstream.stream(
          'getPlanById',
          call,
          {
            at: ['plan'],
            open() {
              // A retried read starts over with a new builder.
              const started = new PlanBuilder({ currentMonth: monthOf(now()) });
              builder = started;
              return (collection, rows) => started.add(collection, rows);
            },
            maxBytes: maxExportBytes,
            setting: 'REPLICA_MAX_MB',
            ...(onProgress ? { received: onProgress } : {}),
          },
          { planId },
        ),
      );
      const built = builder!.finish(head);
      onSync(kind, 'ok');
      return { data: exportHeadOf(head), built, bytes };
    } catch (error) {
      onSync(kind, 'error');
      throw error;
    }
  };
}

/**
 * Private: the streamed export's `data` as the store sees it: plan-level fields and knowledge,
 * collections empty (its rows are in the built replica).
 */
function exportHeadOf(head: unknown): PlanExport {
  assertExportHead(head);
  return head;
}

function isUpstreamMeter(value: unknown): value is UpstreamMeter {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as UpstreamMeter).record === 'function'
  );
}
