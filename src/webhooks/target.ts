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
import { Agent, type Dispatcher, request } from 'undici';

/**
 * The project's table of what is not the public Internet, after the IANA IPv4 and IPv6
 * Special-Purpose Address Registries (and multicast). Every registry range is refused, also those
 * marked globally reachable: they are protocol anycast addresses, AS112 sinks and translation
 * prefixes, never a webhook receiver. `test/webhooks/parts.test.ts` checks the classifier over
 * each registry entry on its own.
 */
const IPV4_NOT_PUBLIC: readonly (readonly [network: string, prefix: number, what: string])[] = [
  ['0.0.0.0', 8, '"this network"'],
  ['10.0.0.0', 8, 'private use'],
  ['100.64.0.0', 10, 'shared address space (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link local (cloud metadata)'],
  ['172.16.0.0', 12, 'private use'],
  ['192.0.0.0', 24, 'IETF protocol assignments (DS-Lite, PCP and TURN anycast, NAT64 discovery)'],
  ['192.0.2.0', 24, 'documentation (TEST-NET-1)'],
  ['192.31.196.0', 24, 'AS112-v4'],
  ['192.52.193.0', 24, 'AMT'],
  ['192.88.99.0', 24, 'deprecated 6to4 relay anycast'],
  ['192.168.0.0', 16, 'private use'],
  ['192.175.48.0', 24, 'direct delegation AS112'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation (TEST-NET-2)'],
  ['203.0.113.0', 24, 'documentation (TEST-NET-3)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved, and the limited broadcast 255.255.255.255'],
];

/**
 * IPv6 outside global unicast (`2000::/3`) is never public: that alone refuses `::/128`, `::1`,
 * IPv4-compatible `::/96` (`::127.0.0.1` is `::7f00:1`), the discard and dummy prefixes
 * (`100::/64`, `100:0:0:1::/64`), local-use translation (`64:ff9b:1::/48`), SRv6 SIDs
 * (`5f00::/16`), unique-local, link-local, site-local and multicast. Within it, these:
 */
const IPV6_NOT_PUBLIC: readonly (readonly [network: string, prefix: number, what: string])[] = [
  [
    '2001::',
    23,
    'IETF protocol assignments (Teredo, benchmarking, AMT, AS112, ORCHID, DETs, anycast)',
  ],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4'],
  ['2620:4f:8000::', 48, 'direct delegation AS112'],
  ['3fff::', 20, 'documentation'],
];

/** IPv6 prefixes whose last 32 bits are an IPv4 address, judged as that address. */
const EMBEDDING_IPV4: readonly (readonly [network: string, what: string])[] = [
  ['::ffff:0:0', 'IPv4-mapped'],
  ['64:ff9b::', 'IPv4/IPv6 translation (NAT64, well-known prefix)'],
];

const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of IPV4_NOT_PUBLIC) NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of IPV6_NOT_PUBLIC) NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');
const EMBEDDED = EMBEDDING_IPV4.map(([network]) => {
  const list = new BlockList();
  list.addSubnet(network, 96, 'ipv6');
  return list;
});

/**
 * Whether an IP address is on the public Internet: IPv4 outside the table; IPv6 in global
 * unicast and outside the table, or an IPv4-mapped or NAT64 address whose IPv4 address is.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NOT_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return false;
  const bytes = ipv6Bytes(address);
  if (bytes === undefined) return false;
  const text = ipv6Text(bytes);
  if (EMBEDDED.some((list) => list.check(text, 'ipv6'))) {
    return isPublicAddress(bytes.subarray(12).join('.'));
  }
  return GLOBAL_UNICAST.check(text, 'ipv6') && !NOT_PUBLIC.check(text, 'ipv6');
}

/** Private: the 16 bytes of an IPv6 address (`::` and a dotted IPv4 tail allowed), or undefined. */
function ipv6Bytes(address: string): Buffer | undefined {
  if (address.includes('%')) return undefined; // a zone: link-local by definition
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail, extra] = text.split('::');
  if (extra !== undefined) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  const all = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right];
  const bytes = Buffer.alloc(16);
  for (const [index, group] of all.entries()) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return undefined;
    bytes.writeUInt16BE(Number.parseInt(group, 16), index * 2);
  }
  return bytes;
}

/** Private: the address in full hexadecimal groups, one form for `BlockList`. */
function ipv6Text(bytes: Buffer): string {
  return Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16)).join(':');
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
  readonly code = 'GW_ERR_TARGET_REFUSED';
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

/** What a checked target answered a post: its status and headers (the body is read and dropped). */
export interface TargetAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * Posts a JSON body to a target through `dispatcher` (one of `createTargetDispatcher`'s, whose
 * lookup refuses addresses the rules refuse): the one way besides deliveries that the gateway
 * sends HTTP to a URL it was given (routers' callback URLs, src/server/callback-subscriptions.ts).
 * At most `answerBytes` of the answer are read. Throws what the connection or `signal` threw.
 */
export async function postToTarget(
  url: string,
  body: string,
  options: {
    dispatcher: Dispatcher;
    signal: AbortSignal;
    headers: Readonly<Record<string, string>>;
    answerBytes: number;
  },
): Promise<TargetAnswer> {
  const answer = await request(url, {
    method: 'POST',
    dispatcher: options.dispatcher,
    signal: options.signal,
    headers: { ...options.headers },
    body,
  });
  await answer.body.dump({ limit: options.answerBytes });
  return { status: answer.statusCode, headers: answer.headers };
}
