/**
 * Idempotent writes (issue 35): a write sent with an `Idempotency-Key` header is applied once; the
 * same request again (an offline queue flushing twice, a retry after a lost answer) answers the
 * original result without a second upstream write. The same key with another write is refused;
 * writes without a key keep the REST semantics (a repeated import id is DuplicateImportIdError).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callsOf, LIVE, type LiveStack, openAccount } from '../live/support/live.js';
import { startStack } from '../support/stack.js';

const TOKEN = 'idem-token-00000000001';
const OTHER = 'idem-token-00000000002';

const CREATE = `mutation($planId: PlanId!, $input: CreateTransactionInput!) {
  createTransaction(planId: $planId, input: $input) {
    __typename
    ... on CreateTransactionPayload { transaction { id memo amount } serverKnowledge }
    ... on Error { message }
  }
}`;
interface Created {
  createTransaction: {
    __typename: string;
    transaction?: { id: string; memo: string; amount: number };
    serverKnowledge?: number;
    message?: string;
  };
}

let stack: LiveStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function started(): Promise<LiveStack> {
  stack = await startStack({
    ...LIVE,
    token: TOKEN,
    sandbox: {
      rateLimit: false,
      users: [
        { token: TOKEN, plans: [{ seed: 11, transactions: 20 }] },
        { token: OTHER, plans: [{ seed: 12, transactions: 20 }] },
      ],
    },
  });
  return stack;
}

const creates = (s: LiveStack, token = s.token) =>
  callsOf(s.sandbox, token).filter((call) => call.startsWith('createTransaction'));

describe('a write with an Idempotency-Key', () => {
  it('is applied once: the same request again answers the original result, for no second write', async () => {
    const s = await started();
    const accountId = await openAccount(s);
    const input = { accountId, date: '2025-06-14', amount: -4_500, memo: 'queued offline' };
    const headers = { 'idempotency-key': 'f0b4c1d2-queued-1' };
    s.sandbox.resetCalls();
    const first = await s.gql<Created>(CREATE, { planId: s.planId, input }, { headers });
    const again = await s.gql<Created>(CREATE, { planId: s.planId, input }, { headers });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data!.createTransaction.__typename).toBe('CreateTransactionPayload');
    expect(again.body.data!.createTransaction).toEqual(first.body.data!.createTransaction);
    expect(creates(s)).toHaveLength(1);
    // Still there a day later (the clock is the gateway's).
    s.clock.advance(24 * 3_600_000);
    const dayLater = await s.gql<Created>(CREATE, { planId: s.planId, input }, { headers });
    expect(dayLater.body.data!.createTransaction.transaction).toEqual(
      first.body.data!.createTransaction.transaction,
    );
    expect(creates(s)).toHaveLength(1);
    const { transactions } = await s.writer.getTransactions(
      { token: s.token },
      { planId: s.planId },
    );
    expect(transactions.filter((tx) => tx.memo === 'queued offline')).toHaveLength(1);
  });

  it('is per caller: another token’s same key is its own write', async () => {
    const s = await started();
    const headers = { 'idempotency-key': 'shared-key' };
    const mine = await openAccount(s);
    const otherPlan = (await s.writer.getPlans({ token: OTHER }, {})).plans[0]!.id;
    const theirs = await openAccount(s, OTHER, otherPlan);
    s.sandbox.resetCalls();
    const a = await s.gql<Created>(
      CREATE,
      { planId: s.planId, input: { accountId: mine, date: '2025-06-14', amount: -1_000 } },
      { headers },
    );
    const b = await s.gql<Created>(
      CREATE,
      { planId: otherPlan, input: { accountId: theirs, date: '2025-06-14', amount: -1_000 } },
      { headers, token: OTHER },
    );
    expect(a.body.data!.createTransaction.__typename).toBe('CreateTransactionPayload');
    expect(b.body.data!.createTransaction.__typename).toBe('CreateTransactionPayload');
    expect(creates(s, TOKEN)).toHaveLength(1);
    expect(creates(s, OTHER)).toHaveLength(1);
  });

  it('refuses the same key with another write, and a malformed key, before any upstream write', async () => {
    const s = await started();
    const accountId = await openAccount(s);
    const headers = { 'idempotency-key': 'one-write-only' };
    await s.gql<Created>(
      CREATE,
      { planId: s.planId, input: { accountId, date: '2025-06-14', amount: -1_000 } },
      { headers },
    );
    s.sandbox.resetCalls();
    const other = await s.gql<Created>(
      CREATE,
      { planId: s.planId, input: { accountId, date: '2025-06-14', amount: -2_000 } },
      { headers },
    );
    expect(other.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(other.body.errors?.[0]?.message).toMatch(/already used with another write/);
    const malformed = await s.gql<Created>(
      CREATE,
      { planId: s.planId, input: { accountId, date: '2025-06-14', amount: -2_000 } },
      { headers: { 'idempotency-key': 'x'.repeat(300) } },
    );
    expect(malformed.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(creates(s)).toEqual([]);
  });
});

describe('a write without a key', () => {
  it('keeps the REST semantics: a repeated import id is DuplicateImportIdError', async () => {
    const s = await started();
    const accountId = await openAccount(s);
    const input = {
      accountId,
      date: '2025-06-14',
      amount: -3_000,
      importId: 'YNAB:-3000:2025-06-14:1',
    };
    const first = await s.gql<Created>(CREATE, { planId: s.planId, input });
    const second = await s.gql<Created>(CREATE, { planId: s.planId, input });
    expect(first.body.data!.createTransaction.__typename).toBe('CreateTransactionPayload');
    expect(second.body.data!.createTransaction.__typename).toBe('DuplicateImportIdError');
  });
});
