import dns from 'node:dns';
import net from 'node:net';
import { ProContextError } from '@pro-context/kernel';
import type { buildConnector } from 'undici';
import { addressRefusal, isLocalhostName } from './address-policy.js';
import { allowsPrivateHost } from './private-allowance.js';

/** Which targets the guard lets through. */
export interface AddressPolicy {
  /** `true`: every loopback/private/CGNAT target; a list: the host names, suffixes and ranges it names. */
  allowPrivateNetwork: boolean | readonly string[];
  /**
   * Test-only: host names (as written in the URL) whose connections skip the address check. Lets a test
   * serve the first hop from loopback while every other host, redirects included, stays guarded.
   */
  trustedHosts: ReadonlySet<string>;
}

/** Raised inside the connector when a target is refused; the client turns it into `URL_NOT_ALLOWED`. */
export class AddressBlockedError extends Error {
  readonly code = 'ERR_SSRF_BLOCKED';
  constructor(
    readonly host: string,
    readonly reason: string,
    readonly address?: string,
  ) {
    super(
      address === undefined || address === host
        ? `Refused to connect to ${host}: ${reason}`
        : `Refused to connect to ${host}: it resolves to ${address}, ${reason}`,
    );
    this.name = 'AddressBlockedError';
  }
}

/** Finds an {@link AddressBlockedError} in an error or its causes. */
export function findBlocked(error: unknown): AddressBlockedError | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof AddressBlockedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

function isTrusted(policy: AddressPolicy, hostname: string): boolean {
  return policy.trustedHosts.size > 0 && policy.trustedHosts.has(bareHost(hostname));
}

/**
 * The address check's options for a request to `hostname`: every private target when the policy allows them all or
 * names the host (`docs.corp.example`, `*.corp.example`), else the ranges the policy names.
 */
function permitFor(policy: AddressPolicy, hostname: string): { allowPrivateNetwork: boolean | readonly string[] } {
  return { allowPrivateNetwork: allowsPrivateHost(policy.allowPrivateNetwork, hostname) || policy.allowPrivateNetwork };
}

/** The refusal for a host written in a URL (IP literal or `localhost` name), before any DNS. */
export function literalRefusal(hostname: string, policy: AddressPolicy): AddressBlockedError | undefined {
  const host = bareHost(hostname);
  if (isTrusted(policy, host)) return undefined;
  if (net.isIP(host)) {
    const reason = addressRefusal(host, permitFor(policy, host));
    return reason === undefined ? undefined : new AddressBlockedError(host, reason);
  }
  // Refused by name, so no DNS query is ever made for it (unless the policy lets private targets through, all or a
  // list: its lookup is then checked like any other name's).
  if (isLocalhostName(host) && !policy.allowPrivateNetwork) {
    return new AddressBlockedError(host, 'a loopback name');
  }
  return undefined;
}

/** Resolves `hostname` to all its addresses with `lookup`. */
export function lookupAll(lookup: net.LookupFunction, hostname: string): Promise<dns.LookupAddress[]> {
  return new Promise((resolve, reject) => {
    lookup(hostname, { all: true }, (error, address, family) => {
      if (error) reject(error);
      else resolve(Array.isArray(address) ? address : [{ address, family: family ?? net.isIP(address) }]);
    });
  });
}

/** The first refused address of `addresses`, as an error. */
export function resolvedRefusal(
  hostname: string,
  addresses: readonly dns.LookupAddress[],
  policy: AddressPolicy,
): AddressBlockedError | undefined {
  const permit = permitFor(policy, hostname);
  for (const { address } of addresses) {
    const reason = addressRefusal(address, permit);
    if (reason !== undefined) return new AddressBlockedError(bareHost(hostname), reason, address);
  }
  return undefined;
}

/**
 * A lookup that refuses a name when ANY of its addresses is refused (a rebinding answer such as
 * `[public, 127.0.0.1]` must not get a chance at the second one). net.connect on Node 20 asks with
 * `all: true` (autoSelectFamily), older paths without; both shapes are answered.
 */
