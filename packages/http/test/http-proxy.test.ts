import http from 'node:http';
import net, { type AddressInfo, type LookupFunction } from 'node:net';
import type { HttpClient, HttpClientOptions } from '@pro-context/kernel';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHttpClient } from '../src/client.js';
import { createProxySelector } from '../src/proxy.js';
import { failure } from './failure.js';

// Names resolve through this table only. `public.test` gets a public-looking address that the client
// itself never connects to: in proxy mode only the (loopback) proxy is contacted, and it forwards every
// request to the loopback upstream below, whatever the target. No packet leaves the machine.
const fakeDns: Record<string, string> = {
  'public.test': '93.184.216.34',
  'evil.test': '127.0.0.1',
  'docs.test': '127.0.0.1',
};
const testLookup: LookupFunction = (hostname, options, callback) => {
  const address = fakeDns[hostname];
  if (!address) {
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    return;
  }
  if (options.all) callback(null, [{ address, family: net.isIP(address) }]);
  else callback(null, address, net.isIP(address));
};

let upstream: http.Server;
let upstreamPort = 0;
let proxy: http.Server;
let proxyUrl = '';
const proxied: string[] = [];
const upstreamHits: string[] = [];

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    upstreamHits.push(`${req.headers.host}${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`upstream saw ${req.headers.host}${req.url}`);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;

  // A forward proxy that sends everything to the loopback upstream; CONNECT tunnels are refused.
  proxy = http.createServer((req, res) => {
    proxied.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '/');
    const forward = http.request(
      {
        host: '127.0.0.1',
        port: upstreamPort,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers: req.headers,
      },
      (upstreamResponse) => {
        res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
        upstreamResponse.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  proxy.on('connect', (req, socket) => {
    proxied.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  upstream.closeAllConnections();
  proxy.closeAllConnections();
  await Promise.all([
    new Promise<void>((resolve) => upstream.close(() => resolve())),
    new Promise<void>((resolve) => proxy.close(() => resolve())),
  ]);
});

const clients: HttpClient[] = [];
function makeClient(options: HttpClientOptions): HttpClient {
  const client = createHttpClient({ lookup: testLookup, retries: 0, timeoutMs: 3000, ...options });
  clients.push(client);
  return client;
}

afterEach(async () => {
  proxied.length = 0;
  upstreamHits.length = 0;
  vi.unstubAllEnvs();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

describe('proxy selection', () => {
  it('reads HTTPS_PROXY for https URLs, HTTP_PROXY for http URLs, lower case first', () => {
    const select = createProxySelector(undefined, {
      HTTPS_PROXY: 'http://upper.proxy:1',
      https_proxy: 'http://lower.proxy:2',
      HTTP_PROXY: 'http://plain.proxy:3',
    });
    expect(select(new URL('https://docs.example.com/'))?.host).toBe('lower.proxy:2');
    expect(select(new URL('http://docs.example.com/'))?.host).toBe('plain.proxy:3');
  });

  it('falls back to HTTP_PROXY for https URLs and honours NO_PROXY', () => {
    const select = createProxySelector(undefined, {
      HTTP_PROXY: 'http://plain.proxy:3',
      NO_PROXY: 'localhost, .internal.example, intranet.example:8080',
    });
    expect(select(new URL('https://docs.example.com/'))?.host).toBe('plain.proxy:3');
    expect(select(new URL('https://wiki.internal.example/'))).toBeUndefined();
    expect(select(new URL('https://internal.example/'))).toBeUndefined();
    expect(select(new URL('http://intranet.example:8080/'))).toBeUndefined();
    expect(select(new URL('http://intranet.example/'))?.host).toBe('plain.proxy:3');
    expect(select(new URL('http://localhost/'))).toBeUndefined();
  });

  it('uses an explicit proxy, and none at all with false or NO_PROXY=*', () => {
    expect(createProxySelector('http://set.proxy:9', {})(new URL('https://a.example/'))?.host).toBe('set.proxy:9');
    expect(createProxySelector(false, { HTTPS_PROXY: 'http://p:1' })(new URL('https://a.example/'))).toBeUndefined();
    expect(
      createProxySelector(undefined, { HTTPS_PROXY: 'http://p:1', NO_PROXY: '*' })(new URL('https://a.example/')),
    ).toBeUndefined();
    expect(createProxySelector(undefined, {})(new URL('https://a.example/'))).toBeUndefined();
  });

  it('refuses a proxy URL that is not http(s)', () => {
    expect(() => createProxySelector(undefined, { HTTPS_PROXY: 'ftp://p:1' })).toThrow(
      /HTTPS_PROXY must be an http: or https: proxy URL/,
    );
  });
});

describe('requests through a proxy', () => {
  it('sends an allowed target through the proxy', async () => {
    const response = await makeClient({ proxy: proxyUrl }).get('http://public.test/guide?v=2');
    expect(response.status).toBe(200);
    expect(response.text()).toBe('upstream saw public.test/guide?v=2');
    expect(proxied).toEqual(['GET http://public.test/guide?v=2']);
  });

  it('takes the proxy from HTTP_PROXY', async () => {
    vi.stubEnv('HTTP_PROXY', proxyUrl);
    vi.stubEnv('http_proxy', '');
    vi.stubEnv('NO_PROXY', '');
    vi.stubEnv('no_proxy', '');
    const response = await makeClient({}).get('http://public.test/env');
    expect(response.status).toBe(200);
    expect(proxied).toEqual(['GET http://public.test/env']);
  });

  it('refuses a target that resolves to loopback before contacting the proxy', async () => {
    const error = await failure(makeClient({ proxy: proxyUrl }).get('http://evil.test/'));
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error.message).toContain('resolves to 127.0.0.1, a loopback address');
    expect(proxied).toEqual([]);
  });

  it('refuses private IP literals and metadata before contacting the proxy', async () => {
    const client = makeClient({ proxy: proxyUrl });
    for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://localhost/']) {
      expect((await failure(client.get(url))).code, url).toBe('URL_NOT_ALLOWED');
    }
    expect(proxied).toEqual([]);
  });

  it('tunnels https targets with CONNECT and reports a refused tunnel as SOURCE_UNAVAILABLE', async () => {
    const error = await failure(makeClient({ proxy: proxyUrl }).get('https://public.test/secure'));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.message).toContain('public.test');
    expect(proxied).toEqual(['CONNECT public.test:443']);
  });

  it('goes direct for NO_PROXY hosts', async () => {
    vi.stubEnv('NO_PROXY', 'docs.test');
    vi.stubEnv('no_proxy', '');
    const response = await makeClient({ proxy: proxyUrl, allowPrivateNetwork: true }).get(
      `http://docs.test:${upstreamPort}/direct`,
    );
    expect(response.status).toBe(200);
    expect(proxied).toEqual([]);
    expect(upstreamHits).toEqual([`docs.test:${upstreamPort}/direct`]);
  });
});
