import type { UrlAllowlist } from '@pro-context/kernel';

function normaliseHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

/** Creates an allowlist holding `initial` entries. */
export function createUrlAllowlist(initial: { entry: string; reason: string }[] = []): UrlAllowlist {
  const hosts = new Map<string, string>();
  const suffixes = new Map<string, string>();
  const prefixes = new Map<string, string>();
  const list: UrlAllowlist = {
    allow(entry, reason) {
      const value = entry.trim();
      if (!value) return;
      if (/^https?:\/\//i.test(value)) {
        try {
          const url = new URL(value);
          if (url.pathname === '/' && !url.search) hosts.set(normaliseHost(url.host), reason);
          else prefixes.set(url.href, reason);
        } catch {
          // not a URL: ignore, config validation reports it
        }
        return;
      }
      if (value.startsWith('*.')) suffixes.set(normaliseHost(value.slice(1)), reason);
      else hosts.set(normaliseHost(value), reason);
    },
    allowHostsOf(urls, reason) {
      for (const raw of urls) {
        try {
          const url = new URL(raw);
          if (url.protocol === 'http:' || url.protocol === 'https:') hosts.set(normaliseHost(url.host), reason);
        } catch {
          // relative or malformed links are not allowlist material
        }
      }
    },
    isAllowed(input) {
      let url: URL;
      try {
        url = typeof input === 'string' ? new URL(input) : input;
      } catch {
        return false;
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
      if (url.username || url.password) return false;
      const host = normaliseHost(url.host);
      const hostname = normaliseHost(url.hostname);
      if (hosts.has(host) || hosts.has(hostname)) return true;
      for (const suffix of suffixes.keys()) if (hostname.endsWith(suffix)) return true;
      for (const prefix of prefixes.keys()) if (url.href.startsWith(prefix)) return true;
      return false;
    },
    entries() {
      return [
        ...[...hosts].map(([entry, reason]) => ({ entry, reason })),
        ...[...suffixes].map(([entry, reason]) => ({ entry: `*${entry}`, reason })),
        ...[...prefixes].map(([entry, reason]) => ({ entry, reason })),
      ];
    },
  };
  for (const { entry, reason } of initial) list.allow(entry, reason);
  return list;
}
