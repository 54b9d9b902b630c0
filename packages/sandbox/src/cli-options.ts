/**
 * `npx plans-sandbox` / `npm run sandbox` options: flags first, then SANDBOX_* environment variables, then defaults.
 * Pure: turns argv and env into sandbox options or an error message naming the bad flag.
 * `node:util` `parseArgs` splits the command line; this module only checks the values.
 */
import { parseArgs } from 'node:util';
import type { OperationId } from '@plans-gateway/rest-contract';
import type {
  AccountState,
  FaultKind,
  FaultRule,
  OAuthClientOptions,
  OAuthConsentOptions,
  SandboxOptions,
} from './core/api.js';
import { ACCOUNT_STATES } from './http/account-state.js';
import { FAULT_KINDS } from './http/faults.js';
import { redirectUriProblem } from './http/oauth-clients.js';
import { ROUTES } from './http/routes.js';
import {
  DEMO_OAUTH_CLIENT,
  DEMO_READ_ONLY_TOKEN,
  DEMO_TOKEN,
  demoClient,
  MAX_SEED_TRANSACTIONS,
} from './sandbox.js';
import { DEFAULT_SEED_TRANSACTIONS } from './seed/index.js';

export const DEFAULT_CLI_PORT = 3000;

export interface CliSettings {
  port: number;
  host: string;
  token: string;
  readOnlyToken: string;
  transactions: number;
  seed: number;
  latencyMs: number;
  jitterMs: number;
  faults: FaultRule[];
  /** `false` turns the rate limit off. */
  rateLimit: number | false;
  accountState: AccountState;
  /** The demo OAuth application's redirect URIs; `null` keeps its defaults. */
  oauthRedirectUris: string[] | null;
  /** More OAuth applications, beside the demo one. */
  oauthClients: OAuthClientOptions[];
  oauthConsent: OAuthConsentOptions['mode'];
}

const OAUTH_CONSENT_MODES: readonly OAuthConsentOptions['mode'][] = ['page', 'approve', 'deny'];

export type CliParse =
  | { kind: 'run'; settings: CliSettings }
  | { kind: 'help' }
  | { kind: 'error'; message: string };

class OptionError extends Error {}

function integer(value: string, name: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
    throw new OptionError(`${name} must be an integer from ${min} to ${max}, got '${value}'`);
  }
  return Number(value);
}

function nonEmpty(value: string, name: string): string {
  if (value.trim() === '') throw new OptionError(`${name} must not be empty`);
  return value;
}

function oneOf<T extends string>(value: string, name: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new OptionError(`${name} must be one of ${allowed.join(', ')}, got '${value}'`);
  }
  return value as T;
}

/**
 * A fault rule: `kind[,op=<operationId>][,method=<METHOD>][,rate=<0..1>][,times=<n>]`,
 * e.g. `status503,rate=0.1` or `hang,op=getPlanById,times=1`.
 */
export function parseFaultRule(text: string, name: string): FaultRule {
  const [kind = '', ...parts] = text.split(',').map((part) => part.trim());
  if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
    throw new OptionError(
      `${name}: fault kind must be one of ${FAULT_KINDS.join(', ')}, got '${kind}'`,
    );
  }
  const rule: FaultRule = { kind: kind as FaultKind };
  for (const part of parts) {
    const [key, value = ''] = part.split('=').map((s) => s.trim());
    if (key === 'op' || key === 'operation') {
      if (!ROUTES.some((route) => route.operationId === value)) {
        throw new OptionError(`${name}: '${value}' is not an operationId of the interface`);
      }
      rule.operationId = value as OperationId;
    } else if (key === 'method') {
      rule.method = nonEmpty(value, `${name} method`).toUpperCase();
    } else if (key === 'rate') {
      const rate = Number(value);
      if (value === '' || !(rate >= 0 && rate <= 1))
        throw new OptionError(`${name}: rate must be a number from 0 to 1, got '${value}'`);
      rule.rate = rate;
    } else if (key === 'times') {
      rule.times = integer(value, `${name} times`, 0, Number.MAX_SAFE_INTEGER);
    } else {
      throw new OptionError(
        `${name}: unknown fault setting '${key}' (use op=, method=, rate=, times=)`,
      );
    }
  }
  return rule;
}

