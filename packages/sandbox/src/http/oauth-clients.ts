/**
 * The registered OAuth applications: checked once at start (a bad registration names itself),
 * and the redirect URI rule authorization applies to them.
 */
import type { OAuthClientOptions } from '../core/api.js';
import type { SandboxState, UserState } from '../store/state.js';

export interface RegisteredClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUris: readonly string[];
  readonly name: string;
  readonly defaultPlanSelection: boolean;
  readonly restricted: boolean;
  readonly ownerUserId: string;
}

/** The user a sandbox-only parameter or option names: a user id, or a zero-based index. */
export function findUser(state: SandboxState, ref: string | number): UserState | null {
  const users = [...state.users.values()];
  if (typeof ref === 'number') return Number.isInteger(ref) ? (users[ref] ?? null) : null;
  if (/^\d+$/.test(ref)) return users[Number(ref)] ?? null;
  return state.users.get(ref.toLowerCase()) ?? null;
}

/** Why a URI cannot be registered as a redirect URI, or `null` when it can. */
export function redirectUriProblem(uri: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (parsed.hash !== '' || uri.includes('#')) return 'must not have a fragment (RFC 6749, 3.1.2)';
  return null;
}

function registered(
  spec: OAuthClientOptions,
  path: string,
  state: SandboxState,
  seen: Set<string>,
): RegisteredClient {
  if (typeof spec.clientId !== 'string' || spec.clientId.trim() === '')
    throw new TypeError(`createSandbox: ${path}.clientId is required`);
  if (seen.has(spec.clientId))
    throw new RangeError(`createSandbox: ${path}.clientId '${spec.clientId}' is used twice`);
  seen.add(spec.clientId);
  if (typeof spec.clientSecret !== 'string' || spec.clientSecret === '')
    throw new TypeError(`createSandbox: ${path}.clientSecret is required`);
  if (!Array.isArray(spec.redirectUris) || spec.redirectUris.length === 0)
    throw new TypeError(`createSandbox: ${path}.redirectUris must list at least one URI`);
  spec.redirectUris.forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem)
      throw new RangeError(`createSandbox: ${path}.redirectUris[${index}] '${uri}' ${problem}`);
  });
  const owner = findUser(state, spec.owner ?? 0);
  if (!owner) {
    throw new RangeError(
      `createSandbox: ${path}.owner '${String(spec.owner)}' is neither a user id nor an index into users`,
    );
  }
  return {
    clientId: spec.clientId,
    clientSecret: spec.clientSecret,
    redirectUris: [...spec.redirectUris],
    name: spec.name?.trim() || spec.clientId,
    defaultPlanSelection: spec.defaultPlanSelection ?? false,
    restricted: spec.restricted ?? false,
    ownerUserId: owner.id,
  };
}

export function registerClients(
  specs: readonly OAuthClientOptions[],
  state: SandboxState,
): ReadonlyMap<string, RegisteredClient> {
  const seen = new Set<string>();
  return new Map(
    specs.map((spec, index) => {
      const client = registered(spec, `oauthClients[${index}]`, state, seen);
      return [client.clientId, client];
    }),
  );
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Whether a presented redirect URI is one the client registered: the same string, or, for an
 * `http` URI on a loopback host, the same URI but for the port (RFC 8252, 7.3: a native app or a
 * local server picks its port when it starts).
 */
export function matchesRedirectUri(client: RegisteredClient, presented: string): boolean {
  if (client.redirectUris.includes(presented)) return true;
  let candidate: URL;
  try {
    candidate = new URL(presented);
  } catch {
    return false;
  }
  if (candidate.protocol !== 'http:' || !LOOPBACK_HOSTS.has(candidate.hostname)) return false;
  if (presented.includes('#')) return false;
  const withoutPort = (url: URL) => {
    const copy = new URL(url.href);
    copy.port = '';
    return copy.href;
  };
  return client.redirectUris.some((uri) => {
    const allowed = new URL(uri);
    return allowed.protocol === 'http:' && withoutPort(allowed) === withoutPort(candidate);
  });
}
