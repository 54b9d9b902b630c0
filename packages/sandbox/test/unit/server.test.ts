import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ynab from 'ynab';
import { createManualClock, createSandbox, type Sandbox } from '../../src/index.js';
import { NOW } from '../support/seeded-store.js';

const TOKEN = 'unit-token';
interface PlanBody {
  data: {
    server_knowledge: number;
    plan: { id: string; accounts: { id: string }[]; payees: unknown[]; transactions: unknown[] };
  };
}
interface ErrorBody {
  error: { id: string; detail: string };
}
const json = async <T>(response: Response): Promise<T> => (await response.json()) as T;
const OTHER = 'unit-other-token';

describe('sandbox over HTTP', () => {
  let sandbox: Sandbox;
  let planId: string;
  let secondPlanId: string;
  const get = (path: string, token = TOKEN) =>
    fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const send = (method: string, path: string, body: unknown) =>
    fetch(`${sandbox.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    sandbox = await createSandbox({
      clock: createManualClock(NOW),
      rateLimit: false,
      users: [
        {
          token: TOKEN,
          plans: [{ transactions: 150 }, { transactions: 20, seed: 2, currencyFormat: null }],
          defaultPlan: 1,
        },
        { token: OTHER, plans: [{ transactions: 10 }] },
      ],
    });
    [planId, secondPlanId] = sandbox.users[0]!.planIds as [string, string];
  });
  afterAll(() => sandbox.close());

  it('answers every read of the ynab SDK', async () => {
    const api = new ynab.API(TOKEN, sandbox.url);
    const config = new ynab.Configuration({ accessToken: TOKEN, basePath: sandbox.url });
    const movements = new ynab.MoneyMovementsApi(config);
    expect((await api.user.getUser()).data.user.id).toBe(sandbox.users[0]?.userId);
    const plans = (await api.plans.getPlans(true)).data;
    expect(plans.plans.map((p) => p.id)).toEqual([planId, secondPlanId]);
    expect(plans.default_plan?.id).toBe(secondPlanId);
    const plan = (await api.plans.getPlanById(planId)).data.plan;
    expect(plan.transactions?.length).toBe(150);
    await api.plans.getPlanSettingsById(planId);
    const account = (await api.accounts.getAccounts(planId)).data.accounts[0] as ynab.Account;
    await api.accounts.getAccountById(planId, account.id);
    const category = (await api.categories.getCategories(planId)).data.category_groups[2]
      ?.categories[0] as ynab.Category;
    await api.categories.getCategoryById(planId, category.id);
    await api.categories.getMonthCategoryById(planId, 'current', category.id);
    const payee = (await api.payees.getPayees(planId)).data.payees.find(
      (p) => !p.transfer_account_id,
    ) as ynab.Payee;
    await api.payees.getPayeeById(planId, payee.id);
    const locations = (await api.payeeLocations.getPayeeLocations(planId)).data.payee_locations;
    await api.payeeLocations.getPayeeLocationById(planId, locations[0]?.id ?? '');
    await api.payeeLocations.getPayeeLocationsByPayee(planId, locations[0]?.payee_id ?? '');
    expect((await api.months.getPlanMonths(planId)).data.months.length).toBeGreaterThanOrEqual(13);
    expect(
      (await api.months.getPlanMonth(planId, 'current')).data.month.categories.length,
    ).toBeGreaterThan(10);
    expect((await movements.getMoneyMovements(planId)).data.money_movements.length).toBeGreaterThan(
      0,
    );
    await movements.getMoneyMovementsByMonth(planId, 'current');
    expect(
      (await movements.getMoneyMovementGroups(planId)).data.money_movement_groups.length,
    ).toBeGreaterThan(0);
    await movements.getMoneyMovementGroupsByMonth(planId, 'current');
    const transactions = (await api.transactions.getTransactions(planId)).data.transactions;
    await api.transactions.getTransactionById(planId, transactions[0]?.id ?? '');
    await api.transactions.getTransactionsByAccount(planId, account.id);
    await api.transactions.getTransactionsByCategory(planId, category.id);
    await api.transactions.getTransactionsByPayee(planId, payee.id);
    await api.transactions.getTransactionsByMonth(planId, 'current');
    const scheduled = (await api.scheduledTransactions.getScheduledTransactions(planId)).data
      .scheduled_transactions;
    await api.scheduledTransactions.getScheduledTransactionById(planId, scheduled[0]?.id ?? '');
    expect(sandbox.calls().every((call) => call.status === 200)).toBe(true);
  });

  it('formats amounts of a plan without a currency format with the default format', async () => {
    const body = (await (await get(`/plans/${secondPlanId}/accounts`)).json()) as {
      data: { accounts: ynab.Account[] };
    };
    const account = body.data.accounts.find((a) => a.balance < -1_000_000);
    expect(account?.balance_formatted).toMatch(/^-\d{1,3}(,\d{3})*\.\d{2}$/);
  });

  it('resolves last-used to the plan used last and default to the user default', async () => {
    await get(`/plans/${secondPlanId}/accounts`);
    const lastUsed = (await (await get('/plans/last-used/settings')).json()) as {
      data: { settings: { currency_format: unknown } };
    };
    expect(lastUsed.data.settings.currency_format).toBeNull();
    await get(`/plans/${planId}/accounts`);
    expect((await json<PlanBody>(await get('/plans/last-used'))).data.plan.id).toBe(planId);
    expect((await json<PlanBody>(await get('/plans/default'))).data.plan.id).toBe(secondPlanId);
    const other = await get('/plans/default', OTHER);
    expect(other.status).toBe(404);
    expect((await json<ErrorBody>(other)).error.id).toBe('404.2');
    expect((await get(`/plans/${planId}`, OTHER)).status).toBe(404);
  });

  it('changes nothing when a write is refused', async () => {
    const before = (await json<PlanBody>(await get(`/plans/${planId}`))).data;
    const account = before.plan.accounts[0]?.id;
    const today = new Date(NOW).toISOString().slice(0, 10);
    const refused = await send('POST', `/plans/${planId}/transactions`, {
      transactions: [
        { account_id: account, date: today, amount: -1000, payee_name: 'Brand new payee' },
        { account_id: account, date: '2099-01-01', amount: -1000 },
      ],
    });
    expect(refused.status).toBe(400);
    expect((await json<ErrorBody>(refused)).error.detail).toBe(
      'transactions[1].date must not be in the future (today is 2025-06-15); use scheduled transactions for future dates',
    );
    const after = (await json<PlanBody>(await get(`/plans/${planId}`))).data;
    expect(after.server_knowledge).toBe(before.server_knowledge);
    expect(after.plan.payees).toEqual(before.plan.payees);
    expect(after.plan.transactions.length).toBe(before.plan.transactions.length);
  });

  it('answers CORS preflights', async () => {
    const response = await fetch(`${sandbox.url}/plans`, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('closing the sandbox', () => {
  it('ends hung and delayed requests and resolves promptly', async () => {
    const sandbox = await createSandbox({
      rateLimit: false,
      users: [{ token: TOKEN, plans: [{ transactions: 10 }] }],
      faults: [{ kind: 'hang', operationId: 'getUser' }],
    });
    const hung = fetch(`${sandbox.url}/user`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    }).then(
      () => 'answered',
      () => 'ended',
    );
    sandbox.setLatency({ fixedMs: 60_000 });
    const delayed = fetch(`${sandbox.url}/plans`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    }).then(
      () => 'answered',
      () => 'ended',
    );
    // Both requests must have arrived (one hanging, one waiting out its latency) before closing.
    await expect.poll(() => sandbox.calls().length, { timeout: 45_000 }).toBeGreaterThanOrEqual(2);
    await sandbox.close();
    expect(await hung).toBe('ended');
    expect(await delayed).toBe('ended');
    expect(sandbox.calls().map((call) => call.status)).toEqual([null, null]);
  });
});
