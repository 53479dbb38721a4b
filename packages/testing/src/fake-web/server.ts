// The fake web server: loopback HTTP serving fake documentation sites, with faults and a request log.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeSite } from './site.js';
import type { FakeWeb, FakeWebOptions, FakeWebRequest, FaultSpec, FaultTarget } from './types.js';

interface InstalledFault {
  readonly target: FaultTarget;
  readonly spec: FaultSpec;
  remaining: number | undefined;
}

interface Located {
  readonly site: FakeSite | undefined;
  /** Site-relative path, still percent-encoded; `undefined` when the request names the site without its slash. */
  readonly rel: string | undefined;
  readonly base: string | undefined;
}

const NOT_FOUND_HTML =
  '<!doctype html>\n<html><head><title>404 - Not found</title></head><body><h1>404 - Not found</h1></body></html>\n';
const FILLER = Buffer.from(
  `${'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.\n'.repeat(655)}\n`,
);

function etagOf(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/**
 * Start a fake web on 127.0.0.1 (ephemeral port) serving the given documentation sites, the way the real
 * sites serve them: llms.txt, markdown pages, built HTML pages, ETag / Last-Modified and 304s, HEAD,
 * 301 to the trailing-slash URL of directory pages, 404s. Faults can be injected per site or path at run time.
 * Always `close()` it (it ends hung connections too).
 *
 * @example
 * const web = await startFakeWeb({ sites: corpusSites(corpusRoot) });
 * const res = await fetch(web.llmsTxtUrl('pydantic'));
 * await web.close();
 */
export async function startFakeWeb(options: FakeWebOptions): Promise<FakeWeb> {
  const sites = new Map<string, FakeSite>();
  for (const def of options.sites) {
    if (sites.has(def.name)) throw new Error(`Fake site '${def.name}' is defined twice`);
    sites.set(def.name, new FakeSite(def));
  }
  const requests: FakeWebRequest[] = [];
  let faults: InstalledFault[] = [];
  const wakeups = new Set<() => void>();
  let closing: Promise<void> | undefined;

  const servers: Server[] = [];
  const hub = createServer((req, res) => dispatch(req, res, undefined));
  servers.push(hub);
  const hubUrl = await listen(hub);
  const siteOrigins = new Map<string, string>();
  try {
    if (options.layout === 'origin') {
      for (const name of sites.keys()) {
        const server = createServer((req, res) => dispatch(req, res, name));
        servers.push(server);
        siteOrigins.set(name, await listen(server));
      }
    }
  } catch (err) {
    for (const s of servers) s.close();
    throw err;
  }

  const siteBase = (name: string): string => {
    if (!sites.has(name)) throw new Error(`Unknown fake site '${name}' (known: ${[...sites.keys()].join(', ')})`);
    const own = siteOrigins.get(name);
    return own ? `${own}/` : `${hubUrl}/${name}/`;
  };

  function locate(pathname: string, fixedSite: string | undefined): Located {
    if (fixedSite !== undefined) {
      return { site: sites.get(fixedSite), rel: pathname.slice(1), base: siteBase(fixedSite) };
    }
    const m = /^\/([^/]+)(\/.*)?$/.exec(pathname);
    const site = m?.[1] ? sites.get(m[1]) : undefined;
    if (!site || !m) return { site: undefined, rel: undefined, base: undefined };
    // In `origin` layout the hub still serves every site under its prefix, with hub-relative URLs.
    const base = `${hubUrl}/${site.name}/`;
    return { site, rel: m[2] === undefined ? undefined : m[2].slice(1), base };
  }

  function findFault(method: string, pathname: string, rawPath: string, loc: Located): InstalledFault | undefined {
    for (let i = faults.length - 1; i >= 0; i--) {
      const f = faults[i];
      if (!f) continue;
      const t = f.target;
      if (t.method && t.method.toUpperCase() !== method) continue;
      if (t.site !== undefined && t.site !== loc.site?.name) continue;
      if (t.path instanceof RegExp) {
        if (!t.path.test(rawPath)) continue;
      } else if (t.path !== undefined) {
        const want = t.site !== undefined ? t.path.replace(/^\//, '') : t.path;
        const have = t.site !== undefined ? (loc.rel ?? '') : pathname;
        if (want !== have) continue;
      }
      return f;
    }
    return undefined;
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        wakeups.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakeups.add(done);
    });
  }

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    entry: FakeWebRequest,
    status: number,
    headers: Record<string, string | number>,
    body?: string | Uint8Array,
  ): void {
    entry.status = status;
    const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
    if (payload !== undefined && headers['content-length'] === undefined) {
      headers['content-length'] = payload.byteLength;
    }
    res.writeHead(status, headers);
    res.end(req.method === 'HEAD' || payload === undefined ? undefined : payload);
  }

  async function streamGenerated(res: ServerResponse, total: number): Promise<void> {
    let left = total;
    const head = Buffer.from('# Giant page\n\n');
    const first = head.subarray(0, Math.min(head.length, left));
    res.write(first);
    left -= first.length;
    while (left > 0 && !res.destroyed) {
      const chunk = FILLER.subarray(0, Math.min(FILLER.length, left));
      left -= chunk.length;
      if (!res.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
    res.end();
  }

  async function applyFault(
    req: IncomingMessage,
    res: ServerResponse,
    entry: FakeWebRequest,
    spec: FaultSpec,
  ): Promise<boolean> {
    if (spec.delayMs !== undefined && spec.delayMs > 0) {
      await sleep(spec.delayMs);
      if (closing || res.destroyed) return true;
    }
    if (spec.hang) return true; // never answered; close() destroys the socket
    if (spec.reset) {
      req.socket.destroy();
      return true;
    }
    if (spec.redirectTo !== undefined) {
      send(req, res, entry, spec.redirectStatus ?? 302, { ...spec.headers, location: spec.redirectTo }, '');
      return true;
    }
    if (spec.status === undefined && spec.body === undefined && spec.generatedBytes === undefined) return false;
    const status = spec.status ?? 200;
    const headers: Record<string, string | number> = {};
    if (spec.retryAfter !== undefined) headers['retry-after'] = String(spec.retryAfter);
    if (spec.generatedBytes !== undefined) {
      headers['content-type'] = spec.contentType ?? 'text/markdown; charset=utf-8';
      if (!spec.chunked) headers['content-length'] = spec.generatedBytes;
      Object.assign(headers, spec.headers);
      entry.status = status;
      res.writeHead(status, headers);
      if (req.method === 'HEAD') res.end();
      else await streamGenerated(res, spec.generatedBytes);
      return true;
    }
    const body = spec.body ?? `${status} ${STATUS_CODES[status] ?? ''} (fake fault)\n`;
    headers['content-type'] =
      spec.contentType ?? (typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream');
    Object.assign(headers, spec.headers);
    if (spec.chunked) {
      entry.status = status;
      res.writeHead(status, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
    } else {
      send(req, res, entry, status, headers, body);
    }
    return true;
  }

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    entry: FakeWebRequest,
    pathname: string,
    loc: Located,
  ): Promise<void> {
    const method = req.method ?? 'GET';
    if (!loc.site) {
      const robots =
        pathname === '/robots.txt'
          ? [...sites.values()]
              .map((s) => s.robotsRules(`/${s.name}`, `${hubUrl}/${s.name}/`))
              .filter((r): r is string => r !== undefined)
          : [];
      if (pathname === '/') {
        const list = [...sites.keys()].map((n) => `${n} ${siteBase(n)}`).join('\n');
        send(req, res, entry, 200, { 'content-type': 'text/plain; charset=utf-8' }, `fake web sites:\n${list}\n`);
      } else if (robots.length > 0) {
        // crawlers read robots.txt at the root of the origin: the rules of every site, under its prefix
        send(req, res, entry, 200, { 'content-type': 'text/plain; charset=utf-8' }, `${robots.join('\n')}\n`);
      } else {
        send(req, res, entry, 404, { 'content-type': 'text/html; charset=utf-8' }, NOT_FOUND_HTML);
      }
      return;
    }
    const base = loc.base ?? siteBase(loc.site.name);
    if (loc.rel === undefined) {
      send(req, res, entry, 301, { location: base }, '');
      return;
    }
    let rel: string;
    try {
      rel = decodeURIComponent(loc.rel);
    } catch {
      send(req, res, entry, 400, { 'content-type': 'text/plain; charset=utf-8' }, 'Bad request\n');
      return;
    }
    if (method !== 'GET' && method !== 'HEAD') {
      send(req, res, entry, 405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }, '');
      return;
    }
    const route = rel.split('/').includes('..') || rel.includes('\0') ? undefined : loc.site.route(rel);
    if (!route) {
      send(req, res, entry, 404, { 'content-type': 'text/html; charset=utf-8' }, NOT_FOUND_HTML);
      return;
    }
    if (route.kind === 'redirect') {
      send(req, res, entry, 301, { location: `${base}${route.location}` }, '');
      return;
    }
    const { body, lastModified } = await route.load(base);
    const etag = etagOf(body);
    const validators = {
      etag,
      'last-modified': lastModified.toUTCString(),
      'cache-control': 'max-age=600',
    };
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    const notModified =
      inm !== undefined
        ? etagMatches(inm, etag)
        : ims !== undefined && !Number.isNaN(Date.parse(ims)) && lastModified.getTime() <= Date.parse(ims);
    if (notModified) {
      send(req, res, entry, 304, validators);
      return;
    }
    send(req, res, entry, 200, { 'content-type': route.contentType, ...validators }, body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, fixedSite: string | undefined): Promise<void> {
    const rawPath = req.url ?? '/';
    const q = rawPath.indexOf('?');
    const pathname = q >= 0 ? rawPath.slice(0, q) : rawPath;
    const method = (req.method ?? 'GET').toUpperCase();
    const loc = locate(pathname, fixedSite);
    const entry: FakeWebRequest = {
      method,
      path: rawPath,
      site: loc.site?.name,
      headers: { ...req.headers },
      status: 0,
      faulted: false,
    };
    requests.push(entry);
    const fault = findFault(method, pathname, rawPath, loc);
    if (fault) {
      entry.faulted = true;
      if (fault.remaining !== undefined && --fault.remaining <= 0) faults = faults.filter((f) => f !== fault);
      if (await applyFault(req, res, entry, fault.spec)) return;
    }
    await serve(req, res, entry, pathname, loc);
  }

  function dispatch(req: IncomingMessage, res: ServerResponse, fixedSite: string | undefined): void {
    handle(req, res, fixedSite).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`fake web error: ${err instanceof Error ? err.message : String(err)}\n`);
    });
  }

  function parse(url: string | URL): URL | undefined {
    try {
      return typeof url === 'string' ? new URL(url) : url;
    } catch {
      return undefined;
    }
  }

  function siteAndRel(url: string | URL): { site: FakeSite; rel: string } | undefined {
    const u = parse(url);
    if (!u) return undefined;
    let rel: string | undefined;
    let site: FakeSite | undefined;
    if (u.origin === hubUrl) {
      const loc = locate(u.pathname, undefined);
      site = loc.site;
      rel = loc.rel ?? '';
    } else {
      for (const [name, origin] of siteOrigins) {
        if (origin === u.origin) {
          site = sites.get(name);
          rel = u.pathname.slice(1);
        }
      }
    }
    if (!site || rel === undefined) return undefined;
    try {
      return { site, rel: decodeURIComponent(rel) };
    } catch {
      return undefined;
    }
  }

  const web: FakeWeb = {
    url: hubUrl,
    sites: [...sites.keys()],
    requests,
    siteUrl: siteBase,
    llmsTxtUrl: (site) => `${siteBase(site)}llms.txt`,
    fileForUrl(url) {
      const hit = siteAndRel(url);
      return hit?.site.sourceFileFor(hit.rel);
    },
    siteForUrl(url) {
      return siteAndRel(url)?.site.name;
    },
    urlForFile(site, file) {
      const base = siteBase(site);
      const rel = sites.get(site)?.pathForCorpusFile(file);
      return rel === undefined ? undefined : `${base}${rel}`;
    },
    requestsTo(path) {
      return requests.filter((r) => r.path.split('?')[0] === path);
    },
    clearRequests() {
      requests.length = 0;
    },
    setFault(target, spec) {
      if (target.site !== undefined && !sites.has(target.site)) throw new Error(`Unknown fake site '${target.site}'`);
      const installed: InstalledFault = { target, spec, remaining: spec.times };
      faults.push(installed);
      return () => {
        faults = faults.filter((f) => f !== installed);
      };
    },
    clearFaults() {
      faults = [];
    },
    close() {
      if (!closing) {
        const closed = servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
        // Wake delayed handlers so they see `closing` and stop; then cut every socket, hung ones included.
        for (const wake of [...wakeups]) wake();
        for (const s of servers) s.closeAllConnections();
        closing = Promise.all(closed).then(() => undefined);
      }
      return closing;
    },
  };
  return web;
}
