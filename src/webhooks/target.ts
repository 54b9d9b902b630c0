/**
 * Where deliveries may go (no server-side request forgery): `https` URLs whose host resolves only
 * to public addresses, unless the operator allows private ones (then also `http` to a loopback
 * host, which is what local receivers and the tests use). The check runs after resolution, in
 * the connection's own `lookup`, so the socket connects to the very address that was checked (a
 * name that resolves elsewhere a second time changes nothing). Redirects are never followed:
 * undici's `request` does not, and a 3xx counts as a failed delivery.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';

/** Addresses that are not the public Internet: private, loopback, link-local, reserved, multicast. */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address (v4 or v6, v4-mapped v6 as its v4) is on the public Internet. */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isPublicAddress(mapped);
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a URL can never be a target, or null: syntax and scheme, before any resolution. Only
 * `https`; `http` too for a loopback host when private targets are allowed.
 */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL such as https://hooks.example.com/plans';
  }
  if (raw.length > 2_048) return 'must be at most 2,048 characters';
  if (url.username || url.password) return 'must not carry a user name or password';
  const loopbackHttp = allowPrivate && url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !loopbackHttp) return `must use https; got ${url.protocol}`;
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) !== 0 && !allowPrivate && !isPublicAddress(literal)) {
    return `must reach a public address; ${literal} is private, loopback or reserved`;
  }
  return null;
}

/** A target refused at connection time: it resolved to an address that is not allowed. */
export class TargetRefusedError extends Error {
  override readonly name = 'TargetRefusedError';
}

/**
 * The connection's `lookup`: resolves every address of the name and refuses the connection when
 * any of them is not public (a name pointing both ways is not trusted), unless private ones are
 * allowed. What it answers is what the socket connects to.
 */
export function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const refused = allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (refused || addresses.length === 0) {
        callback(
          new TargetRefusedError(
            refused
              ? `${hostname} resolves to ${refused.address}, which is not a public address`
              : `${hostname} resolves to no address`,
          ),
          '',
          0,
        );
        return;
      }
      if (options.all) {
        (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
      } else {
        const [first] = addresses as [LookupAddress];
        callback(null, first.address, first.family);
      }
    });
  };
}

/** The dispatcher deliveries go through: connections made only to checked addresses. */
export function createTargetDispatcher(options: {
  allowPrivate: boolean;
  timeoutMs: number;
  connections: number;
}): Agent {
  return new Agent({
    connect: { lookup: checkedLookup(options.allowPrivate), timeout: options.timeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connections: options.connections,
  });
}
