import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isUpstreamError } from '../../src/errors/upstream-error.js';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/client.js';

// A narrow unit check through undici's MockAgent (no sockets): the client addresses the
// configured origin only, and undici-level failures it cannot produce on a loopback server.
const ORIGIN = 'https://api.example.test';
const TOKEN = 'mock-agent-token-1234567890';

let agent: MockAgent;
let client: UpstreamClient;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  client = createUpstreamClient({
    baseUrl: `${ORIGIN}/v1`,
    dispatcher: agent,
    sleep: async () => {},
  });
});
afterEach(async () => {
  await client.close();
  await agent.close();
});

describe('through an injected MockAgent', () => {
  it('sends the request, bearer token included, to the configured origin', async () => {
    agent
      .get(ORIGIN)
      .intercept({
        path: '/v1/plans/last-used/accounts',
        method: 'GET',
        query: { last_knowledge_of_server: '4' },
        headers: { authorization: `Bearer ${TOKEN}` },
      })
      .reply(200, { data: { accounts: [], server_knowledge: 6 } });

    const data = await client.getAccounts(
      { token: TOKEN },
      { planId: 'last-used', lastKnowledgeOfServer: 4 },
    );

    expect(data).toEqual({ accounts: [], server_knowledge: 6 });
    agent.assertNoPendingInterceptors();
  });

  it('treats a connection reset on a write as network failure with an unknown outcome', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/plans/p/transactions', method: 'POST' })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));

    const error = await client
      .createTransaction({ token: TOKEN }, { planId: 'p', body: { transaction: { amount: -1 } } })
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );

    expect(isUpstreamError(error)).toBe(true);
    expect(error).toMatchObject({
      kind: 'network',
      outcomeUnknown: true,
      retryable: false,
      attempts: 1,
    });
  });

  it('lets unknown programming errors through untouched instead of disguising them', async () => {
    const bug = new TypeError('a bug in a dispatcher');
    agent.get(ORIGIN).intercept({ path: '/v1/user', method: 'GET' }).replyWithError(bug);
    await expect(client.getUser({ token: TOKEN })).rejects.toBe(bug);
  });
});
