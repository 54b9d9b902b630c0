/**
 * One fresh read, one delta, whatever executes it. After an outside write, a query sent with
 * `Cache-Control: no-cache` sees the write at the cost of one delta request, on every run of one
 * document: its first (the executor), and every later one (compiled, and revalidated by the
 * answer cache at the door before it executes). The door's revalidation used to send a delta,
 * find no answer held under the new ETag, and hand the request to the executor, whose read
 * arrived a millisecond later and judged that delta too old for `no-cache`: a second delta
 * (`last_knowledge_of_server=N`, then `=N+1`) from a document's second run on. Freshness is now
 * decided once per request. The clock ticks on every read, as a real one does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAccount, outsideWrite } from '../live/support/live.js';
import { type ClockedStack, type ServedGateway, startStack } from '../support/stack.js';

const FRESH = `query FreshBalance($planId: PlanId!, $accountId: UUID!) {
  plan(id: $planId) { account(id: $accountId) { balance } }
}`;
const RUNS = 5;
const WRITE = -12_340;

let stack: ClockedStack;
let executorOnly: ServedGateway;
let accountId: string;

beforeAll(async () => {
  stack = await startStack({ clock: 'ticking', sandbox: { rateLimit: false } });
  executorOnly = await stack.addGateway({ config: { compiledQueries: false } });
  accountId = await openAccount(stack as never);
});

afterAll(() => stack.close());

/** The deltas the sandbox received since the last reset, by the knowledge each asked from. */
function deltas(): number[] {
  return stack.sandbox
    .calls()
    .filter((call) => call.operationId === 'getPlanById')
    .map((call) => Number(call.query.last_knowledge_of_server ?? Number.NaN));
}

type Send = (headers: Record<string, string>) => Promise<number | undefined>;

/** POSTs the document to `front`: the balance it answered. */
const postTo =
  (front: ServedGateway): Send =>
  async (headers) => {
    const { body } = await front.gql<{ plan: { account: { balance: number } } }>(
      FRESH,
      { planId: stack.planId, accountId },
      { headers },
    );
    expect(body.errors).toBeUndefined();
    return body.data?.plan.account.balance;
  };

/** The same document as a GET. */
const getFrom =
  (front: ServedGateway): Send =>
  async (headers) => {
    const url = new URL(front.url);
    url.searchParams.set('query', FRESH);
    url.searchParams.set('variables', JSON.stringify({ planId: stack.planId, accountId }));
    const response = await fetch(url, {
      headers: {
        authorization: `Bearer ${stack.token}`,
        accept: 'application/json',
        'x-graphql-yoga-csrf': 'test',
        ...headers,
      },
    });
    const body = (await response.json()) as { data?: { plan: { account: { balance: number } } } };
    return body.data?.plan.account.balance;
  };

/**
 * `RUNS` runs of the document, each after an outside write: the deltas each sent, and whether
 * each answer showed its write.
 */
async function runsAfterWrites(send: Send, headers: Record<string, string>) {
  // A replica held, and the document run once, so the next runs are its later ones.
  const before = await send({});
  let expected = before ?? Number.NaN;
  const perRun: number[][] = [];
  for (let run = 0; run < RUNS; run++) {
    const { serverKnowledge } = await outsideWrite(stack as never, accountId, `fresh ${run}`, {
      amount: WRITE,
    });
    expected += WRITE;
    stack.resetUpstreamCalls();
    expect(await send(headers)).toBe(expected);
    perRun.push(deltas());
    // The one delta asked from the knowledge before the write.
    expect(perRun.at(-1)?.[0]).toBe(serverKnowledge - 1);
  }
  return perRun;
}

describe('Cache-Control: no-cache after an outside write', () => {
  it.each([
    ['POST, compiled from its third run', () => postTo(stack)],
    ['GET, compiled from its third run', () => getFrom(stack)],
    ['POST through the executor alone', () => postTo(executorOnly)],
  ])('%s: one delta per run, every run', async (_name, sender) => {
    const perRun = await runsAfterWrites(sender(), { 'cache-control': 'no-cache' });
    expect(perRun.map((run) => run.length)).toEqual(Array(RUNS).fill(1));
  });
});

describe('max-age expiry after an outside write', () => {
  it('one delta per run too', async () => {
    const send = postTo(stack);
    await send({});
    const perRun: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      await outsideWrite(stack as never, accountId, `expired ${run}`, { amount: WRITE });
      stack.clock.advance(stack.gateway.config.maxAgeMs + 1);
      stack.resetUpstreamCalls();
      await send({});
      perRun.push(deltas().length);
    }
    expect(perRun).toEqual(Array(RUNS).fill(1));
  });
});
