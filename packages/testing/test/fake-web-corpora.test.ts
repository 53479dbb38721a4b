import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusSites, type FakeWeb, findCorpusRoot, startFakeWeb } from '../src/fake-web/index.js';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** Plain node:http request (never follows redirects), refusing anything but loopback. */
function request(url: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  if (new URL(url).hostname !== '127.0.0.1') throw new Error(`test refuses non-loopback URL ${url}`);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Absolute http(s) link targets of markdown links, as an llms.txt reader would collect them. */
function links(llmsTxt: string): string[] {
  return [...llmsTxt.matchAll(/\]\((https?:\/\/[^)\s]+)\)/g)].map((m) => m[1] as string);
}

const corpusRoot = findCorpusRoot();
if (!corpusRoot) {
  console.warn(
    'fake-web corpora tests skipped: shared corpora not found (set PRO_CONTEXT_SHARED_DIR or place them in ../shared/corpora)',
  );
}

describe.skipIf(!corpusRoot)('fake web on the real corpora', () => {
  const root = corpusRoot as string;
  let web: FakeWeb;
  beforeAll(async () => {
    web = await startFakeWeb({ sites: corpusSites(root) });
  });
  afterAll(async () => {
    await web.close();
    agent.destroy();
  });

  it('serves every corpus as a site', () => {
    expect(web.sites).toEqual([
      'pydantic',
      'httpx',
      'httpx-html',
      'httpx-html-bare',
      'fastapi',
      'typer',
      'instructor',
      'langgraph',
      'hono',
      'vitest',
      'zod',
      'zod-v3',
      'httpx-html-nositemap',
      'pydantic-html',
    ]);
  });

  it.each([
    ['pydantic', 81],
    ['httpx', 23],
    ['httpx-html', 23],
    ['fastapi', 155],
    ['typer', 75],
    ['hono', 113],
    ['vitest', 224],
    ['zod', 18],
    ['zod-v3', 3],
  ])('%s: llms.txt is plain text whose %i links are all served pages of the corpus', async (site, count) => {
    const res = await request(web.llmsTxtUrl(site));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    const text = res.body.toString('utf8');
    expect(text.startsWith('# ')).toBe(true);
    const urls = links(text);
    expect(urls).toHaveLength(count);
    expect(new Set(urls).size).toBe(count);
    const files = new Set<string>();
    for (const url of urls) {
      expect(url.startsWith(web.siteUrl(site)), url).toBe(true);
      const page = await request(url);
      expect(page.status, url).toBe(200);
      const file = web.fileForUrl(url);
      expect(file, url).toBeDefined();
      expect(existsSync(path.join(root, site.replace(/-.*$/, ''), file as string)), url).toBe(true);
      files.add(file as string);
    }
    expect(files.size).toBe(count);
  });

  it('pydantic: the real llms.txt and llms-full.txt point at the fake, pages are the corpus sources', async () => {
    const real = readFileSync(path.join(root, 'llms-txt/pydantic.llms.txt'), 'utf8');
    const served = (await request(web.llmsTxtUrl('pydantic'))).body.toString();
    expect(served).not.toContain('docs.pydantic.dev');
    expect(served).toBe(real.replaceAll('https://docs.pydantic.dev/latest/', web.siteUrl('pydantic')));
    const full = await request(`${web.siteUrl('pydantic')}llms-full.txt`);
    expect(full.status).toBe(200);
    expect(full.body.length).toBeGreaterThan(1_500_000);
    expect(full.body.toString()).not.toContain('https://docs.pydantic.dev/latest/');

    const url = `${web.siteUrl('pydantic')}concepts/validators/index.md`;
    expect(served).toContain(`[Validators](${url})`);
    const page = await request(url);
    expect(page.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(page.body.equals(readFileSync(path.join(root, 'pydantic/docs/concepts/validators.md')))).toBe(true);
    expect(web.fileForUrl(url)).toBe('docs/concepts/validators.md');
  });

  it('pydantic: built HTML pages where the site build exists, 404 elsewhere', async () => {
    const base = web.siteUrl('pydantic');
    const html = await request(`${base}concepts/validators/`);
    expect(html.status).toBe(200);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    const built = readFileSync(path.join(root, 'html/pydantic-docs-site/dev/concepts/validators/index.html'));
    expect(html.body.equals(built)).toBe(true);
    expect((await request(`${base}concepts/validators/index.html`)).status).toBe(200);
    const moved = await request(`${base}concepts/validators`);
    expect([moved.status, moved.headers.location]).toEqual([301, `${base}concepts/validators/`]);
    expect(web.fileForUrl(`${base}concepts/validators/`)).toBe('docs/concepts/validators.md');
    expect((await request(`${base}concepts/alias/`)).status).toBe(404);
    expect((await request(`${base}concepts/alias/index.md`)).status).toBe(200);
  });

  it('fastapi: {* docs_src *} includes are expanded into python code blocks', async () => {
    const file = 'docs/en/docs/tutorial/dependencies/dependencies-with-yield.md';
    const raw = readFileSync(path.join(root, 'fastapi', file), 'utf8');
    expect(raw).toContain('{* ../../docs_src/dependencies/tutorial007_py310.py hl[2:4] *}');
    const url = web.urlForFile('fastapi', file) as string;
    expect(url).toBe(`${web.siteUrl('fastapi')}tutorial/dependencies/dependencies-with-yield/index.md`);
    const text = (await request(url)).body.toString();
    expect(text).not.toMatch(/\{\* \.\.\/\.\.\/docs_src/);
    const code = readFileSync(path.join(root, 'fastapi/docs_src/dependencies/tutorial007_py310.py'), 'utf8');
    expect(text).toContain(`\`\`\`python\n${code.trimEnd()}\n\`\`\``);
    // The prose between the includes is untouched.
    expect(text).toContain('# Dependencies with yield { #dependencies-with-yield }');
  });

  it('every eval row maps to a served page that contains its answer, and back to its file', async () => {
    const evalDir = path.resolve(root, '../eval');
    const rows = readdirSync(evalDir)
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) =>
        readFileSync(path.join(evalDir, f), 'utf8')
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as { id: string; library: string; file: string; must_contain: string }),
      );
    expect(rows.length).toBeGreaterThanOrEqual(80);
    for (const row of rows) {
      const url = web.urlForFile(row.library, row.file);
      expect(url, row.id).toBeDefined();
      expect(web.fileForUrl(url as string), row.id).toBe(row.file);
      const page = await request(url as string);
      expect(page.status, row.id).toBe(200);
      expect(page.body.toString(), row.id).toContain(row.must_contain);
    }
  });

  it('langgraph: the real llms.txt is rewritten; only its notebook pages (absent from the corpus) are broken', async () => {
    const text = (await request(web.llmsTxtUrl('langgraph'))).body.toString();
    expect(text).not.toContain('langchain-ai.github.io');
    const urls = links(text);
    expect(urls).toHaveLength(140);
    const broken: string[] = [];
    for (const url of urls) {
      const res = await request(url);
      if (res.status === 404) broken.push(url);
      else expect(res.status, url).toBe(200);
      expect(web.fileForUrl(url) === undefined, url).toBe(res.status === 404);
    }
    expect(broken).toHaveLength(16);
    expect(broken).toContain(`${web.siteUrl('langgraph')}how-tos/persistence/`);
  });

  it('instructor: serves its own llms.txt verbatim (a text with no page links)', async () => {
    const res = await request(web.llmsTxtUrl('instructor'));
    expect(res.body.equals(readFileSync(path.join(root, 'instructor/docs/llms.txt')))).toBe(true);
    expect(links(res.body.toString())).toEqual([]);
    const page = await request(`${web.siteUrl('instructor')}concepts/philosophy/index.md`);
    expect(page.status).toBe(200);
  });

  it('httpx-html serves the built site; httpx-html-bare has no llms.txt', async () => {
    const base = web.siteUrl('httpx-html');
    const page = await request(`${base}quickstart/`);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body.equals(readFileSync(path.join(root, 'html/httpx-gh-pages/quickstart/index.html')))).toBe(true);
    const moved = await request(`${base}advanced/clients`);
    expect([moved.status, moved.headers.location]).toEqual([301, `${base}advanced/clients/`]);
    expect((await request(`${base}quickstart/index.md`)).status).toBe(404);
    expect(web.fileForUrl(`${base}advanced/clients`)).toBe('docs/advanced/clients.md');
    const home = await request(base);
    expect(home.body.toString()).toContain('<title>');
    const sitemap = (await request(`${base}sitemap.xml`)).body.toString();
    expect(sitemap.match(/<loc>/g)).toHaveLength(23);

    const bare = web.siteUrl('httpx-html-bare');
    expect((await request(`${bare}llms.txt`)).status).toBe(404);
    expect((await request(`${bare}llms-full.txt`)).status).toBe(404);
    expect((await request(`${bare}quickstart/`)).status).toBe(200);
  });

  it('httpx-html-nositemap has no sitemap and a robots.txt; pydantic-html serves its built markdown twins', async () => {
    const bare = web.siteUrl('httpx-html-nositemap');
    expect((await request(`${bare}sitemap.xml`)).status).toBe(404);
    expect((await request(`${bare}quickstart/`)).status).toBe(200);
    expect((await request(`${bare}robots.txt`)).body.toString()).toBe('User-agent: *\nDisallow: /code_of_conduct/\n');
    // crawlers read the origin's robots.txt: the site's rules, under its prefix
    expect((await request(`${web.url}/robots.txt`)).body.toString()).toBe(
      'User-agent: *\nDisallow: /httpx-html-nositemap/code_of_conduct/\n\n',
    );

    const pydantic = web.siteUrl('pydantic-html');
    expect((await request(`${pydantic}llms.txt`)).status).toBe(404);
    const twin = await request(`${pydantic}concepts/validators/index.md`);
    expect(twin.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(
      twin.body.equals(readFileSync(path.join(root, 'html/pydantic-docs-site/dev/concepts/validators/index.md'))),
    ).toBe(true);
    expect((await request(`${pydantic}concepts/validators/`)).headers['content-type']).toBe('text/html; charset=utf-8');
    expect((await request(`${pydantic}sitemap.xml`)).body.toString().match(/<loc>/g)).toHaveLength(5);
    expect(web.fileForUrl(`${pydantic}concepts/validators/`)).toBe('docs/concepts/validators.md');
  });

  it('httpx llms.txt follows the mkdocs nav order and sections', async () => {
    const text = (await request(web.llmsTxtUrl('httpx'))).body.toString();
    expect(text.startsWith('# HTTPX\n\n> A next-generation HTTP client for Python.\n')).toBe(true);
    const sections = [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(sections).toEqual(['Docs', 'Advanced', 'Guides', 'API Reference', 'Community']);
    expect(text).toContain(`- [QuickStart](${web.siteUrl('httpx')}quickstart/index.md)`);
  });

  it('ETag revalidation works on corpus pages', async () => {
    web.clearRequests();
    const url = `${web.siteUrl('hono')}docs/api/context.md`;
    const first = await request(url);
    expect(first.status).toBe(200);
    const again = await request(url, { headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.status).toBe(304);
    expect(web.requestsTo('/hono/docs/api/context.md').map((r) => r.status)).toEqual([200, 304]);
  });
});
