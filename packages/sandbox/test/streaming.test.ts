/**
 * Lists that can grow to hundreds of MB (the plan export, the transaction lists) stream with
 * chunked transfer encoding, parse to the same JSON as the rest of the interface tells, and keep
 * a consistent snapshot when a write lands while a slow client is still reading.
 */
import { request } from 'node:http';
import type { PlanDetail, TransactionDetail } from '@plans-gateway/rest-contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, isoDate } from './support/dates.js';
import { dataOf } from './support/rest.js';
import { exportPlan, startTestSandbox, type TestSandbox, TOKEN } from './support/sandbox.js';

/** Large enough that the export (tens of MB) outgrows every socket buffer on the way. */
const TRANSACTIONS = 25_000;

let box: TestSandbox;

beforeAll(async () => {
  box = await startTestSandbox({ transactions: TRANSACTIONS, seed: 11 });
});

afterAll(() => box.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  chunks: number;
  text: string;
}

/**
 * GETs `path` with node:http, reading nothing until `whilePaused` (called once the first bytes are
 * in) has run; then reads the rest.
 */
function getSlowly(path: string, whilePaused: () => Promise<void> = async () => {}) {
  return new Promise<RawAnswer>((resolve, reject) => {
    const url = new URL(`${box.sandbox.url}${path}`);
    const req = request(url, { headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      const parts: Buffer[] = [];
      res.once('data', (first: Buffer) => {
        parts.push(first);
        res.pause();
        whilePaused().then(() => {
          res.on('data', (chunk: Buffer) => parts.push(chunk));
          res.resume();
        }, reject);
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          chunks: parts.length,
          text: Buffer.concat(parts).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('streamed lists', () => {
  it('stream the plan export in chunks that parse to what the other endpoints say', async () => {
    const answer = await getSlowly(`/plans/${box.planId}`);
    expect(answer.status).toBe(200);
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(answer.headers['content-length']).toBeUndefined();
    expect(answer.chunks).toBeGreaterThan(1);
    const { plan, server_knowledge } = JSON.parse(answer.text).data as {
      plan: PlanDetail;
      server_knowledge: number;
    };
    expect(plan.transactions).toHaveLength(TRANSACTIONS);
    expect(new Set(plan.transactions.map((t) => t.id)).size).toBe(TRANSACTIONS);

    // The same transactions as the (also streamed) list, and a delta from 0 lists them all too.
    const listed = dataOf(
      await box.rest.get(`/plans/${box.planId}/transactions`, { since_date: '2000-01-01' }),
      'getTransactions',
    );
    expect(listed.server_knowledge).toBe(server_knowledge);
    expect(listed.transactions.map((t) => t.id)).toEqual(plan.transactions.map((t) => t.id));
    const delta = dataOf(
      await box.rest.get(`/plans/${box.planId}`, { last_knowledge_of_server: 0 }),
      'getPlanById',
    );
    expect(delta.plan.transactions.map((t) => t.id)).toEqual(plan.transactions.map((t) => t.id));
    expect(delta.plan.subtransactions).toEqual(plan.subtransactions);
  });

  it('keeps a snapshot when writes land mid-stream; the next delta brings them', async () => {
    const before = (await exportPlan(box.rest, box.planId)).plan;
    const account = before.accounts.find((a) => a.type === 'checking');
    // The last transaction of the list: still unsent when the writes land.
    const last = before.transactions.at(-1);
    if (account === undefined || last === undefined) throw new Error('the seed changed');
    const today = isoDate(box.clock.now());
    let created: TransactionDetail | undefined;
    let streamEndedBeforeWrites = true;

    const answer = await getSlowly(`/plans/${box.planId}`, async () => {
      const response = await box.rest.post(`/plans/${box.planId}/transactions`, {
        transaction: { account_id: account.id, date: addDays(today, -400), amount: -4_200 },
      });
      created = dataOf(response, 'createTransaction', 201).transaction;
      expect((await box.rest.delete(`/plans/${box.planId}/transactions/${last.id}`)).status).toBe(
        200,
      );
      streamEndedBeforeWrites = false;
    });
    expect(streamEndedBeforeWrites).toBe(false);
    const { plan, server_knowledge } = JSON.parse(answer.text).data as {
      plan: PlanDetail;
      server_knowledge: number;
    };
    const ids = plan.transactions.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Created after the request came: not in its snapshot. Deleted before its turn: left out.
    expect(ids).not.toContain(created?.id);
    expect(ids).not.toContain(last.id);
    expect(plan.transactions.every((t) => !t.deleted)).toBe(true);
    expect(ids).toEqual(before.transactions.map((t) => t.id).filter((id) => id !== last.id));

    const delta = dataOf(
      await box.rest.get(`/plans/${box.planId}`, { last_knowledge_of_server: server_knowledge }),
      'getPlanById',
    ).plan;
    const changed = new Map(delta.transactions.map((t) => [t.id, t]));
    expect(changed.get(created?.id ?? '')?.deleted).toBe(false);
    expect(changed.get(last.id)?.deleted).toBe(true);
  });
});
