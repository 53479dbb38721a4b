import net from 'node:net';
import type { HttpClientOptions } from '@pro-context/kernel';
import { allowsPrivateAddress } from './private-allowance.js';

/** Why an address is special. `undefined` from {@link classifyAddress} means an ordinary public address. */
type AddressKind =
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link-local'
  | 'multicast'
  | 'broadcast'
  | 'unspecified'
  | 'reserved'
  | 'documentation'
  | 'tunnel';

/** Kinds that `allowPrivateNetwork: true` lets through (tests, intranets, tailnets); the rest stay refused. */
const privateKinds: ReadonlySet<AddressKind> = new Set<AddressKind>(['loopback', 'private', 'shared']);

const kindDescriptions: Record<AddressKind, string> = {
  loopback: 'a loopback address',
  private: 'a private-network address',
  shared: 'a carrier-grade NAT (shared) address',
  'link-local': 'a link-local address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  unspecified: 'an unspecified address',
  reserved: 'a reserved address',
  documentation: 'a documentation-only address',
  tunnel: 'a Teredo tunnel address',
};

function blockList(ranges: [string, number][], family: 'ipv4' | 'ipv6'): net.BlockList {
  const list = new net.BlockList();
  for (const [address, prefix] of ranges) list.addSubnet(address, prefix, family);
  return list;
}

// Order matters: the broadcast address sits inside 240/4, so it is tested first.
const ipv4Kinds: [AddressKind, net.BlockList][] = [
  ['unspecified', blockList([['0.0.0.0', 8]], 'ipv4')],
  ['loopback', blockList([['127.0.0.0', 8]], 'ipv4')],
  [
    'private',
    blockList(
      [
        ['10.0.0.0', 8],
        ['172.16.0.0', 12],
        ['192.168.0.0', 16],
      ],
      'ipv4',
    ),
  ],
  ['shared', blockList([['100.64.0.0', 10]], 'ipv4')],
  ['link-local', blockList([['169.254.0.0', 16]], 'ipv4')],
  ['multicast', blockList([['224.0.0.0', 4]], 'ipv4')],
  ['broadcast', blockList([['255.255.255.255', 32]], 'ipv4')],
  [
    'documentation',
    blockList(
      [
        ['192.0.2.0', 24],
        ['198.51.100.0', 24],
        ['203.0.113.0', 24],
      ],
      'ipv4',
    ),
  ],
  [
    'reserved',
    blockList(
      [
        ['192.0.0.0', 24], // IETF protocol assignments
        ['192.88.99.0', 24], // deprecated 6to4 relay anycast
        ['198.18.0.0', 15], // benchmarking
        ['240.0.0.0', 4],
      ],
      'ipv4',
    ),
  ],
];

const ipv6Kinds: [AddressKind, net.BlockList][] = [
  [
    'private',
    blockList(
      [
        ['fc00::', 7], // unique local addresses
        ['fec0::', 10], // deprecated site-local
        ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
      ],
      'ipv6',
    ),
  ],
  ['link-local', blockList([['fe80::', 10]], 'ipv6')],
  ['multicast', blockList([['ff00::', 8]], 'ipv6')],
  ['documentation', blockList([['2001:db8::', 32]], 'ipv6')],
  ['tunnel', blockList([['2001::', 32]], 'ipv6')],
  ['reserved', blockList([['100::', 64]], 'ipv6')], // discard-only
];

