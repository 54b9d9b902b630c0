/**
 * The canonical operations (`bench/*.graphql`) and, for each, the REST calls an app without the
 * gateway sends for the same screen (the baseline). Independent REST calls go out in parallel,
 * the most favourable way for the baseline.
 */
import { readFileSync } from 'node:fs';
import type { RestClient } from './clients.js';

export interface ScenarioPlan {
  token: string;
  planId: string;
  /** An open on-budget account with many transactions. */
  accountId: string;
}

export interface Scenario {
  key: string;
  title: string;
  /** The operation file in `bench/`. */
  file: string;
  query: string;
  token: string;
  variables: Record<string, unknown>;
  /** Sent with every read of this scenario. */
  headers: Record<string, string>;
  /** Untimed work before each timed read (the outside write); returns what the read must show. */
  beforeRead?: () => Promise<number>;
  /** Whether the answer shows what `beforeRead` returned (the write's server_knowledge). */
  shows?: (data: unknown, expected: number) => boolean;
  rest: {
    /** The REST calls of one operation, as documentation. */
    calls: string[];
    /** Untimed work before each timed REST read (the same outside write). */
    beforeRead?: () => Promise<number>;
    read(): Promise<boolean>;
  };
}

export interface Window {
  /** First day of the previous month. */
  since: string;
  /** Last day of the previous month. */
  until: string;
}

function operation(file: string): string {
  return readFileSync(new URL(`./${file}`, import.meta.url), 'utf8');
}

/** Runs REST reads in parallel; true when every one answered 200. */
async function allOk(reads: Promise<{ status: number }>[]): Promise<boolean> {
  const answers = await Promise.all(reads);
  return answers.every((a) => a.status === 200);
}

export function createScenarios(options: {
  rest: RestClient;
  window: Window;
  dashboard: ScenarioPlan;
  account: ScenarioPlan;
  month: ScenarioPlan;
  write: ScenarioPlan;
  large: ScenarioPlan;
  today: string;
}): Scenario[] {
  const { rest, window, dashboard, account, month, write, large, today } = options;
  let written = 0;

  const outsideWrite = async (): Promise<number> => {
    written += 1;
    const answer = await rest.send<{ server_knowledge: number }>(
      'POST',
      `/plans/${write.planId}/transactions`,
      write.token,
      {
        transaction: {
          account_id: write.accountId,
          date: today,
          amount: -1_000 - written,
          payee_name: 'Bench shop',
          memo: `bench write ${written}`,
        },
      },
    );
    if (answer.status !== 201) throw new Error(`the outside write answered HTTP ${answer.status}`);
    return answer.data.server_knowledge;
  };

  return [
    {
      key: 'dashboard',
      title: 'dashboard (plan, accounts, categories, 50 transactions)',
      file: 'dashboard.graphql',
      query: operation('dashboard.graphql'),
      token: dashboard.token,
      variables: {},
      headers: {},
      rest: {
        calls: [
          'GET /plans/{id}/months/current',
          'GET /plans/{id}/accounts',
          'GET /plans/{id}/categories',
          'GET /plans/{id}/transactions?since_date={first day of last month}',
        ],
        read: () =>
          allOk([
            rest.get(`/plans/${dashboard.planId}/months/current`, dashboard.token),
            rest.get(`/plans/${dashboard.planId}/accounts`, dashboard.token),
            rest.get(`/plans/${dashboard.planId}/categories`, dashboard.token),
            rest.get(
              `/plans/${dashboard.planId}/transactions?since_date=${window.since}`,
              dashboard.token,
            ),
          ]),
      },
    },
    {
      key: 'account',
      title: 'account with 50 transactions and their payees',
      file: 'account-transactions.graphql',
      query: operation('account-transactions.graphql'),
      token: account.token,
      variables: { planId: account.planId, accountId: account.accountId },
      headers: {},
      rest: {
        calls: [
          'GET /plans/{id}/accounts/{account}',
          'GET /plans/{id}/accounts/{account}/transactions?since_date={first day of last month}',
          'GET /plans/{id}/payees',
        ],
        read: () =>
          allOk([
            rest.get(`/plans/${account.planId}/accounts/${account.accountId}`, account.token),
            rest.get(
              `/plans/${account.planId}/accounts/${account.accountId}/transactions?since_date=${window.since}`,
              account.token,
            ),
            rest.get(`/plans/${account.planId}/payees`, account.token),
          ]),
      },
    },
    {
      key: 'month',
      title: 'month with its categories',
      file: 'month-categories.graphql',
      query: operation('month-categories.graphql'),
      token: month.token,
      variables: { planId: month.planId },
      headers: {},
      rest: {
        calls: ['GET /plans/{id}/months/current'],
        read: () => allOk([rest.get(`/plans/${month.planId}/months/current`, month.token)]),
      },
    },
    {
      key: 'filtered',
      title: 'filtered page (account + last month, 50) of the large plan',
      file: 'filtered-page.graphql',
      query: operation('filtered-page.graphql'),
      token: large.token,
      variables: {
        planId: large.planId,
        accountId: large.accountId,
        sinceDate: window.since,
        untilDate: window.until,
      },
      headers: {},
      rest: {
        // REST has no until_date and no paging: fetch since the window start, cut client-side.
        calls: [
          'GET /plans/{id}/accounts/{account}/transactions?since_date={first day of last month}',
        ],
        read: async () => {
          const answer = await rest.get<{ transactions: { date: string }[] }>(
            `/plans/${large.planId}/accounts/${large.accountId}/transactions?since_date=${window.since}`,
            large.token,
          );
          const page = answer.data.transactions.filter((t) => t.date <= window.until).slice(-50);
          return answer.status === 200 && page.length > 0;
        },
      },
    },
    {
      key: 'write',
      title: 'outside REST write, then a fresh read (no-cache)',
      file: 'write-then-read.graphql',
      query: operation('write-then-read.graphql'),
      token: write.token,
      variables: { planId: write.planId, accountId: write.accountId },
      headers: { 'cache-control': 'no-cache' },
      beforeRead: outsideWrite,
      shows: (data, knowledge) =>
        ((data as { plan?: { serverKnowledge?: number } }).plan?.serverKnowledge ?? -1) >=
        knowledge,
      rest: {
        calls: [
          'GET /plans/{id}/months/current',
          'GET /plans/{id}/accounts/{account}',
          'GET /plans/{id}/accounts/{account}/transactions?since_date={first day of last month}',
          'GET /plans/{id}/categories',
        ],
        beforeRead: outsideWrite,
        read: () =>
          allOk([
            rest.get(`/plans/${write.planId}/months/current`, write.token),
            rest.get(`/plans/${write.planId}/accounts/${write.accountId}`, write.token),
            rest.get(
              `/plans/${write.planId}/accounts/${write.accountId}/transactions?since_date=${window.since}`,
              write.token,
            ),
            rest.get(`/plans/${write.planId}/categories`, write.token),
          ]),
      },
    },
  ];
}
