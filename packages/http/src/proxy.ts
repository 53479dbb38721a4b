import { ProContextError } from '@pro-context/kernel';

interface NoProxyEntry {
  hostname: string;
  port: number;
}

/** Picks the proxy (if any) for a target URL. */
export type ProxySelector = (url: URL) => URL | undefined;

function parseProxyUrl(value: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ProContextError('CONFIG_INVALID', `${source} is not a valid proxy URL.`, {
      suggestion: 'Set it to a URL such as http://proxy.internal:3128, or unset it.',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProContextError('CONFIG_INVALID', `${source} must be an http: or https: proxy URL, not ${url.protocol}`, {
      suggestion: 'Set it to a URL such as http://proxy.internal:3128, or unset it.',
    });
  }
  return url;
}

function parseNoProxy(value: string): NoProxyEntry[] | '*' {
  if (value.trim() === '*') return '*';
  const entries: NoProxyEntry[] = [];
  for (const raw of value.split(/[,\s]+/)) {
    if (!raw) continue;
    const withPort = /^(.+):(\d+)$/.exec(raw);
    const host = (withPort ? withPort[1] : raw) ?? raw;
    entries.push({
      // `.example.com` and `*.example.com` both mean the domain and its subdomains, as curl and undici read them
      hostname: host
        .replace(/^\*?\./, '')
        .replace(/^\[|\]$/g, '')
        .toLowerCase(),
      port: withPort ? Number(withPort[2]) : 0,
    });
  }
  return entries;
}

/**
 * Builds the proxy choice once, at client creation: `option` (a URL, or `false` for none) or the
 * environment (`https_proxy`/`HTTPS_PROXY`, falling back to `http_proxy`/`HTTP_PROXY` for https URLs;
 * `http_proxy`/`HTTP_PROXY` for http URLs), with `no_proxy`/`NO_PROXY` exclusions either way.
 */
export function createProxySelector(
  option: string | false | undefined,
  env: Record<string, string | undefined> = process.env,
): ProxySelector {
  if (option === false) return () => undefined;
  const pick = (...names: string[]) => {
    for (const name of names) {
      const value = env[name]?.trim();
      if (value) return { value, name };
    }
    return undefined;
  };
  let httpProxy: URL | undefined;
  let httpsProxy: URL | undefined;
  if (option !== undefined) {
    httpProxy = parseProxyUrl(option, 'The http.proxy setting');
    httpsProxy = httpProxy;
  } else {
    const forHttp = pick('http_proxy', 'HTTP_PROXY');
    const forHttps = pick('https_proxy', 'HTTPS_PROXY') ?? forHttp;
    httpProxy = forHttp && parseProxyUrl(forHttp.value, forHttp.name);
    httpsProxy = forHttps && parseProxyUrl(forHttps.value, forHttps.name);
  }
  if (!httpProxy && !httpsProxy) return () => undefined;
  const noProxy = parseNoProxy(pick('no_proxy', 'NO_PROXY')?.value ?? '');
  return (url) => {
    const proxy = url.protocol === 'https:' ? httpsProxy : httpProxy;
    if (!proxy) return undefined;
    if (noProxy === '*') return undefined;
    const hostname = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    for (const entry of noProxy) {
      if (entry.port && entry.port !== port) continue;
      if (hostname === entry.hostname || hostname.endsWith(`.${entry.hostname}`)) return undefined;
    }
    return proxy;
  };
}
