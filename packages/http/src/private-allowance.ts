import net from 'node:net';

/**
 * The loopback, private and CGNAT targets `allowPrivateNetwork` lets through, read once from its setting: `true`
 * every one; a list only the host names (`docs.corp.example`), name suffixes (`*.corp.example`) and addresses or
 * ranges (`10.1.0.0/16`, `127.0.0.1`) it names. Link-local (cloud metadata) and the other special kinds stay
 * refused whatever it says.
 */
interface PrivateAllowance {
  names: ReadonlySet<string>;
  suffixes: readonly string[];
  ranges: net.BlockList;
}

const allowances = new WeakMap<readonly string[], PrivateAllowance>();

/** `10.1.0.0/16` or `fd00::/8` as its network and prefix length, when it is one. */
function cidrOf(entry: string): { network: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const slash = entry.indexOf('/');
  if (slash < 0) return undefined;
  const network = entry.slice(0, slash);
  const family = net.isIP(network);
  const prefix = Number(entry.slice(slash + 1));
  if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) return undefined;
  return { network, prefix, family: family === 4 ? 'ipv4' : 'ipv6' };
}

const HOST_NAME = /^(?:\*\.)?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * What an entry of an `allowPrivateNetwork` list is (`undefined`: none of them, a mistake to report): an address, a
 * range, a host name or a `*.` suffix of names.
 */
export function privateNetworkEntryKind(entry: string): 'address' | 'range' | 'name' | 'suffix' | undefined {
  const text = entry.trim().toLowerCase();
  if (net.isIP(text.replace(/^\[|\]$/g, ''))) return 'address';
  if (cidrOf(text)) return 'range';
  if (text.length <= 253 && HOST_NAME.test(text)) return text.startsWith('*.') ? 'suffix' : 'name';
  return undefined;
}

function allowanceOf(list: readonly string[]): PrivateAllowance {
  let allowance = allowances.get(list);
  if (allowance === undefined) {
    const names = new Set<string>();
    const suffixes: string[] = [];
    const ranges = new net.BlockList();
    for (const raw of list) {
      const entry = raw.trim().toLowerCase();
      const kind = privateNetworkEntryKind(entry);
      if (kind === 'address') {
        const address = entry.replace(/^\[|\]$/g, '');
        ranges.addAddress(address, net.isIP(address) === 4 ? 'ipv4' : 'ipv6');
      } else if (kind === 'range') {
        const cidr = cidrOf(entry) as NonNullable<ReturnType<typeof cidrOf>>;
        ranges.addSubnet(cidr.network, cidr.prefix, cidr.family);
      } else if (kind === 'suffix') suffixes.push(entry.slice(1));
      else if (kind === 'name') names.add(entry);
    }
    allowance = { names, suffixes, ranges };
    allowances.set(list, allowance);
  }
  return allowance;
}

/** Whether `setting` lets private targets through for requests to `hostname` (as written in the URL), by name. */
export function allowsPrivateHost(setting: boolean | readonly string[] | undefined, hostname: string): boolean {
  if (setting === true) return true;
  if (!Array.isArray(setting) || setting.length === 0) return false;
  const { names, suffixes } = allowanceOf(setting);
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  return names.has(host) || suffixes.some((suffix) => host.endsWith(suffix));
}

/** Whether `setting` lets the private `address` through by its range (a list naming it or a range holding it). */
export function allowsPrivateAddress(setting: boolean | readonly string[] | undefined, address: string): boolean {
  if (setting === true) return true;
  if (!Array.isArray(setting) || setting.length === 0) return false;
  const unbracketed = address.replace(/^\[|\]$/g, '');
  // (an IPv6 zone, `fe80::1%eth0`, is no part of the address)
  const zone = unbracketed.indexOf('%');
  const bare = zone < 0 ? unbracketed : unbracketed.slice(0, zone);
  const family = net.isIP(bare);
  if (family === 0) return false;
  const { ranges } = allowanceOf(setting);
  if (ranges.check(bare, family === 4 ? 'ipv4' : 'ipv6')) return true;
  // an IPv4-mapped IPv6 address (`::ffff:10.1.2.3`) is its IPv4 address
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  return mapped !== undefined && ranges.check(mapped, 'ipv4');
}
