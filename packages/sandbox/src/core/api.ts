/**
 * The sandbox's programmatic contract: what `createSandbox(options)` accepts and returns.
 * Tests, the benchmark and `npm start` depend on exactly this surface.
 */
import type { CurrencyFormat, DateFormat, OperationId } from '@plans-gateway/rest-contract';

/** Wall-clock source in epoch milliseconds. Injected so tests can move time. */
export interface Clock {
  now(): number;
}

/** A clock that only moves when told to. */
export interface ManualClock extends Clock {
  set(epochMs: number): void;
  advance(ms: number): void;
}

export interface PlanSeedOptions {
  /** @default 'Demo Household' for the first plan, then 'Plan 2', 'Plan 3'... */
  name?: string;
  /** Seed of the deterministic generator. Same seed + same `today` = same plan. @default 1 */
  seed?: number;
  /** How many transactions to generate. @default 1200 */
  transactions?: number;
  /** The plan's currency format; `null` for a plan without one. @default US dollars (`-$1,234.56`) */
  currencyFormat?: CurrencyFormat | null;
  /** The plan's date format; `null` for a plan without one. @default { format: 'MM/DD/YYYY' } */
  dateFormat?: DateFormat | null;
}

/**
 * Where the user's account stands with the product. Anything but `active` makes the sandbox refuse
 * requests the way the product does: `subscription_lapsed` (403.1) and `trial_expired` (403.2)
 * every request of the user, `data_limit_reached` (403.4) every request that adds data (POST).
 */
export type AccountState =
  | 'active'
  | 'subscription_lapsed'
  | 'trial_expired'
  | 'data_limit_reached';

export interface SandboxUserOptions {
  /** Personal access token with full access. */
  token: string;
  /** Shown on the OAuth sign-in and consent pages. @default 'Demo User', then 'User 2', 'User 3'... */
  name?: string;
  /** Optional personal access token limited to the read-only scope. */
  readOnlyToken?: string;
  /** Plans owned by the user. @default one demo plan */
  plans?: PlanSeedOptions[];
  /** Index into `plans` of the plan `default` resolves to; none when omitted (404 on `default`). */
  defaultPlan?: number;
  /** @default 'active' */
  accountState?: AccountState;
}

export interface OAuthClientOptions {
  clientId: string;
  /** The client is confidential: the token endpoint wants this secret. */
  clientSecret: string;
  /**
   * Where authorization may send the browser back to: `redirect_uri` must equal one of them, except
   * that an `http` URI on a loopback host (127.0.0.1, [::1], localhost) matches with any port
   * (RFC 8252, section 7.3).
   */
  redirectUris: string[];
  /** Shown on the consent page. @default the client id */
  name?: string;
  /** Whether `default` may replace a plan id for tokens of this application. @default false */
  defaultPlanSelection?: boolean;
  /**
   * Restricted mode: at most 25 access tokens from new authorizations of users other than the
   * owner; after that, new authorizations are refused on the authorization page. @default false
   */
  restricted?: boolean;
  /** The application's owner: a user id or an index into `users`. @default the first user */
  owner?: string | number;
}

/**
 * How `/oauth/authorize` answers: `page` shows the sign-in and consent pages a browser clicks
 * through; `approve` and `deny` answer at once, the way a test wants a redirect it can follow.
 */
export interface OAuthConsentOptions {
  mode: 'page' | 'approve' | 'deny';
  /** With `approve`: who approves, a user id or an index into `users`. @default the first user */
  user?: string | number;
  /** With `approve`, for applications with default plan selection: the plan `default` will mean. @default the user's default plan */
  defaultPlanId?: string;
}

/** Which OAuth grants `revokeOAuthGrants` ends; every given criterion must match. */
export interface OAuthGrantFilter {
  /** An access token or a not yet used refresh token of the grant. */
  token?: string;
  userId?: string;
  clientId?: string;
}

export interface LatencyOptions {
  /** Added to every response. @default 0 */
  fixedMs?: number;
  /** Uniform random extra delay in [0, jitterMs), from the seeded generator. @default 0 */
  jitterMs?: number;
}

export type FaultKind =
  /** 500 internal_server_error with the interface's error body. */
  | 'status500'
  /** 503 service_unavailable with the interface's error body. */
  | 'status503'
  /** Accept the request and never answer (until the client gives up or the sandbox closes). */
  | 'hang'
  /** Destroy the socket without a response. */
  | 'drop'
  /** 200 with a body that is not valid JSON. */
  | 'malformed'
  /**
   * Apply the write, but leave no trace for deltas: `server_knowledge` does not advance and the
   * rows it changed keep their knowledge, so no delta request ever brings the change, while full
   * reads and the plan export show it. Only writes (POST, PUT, PATCH, DELETE) match; a read
   * never uses up `times`. A replica kept by deltas drifts from the upstream this way.
   */
  | 'silent';

