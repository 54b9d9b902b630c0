/**
 * createSandbox: seeds the users' plans, wires tokens, OAuth, rate limit and faults, and serves
 * the REST interface over node:http until close().
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type {
  AccountState,
  OAuthClientOptions,
  PlanSeedOptions,
  Sandbox,
  SandboxCall,
  SandboxOptions,
  SandboxUser,
  SandboxUserOptions,
} from './core/api.js';
import { systemClock } from './core/clock.js';
import { isoDateOf } from './core/dates.js';
import { createRandom } from './core/random.js';
import { ACCOUNT_STATES, isAccountState } from './http/account-state.js';
import { createTokenRegistry } from './http/auth.js';
import { createDispatcher } from './http/dispatch.js';
import { createFaultEngine } from './http/faults.js';
import { createOAuthService } from './http/oauth.js';
import { registerClients } from './http/oauth-clients.js';
import { createRateLimiter } from './http/rate-limit.js';
import { createRouter } from './http/router.js';
import { DEFAULT_SEED_TRANSACTIONS, seedPlan, US_DATE_FORMAT, USD_FORMAT } from './seed/index.js';
import type { PlanEntry, SandboxState, UserState } from './store/state.js';
import { editSplitLine } from './store/transactions.js';
import { MEMO_MAX } from './validate/transaction.js';

export const DEMO_TOKEN = 'sandbox-demo-token';
export const DEMO_READ_ONLY_TOKEN = 'sandbox-demo-read-only-token';
/**
 * The demo OAuth application. Its loopback redirect URIs match with any port (RFC 8252), so a
 * gateway on this machine can use `/auth/callback` wherever it listens.
 */
export const DEMO_OAUTH_CLIENT = {
  clientId: 'sandbox-demo-client',
  clientSecret: 'sandbox-demo-secret',
  name: 'Plans Sandbox Demo App',
  redirectUris: [
    'http://localhost:8080/oauth/callback',
    'http://127.0.0.1/auth/callback',
    'http://localhost/auth/callback',
    'http://[::1]/auth/callback',
  ],
  defaultPlanSelection: true,
} as const satisfies OAuthClientOptions;
/** A fresh copy of the demo application's registration. */
export const demoClient = (): OAuthClientOptions => ({
  ...DEMO_OAUTH_CLIENT,
  redirectUris: [...DEMO_OAUTH_CLIENT.redirectUris],
});

/** The most transactions one seeded plan may ask for. */
export const MAX_SEED_TRANSACTIONS = 1_000_000;

const DEFAULT_USERS: SandboxUserOptions[] = [
  { token: DEMO_TOKEN, readOnlyToken: DEMO_READ_ONLY_TOKEN, plans: [{}], defaultPlan: 0 },
];

function planName(spec: PlanSeedOptions, index: number): string {
  return spec.name ?? (index === 0 ? 'Demo Household' : `Plan ${index + 1}`);
}

function checkPlanSpec(spec: PlanSeedOptions, path: string): void {
  const { transactions, seed } = spec;
  if (
    transactions !== undefined &&
    !(Number.isInteger(transactions) && transactions >= 0 && transactions <= MAX_SEED_TRANSACTIONS)
  ) {
    throw new RangeError(
      `${path}.transactions must be an integer from 0 to ${MAX_SEED_TRANSACTIONS}, got ${transactions}`,
    );
  }
  if (seed !== undefined && !Number.isSafeInteger(seed))
    throw new RangeError(`${path}.seed must be an integer, got ${seed}`);
}

function checkAccountState(state: AccountState, path: string): AccountState {
  if (!isAccountState(state)) {
    throw new RangeError(
      `createSandbox: ${path} must be one of ${ACCOUNT_STATES.join(', ')}, got ${String(state)}`,
    );
  }
  return state;
}

/** Private: seeds every user's plans and registers their personal tokens. */
function buildState(
  options: SandboxOptions,
  state: SandboxState,
  tokens: ReturnType<typeof createTokenRegistry>,
): void {
  const users = options.users ?? DEFAULT_USERS;
  if (users.length === 0) throw new RangeError('createSandbox: users must hold at least one user');
  const now = state.clock.now();
  const today = isoDateOf(now);
  users.forEach((spec, userIndex) => {
    const path = `users[${userIndex}]`;
    if (!spec.token) throw new TypeError(`createSandbox: ${path}.token is required`);
    const userId = createRandom(0x05e5, userIndex).uuid();
    const plans = spec.plans ?? [{}];
    if (
      spec.defaultPlan !== undefined &&
      !(
        Number.isInteger(spec.defaultPlan) &&
        spec.defaultPlan >= 0 &&
        spec.defaultPlan < plans.length
      )
    ) {
      throw new RangeError(
        `createSandbox: ${path}.defaultPlan must index ${path}.plans (0..${plans.length - 1}), got ${spec.defaultPlan}`,
      );
    }
    const planIds = plans.map((planSpec, planIndex) => {
      checkPlanSpec(planSpec, `${path}.plans[${planIndex}]`);
      const seed = planSpec.seed ?? 1;
      const ids = createRandom(seed, userIndex, planIndex, 0x1d5);
      const store = seedPlan({
        name: planName(planSpec, planIndex),
        ownerUserId: userId,
        seed,
        transactions: planSpec.transactions ?? DEFAULT_SEED_TRANSACTIONS,
        today,
        nowMs: now,
        ids,
        currencyFormat:
          planSpec.currencyFormat === undefined ? USD_FORMAT : planSpec.currencyFormat,
        dateFormat: planSpec.dateFormat === undefined ? US_DATE_FORMAT : planSpec.dateFormat,
      });
      const entry: PlanEntry = { store, newId: () => ids.uuid() };
      state.plans.set(store.id, entry);
      return store.id;
    });
    const user: UserState = {
      id: userId,
      name: spec.name?.trim() || (userIndex === 0 ? 'Demo User' : `User ${userIndex + 1}`),
      token: spec.token,
      readOnlyToken: spec.readOnlyToken ?? null,
      planIds,
      defaultPlanId: spec.defaultPlan === undefined ? null : (planIds[spec.defaultPlan] ?? null),
      lastUsedPlanId: planIds[0] ?? null,
      accountState: checkAccountState(spec.accountState ?? 'active', `${path}.accountState`),
    };
    state.users.set(userId, user);
    tokens.addPersonal(spec.token, userId, 'full');
    if (spec.readOnlyToken) tokens.addPersonal(spec.readOnlyToken, userId, 'read-only');
  });
}

