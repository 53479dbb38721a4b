import { readFileSync } from 'node:fs';
import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';

/** A loopback HTTP(S) proxy that serves real hosts (`fastapi.tiangolo.com`) from loopback sites. */
export interface FakeProxy {
  /** `http://127.0.0.1:{port}`: set it as `HTTPS_PROXY` / `HTTP_PROXY` (with `NO_PROXY=127.0.0.1`). */
  readonly url: string;
  /**
   * The test CA's certificate file, to trust in the process under test (`NODE_EXTRA_CA_CERTS`). Its
   * certificate names the corpus libraries' docs hosts (fastapi.tiangolo.com, docs.pydantic.dev, zod.dev…).
   */
  readonly caFile: string;
  /** Every `CONNECT host:port` and absolute-form `http://host/path` asked, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/tls/${name}`, import.meta.url));

/**
 * Starts a proxy on 127.0.0.1 that routes by host: `routes` maps a host (`fastapi.tiangolo.com`) to a
 * loopback base URL (`http://127.0.0.1:{port}/fastapi/`), so `https://fastapi.tiangolo.com/llms.txt` is served
 * from `{base}llms.txt`. A key may name a path prefix too (`docs.pydantic.dev/latest`): the longest matching
 * key wins and its prefix is dropped, so `https://docs.pydantic.dev/latest/llms.txt` is `{base}llms.txt`. HTTPS is a `CONNECT` tunnel the proxy terminates itself with a certificate of the
 * test CA ({@link FakeProxy.caFile}); an unrouted host gets `502` and is never contacted. For tests only:
 * the process under test must be told to trust the test CA and to use the proxy, both by environment.
 */
export async function startFakeProxy(routes: Readonly<Record<string, string>>): Promise<FakeProxy> {
  const requests: string[] = [];
  const key = readFileSync(fixture('site.key'));
  const cert = readFileSync(fixture('site.pem'));
  const hosts = new Set(Object.keys(routes).map((key) => key.split('/')[0]?.toLowerCase()));
  // longest key first, so `docs.pydantic.dev/latest` wins over `docs.pydantic.dev`
  const keys = Object.keys(routes).sort((a, b) => b.length - a.length);
  const forward = (host: string, path: string, res: ServerResponse) => {
    const at = `${host.toLowerCase()}${path}`;
    const key = keys.find((k) => at === k.toLowerCase() || at.startsWith(`${k.toLowerCase().replace(/\/$/, '')}/`));
    const base = key ? routes[key] : undefined;
    if (!key || !base) {
      res.writeHead(502).end();
      return;
    }
    const rest = at.slice(key.replace(/\/$/, '').length);
    get(new URL(rest.replace(/^\/+/, ''), base), (upstream) => {
      res.writeHead(upstream.statusCode ?? 502, upstream.headers);
      upstream.pipe(res);
    }).on('error', () => res.writeHead(502).end());
  };
  // requests that arrived through a CONNECT tunnel, decrypted
  const inner = createServer((req: IncomingMessage, res) =>
    forward((req.headers.host ?? '').replace(/:\d+$/, ''), req.url ?? '/', res),
  );
  const proxy = createServer((req, res) => {
    requests.push(req.url ?? '');
    const target = new URL(req.url ?? '/', 'http://invalid');
    forward(target.hostname, `${target.pathname}${target.search}`, res);
  });
  proxy.on('connect', (req: IncomingMessage, socket, head: Buffer) => {
    requests.push(req.url ?? '');
    const host = (req.url ?? '').replace(/:\d+$/, '').toLowerCase();
    if (!hosts.has(host)) {
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) socket.unshift(head);
    const tls = new TLSSocket(socket, { isServer: true, key, cert });
    tls.on('error', () => socket.destroy());
    inner.emit('connection', tls);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    caFile: fixture('ca.pem'),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        inner.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}
