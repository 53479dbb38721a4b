import http from 'node:http';
import net, { type AddressInfo, type LookupFunction } from 'node:net';
import { isProContextError } from '@pro-context/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBlockedAddress } from '../src/address-policy.js';
import { createHttpClient, createHttpClientWithTrustedHosts } from '../src/client.js';

// Every client here resolves names with this table, never with real DNS, and every connection the
// guard lets through goes to loopback: no packet leaves the machine.
const fakeDns: Record<string, string[]> = {
  'docs.test': ['127.0.0.1'],
  'evil.test': ['127.0.0.1'],
  'rebind.test': ['93.184.216.34', '127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'private.test': ['10.0.0.5'],
  'v6loop.test': ['::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'ula.test': ['fd12:3456::1'],
  'cgnat.test': ['100.100.100.100'],
};

const testLookup: LookupFunction = (hostname, options, callback) => {
  const list = fakeDns[hostname.toLowerCase()];
  if (!list) {
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    return;
  }
  const addresses = list.map((address) => ({ address, family: net.isIP(address) }));
  if (options.all) callback(null, addresses);
  else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4);
};

async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isProContextError(error)) return error;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

let server: http.Server;
let port = 0;
let hits: string[] = [];
let redirectTo = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(`${req.headers.host}${req.url}`);
    if (req.url === '/redirect') {
      res.writeHead(302, { location: redirectTo.replaceAll('PORT', String(port)) }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('hello from loopback');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('isBlockedAddress', () => {
  const blocked = [
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.169.254',
    '0.0.0.0',
    '0.1.2.3',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '198.18.0.1',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.9',
    '192.0.0.8',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::ffff:10.0.0.1',
    '::ffff:0:127.0.0.1',
    '::127.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::1',
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::',
    'fe80::1',
    'fe80::1%eth0',
    'fd00::1',
    'fc00::1',
    'fec0::1',
    'ff02::1',
    '2001:db8::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '[::1]',
    'example.com',
    '',
  ];
  it.each(blocked)('refuses %j', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  const allowed = [
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1',
    '2a00:1450:4001:80b::200e',
    '::ffff:93.184.216.34',
    '64:ff9b::5db8:d822',
    '2002:5db8:d822::1',
  ];
  it.each(allowed)('lets %j through', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it('allowPrivateNetwork opens loopback, private and CGNAT, and nothing else', () => {
    const open = { allowPrivateNetwork: true };
    for (const address of [
      '127.0.0.1',
      '::1',
      '10.0.0.1',
      '192.168.0.10',
      'fd00::1',
      '100.64.0.1',
      '::ffff:10.0.0.1',
    ]) {
      expect(isBlockedAddress(address, open), address).toBe(false);
    }
    for (const address of [
      '169.254.169.254',
      '::ffff:169.254.169.254',
      'fe80::1',
      '0.0.0.0',
      '::',
      '224.0.0.1',
      '240.0.0.1',
    ]) {
      expect(isBlockedAddress(address, open), address).toBe(true);
    }
  });
});

describe('SSRF guard on a strict client', () => {
  // [url, a phrase the message must contain]
  const hostile: [string, string][] = [
    ['http://127.0.0.1/', 'loopback'],
    ['https://127.0.0.1:443/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://0x7f.0.0.1/', 'loopback'],
    ['http://0x7f000001/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://127.0.1/', 'loopback'],
    ['http://0/', 'unspecified'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://[::1]/', 'loopback'],
    ['http://[::]/', 'unspecified'],
    ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped'],
    ['http://[::ffff:7f00:1]/', 'IPv4-mapped'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:a9fe:a9fe]/', 'metadata'],
    ['http://[64:ff9b::7f00:1]/', 'NAT64'],
    ['http://[2002:7f00:1::]/', '6to4'],
    ['http://[::127.0.0.1]/', 'IPv4-compatible'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[fd00::1]/', 'private'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://10.0.0.1/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://100.64.0.1/', 'carrier-grade NAT'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://240.0.0.1/', 'reserved'],
    ['http://198.18.0.1/', 'reserved'],
    ['http://192.0.2.1/', 'documentation'],
    ['http://localhost/', 'loopback name'],
    ['http://LOCALHOST./', 'loopback name'],
    ['http://api.localhost:8080/', 'loopback name'],
    ['http://ⓛocalhost/', 'loopback name'],
    ['http://evil.test/', 'resolves to 127.0.0.1, a loopback address'],
    ['http://rebind.test/', 'resolves to 127.0.0.1'],
    ['http://metadata.test/latest/meta-data/', 'resolves to 169.254.169.254'],
    ['http://private.test/', 'resolves to 10.0.0.5'],
    ['http://v6loop.test/', 'resolves to ::1'],
    ['http://mapped.test/', 'IPv4-mapped'],
    ['http://ula.test/', 'private'],
    ['http://cgnat.test/', 'carrier-grade NAT'],
    ['file:///etc/passwd', 'file:'],
    ['gopher://127.0.0.1:70/_stats', 'gopher:'],
    ['ftp://ftp.example.test/pub/', 'ftp:'],
    ['data:text/html,<script>alert(1)</script>', 'data:'],
    ['javascript:alert(1)', 'javascript:'],
    ['dict://127.0.0.1:11211/stat', 'dict:'],
    ['ldap://127.0.0.1/dc=example', 'ldap:'],
    ['ws://docs.example.test/socket', 'ws:'],
    ['http://user:pass@docs.example.test/', 'embedded credentials'],
    ['https://token@docs.example.test/', 'embedded credentials'],
  ];

  const client = createHttpClient({ lookup: testLookup, proxy: false, retries: 0, timeoutMs: 2000 });
  afterAll(() => client.close());

  it.each(hostile)('refuses %s', async (url, phrase) => {
    const error = await refusal(client.get(url));
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error.message).toContain(phrase);
    expect(error.recoverable).toBe(false);
  });

  it('names the host and never echoes embedded credentials', async () => {
    const error = await refusal(client.get('http://alice:s3cret@docs.example.test/'));
    expect(error.message).toContain('docs.example.test');
    expect(error.message).not.toContain('s3cret');
  });

  it('refuses a name that resolves to loopback before any byte reaches the server', async () => {
    hits = [];
    const error = await refusal(client.get(`http://evil.test:${port}/`));
    expect(error.message).toBe(`Refused to connect to evil.test: it resolves to 127.0.0.1, a loopback address.`);
    expect(error.details).toMatchObject({ host: 'evil.test', address: '127.0.0.1' });
    expect(hits).toEqual([]);
  });

  it('also refuses non-HTTP(S) schemes when private networks are allowed', async () => {
    const open = createHttpClient({ lookup: testLookup, proxy: false, allowPrivateNetwork: true });
    try {
      for (const url of ['file:///etc/passwd', 'gopher://127.0.0.1/', 'data:,x', 'http://u:p@127.0.0.1/']) {
        expect((await refusal(open.get(url))).code, url).toBe('URL_NOT_ALLOWED');
      }
    } finally {
      await open.close();
    }
  });
});

describe('SSRF guard on redirects', () => {
  // `docs.test` (loopback) is trusted for the first hop only; redirect targets get the full guard.
  const client = createHttpClientWithTrustedHosts({ lookup: testLookup, proxy: false, retries: 0, timeoutMs: 2000 }, [
    'docs.test',
  ]);
  afterAll(() => client.close());

  it('serves the trusted first hop', async () => {
    const response = await client.get(`http://docs.test:${port}/page`);
    expect(response.status).toBe(200);
    expect(response.text()).toBe('hello from loopback');
  });

  const targets: [string, string][] = [
    ['http://127.0.0.1:PORT/', 'loopback'],
    ['http://localhost:PORT/', 'loopback name'],
    ['http://[::1]:PORT/', 'loopback'],
    ['http://[::ffff:127.0.0.1]:PORT/', 'IPv4-mapped'],
    ['http://evil.test:PORT/', 'resolves to 127.0.0.1'],
    ['http://rebind.test:PORT/', 'resolves to 127.0.0.1'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['//169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://10.0.0.1/admin', 'private'],
    ['http://2130706433:PORT/', 'loopback'],
    ['file:///etc/passwd', 'file:'],
    ['gopher://127.0.0.1:70/_x', 'gopher:'],
    ['http://user:pass@docs.test:PORT/', 'embedded credentials'],
  ];

  it.each(targets)('refuses a redirect to %s', async (location, phrase) => {
    hits = [];
    redirectTo = location;
    const error = await refusal(client.get(`http://docs.test:${port}/redirect`));
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error.message).toContain(phrase);
    expect(error.message).toContain(`redirect from docs.test:${port}`);
    // Only the first hop reached the (loopback) server.
    expect(hits).toEqual([`docs.test:${port}/redirect`]);
  });

  it.each(targets)('refuses a redirect to %s when streaming too', async (location, phrase) => {
    hits = [];
    redirectTo = location;
    const error = await refusal(client.stream(`http://docs.test:${port}/redirect`));
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error.message).toContain(phrase);
    expect(hits).toEqual([`docs.test:${port}/redirect`]);
  });

  it('follows a same-host redirect on the trusted host', async () => {
    redirectTo = `http://docs.test:PORT/landing`;
    const response = await client.get(`http://docs.test:${port}/redirect`);
    expect(response.status).toBe(200);
    expect(response.redirects).toBe(1);
    expect(response.url).toBe(`http://docs.test:${port}/landing`);
  });

  it('refuses the metadata address even with allowPrivateNetwork', async () => {
    const open = createHttpClient({ lookup: testLookup, proxy: false, retries: 0, allowPrivateNetwork: true });
    try {
      redirectTo = 'http://169.254.169.254/latest/meta-data/';
      const error = await refusal(open.get(`http://docs.test:${port}/redirect`));
      expect(error.code).toBe('URL_NOT_ALLOWED');
      expect(error.message).toContain('metadata');
    } finally {
      await open.close();
    }
  });
});

describe('allowPrivateNetwork: true', () => {
  it('reaches loopback by name and by address', async () => {
    const client = createHttpClient({ lookup: testLookup, proxy: false, allowPrivateNetwork: true });
    try {
      for (const url of [`http://docs.test:${port}/`, `http://127.0.0.1:${port}/`]) {
        const response = await client.get(url);
        expect(response.status, url).toBe(200);
      }
    } finally {
      await client.close();
    }
  });
});

describe('allowPrivateNetwork: a list of hosts and ranges (intranet docs without opening every private address)', () => {
  const clientFor = (allowPrivateNetwork: string[]) =>
    createHttpClient({ lookup: testLookup, proxy: false, retries: 0, allowPrivateNetwork });

  it('reaches a listed host, refuses another host on the same private address, and a redirect to an unlisted range', async () => {
    const client = clientFor(['docs.test']);
    try {
      expect((await client.get(`http://docs.test:${port}/`)).status).toBe(200);
      hits = [];
      const other = await refusal(client.get(`http://evil.test:${port}/`));
      expect(other.code).toBe('URL_NOT_ALLOWED');
      expect(other.message).toContain('127.0.0.1');
      expect(other.suggestion).toContain('10.1.0.0/16');
      // the reviewer's case: a listed docs host redirecting into the private network is refused before connecting
      redirectTo = 'http://10.0.0.1/secret';
      const redirected = await refusal(client.get(`http://docs.test:${port}/redirect`));
      expect(redirected.code).toBe('URL_NOT_ALLOWED');
      expect(redirected.message).toContain('10.0.0.1');
      expect(hits).toEqual([`docs.test:${port}/redirect`]);
    } finally {
      await client.close();
    }
  });

  it('reaches addresses inside a listed range by any name, and *.suffix names; never link-local', async () => {
    const ranges = clientFor(['127.0.0.0/8', '169.254.0.0/16']);
    const suffix = clientFor(['*.test']);
    try {
      expect((await ranges.get(`http://127.0.0.1:${port}/`)).status).toBe(200);
      expect((await ranges.get(`http://evil.test:${port}/`)).status).toBe(200);
      expect((await refusal(ranges.get('http://private.test/'))).message).toContain('10.0.0.5');
      expect((await refusal(ranges.get('http://metadata.test/'))).message).toContain('169.254.169.254');
      expect((await suffix.get(`http://docs.test:${port}/`)).status).toBe(200);
      expect((await refusal(suffix.get(`http://127.0.0.1:${port}/`))).code).toBe('URL_NOT_ALLOWED');
      expect((await refusal(suffix.get('http://metadata.test/'))).code).toBe('URL_NOT_ALLOWED');
    } finally {
      await ranges.close();
      await suffix.close();
    }
  });
});