/** Several fault rules separated by ';' (how SANDBOX_FAULTS holds them). */
function faultRules(text: string, name: string): FaultRule[] {
  return text
    .split(';')
    .filter((rule) => rule.trim() !== '')
    .map((rule) => parseFaultRule(rule, name));
}

function redirectUri(value: string, name: string): string {
  const problem = redirectUriProblem(value);
  if (problem) throw new OptionError(`${name}: redirect URI '${value}' ${problem}`);
  return value;
}

/** Redirect URIs separated by white space (how SANDBOX_OAUTH_REDIRECT_URIS holds them). */
const redirectUris = (text: string, name: string): string[] =>
  text
    .split(/\s+/)
    .filter((uri) => uri !== '')
    .map((uri) => redirectUri(uri, name));

/**
 * An OAuth application:
 * `id=<client_id>,secret=<secret>,redirect-uri=<uri>[,redirect-uri=<uri>…][,name=<text>][,default-plan-selection]`.
 */
export function parseOAuthClient(text: string, name: string): OAuthClientOptions {
  const client: Partial<OAuthClientOptions> & { redirectUris: string[] } = { redirectUris: [] };
  for (const part of text.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const key = equals < 0 ? part : part.slice(0, equals).trim();
    const value = equals < 0 ? '' : part.slice(equals + 1).trim();
    if (key === 'id') client.clientId = nonEmpty(value, `${name} id`);
    else if (key === 'secret') client.clientSecret = nonEmpty(value, `${name} secret`);
    else if (key === 'redirect-uri') client.redirectUris.push(redirectUri(value, name));
    else if (key === 'name') client.name = nonEmpty(value, `${name} name`);
    else if (key === 'default-plan-selection' && equals < 0) client.defaultPlanSelection = true;
    else {
      throw new OptionError(
        `${name}: unknown application setting '${part}' (use id=, secret=, redirect-uri=, name=, default-plan-selection)`,
      );
    }
  }
  const { clientId, clientSecret } = client;
  if (!clientId || !clientSecret || client.redirectUris.length === 0)
    throw new OptionError(`${name}: an application needs id=, secret= and redirect-uri=`);
  return { ...client, clientId, clientSecret };
}

/** Each setting: its `parseArgs` name (the flag without `--`), its variable, and how it applies. */
const SETTINGS = {
  port: { env: 'SANDBOX_PORT', apply: (s, v, n) => (s.port = integer(v, n, 0, 65535)) },
  host: { env: 'SANDBOX_HOST', apply: (s, v, n) => (s.host = nonEmpty(v, n)) },
  token: { env: 'SANDBOX_TOKEN', apply: (s, v, n) => (s.token = nonEmpty(v, n)) },
  'read-only-token': {
    env: 'SANDBOX_READ_ONLY_TOKEN',
    apply: (s, v, n) => (s.readOnlyToken = nonEmpty(v, n)),
  },
  transactions: {
    env: 'SANDBOX_TRANSACTIONS',
    apply: (s, v, n) => (s.transactions = integer(v, n, 0, MAX_SEED_TRANSACTIONS)),
  },
  seed: {
    env: 'SANDBOX_SEED',
    apply: (s, v, n) => (s.seed = integer(v, n, -(2 ** 31), 2 ** 31 - 1)),
  },
  latency: { env: 'SANDBOX_LATENCY_MS', apply: (s, v, n) => (s.latencyMs = integer(v, n, 0, 6e5)) },
  jitter: { env: 'SANDBOX_JITTER_MS', apply: (s, v, n) => (s.jitterMs = integer(v, n, 0, 6e5)) },
  'rate-limit': {
    env: 'SANDBOX_RATE_LIMIT',
    apply: (s, v, n) => (s.rateLimit = v === 'off' ? false : integer(v, n, 1, 1_000_000)),
  },
  'account-state': {
    env: 'SANDBOX_ACCOUNT_STATE',
    apply: (s, v, n) => (s.accountState = oneOf(v, n, ACCOUNT_STATES)),
  },
  // The variable holds several rules separated by ';'; the flag can be repeated.
  fault: { env: 'SANDBOX_FAULTS', apply: (s, v, n) => s.faults.push(...faultRules(v, n)) },
  'oauth-redirect-uri': {
    env: 'SANDBOX_OAUTH_REDIRECT_URIS',
    apply: (s, v, n) => {
      s.oauthRedirectUris = [...(s.oauthRedirectUris ?? []), ...redirectUris(v, n)];
    },
  },
  'oauth-client': {
    env: 'SANDBOX_OAUTH_CLIENTS',
    apply: (s, v, n) => {
      for (const spec of v.split(';').filter((part) => part.trim() !== ''))
        s.oauthClients.push(parseOAuthClient(spec, n));
    },
  },
  'oauth-consent': {
    env: 'SANDBOX_OAUTH_CONSENT',
    apply: (s, v, n) => (s.oauthConsent = oneOf(v, n, OAUTH_CONSENT_MODES)),
  },
} satisfies Record<
  string,
  { env: string; apply(settings: CliSettings, value: string, name: string): void }