function guardedLookup(inner: net.LookupFunction, policy: AddressPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    inner(hostname, { ...options, all: true }, (error, address, family) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const list = Array.isArray(address) ? address : [{ address, family: family ?? net.isIP(address) }];
      if (list.length === 0) {
        callback(Object.assign(new Error(`No addresses for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        return;
      }
      const refused = isTrusted(policy, hostname) ? undefined : resolvedRefusal(hostname, list, policy);
      if (refused) {
        callback(refused, '', 0);
        return;
      }
      const first = list[0] as dns.LookupAddress;
      if (options.all) callback(null, list);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * undici connector with the SSRF guard at connect time, after DNS: names go through the guarded
 * lookup, IP literals (which net.connect never looks up) are checked here, and the connected peer
 * address is checked again. What is checked is what is connected to, so there is no check-then-use gap.
 */
export function createGuardedConnector(
  build: typeof buildConnector,
  policy: AddressPolicy,
  lookup: net.LookupFunction,
  connectTimeoutMs: number,
): buildConnector.connector {
  const base = build({ timeout: connectTimeoutMs, lookup: guardedLookup(lookup, policy) });
  return (options, callback) => {
    const refused = literalRefusal(options.hostname, policy);
    if (refused) {
      callback(refused, null);
      return;
    }
    base(options, (...args) => {
      const [error, socket] = args;
      if (error || !socket) {
        callback(error ?? new Error('connect failed'), null);
        return;
      }
      if (!isTrusted(policy, options.hostname)) {
        const remote = socket.remoteAddress;
        const reason =
          remote === undefined ? 'no peer address' : addressRefusal(remote, permitFor(policy, options.hostname));
        if (reason !== undefined) {
          socket.destroy();
          callback(new AddressBlockedError(bareHost(options.hostname), reason, remote), null);
          return;
        }
      }
      callback(null, socket);
    });
  };
}

/** The default resolver. */
export const systemLookup: net.LookupFunction = (hostname, options, callback) =>
  dns.lookup(hostname, options, callback);

/** Refuses URLs the client never fetches: non-HTTP(S) schemes and embedded credentials. */
export function checkUrlShape(url: URL, via?: string): void {
  const redirect = via ? ` (redirect from ${via})` : '';
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProContextError(
      'URL_NOT_ALLOWED',
      `Refused a ${url.protocol} URL${redirect}: only http: and https: URLs can be fetched.`,
      { details: { scheme: url.protocol, failure: 'refused-by-policy' } },
    );
  }
  if (url.username || url.password) {
    // The credentials themselves are never echoed.
    throw new ProContextError(
      'URL_NOT_ALLOWED',
      `Refused a URL for ${url.host}${redirect}: URLs with embedded credentials are not fetched.`,
      { details: { host: url.host, failure: 'refused-by-policy' } },
    );
  }
  if (!url.hostname) {
    throw new ProContextError('URL_NOT_ALLOWED', `Refused a URL without a host${redirect}.`, {
      details: { failure: 'refused-by-policy' },
    });
  }
}

/** An {@link AddressBlockedError} as the catalog error callers see. */
export function toUrlNotAllowed(blocked: AddressBlockedError, via?: string): ProContextError {
  const privateTarget =
    blocked.reason === 'a loopback name' ||
    addressRefusal(blocked.address ?? blocked.host, { allowPrivateNetwork: true }) === undefined;
  return new ProContextError('URL_NOT_ALLOWED', `${blocked.message}${via ? ` (redirect from ${via})` : ''}.`, {
    suggestion: privateTarget
      ? 'Loopback and private-network targets are refused unless security.allowPrivateNetwork lets them through: a list of the hosts or ranges (docs.corp.example, 10.1.0.0/16), or true for all (tests).'
      : 'This kind of address is never fetched; use a public documentation URL.',
    details: {
      host: blocked.host,
      reason: blocked.reason,
      ...(blocked.address ? { address: blocked.address } : {}),
      failure: 'refused-by-policy',
    },
    cause: blocked,
  });
}
