/**
 * `Query.changes` (issue 35, the sync query), over real HTTP against the sandbox:
 *
 * - without `since`: the current cursor and no rows, for no upstream call on a fresh replica;
 * - after outside changes: exactly what changed (rows as they are now, deleted ids), for at most
 *   the one delta the freshness rules allow, then nothing more;
 * - in bounded pages (`hasMore`) that together hold every change once;
 * - a cursor the log no longer covers (the replica reloaded) answers `ReloadRequired`;
 * - a forged, altered, another token's or another plan's cursor is refused (BAD_USER_INPUT).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIVE } from '../../src/config/config.js';
import { callsOf, LIVE, type LiveStack, openAccount, outsideWrite } from '../live/support/live.js';
import { type StackOptions, startStack } from '../support/stack.js';

const TOKEN = 'sync-token-00000000001';
const OTHER = 'sync-token-00000000002';

const CHANGES = `query($planId: PlanId!, $since: String) {
  changes(planId: $planId, since: $since) {
    __typename
    ... on ChangesPage {
      cursor hasMore
      changes {
        serverKnowledge
        accounts { id balance } payees { id name }
        transactions { id memo amount payee { name } account { name } }
        deleted { transactionIds }
      }
    }
    ... on ReloadRequired { message cursor }
  }
}`;

interface Page {
  __typename: 'ChangesPage';
  cursor: string;
  hasMore: boolean;
  changes: {
    serverKnowledge: number;
    accounts: { id: string; balance: number }[];
    payees: { id: string; name: string }[];
    transactions: { id: string; memo: string | null; amount: number }[];
    deleted: { transactionIds: string[] };
  };
}
interface Reload {
  __typename: 'ReloadRequired';
  message: string;
  cursor: string;
}

let stack: LiveStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function started(options: Pick<StackOptions, 'config'> = {}): Promise<LiveStack> {
  stack = await startStack({
    ...LIVE,
    token: TOKEN,
    sandbox: {
      rateLimit: false,
      users: [
        {
          token: TOKEN,
          plans: [
            { seed: 7, transactions: 300 },
            { seed: 8, transactions: 10 },
          ],
        },
        { token: OTHER, plans: [{ seed: 9, transactions: 10 }] },
      ],
    },
    ...options,
  });
  return stack;
}

async function changes(
  s: LiveStack,
  since?: string,
  { token = s.token, planId = s.planId } = {},
): Promise<Page | Reload> {
  const answer = await s.gql<{ changes: Page | Reload }>(
    CHANGES,
    { planId, ...(since === undefined ? {} : { since }) },
    { token },
  );
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data!.changes;
}

/** A transaction created through the gateway, dated today on the stack's clock: its id. */
async function created(s: LiveStack, accountId: string, memo: string): Promise<string> {
  const date = new Date(s.clock.now()).toISOString().slice(0, 10);
  const answer = await s.gql<{ createTransaction: { transaction: { id: string } } }>(
    `mutation($planId: PlanId!, $input: CreateTransactionInput!) {
      createTransaction(planId: $planId, input: $input) {
        ... on CreateTransactionPayload { transaction { id } }
      }
    }`,
    { planId: s.planId, input: { accountId, date, amount: -4_560, memo } },
  );
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data!.createTransaction.transaction.id;
}

/** The transactions of the page after `since`, where they were before, and its cursor. */
async function placed(
  s: LiveStack,
  since: string,
): Promise<{ transactions: { id: string }[]; before: { id: string }[]; cursor: string }> {
  const answer = await s.gql<{
    changes: {
      cursor: string;
      changes: { transactions: { id: string }[]; transactionsBefore: { id: string }[] };
    };
  }>(
    `query($planId: PlanId!, $since: String) { changes(planId: $planId, since: $since) {
      ... on ChangesPage { cursor changes { transactions { id } transactionsBefore { id } } }
    } }`,
    { planId: s.planId, since },
  );
  expect(answer.body.errors).toBeUndefined();
  const { cursor, changes: change } = answer.body.data!.changes;
  return { transactions: change.transactions, before: change.transactionsBefore, cursor };
}

function page(result: Page | Reload): Page {
  expect(result.__typename).toBe('ChangesPage');
  return result as Page;
}

/** Past max-age: the next read of the plan sends one delta. */
function stale(s: LiveStack): void {
  s.clock.advance(s.gateway.config.maxAgeMs + 1);
}

