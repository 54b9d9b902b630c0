/**
 * What a delivery carries: a `planChanged` event, run as a GraphQL subscription through the
 * admission path like any other (src/schema/subscriptions.ts builds the shapes), with every
 * scalar field of each changed object, cut to the kinds an endpoint asked for. The body follows
 * the Standard Webhooks layout: `{ type, timestamp, data }`.
 */
import { stringifyExactJson } from '@plans-gateway/rest-contract';
import { KIND_FIELDS, type WebhookKind } from '../webhooks/kinds.js';

// The fields are chosen to fit the admission path's cost limit (100,000) at the price of a
// replay (each list counts 500 rows, a nested list 10 more): every amount, id and state a
// receiver acts on; names and goal details are a query away (`plan { category(id) { ... } }`).
const SUBTRANSACTION = 'id amount memo payeeId categoryId transferAccountId';
const SCHEDULED_SUBTRANSACTION = 'id amount payeeId categoryId';

/** The feed of one (token, plan): every change after `since`, in `serverKnowledge` order. */
export const FEED_DOCUMENT = `subscription WebhookFeed($planId: PlanId!, $since: SafeInt) {
  planChanged(planId: $planId, since: $since) {
    planId origin serverKnowledge previousServerKnowledge writeServerKnowledge continues
    accounts { id name type onBudget closed note balance clearedBalance unclearedBalance transferPayeeId lastReconciledAt deleted }
    categoryGroups { id name hidden deleted }
    categories { id categoryGroupId name hidden note budgeted activity balance goalType goalTarget deleted }
    months { month note income budgeted activity toBeBudgeted ageOfMoney deleted }
    monthCategories { categoryId month budgeted activity balance goalTarget goalUnderFunded goalOverallLeft goalPercentageComplete deleted }
    payees { id name transferAccountId deleted }
    transactions { id date amount memo cleared approved flagColor accountId payeeId categoryId transferAccountId transferTransactionId matchedTransactionId importId importPayeeName deleted subtransactions { ${SUBTRANSACTION} } }
    scheduledTransactions { id dateFirst dateNext frequency amount memo flagColor accountId payeeId categoryId transferAccountId deleted subtransactions { ${SCHEDULED_SUBTRANSACTION} } }
    deleted { accountIds categoryGroupIds categoryIds months payeeIds transactionIds scheduledTransactionIds }
  }
}`;

/** A `planChanged` event as the feed document selects it. */
export interface FeedEvent {
  readonly planId: string;
  readonly origin: string;
  readonly serverKnowledge: number;
  readonly previousServerKnowledge: number | null;
  /** A WRITE event: the write's own knowledge, when its answer gave one. */
  readonly writeServerKnowledge: number | null;
  readonly continues: boolean;
  readonly deleted: Readonly<Record<string, readonly unknown[]>>;
  readonly [list: string]: unknown;
}

export const EVENT_TYPE = 'plan.changed';

/**
 * The knowledge an event brings its receiver to: a write's own for a WRITE event (each write
 * its own), the replica's otherwise; undefined for a write whose answer carried none (its delta,
 * sent at once after it, brings the same rows as a SYNC event).
 */
export function knowledgeOf(event: FeedEvent): number | undefined {
  if (event.origin !== 'WRITE') return event.serverKnowledge;
  return event.writeServerKnowledge ?? undefined;
}

/**
 * The body sent to an endpoint that wants `kinds`, or null when the event holds nothing of
 * those kinds (an endpoint is not called for changes it did not ask for). `knowledge` is the
 * event's (`knowledgeOf`); a WRITE event's previous knowledge is the replica's before it.
 */
export function payloadFor(
  event: FeedEvent,
  kinds: readonly WebhookKind[],
  knowledge: number,
  now: number,
): string | null {
  const data: Record<string, unknown> = {
    planId: event.planId,
    origin: event.origin,
    serverKnowledge: knowledge,
    previousServerKnowledge:
      event.origin === 'WRITE' ? event.serverKnowledge : event.previousServerKnowledge,
    continues: event.continues,
  };
  const deleted: Record<string, readonly unknown[]> = {};
  let items = 0;
  for (const kind of kinds) {
    const { list, deleted: deletedList } = KIND_FIELDS[kind];
    const rows = (event[list] as readonly unknown[] | undefined) ?? [];
    data[list] = rows;
    items += rows.length;
    if (deletedList) {
      const ids = event.deleted[deletedList] ?? [];
      deleted[deletedList] = ids;
      items += ids.length;
    }
  }
  if (items === 0) return null;
  data.deleted = deleted;
  // A sum past 2^53 (a bigint) goes out as the JSON integer it is, as REST sends it.
  return stringifyExactJson({ type: EVENT_TYPE, timestamp: new Date(now).toISOString(), data });
}
