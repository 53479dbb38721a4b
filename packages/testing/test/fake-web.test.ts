import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSiteDefinition, type FakeWeb, startFakeWeb } from '../src/fake-web/index.js';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Plain node:http request (never follows redirects), refusing anything but loopback. */
function request(url: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  if (new URL(url).hostname !== '127.0.0.1') throw new Error(`test refuses non-loopback URL ${url}`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const MKDOCS = `site_name: Demo
site_description: A tiny demo site.
nav:
  - Home: index.md
  - Guide:
      - guide/intro.md
      - 'Deep: Dive': guide/deep.md
      - External: https://example.invalid/elsewhere
  - "":
      - ref/index.md
      - ref/api.md
theme:
  name: material
`;

let dir: string;
let site: FakeSiteDefinition;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'fake-web-'));
  const write = (rel: string, text: string): void => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  write('mkdocs.yml', MKDOCS);
  write('docs/index.md', '# Demo home\n\nWelcome.\n');
  write('docs/guide/intro.md', '---\ndescription: Start here\n---\n\n# Introduction { #intro }\n\nHello.\n');
  write('docs/guide/deep.md', '# Deep dive\n\n{* ../src/example.py hl[1] *}\n\n{* ../src/missing.py *}\n');
  write('docs/ref/index.md', '# Reference\n\nAll of it.\n');
  write('docs/ref/api.md', '# API\n\n```python\n# not a title\n```\n');
  write('docs/extra.md', '# Extra page\n\nNot in the nav.\n');
  write('src/example.py', 'def hello():\n    return "hi"\n');
  write('html/index.html', '<!doctype html><title>Demo</title><h1>Demo</h1>');
  write('html/guide/intro/index.html', '<!doctype html><title>Intro</title><h1>Introduction</h1>');
  site = {
    name: 'demo',
    corpusDir: dir,
    title: 'Demo',
    summary: 'A tiny demo site.',
    nav: { kind: 'mkdocs', configFile: 'mkdocs.yml' },
    htmlDir: path.join(dir, 'html'),
    includeBaseDir: 'docs',
    llmsFullTxt: 'generated',
  };
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('fake web on a small site', () => {
  let web: FakeWeb;
  beforeAll(async () => {
    web = await startFakeWeb({ sites: [site, { ...site, name: 'other', llmsTxt: false }] });
  });
  afterAll(async () => {
    await web.close();
  });
  afterEach(() => {
    web.clearFaults();
    web.clearRequests();
  });

  it('listens on loopback and names each site under its own prefix', () => {
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(web.siteUrl('demo')).toBe(`${web.url}/demo/`);
    expect(web.llmsTxtUrl('demo')).toBe(`${web.url}/demo/llms.txt`);
    expect(() => web.siteUrl('nope')).toThrow(/Unknown fake site 'nope'/);
  });

  it('generates llms.txt from the mkdocs nav, with unlisted pages under Optional', async () => {
    const res = await request(web.llmsTxtUrl('demo'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    const base = web.siteUrl('demo');
    expect(res.body.toString()).toBe(
      [
        '# Demo',
        '',
        '> A tiny demo site.',
        '',
        '## Docs',
        '',
        `- [Home](${base}index.md)`,
        '',
        '## Guide',
        '',
        `- [Introduction](${base}guide/intro/index.md): Start here`,
        `- [Deep: Dive](${base}guide/deep/index.md)`,
        '',
        '## Reference',
        '',
        `- [Reference](${base}ref/index.md)`,
        `- [API](${base}ref/api/index.md)`,
        '',
        '## Optional',
        '',
        `- [Extra page](${base}extra/index.md)`,
        '',
      ].join('\n'),
    );
  });

  it('serves markdown pages mkdocs-style with include directives expanded', async () => {
    const page = await request(`${web.siteUrl('demo')}guide/deep/index.md`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/markdown; charset=utf-8');
    const text = page.body.toString();
    expect(text).toContain('```python\ndef hello():\n    return "hi"\n```');
    // A directive whose file is not in the corpus is left as written.
    expect(text).toContain('{* ../src/missing.py *}');
    expect(Number(page.headers['content-length'])).toBe(page.body.length);
  });

  it('serves built HTML at directory URLs and redirects the slashless URL', async () => {
    const base = web.siteUrl('demo');
    for (const url of [`${base}guide/intro/`, `${base}guide/intro/index.html`]) {
      const res = await request(url);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body.toString()).toContain('<h1>Introduction</h1>');
    }
    const moved = await request(`${base}guide/intro`);
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe(`${base}guide/intro/`);
    expect((await request(`${web.url}/demo`)).headers.location).toBe(base);
    expect((await request(base)).body.toString()).toContain('<h1>Demo</h1>');
    // No built page for ref/api: its directory URL is a 404, its markdown is not.
    expect((await request(`${base}ref/api/`)).status).toBe(404);
    expect((await request(`${base}sitemap.xml`)).body.toString()).toContain(`<loc>${base}guide/intro/</loc>`);
  });

  it('answers 404, 405 and refuses path traversal', async () => {
    const base = web.siteUrl('demo');
    const missing = await request(`${base}nope/index.md`);
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('text/html; charset=utf-8');
    expect((await request(`${base}..%2F..%2Fmkdocs.yml`)).status).toBe(404);
    expect((await request(`${web.url}/unknown-site/llms.txt`)).status).toBe(404);
    expect((await request(web.llmsTxtUrl('other'))).status).toBe(404);
    const post = await request(`${base}index.md`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('supports ETag / Last-Modified revalidation and HEAD', async () => {
    const url = `${web.siteUrl('demo')}index.md`;
    const first = await request(url);
    const etag = first.headers.etag as string;
    const lastModified = first.headers['last-modified'] as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(new Date(lastModified).getTime()).toBeGreaterThan(0);
    const byEtag = await request(url, { headers: { 'if-none-match': `"other", ${etag}` } });
    expect(byEtag.status).toBe(304);
    expect(byEtag.body.length).toBe(0);
    expect(byEtag.headers.etag).toBe(etag);
    expect((await request(url, { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
    expect((await request(url, { headers: { 'if-modified-since': lastModified } })).status).toBe(304);
    expect((await request(url, { headers: { 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' } })).status).toBe(
      200,
    );
    const llms = await request(web.llmsTxtUrl('demo'));
    const llms304 = await request(web.llmsTxtUrl('demo'), { headers: { 'if-none-match': String(llms.headers.etag) } });
    expect(llms304.status).toBe(304);
    const head = await request(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(first.body.length));
    expect(head.headers.etag).toBe(etag);
  });

  it('generates llms-full.txt from every listed page', async () => {
    const full = (await request(`${web.siteUrl('demo')}llms-full.txt`)).body.toString();
    expect(full).toContain(`# Introduction\n\nSource: ${web.siteUrl('demo')}guide/intro/index.md\n\n# Introduction`);
    expect(full).not.toContain('description: Start here');
    expect(full).toContain('def hello():');
  });

  it('maps page URLs back to corpus files and files to URLs', () => {
    const base = web.siteUrl('demo');
    expect(web.fileForUrl(`${base}guide/intro/index.md`)).toBe('docs/guide/intro.md');
    expect(web.fileForUrl(`${base}guide/intro/index.md#intro`)).toBe('docs/guide/intro.md');
    expect(web.fileForUrl(`${base}guide/intro/?q=1`)).toBe('docs/guide/intro.md');
    expect(web.fileForUrl(`${base}guide/intro`)).toBe('docs/guide/intro.md');
    expect(web.fileForUrl(new URL(`${base}ref/index.md`))).toBe('docs/ref/index.md');
    expect(web.fileForUrl(base)).toBe('docs/index.md');
    expect(web.fileForUrl(`${base}llms.txt`)).toBeUndefined();
    expect(web.fileForUrl('http://127.0.0.1:1/demo/index.md')).toBeUndefined();
    expect(web.fileForUrl('not a url')).toBeUndefined();
    expect(web.siteForUrl(`${base}index.md`)).toBe('demo');
    expect(web.urlForFile('demo', 'docs/guide/deep.md')).toBe(`${base}guide/deep/index.md`);
    expect(web.urlForFile('demo', 'docs/nope.md')).toBeUndefined();
  });

  it('logs every request with method, path, status and headers', async () => {
    const url = `${web.siteUrl('demo')}index.md?x=1`;
    await request(url, { headers: { 'user-agent': 'fake-web-test' } });
    await request(url, { method: 'HEAD' });
    await request(`${web.siteUrl('demo')}missing.md`);
    expect(web.requests.map((r) => [r.method, r.path, r.status, r.site])).toEqual([
      ['GET', '/demo/index.md?x=1', 200, 'demo'],
      ['HEAD', '/demo/index.md?x=1', 200, 'demo'],
      ['GET', '/demo/missing.md', 404, 'demo'],
    ]);
    expect(web.requests[0]?.headers['user-agent']).toBe('fake-web-test');
    expect(web.requestsTo('/demo/index.md')).toHaveLength(2);
  });

  it('fails the next N requests then recovers, with Retry-After', async () => {
    web.setFault({ site: 'demo', path: 'llms.txt' }, { status: 503, retryAfter: 2, times: 2 });
    const a = await request(web.llmsTxtUrl('demo'));
    const b = await request(web.llmsTxtUrl('demo'));
    const c = await request(web.llmsTxtUrl('demo'));
    expect([a.status, b.status, c.status]).toEqual([503, 503, 200]);
    expect(a.headers['retry-after']).toBe('2');
    expect(web.requests.map((r) => r.faulted)).toEqual([true, true, false]);
  });

  it('scopes faults by site, path, RegExp and method, newest first, and removes them', async () => {
    const base = web.siteUrl('demo');
    const remove = web.setFault({ path: /\/ref\// }, { status: 500 });
    web.setFault({ site: 'other' }, { status: 429, retryAfter: 'Wed, 21 Oct 2065 07:28:00 GMT' });
    web.setFault({ path: '/demo/ref/index.md', method: 'HEAD' }, { status: 404 });
    expect((await request(`${base}ref/index.md`)).status).toBe(500);
    expect((await request(`${base}ref/index.md`, { method: 'HEAD' })).status).toBe(404);
    expect((await request(`${base}index.md`)).status).toBe(200);
    const other = await request(`${web.siteUrl('other')}index.md`);
    expect(other.status).toBe(429);
    expect(other.headers['retry-after']).toBe('Wed, 21 Oct 2065 07:28:00 GMT');
    remove();
    expect((await request(`${base}ref/index.md`)).status).toBe(200);
    web.clearFaults();
    expect((await request(`${web.siteUrl('other')}index.md`)).status).toBe(200);
  });

  it('delays answers', async () => {
    web.setFault({ site: 'demo', path: 'index.md' }, { delayMs: 300, times: 1 });
    const started = Date.now();
    const slow = await request(`${web.siteUrl('demo')}index.md`);
    expect(slow.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    const again = Date.now();
    await request(`${web.siteUrl('demo')}index.md`);
    expect(Date.now() - again).toBeLessThan(280);
  });

  it('replaces bodies: binary, JSON, malformed llms.txt', async () => {
    const bytes = Uint8Array.from([0, 159, 146, 150, 255]);
    web.setFault({ site: 'demo', path: 'index.md' }, { body: bytes, contentType: 'application/octet-stream' });
    const bin = await request(`${web.siteUrl('demo')}index.md`);
    expect(bin.headers['content-type']).toBe('application/octet-stream');
    expect([...bin.body]).toEqual([...bytes]);
    web.setFault(
      { site: 'demo', path: 'ref/api/index.md' },
      { body: '{"error":"nope"}', contentType: 'application/json' },
    );
    const json = await request(`${web.siteUrl('demo')}ref/api/index.md`);
    expect(json.headers['content-type']).toBe('application/json');
    expect(JSON.parse(json.body.toString())).toEqual({ error: 'nope' });
    web.setFault({ site: 'demo', path: 'llms.txt' }, { body: '## no title\n- [broken](\n\0' });
    const malformed = await request(web.llmsTxtUrl('demo'));
    expect(malformed.status).toBe(200);
    expect(malformed.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(malformed.body.toString()).toBe('## no title\n- [broken](\n\0');
  });

  it('streams a giant generated page, with or without Content-Length', async () => {
    const size = 12 * 1024 * 1024;
    web.setFault({ site: 'demo', path: 'giant/index.md' }, { generatedBytes: size });
    const giant = await request(`${web.siteUrl('demo')}giant/index.md`);
    expect(giant.status).toBe(200);
    expect(giant.headers['content-length']).toBe(String(size));
    expect(giant.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(giant.body.length).toBe(size);
    expect(giant.body.subarray(0, 14).toString()).toBe('# Giant page\n\n');
    web.setFault({ site: 'demo', path: 'chunked.md' }, { generatedBytes: 100_000, chunked: true });
    const chunked = await request(`${web.siteUrl('demo')}chunked.md`);
    expect(chunked.headers['content-length']).toBeUndefined();
    expect(chunked.headers['transfer-encoding']).toBe('chunked');
    expect(chunked.body.length).toBe(100_000);
  });

  it('redirects anywhere, including to blocked addresses (never followed here)', async () => {
    web.setFault({ site: 'demo', path: 'llms.txt' }, { redirectTo: 'http://169.254.169.254/latest/meta-data/' });
    const res = await request(web.llmsTxtUrl('demo'));
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('http://169.254.169.254/latest/meta-data/');
    web.setFault({ site: 'demo', path: 'llms.txt' }, { redirectTo: 'http://127.0.0.1:1/', redirectStatus: 308 });
    const perm = await request(web.llmsTxtUrl('demo'));
    expect([perm.status, perm.headers.location]).toEqual([308, 'http://127.0.0.1:1/']);
  });

  it('resets connections', async () => {
    web.setFault({ site: 'demo', path: 'index.md' }, { reset: true, times: 1 });
    await expect(request(`${web.siteUrl('demo')}index.md`)).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect((await request(`${web.siteUrl('demo')}index.md`)).status).toBe(200);
  });

  it('rejects faults for unknown sites', () => {
    expect(() => web.setFault({ site: 'nope' }, { status: 500 })).toThrow(/Unknown fake site 'nope'/);
  });
});

describe('fake web lifecycle', () => {
  it('close() ends hung and delayed requests instead of waiting for them', async () => {
    const web = await startFakeWeb({ sites: [site] });
    web.setFault({ site: 'demo', path: 'llms.txt' }, { hang: true });
    web.setFault({ site: 'demo', path: 'index.md' }, { delayMs: 60_000 });
    // settled into values at once: close() rejects them while this test is still awaiting close()
    const outcome = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (error: unknown) => error,
      );
    const hung = outcome(request(web.llmsTxtUrl('demo')));
    const delayed = outcome(request(`${web.siteUrl('demo')}index.md`));
    // Wait until both requests have reached the server.
    while (web.requests.length < 2) await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    await web.close();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await hung).toBeInstanceOf(Error);
    expect(await delayed).toBeInstanceOf(Error);
    expect(web.requests.map((r) => r.status)).toEqual([0, 0]);
    await web.close(); // idempotent
    await expect(request(web.llmsTxtUrl('demo'))).rejects.toThrow(/ECONNREFUSED/);
  });

  it('gives each site its own origin in the origin layout', async () => {
    const web = await startFakeWeb({ sites: [site], layout: 'origin' });
    try {
      const base = web.siteUrl('demo');
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(base).not.toBe(`${web.url}/`);
      const llms = (await request(`${base}llms.txt`)).body.toString();
      expect(llms).toContain(`(${base}guide/intro/index.md)`);
      expect(web.fileForUrl(`${base}guide/intro/`)).toBe('docs/guide/intro.md');
      expect(web.siteForUrl(`${base}index.md`)).toBe('demo');
      // The hub still serves the site under its prefix, with hub URLs.
      const viaHub = (await request(`${web.url}/demo/llms.txt`)).body.toString();
      expect(viaHub).toContain(`(${web.url}/demo/guide/intro/index.md)`);
    } finally {
      await web.close();
    }
  });

  it('refuses duplicate and badly named sites', async () => {
    await expect(startFakeWeb({ sites: [site, site] })).rejects.toThrow(/defined twice/);
    await expect(startFakeWeb({ sites: [{ ...site, name: 'Bad Name' }] })).rejects.toThrow(/must match/);
  });
});