describe('changes(planId, since)', () => {
  it('without since answers the current cursor and no rows, for no upstream call when fresh', async () => {
    const s = await started();
    const first = page(await changes(s)); // loads the plan: the export
    s.sandbox.resetCalls();
    const again = page(await changes(s));
    expect(callsOf(s.sandbox)).toEqual([]);
    expect(again.hasMore).toBe(false);
    expect(again.changes.transactions).toEqual([]);
    expect(again.changes.deleted.transactionIds).toEqual([]);
    expect(typeof first.cursor).toBe('string');
    // Nothing changed: the cursor's page is empty, still for no call.
    const none = page(await changes(s, first.cursor));
    expect(none.changes.transactions).toEqual([]);
    expect(callsOf(s.sandbox)).toEqual([]);
  });

  it('answers what changed behind the gateway’s back, for one delta, then nothing more', async () => {
    const s = await started();
    const { cursor } = page(await changes(s));
    const account = await openAccount(s);
    const created = await outsideWrite(s, account, 'coffee offline');
    const { transactions } = await s.writer.getTransactions(
      { token: s.token },
      { planId: s.planId },
    );
    const victim = transactions.find((tx) => !tx.deleted && tx.id !== created.id)!;
    await s.writer.deleteTransaction(
      { token: s.token },
      { planId: s.planId, transactionId: victim.id },
    );
    stale(s);
    s.sandbox.resetCalls();

    const delta = page(await changes(s, cursor));
    expect(callsOf(s.sandbox)).toEqual([expect.stringMatching(/@\d+$/)]); // one delta
    expect(delta.hasMore).toBe(false);
    expect(delta.changes.transactions.map((tx) => tx.id)).toEqual([created.id]);
    expect(delta.changes.transactions[0]!.memo).toBe('coffee offline');
    expect(delta.changes.deleted.transactionIds).toEqual([victim.id]);
    expect(delta.changes.accounts.map((a) => a.id)).toContain(account);

    s.sandbox.resetCalls();
    const after = page(await changes(s, delta.cursor));
    expect(callsOf(s.sandbox)).toEqual([]);
    expect(after.changes.transactions).toEqual([]);
    expect(after.changes.deleted.transactionIds).toEqual([]);
  });

  it('says where changed transactions were filed before, and nothing of those made since the cursor', async () => {
    const s = await started();
    const { cursor } = page(await changes(s));
    const token = { token: s.token };
    const { accounts } = await s.writer.getAccounts(token, { planId: s.planId });
    const [from, to] = accounts.filter((a) => !a.closed && !a.deleted && a.on_budget);
    const { transactions } = await s.writer.getTransactions(token, { planId: s.planId });
    const [moved, removed] = transactions.filter(
      (tx) =>
        !tx.deleted &&
        tx.account_id === from!.id &&
        tx.subtransactions.length === 0 &&
        tx.transfer_account_id === null,
    );
    // First delta: two rows made after the cursor.
    const made = await outsideWrite(s, from!.id, 'made offline');
    const gone = await outsideWrite(s, from!.id, 'made, then deleted');
    stale(s);
    page(await changes(s)); // the delta, read: the log's first entry
    // Second delta: the new rows edited and deleted, old rows moved and deleted, and a row
    // made and deleted between the two deltas (the gateway never held it).
    const edit = (transactionId: string, transaction: Record<string, unknown>) =>
      s.writer.updateTransaction(token, { planId: s.planId, transactionId, body: { transaction } });
    const remove = (transactionId: string) =>
      s.writer.deleteTransaction(token, { planId: s.planId, transactionId });
    await edit(made.id, { memo: 'made offline, edited' });
    await remove(gone.id);
    await edit(moved!.id, { account_id: to!.id });
    await remove(removed!.id);
    const ghost = await outsideWrite(s, from!.id, 'never seen');
    await remove(ghost.id);
    stale(s);

    const answer = await s.gql<{
      changes: { changes: { transactionsBefore: { id: string; accountId: string }[] | null } };
    }>(
      `query($planId: PlanId!, $since: String) { changes(planId: $planId, since: $since) {
        ... on ChangesPage { changes { transactionsBefore { id accountId } } }
      } }`,
      { planId: s.planId, since: cursor },
    );
    expect(answer.body.errors).toBeUndefined();
    const before = answer.body.data!.changes.changes.transactionsBefore!;
    expect([...before].sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [
        { id: moved!.id, accountId: from!.id },
        { id: removed!.id, accountId: from!.id },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
  });

  it('shows a write through the gateway at once and as new when no delta follows it, and not again after the delta', async () => {
    const s = await started();
    const { cursor } = page(await changes(s));
    const made = await created(s, await openAccount(s), 'one step, no delta');
    s.sandbox.resetCalls();
    // The write was one step past the replica: applied whole, no delta. Its row is news at once.
    const after = await placed(s, cursor);
    expect(callsOf(s.sandbox)).toEqual([]);
    expect(after.transactions.map((tx) => tx.id)).toEqual([made]);
    expect(after.before).toEqual([]);
    // The delta that confirms it: news only to a client behind the write, and new to it still.
    stale(s);
    expect((await placed(s, after.cursor)).transactions).toEqual([]);
    expect(callsOf(s.sandbox)).toEqual([expect.stringMatching(/^getPlanById@/)]);
    const behind = await placed(s, cursor);
    expect(behind.transactions.map((tx) => tx.id)).toEqual([made]);
    expect(behind.before).toEqual([]);
  });

  it('files a transaction a write made as new when the write waited for its delta', async () => {
    const s = await started();
    const { cursor } = page(await changes(s));
    const account = await openAccount(s);
    // Made elsewhere first: the gateway's write is then not one step past its replica, and the
    // delta it runs brings both rows, its own already held since its answer.
    const outside = await outsideWrite(s, account, 'made elsewhere');
    const made = await created(s, account, 'after a delta');
    const answer = await placed(s, cursor);
    expect(answer.transactions.map((tx) => tx.id).sort()).toEqual([outside.id, made].sort());
    expect(answer.before).toEqual([]);
  });

  it('comes in bounded pages that together hold every change once', async () => {
    const s = await started({ config: { live: { ...DEFAULT_LIVE, eventRows: 4 } } });
    let { cursor } = page(await changes(s));
    const account = await openAccount(s);
    const created: string[] = [];
    for (let i = 0; i < 10; i++) created.push((await outsideWrite(s, account, `item ${i}`)).id);
    stale(s);
    const seen: string[] = [];
    let pages = 0;
    for (;;) {
      const next = page(await changes(s, cursor));
      pages += 1;
      const rows =
        next.changes.transactions.length +
        next.changes.accounts.length +
        next.changes.payees.length +
        next.changes.deleted.transactionIds.length;
      expect(rows).toBeLessThanOrEqual(4);
      seen.push(...next.changes.transactions.map((tx) => tx.id));
      cursor = next.cursor;
      if (!next.hasMore) break;
      expect(pages).toBeLessThan(20);
    }
    expect(pages).toBeGreaterThan(2);
    expect([...seen].sort()).toEqual([...created].sort());
  });

  it('answers ReloadRequired for a cursor the change log no longer covers (the replica reloaded)', async () => {
    const s = await started();
    const { cursor } = page(await changes(s));
    await outsideWrite(s, await openAccount(s), 'while away');
    s.gateway.replicas.forgetToken(s.tokenKey); // the next read reloads the plan in full
    const answer = await changes(s, cursor);
    expect(answer.__typename).toBe('ReloadRequired');
    const reload = answer as Reload;
    expect(reload.message).toMatch(/reload/);
    // Its cursor is a good one: from there, nothing is missing.
    const next = page(await changes(s, reload.cursor));
    expect(next.changes.transactions).toEqual([]);
  });

  it('refuses a forged, altered, another token’s or another plan’s cursor', async () => {
    const s = await started();
    const { cursor } = page(await changes(s));
    const plans = await s.writer.getPlans({ token: s.token }, {});
    const otherPlan = plans.plans.map((p) => p.id).find((id) => id !== s.planId)!;
    const otherTokenPlan = (await s.writer.getPlans({ token: OTHER }, {})).plans[0]!.id;
    const altered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    const attempts: [string, { token?: string; planId?: string }][] = [
      ['c1.bm90IGEgY3Vyc29yIGF0IGFsbCwgbm90IGF0IGFsbA', {}],
      ['123', {}],
      [altered, {}],
      [cursor, { planId: otherPlan }],
      [cursor, { token: OTHER, planId: otherTokenPlan }],
    ];
    for (const [since, options] of attempts) {
      const answer = await s.gql(
        CHANGES,
        { planId: options.planId ?? s.planId, since },
        { token: options.token ?? s.token },
      );
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(answer.body.errors?.[0]?.message).toMatch(/cursor was not issued/);
    }
  });

  it('is priced like the rows a page may hold, before it runs', async () => {
    const s = await started();
    const { cursor } = page(await changes(s));
    s.sandbox.resetCalls();
    const fanOut = `query($planId: PlanId!, $since: String) {
      changes(planId: $planId, since: $since) {
        ... on ChangesPage { changes { transactions { id account { transactions(first: 100) { nodes { id } } } } } }
      }
    }`;
    // A page holds up to 500 transactions, each asking for a page of 100: refused.
    const refused = await s.gql(fanOut, { planId: s.planId, since: cursor });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('OPERATION_TOO_COMPLEX');
    expect(callsOf(s.sandbox)).toEqual([]);
    // What a screen needs of a page is well within the limits.
    const fine = await s.gql(CHANGES, { planId: s.planId, since: cursor });
    expect(fine.body.errors).toBeUndefined();
  });
});