/** Parses a valid IPv6 text form (checked with `net.isIP` first) into its 8 groups. */
function ipv6Groups(address: string): number[] {
  // A trailing dotted quad (::ffff:127.0.0.1) stands for the last two groups.
  const text = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_match, a, b, c, d) =>
    [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)].map((group) => group.toString(16)).join(':'),
  );
  const parse = (part: string) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const [head = '', tail] = text.split('::');
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function embeddedIpv4(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

interface Classification {
  kind: AddressKind;
  /** How the IPv4 address was embedded, when it was (`IPv4-mapped IPv6`). */
  via?: string;
}

function classifyIpv4(address: string): Classification | undefined {
  for (const [kind, list] of ipv4Kinds) if (list.check(address, 'ipv4')) return { kind };
  return undefined;
}

function classifyIpv6(address: string): Classification | undefined {
  const g = ipv6Groups(address.replace(/%.*$/, ''));
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  const embedded = (high: number, low: number, via: string): Classification | undefined => {
    const inner = classifyIpv4(embeddedIpv4(high, low));
    return inner && { kind: inner.kind, via };
  };
  if (firstFiveZero && g5 === 0 && g6 === 0 && g7 === 0) return { kind: 'unspecified' };
  if (firstFiveZero && g5 === 0 && g6 === 0 && g7 === 1) return { kind: 'loopback' };
  if (firstFiveZero && g5 === 0xffff) return embedded(g6, g7, 'IPv4-mapped IPv6');
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) {
    return embedded(g6, g7, 'IPv4-translated IPv6');
  }
  // Deprecated IPv4-compatible form (::a.b.c.d); nothing legitimate uses it, so anything here is refused.
  if (firstFiveZero && g5 === 0) return embedded(g6, g7, 'IPv4-compatible IPv6') ?? { kind: 'reserved' };
  // NAT64 and 6to4 reach the embedded IPv4 address: judge that one. A blanket refusal would break
  // IPv6-only hosts behind DNS64, where every public IPv4 site resolves into 64:ff9b::/96.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return embedded(g6, g7, 'NAT64 IPv6');
  }
  if (g0 === 0x2002) return embedded(g1, g2, '6to4 IPv6');
  for (const [kind, list] of ipv6Kinds) if (list.check(address.replace(/%.*$/, ''), 'ipv6')) return { kind };
  return undefined;
}

/** Classifies an IP address; `undefined` for an ordinary public address or a non-IP string. */
function classifyAddress(address: string): Classification | undefined {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = net.isIP(bare.replace(/%.*$/, ''));
  if (family === 4) return classifyIpv4(bare);
  if (family === 6) return classifyIpv6(bare);
  return undefined;
}

/**
 * Why the guard refuses `address`, as a phrase for an error message ("a loopback address"), or
 * `undefined` when it may be connected to. Strings that are not IP addresses are refused.
 */
export function addressRefusal(
  address: string,
  options: Pick<HttpClientOptions, 'allowPrivateNetwork'> = {},
): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '');
  if (net.isIP(bare.replace(/%.*$/, '')) === 0) return 'not an IP address';
  const found = classifyAddress(bare);
  if (!found) return undefined;
  // `true` lets every private target through; a list, the addresses and ranges it names (its host names are the
  // guard's to match: it knows the name a request was made to)
  if (privateKinds.has(found.kind) && allowsPrivateAddress(options.allowPrivateNetwork, bare)) return undefined;
  let text = kindDescriptions[found.kind];
  if (found.kind === 'link-local' && /^(::ffff:)?169\.254\.169\.254$|^::ffff:a9fe:a9fe$/i.test(bare)) {
    text += ' (the cloud metadata service)';
  }
  return found.via ? `${text} (${found.via})` : text;
}

/**
 * Whether the HTTP client's SSRF guard refuses to connect to `address` (an IPv4 or IPv6 literal).
 *
 * Refused: loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), CGNAT 100.64/10, link-local
 * (169.254/16, fe80::/10, so cloud metadata), multicast, broadcast, unspecified (0/8, `::`), reserved and
 * documentation ranges, Teredo, and IPv4 addresses embedded in IPv6 (IPv4-mapped, -translated,
 * -compatible, NAT64, 6to4) when the embedded address is refused. `allowPrivateNetwork: true` lets
 * loopback, private and CGNAT addresses through (a list: those it names by address or range); the others stay
 * refused. Non-IP strings are refused.
 */
export function isBlockedAddress(
  address: string,
  options: Pick<HttpClientOptions, 'allowPrivateNetwork'> = {},
): boolean {
  return addressRefusal(address, options) !== undefined;
}

/** Whether `hostname` is a loopback name by definition (RFC 6761: `localhost` and `*.localhost`). */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
