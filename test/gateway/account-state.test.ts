/**
 * The 403 variants a client cannot trigger by itself (403.1 subscription lapsed, 403.2 trial
 * expired, 403.4 data limit reached), produced by sandbox users put in those states and seen
 * through the gateway with their typed `extensions.code` and the REST error kept verbatim.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack.js';

const USERS = {
  lapsed: 'token-subscription-lapsed',
  trial: 'token-trial-expired',
  full: 'token-data-limit-reached',
} as const;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    serve: 'fetch',
    sandbox: {
      rateLimit: false,
      users: [
        {
          token: USERS.lapsed,
          plans: [{ transactions: 10 }],
          accountState: 'subscription_lapsed',
        },
        { token: USERS.trial, plans: [{ transactions: 10 }], accountState: 'trial_expired' },
        { token: USERS.full, plans: [{ transactions: 10 }], accountState: 'data_limit_reached' },
      ],
    },
  });
});

afterAll(() => stack.close());

const READ = '{ user { id } plan(id: "last-used") { name } }';

describe('403 variants through the gateway', () => {
  it.each([
    [USERS.lapsed, 'SUBSCRIPTION_LAPSED', '403.1', 'subscription_lapsed'],
    [USERS.trial, 'TRIAL_EXPIRED', '403.2', 'trial_expired'],
  ])('a read with %s gets %s', async (token, code, id, name) => {
    const response = await stack.gql(READ, {}, { token });
    expect(response.body.data?.plan ?? null).toBeNull();
    const errors = response.body.errors ?? [];
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) {
      expect(error.extensions).toMatchObject({ code, upstream: { status: 403, id, name } });
      const upstream = error.extensions?.upstream as { detail?: unknown } | undefined;
      expect(typeof upstream?.detail).toBe('string');
    }
  });

  it('a user at the data limit reads, and a create gets DATA_LIMIT_REACHED', async () => {
    const read = await stack.gql<{ plan: { name: string } }>(READ, {}, { token: USERS.full });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data?.plan.name).toBeTruthy();

    const created = await stack.gql(
      `mutation { createPayee(planId: "last-used", input: { name: "One too many" }) {
        __typename ... on CreatePayeePayload { payee { id } } } }`,
      {},
      { token: USERS.full },
    );
    expect(created.body.data?.createPayee ?? null).toBeNull();
    expect(created.body.errors?.[0]?.extensions).toMatchObject({
      code: 'DATA_LIMIT_REACHED',
      upstream: { status: 403, id: '403.4', name: 'data_limit_reached' },
    });
  });
});