>;

type SettingName = keyof typeof SETTINGS;

/** Settings whose flag may repeat: the flags replace what the environment said, and add up. */
const REPEATABLE: Partial<Record<SettingName, (settings: CliSettings) => void>> = {
  fault: (s) => {
    s.faults = [];
  },
  'oauth-redirect-uri': (s) => {
    s.oauthRedirectUris = null;
  },
  'oauth-client': (s) => {
    s.oauthClients = [];
  },
};

const ARG_OPTIONS = {
  ...Object.fromEntries(
    Object.keys(SETTINGS).map((name) => [
      name,
      { type: 'string' as const, multiple: Object.hasOwn(REPEATABLE, name) },
    ]),
  ),
  help: { type: 'boolean', short: 'h' },
} as const;

const isSetting = (name: string): name is SettingName => Object.hasOwn(SETTINGS, name);

export const CLI_USAGE = `Usage: npx plans-sandbox [options]   (in this repository: npm run sandbox -- [options])

Runs the REST sandbox alone: a seeded demo plan behind the Plans REST interface at /v1.

Options (each also as an environment variable; flags win):
  --port <n>              SANDBOX_PORT             port to listen on (default ${DEFAULT_CLI_PORT}; 0 = any free port)
  --host <host>           SANDBOX_HOST             interface to bind (default 127.0.0.1)
  --token <t>             SANDBOX_TOKEN            full-access token (default ${DEMO_TOKEN})
  --read-only-token <t>   SANDBOX_READ_ONLY_TOKEN  read-only token (default ${DEMO_READ_ONLY_TOKEN})
  --transactions <n>      SANDBOX_TRANSACTIONS     transactions in the demo plan (default ${DEFAULT_SEED_TRANSACTIONS}, up to ${MAX_SEED_TRANSACTIONS})
  --seed <n>              SANDBOX_SEED             seed of the demo plan (default 1)
  --latency <ms>          SANDBOX_LATENCY_MS       delay added to every response (default 0)
  --jitter <ms>           SANDBOX_JITTER_MS        extra random delay in [0, ms) (default 0)
  --rate-limit <n|off>    SANDBOX_RATE_LIMIT       requests per token per rolling hour (default 200)
  --account-state <s>     SANDBOX_ACCOUNT_STATE    ${ACCOUNT_STATES.join(' | ')} (default active):
                                                   the 403.1 / 403.2 / 403.4 the product answers in that state
  --fault <rule>          SANDBOX_FAULTS           inject faults; repeat the flag, or separate rules with ';'
                                                   rule: kind[,op=<operationId>][,method=<M>][,rate=<0..1>][,times=<n>]
                                                   kinds: ${FAULT_KINDS.join(', ')}
  --oauth-redirect-uri <uri>  SANDBOX_OAUTH_REDIRECT_URIS
                                                   the demo OAuth application's redirect URIs, replacing its
                                                   defaults; repeat the flag, or separate URIs with spaces
                                                   (http on 127.0.0.1, [::1] or localhost: any port matches)
  --oauth-client <app>    SANDBOX_OAUTH_CLIENTS    register another OAuth application; repeat the flag, or
                                                   separate applications with ';'
                                                   app: id=<id>,secret=<s>,redirect-uri=<uri>[,redirect-uri=<uri>]
                                                        [,name=<text>][,default-plan-selection]
  --oauth-consent <mode>  SANDBOX_OAUTH_CONSENT    page | approve | deny (default page): what /oauth/authorize
                                                   does, show the consent page or answer at once
  --help                                           show this help
`;