export interface FaultRule {
  kind: FaultKind;
  /** Only requests for this operation; all when omitted. */
  operationId?: OperationId;
  /** Only this HTTP method; all when omitted. */
  method?: string;
  /** Probability in [0, 1] that a matching request gets the fault, from the seeded generator. @default 1 */
  rate?: number;
  /** Apply to at most this many matching requests, then the rule retires. @default unlimited */
  times?: number;
}

export interface SandboxOptions {
  /** 0 picks an ephemeral port. @default 0 */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default one user with token 'sandbox-demo-token' and read-only token 'sandbox-demo-read-only-token' */
  users?: SandboxUserOptions[];
  /** OAuth applications. @default the demo client (see README) */
  oauthClients?: OAuthClientOptions[];
  /** @default { mode: 'page' } */
  oauthConsent?: OAuthConsentOptions;
  /** Rolling-window rate limit per token; `false` disables it. @default { limit: 200, windowMs: 3_600_000 } */
  rateLimit?: { limit?: number; windowMs?: number } | false;
  /** Source of "now" for dates, the current month, knowledge timestamps and the rate window. @default system clock */
  clock?: Clock;
  latency?: LatencyOptions;
  faults?: FaultRule[];
  /** Seed of the generator used for latency jitter and fault rates. @default 1 */
  randomSeed?: number;
}

/** One HTTP request the sandbox received, in arrival order. */
export interface SandboxCall {
  /** `null` for paths that matched no operation (404.1) and for OAuth endpoints. */
  operationId: OperationId | null;
  /**
   * What was called: the operationId under `/v1`; for OAuth `oauth.authorize` (GET),
   * `oauth.consent` (the consent page's POST), `oauth.token.authorization_code`,
   * `oauth.token.refresh_token` or `oauth.token` (another or no grant type); `null` when the
   * path named nothing.
   */
  endpoint: string | null;
  method: string;
  /** Path without the query string, e.g. `/v1/plans/…/accounts`. */
  path: string;
  query: Record<string, string>;
  /** Final HTTP status, or `null` for a hung or dropped request. */
  status: number | null;
  /** The presented token, when one was presented (kept in memory only, never printed). */
  token: string | null;
  /** Epoch ms by the sandbox clock. */
  at: number;
}

export interface SandboxUser {
  readonly userId: string;
  readonly name: string;
  readonly token: string;
  readonly readOnlyToken: string | null;
  readonly planIds: readonly string[];
}

export interface Sandbox {
  /** Base URL of the REST interface, including `/v1`, e.g. `http://127.0.0.1:43121/v1`. */
  readonly url: string;
  /** Scheme, host and port; the OAuth endpoints live at `${origin}/oauth/...`. */
  readonly origin: string;
  readonly users: readonly SandboxUser[];
  /** Every request received since start or the last `resetCalls()`. */
  calls(): readonly SandboxCall[];
  /** How many of those calls each endpoint received (keys as `SandboxCall.endpoint`). */
  callCounts(): Readonly<Record<string, number>>;
  resetCalls(): void;
  setLatency(latency: LatencyOptions): void;
  /** Replaces the active fault rules. */
  setFaults(faults: FaultRule[]): void;
  /** Puts a user's account in a state (by user id); takes effect with the next request. */
  setAccountState(userId: string, state: AccountState): void;
  /** Changes how `/oauth/authorize` answers from the next request on. */
  setOAuthConsent(consent: OAuthConsentOptions): void;
  /**
   * Ends the OAuth grants that match, as a user removing an application in the product's
   * settings would: their access tokens get 401 and their refresh tokens `invalid_grant`.
   * Returns how many grants it ended.
   */
  revokeOAuthGrants(filter: OAuthGrantFilter): number;
  /**
   * Changes a line of a split transaction the way the product's own apps can and the REST
   * interface cannot (it keeps an existing split's lines): its memo and its category. An ordinary
   * change (a new server knowledge, carried by deltas) unless `silent`, which makes it the
   * `silent` fault's kind of change: rows change, no delta ever brings it. Throws a RangeError
   * naming what is unknown or wrong.
   */
  editSplitLine(
    planId: string,
    subtransactionId: string,
    changes: SplitLineEdit,
    options?: { silent?: boolean },
  ): void;
  /** Stops listening, ends hung requests and resolves when every socket is closed. */
  close(): Promise<void>;
}

/** What `editSplitLine` may change; an absent field stays as it is. */
export interface SplitLineEdit {
  memo?: string | null;
  /** A live category of the plan, or null for none. */
  categoryId?: string | null;
}

/** Who a request acts as: resolved from its token by the sandbox's token registry. */
export type Scope = 'full' | 'read-only';

export interface OAuthGrantInfo {
  clientId: string;
  /** Whether the application may use the `default` plan alias. */
  defaultPlanSelection: boolean;
  /** The plan the user picked as default when approving (only with default plan selection). */
  defaultPlanId: string | null;
}

export interface Principal {
  userId: string;
  scope: Scope;
  kind: 'personal' | 'oauth';
  oauth: OAuthGrantInfo | null;
}