/** Private: a plan of any user, for the programmatic hooks (which act as the product, not a token). */
function planEntry(state: SandboxState, planId: string, hook: string): PlanEntry {
  const entry = state.plans.get(planId);
  if (!entry) throw new RangeError(`${hook}: no sandbox plan has the id '${planId}'`);
  return entry;
}

export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const clock = options.clock ?? systemClock;
  const state: SandboxState = { clock, users: new Map(), plans: new Map() };
  const tokens = createTokenRegistry(clock);
  buildState(options, state, tokens);

  const oauth = createOAuthService(
    registerClients(options.oauthClients ?? [demoClient()], state),
    state,
    tokens,
    options.oauthConsent ?? { mode: 'page' },
  );
  const faults = createFaultEngine(
    options.randomSeed ?? 1,
    options.faults ?? [],
    options.latency ?? {},
  );
  const calls: SandboxCall[] = [];
  const sockets = new Set<Socket>();
  const hung = new Set<ServerResponse>();
  const sleepers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  let closing = false;

  const dispatch = createDispatcher({
    state,
    router: createRouter(),
    tokens,
    rateLimiter: createRateLimiter(options.rateLimit, clock),
    faults,
    oauth,
    calls,
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        const sleeper = {
          resolve,
          timer: setTimeout(() => {
            sleepers.delete(sleeper);
            resolve();
          }, ms),
        };
        sleepers.add(sleeper);
      }),
    isClosing: () => closing,
    onHang: (res) => {
      hung.add(res);
      res.on('close', () => hung.delete(res));
    },
    reportError: (error) => {
      process.stderr.write(
        `sandbox: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    },
  });

  const server = createServer(dispatch);
  // Idle keep-alive connections are closed by the client, never by the sandbox: with node's 5 s
  // server timeout, a process stalled past it (a loaded machine) could send a request on a
  // socket whose server-side timer then fired before the request was read, and the client got
  // ECONNRESET (a test's fetch failed, the gateway retried and counted two calls). `close()`
  // destroys the connections still open.
  server.keepAliveTimeout = 0;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost =
    host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const origin = `http://${urlHost}:${port}`;
  const users: SandboxUser[] = [...state.users.values()].map((user) => ({
    userId: user.id,
    name: user.name,
    token: user.token,
    readOnlyToken: user.readOnlyToken,
    planIds: [...user.planIds],
  }));

  let closed: Promise<void> | null = null;
  return {
    url: `${origin}/v1`,
    origin,
    users,
    calls: () => calls.map((call) => ({ ...call, query: { ...call.query } })),
    callCounts: () => {
      const counts: Record<string, number> = {};
      for (const { endpoint } of calls)
        if (endpoint !== null) counts[endpoint] = (counts[endpoint] ?? 0) + 1;
      return counts;
    },
    resetCalls: () => {
      calls.length = 0;
    },
    setLatency: (latency) => faults.setLatency(latency),
    setFaults: (rules) => faults.setRules(rules),
    setAccountState(userId, accountState) {
      const user = state.users.get(userId);
      if (!user) throw new RangeError(`setAccountState: no sandbox user has the id '${userId}'`);
      user.accountState = checkAccountState(accountState, 'setAccountState: state');
    },
    setOAuthConsent: (consent) => oauth.setConsent(consent),
    revokeOAuthGrants: (filter) => oauth.revokeGrants(filter),
    editSplitLine(planId, subtransactionId, changes, options = {}) {
      const { store } = planEntry(state, planId, 'editSplitLine');
      const line = store.subtransactions.get(subtransactionId);
      const parent = line && store.transactions.get(line.transaction_id);
      if (!line || line.deleted || !parent || parent.deleted)
        throw new RangeError(
          `editSplitLine: plan '${planId}' has no live split line '${subtransactionId}'`,
        );
      const { memo, categoryId } = changes;
      if (
        memo !== undefined &&
        memo !== null &&
        !(typeof memo === 'string' && [...memo].length <= MEMO_MAX)
      )
        throw new RangeError(
          `editSplitLine: memo must be null or a string of at most ${MEMO_MAX} characters`,
        );
      if (categoryId !== undefined && categoryId !== null && !store.liveCategory(categoryId))
        throw new RangeError(
          `editSplitLine: '${categoryId}' is not a live category of plan '${planId}'`,
        );
      store.change(clock.now(), () => editSplitLine(store, line, changes), {
        silent: options.silent === true,
      });
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing = true;
        for (const sleeper of sleepers) {
          clearTimeout(sleeper.timer);
          sleeper.resolve();
        }
        sleepers.clear();
        server.close(() => resolve());
        for (const res of hung) res.destroy();
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