interface Flag {
  name: SettingName;
  flag: string;
  value: string;
}

/**
 * Private: the command line as flags, or `help`. `parseArgs` runs non-strict so that this module
 * words the errors (naming the flag) and, as before, a value may start with a single '-'
 * (`--seed -5`).
 */
function flagsOf(argv: readonly string[]): Flag[] | 'help' {
  const { values, tokens } = parseArgs({
    args: [...argv],
    options: ARG_OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (values.help === true) return 'help';
  const flags: Flag[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      throw new OptionError(`unexpected argument '${token.value}' (see --help)`);
    }
    if (token.kind !== 'option') continue;
    if (!isSetting(token.name)) {
      throw new OptionError(`unknown option '${token.rawName}' (see --help)`);
    }
    const { value } = token;
    if (value === undefined || (!token.inlineValue && value.startsWith('--'))) {
      throw new OptionError(`${token.rawName} needs a value`);
    }
    flags.push({ name: token.name, flag: token.rawName, value });
  }
  return flags;
}

export function parseCliOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): CliParse {
  const settings: CliSettings = {
    port: DEFAULT_CLI_PORT,
    host: '127.0.0.1',
    token: DEMO_TOKEN,
    readOnlyToken: DEMO_READ_ONLY_TOKEN,
    transactions: DEFAULT_SEED_TRANSACTIONS,
    seed: 1,
    latencyMs: 0,
    jitterMs: 0,
    faults: [],
    rateLimit: 200,
    accountState: 'active',
    oauthRedirectUris: null,
    oauthClients: [],
    oauthConsent: 'page',
  };
  try {
    const flags = flagsOf(argv);
    if (flags === 'help') return { kind: 'help' };
    for (const setting of Object.values(SETTINGS)) {
      const value = env[setting.env];
      if (value !== undefined && value !== '') setting.apply(settings, value, setting.env);
    }
    // A flag replaces what the environment said; repeated flags add up.
    for (const [name, reset] of Object.entries(REPEATABLE))
      if (flags.some((flag) => flag.name === name)) reset?.(settings);
    for (const { name, flag, value } of flags) SETTINGS[name].apply(settings, value, flag);
    if (settings.token === settings.readOnlyToken) {
      throw new OptionError('--token and --read-only-token must differ');
    }
    const clientIds = [DEMO_OAUTH_CLIENT.clientId, ...settings.oauthClients.map((c) => c.clientId)];
    const twice = clientIds.find((id, index) => clientIds.indexOf(id) !== index);
    if (twice !== undefined)
      throw new OptionError(`--oauth-client: the client id '${twice}' is registered twice`);
    return { kind: 'run', settings };
  } catch (error) {
    if (error instanceof OptionError) return { kind: 'error', message: error.message };
    throw error;
  }
}

/** The sandbox options the settings describe (one user, one demo plan that is also the default). */
export function sandboxOptionsOf(settings: CliSettings): SandboxOptions {
  return {
    port: settings.port,
    host: settings.host,
    users: [
      {
        token: settings.token,
        readOnlyToken: settings.readOnlyToken,
        plans: [{ seed: settings.seed, transactions: settings.transactions }],
        defaultPlan: 0,
        accountState: settings.accountState,
      },
    ],
    rateLimit: settings.rateLimit === false ? false : { limit: settings.rateLimit },
    latency: { fixedMs: settings.latencyMs, jitterMs: settings.jitterMs },
    faults: settings.faults,
    oauthClients: [
      settings.oauthRedirectUris === null
        ? demoClient()
        : { ...demoClient(), redirectUris: [...settings.oauthRedirectUris] },
      ...settings.oauthClients,
    ],
    oauthConsent: { mode: settings.oauthConsent },
  };
}
