import {
  type LibraryDescriptor,
  type SourceAdapter,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import {
  catalogErrorOf,
  corpusSites,
  createTestKernel,
  describeSourceAdapterContract,
  type FakeWeb,
  findCorpusRoot,
  startFakeWeb,
} from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SiteCrawlPluginOptionsInput, SiteCrawlSourceAdapter, siteCrawlPlugin } from '../src/index.js';

const corpusRoot = findCorpusRoot();
if (!corpusRoot) console.warn('[plugin-site-crawl] corpus tests skipped: ../shared/corpora not found');

/** A started test kernel with the plugin (loopback allowed, fast retries) and its adapter. */
async function kernelWith(
  options?: SiteCrawlPluginOptionsInput,
): Promise<{ kernel: StartedKernel; adapter: SourceAdapter }> {
  const kernel = await createTestKernel({ plugins: [options ? [siteCrawlPlugin, options] : siteCrawlPlugin] });
  const adapter = kernel.resolveAll(sourceAdapterToken).find((a) => a.id === 'site');
  if (!adapter) throw new Error('site adapter not bound');
  return { kernel, adapter };
}

describe('the plugin', () => {
  it('binds one adapter with id site and priority 25, after llms-txt and github', async () => {
    const { kernel, adapter } = await kernelWith();
    expect(adapter).toBeInstanceOf(SiteCrawlSourceAdapter);
    expect([adapter.id, adapter.priority]).toEqual(['site', 25]);
    expect(adapter.canHandle({ id: 'a', name: 'A', docsUrl: 'https://a.dev/docs' })).toBe(true);
    expect(adapter.docsUrls?.({ id: 'a', name: 'A', docsUrl: 'https://a.dev/docs' })).toEqual(['https://a.dev/docs']);
    await kernel.stop();
  });

  it('serves only libraries with a docs site, and none forced to another source or switched off', async () => {
    const { kernel, adapter } = await kernelWith();
    expect(adapter.canHandle({ id: 'a', name: 'A', repository: 'o/a' })).toBe(false);
    expect(adapter.canHandle({ id: 'a', name: 'A', llmsTxtUrl: 'https://a.dev/llms.txt' })).toBe(false);
    expect(adapter.canHandle({ id: 'a', name: 'A', docsUrl: 'https://a.dev', source: 'llms-txt' })).toBe(false);
    expect(
      adapter.canHandle({ id: 'a', name: 'A', docsUrl: 'https://a.dev', sources: { site: { enabled: false } } }),
    ).toBe(false);
    expect(adapter.canHandle({ id: 'a', name: 'A', sources: { site: { url: 'https://a.dev/guide/' } } })).toBe(true);
    await kernel.stop();
  });

  it('binds nothing when disabled in the sources.site section, and refuses a misspelt option', async () => {
    const kernel = await createTestKernel({
      plugins: [siteCrawlPlugin],
      config: { sources: { site: { enabled: false } } },
    });
    expect(kernel.resolveAll(sourceAdapterToken).some((a) => a.id === 'site')).toBe(false);
    await kernel.stop();
    const error = await catalogErrorOf(createTestKernel({ plugins: [[siteCrawlPlugin, { maxPage: 10 }]] }));
    expect(error.code).toBe('PLUGIN_OPTIONS_INVALID');
    expect(error.message).toContain('maxPage');
  });
});

describe.skipIf(!corpusRoot)('SiteCrawlSourceAdapter on the built HTML corpora', () => {
  let web: FakeWeb;
  let kernel: StartedKernel;
  let adapter: SourceAdapter;
  const site = (name: string, extra: Partial<LibraryDescriptor> = {}): LibraryDescriptor => ({
    id: name,
    name,
    docsUrl: web.siteUrl(name),
    ...extra,
  });
  const pagesOf = (name: string) =>
    web.requests.filter((r) => r.site === name && r.method === 'GET' && /\/$/.test(r.path.split('?')[0] ?? ''));

  beforeAll(async () => {
    web = await startFakeWeb({ sites: corpusSites(corpusRoot as string) });
    ({ kernel, adapter } = await kernelWith({ reuseSeconds: 0 }));
  });
  afterAll(async () => {
    await kernel?.stop();
    await web?.close();
  });
  afterEach(() => {
    web.clearFaults();
    web.clearRequests();
  });

  it('crawls the pages its sitemap lists, docs URL first, with titles and sections', async () => {
    const toc = await adapter.fetchToc(site('httpx-html-bare'), 'latest');
    expect(toc.entries).toHaveLength(23);
    const base = web.siteUrl('httpx-html-bare');
    expect(toc.entries[0]).toEqual({ title: 'HTTPX', url: base });
    expect(toc.entries).toContainEqual({ title: 'Clients', url: `${base}advanced/clients/`, section: 'Advanced' });
    expect(toc.entries).toContainEqual({ title: 'QuickStart', url: `${base}quickstart/` });
    expect(toc.sourceUrl).toBe(base);
    // every page was read once, and the sitemap was read rather than links followed
    expect(web.requestsTo(`/httpx-html-bare/sitemap.xml`)).toHaveLength(1);
    expect(pagesOf('httpx-html-bare')).toHaveLength(23);
  });

  it('returns each page as clean markdown: no navigation, fenced code', async () => {
    const docs = await adapter.fetchDocs(site('httpx-html-bare'), 'latest');
    expect(docs.pages).toHaveLength(23);
    const quickstart = docs.pages.find((p) => p.url.endsWith('/quickstart/'));
    expect(quickstart?.markdown.startsWith('# QuickStart\n')).toBe(true);
    // the built httpx pages carry no code language (Pygments without a language class); the fixtures of
    // @pro-context/markdown check that a language is kept where the page has one
    expect(quickstart?.markdown).toContain('```\n>>> import httpx\n```');
    for (const page of docs.pages) {
      expect(page.markdown).not.toMatch(/Skip to content|Initializing search|Made with|Table of contents/);
    }
    const timeouts = docs.pages.find((p) => p.url.endsWith('/advanced/timeouts/'));
    expect(timeouts?.section).toBe('Advanced');
  });

  it('follows links within the docs folder when there is no sitemap, honouring robots.txt', async () => {
    const docs = await adapter.fetchDocs(site('httpx-html-nositemap'), 'latest');
    const base = web.siteUrl('httpx-html-nositemap');
    const urls = docs.pages.map((p) => p.url);
    expect(urls[0]).toBe(base);
    expect(urls).toContain(`${base}advanced/clients/`);
    expect(urls).toContain(`${base}api/`);
    // robots.txt disallows the code of conduct: never requested, listed as skipped
    expect(urls).not.toContain(`${base}code_of_conduct/`);
    expect(web.requests.some((r) => r.path.startsWith('/httpx-html-nositemap/code_of_conduct'))).toBe(false);
    expect(docs.skipped).toContainEqual({ url: `${base}code_of_conduct/`, reason: 'disallowed by robots.txt' });
    expect(urls).toHaveLength(22);
    // nothing outside the docs folder was fetched (the other sites of the fake share the origin)
    const elsewhere = web.requests.filter((r) => r.site !== 'httpx-html-nositemap').map((r) => r.path);
    expect(elsewhere.sort()).toEqual(['/robots.txt', '/sitemap.xml']);
  });

  it('stops at the depth cap and the page cap', async () => {
    const shallow = await adapter.fetchToc(
      site('httpx-html-nositemap', { sources: { site: { maxDepth: 0 } } }),
      'latest',
    );
    expect(shallow.entries.map((e) => e.url)).toEqual([web.siteUrl('httpx-html-nositemap')]);
    const few = await adapter.fetchDocs(site('httpx-html-bare', { sources: { site: { maxPages: 5 } } }), 'latest');
    expect(few.pages).toHaveLength(5);
    expect(pagesOf('httpx-html-bare')).toHaveLength(5);
  });

  // A host that accepts a page's request and never answers, or is too slow, held the crawl (and so the library's
  // first get-docs, past engine.interactiveTimeoutMs) until the HTTP client's 30 s deadline; each page now has
  // pageTimeoutSeconds, its markdown twins' attempts included, and is skipped past it.
  it('skips a page that has not arrived within pageTimeoutSeconds; the crawl ends with the others', async () => {
    const { kernel: k, adapter: quick } = await kernelWith({ pageTimeoutSeconds: 1, reuseSeconds: 0 });
    try {
      const base = web.siteUrl('httpx-html-bare');
      web.setFault({ site: 'httpx-html-bare', path: '/quickstart/' }, { hang: true });
      web.setFault({ site: 'httpx-html-bare', path: '/advanced/timeouts/' }, { delayMs: 5000 });
      const started = performance.now();
      const docs = await quick.fetchDocs(site('httpx-html-bare'), 'latest');
      const ms = performance.now() - started;
      expect(docs.pages).toHaveLength(21);
      const reason = 'did not arrive within 1 s (sources.site.pageTimeoutSeconds)';
      const code = 'SOURCE_UNAVAILABLE';
      expect(docs.skipped).toContainEqual({ url: `${base}quickstart/`, reason, code });
      expect(docs.skipped).toContainEqual({ url: `${base}advanced/timeouts/`, reason, code });
      // one budget per page, twins included: generous for a loaded machine, far under the client's 15 s
      expect(ms).toBeLessThan(5000);
    } finally {
      await k.stop();
    }
  });

  it('stops at the byte cap', async () => {
    const { kernel: k, adapter: capped } = await kernelWith({ maxBytes: 200_000, concurrency: 1 });
    try {
      const docs = await capped.fetchDocs(site('httpx-html-bare'), 'latest');
      expect(docs.pages.length).toBeGreaterThan(0);
      expect(docs.pages.length).toBeLessThan(23);
      expect(docs.skipped?.some((s) => s.reason.startsWith('byte cap reached'))).toBe(true);
    } finally {
      await k.stop();
    }
  });

  it('uses the markdown twins a site publishes, and reads no HTML then', async () => {
    const docs = await adapter.fetchDocs(site('pydantic-html'), 'latest');
    expect(docs.pages).toHaveLength(5);
    const validators = docs.pages.find((p) => p.url.endsWith('/concepts/validators/'));
    expect(validators?.title).toBe('Validators');
    expect(validators?.section).toBe('Concepts');
    expect(web.requestsTo('/pydantic-html/concepts/validators/index.md')[0]?.status).toBe(200);
    // only the home page, which has no twin, was read as HTML
    expect(pagesOf('pydantic-html').map((r) => r.path)).toEqual(['/pydantic-html/']);
    expect(docs.pages[0]?.title).toBe('Pydantic Validation');
  });

  it('gives up on twins for a site that has none, after a few misses', async () => {
    await adapter.fetchDocs(site('httpx-html-bare', { sources: { site: { maxPages: 10 } } }), 'latest');
    const twins = web.requests.filter((r) => r.site === 'httpx-html-bare' && r.path.endsWith('.md'));
    expect(twins.length).toBeGreaterThan(0);
    expect(twins.length).toBeLessThanOrEqual(3 + 3); // the misses before giving up, with concurrency
  });

  it('owns the pages under a crawled site for read-page, twin first', async () => {
    await adapter.fetchToc(site('pydantic-html'), 'latest');
    const url = new URL(`${web.siteUrl('pydantic-html')}concepts/models/`);
    expect(adapter.ownsUrl?.(url)).toBe(true);
    expect(adapter.ownsUrl?.(new URL(`${web.siteUrl('httpx')}quickstart/`))).toBe(false);
    const page = await adapter.fetchPage!(url);
    expect(page.contentType).toBe('markdown');
    expect(page.finalUrl).toBe(`${url.href}index.md`);
    expect(page.title).toBe('Models');

    await adapter.fetchToc(site('httpx-html-bare', { sources: { site: { maxPages: 1 } } }), 'latest');
    const html = await adapter.fetchPage!(new URL(`${web.siteUrl('httpx-html-bare')}advanced/ssl/`));
    expect(html.contentType).toBe('html');
    expect(html.markdown).toMatch(/<html/i);
  });

  it('answers fresh when the sitemap is unchanged (304), changed when it differs', async () => {
    const toc = await adapter.fetchToc(site('httpx-html-bare'), 'latest');
    expect(toc.freshness.etag).toBeTruthy();
    expect(await adapter.checkFreshness(site('httpx-html-bare'), 'latest', toc.freshness)).toBe('fresh');
    expect(web.requestsTo('/httpx-html-bare/sitemap.xml').at(-1)?.status).toBe(304);
    web.setFault(
      { site: 'httpx-html-bare', path: 'sitemap.xml' },
      { body: '<urlset><url><loc>x</loc></url></urlset>', contentType: 'application/xml' },
    );
    expect(await adapter.checkFreshness(site('httpx-html-bare'), 'latest', toc.freshness)).toBe('changed');
  });

  it('cannot tell freshness from the start page of a site without sitemap, unless it changed', async () => {
    const toc = await adapter.fetchToc(site('httpx-html-nositemap', { sources: { site: { maxDepth: 0 } } }), 'latest');
    expect(await adapter.checkFreshness(site('httpx-html-nositemap'), 'latest', toc.freshness)).toBe('unknown');
    web.setFault({ site: 'httpx-html-nositemap', path: '' }, { body: '<html><body><main>new</main></body></html>' });
    expect(await adapter.checkFreshness(site('httpx-html-nositemap'), 'latest', toc.freshness)).toBe('changed');
  });

  it('fails with SOURCE_UNAVAILABLE naming the reason when no page can be read', async () => {
    const gone = await catalogErrorOf(
      adapter.fetchToc({ id: 'nowhere', name: 'Nowhere', docsUrl: `${web.url}/nowhere/` }, 'latest'),
    );
    expect(gone.code).toBe('SOURCE_UNAVAILABLE');
    expect(gone.message).toContain('HTTP 404');
    expect(gone.recoverable).toBe(false);
    web.setFault({ site: 'httpx-html-nositemap' }, { status: 503 });
    const down = await catalogErrorOf(adapter.fetchToc(site('httpx-html-nositemap'), 'latest'));
    expect(down.code).toBe('SOURCE_UNAVAILABLE');
    expect(down.recoverable).toBe(true);
  });

  it('shares one crawl between fetchToc and fetchDocs within reuseSeconds', async () => {
    const { kernel: k, adapter: reusing } = await kernelWith({ reuseSeconds: 600 });
    try {
      const lib = site('httpx-html-bare');
      await Promise.all([reusing.fetchToc(lib, 'latest'), reusing.fetchDocs(lib, 'latest')]);
      await reusing.fetchDocs(lib, 'latest');
      expect(web.requestsTo('/httpx-html-bare/quickstart/')).toHaveLength(1);
    } finally {
      await k.stop();
    }
  });
});

if (corpusRoot) {
  const corpusWeb = await startFakeWeb({ sites: corpusSites(corpusRoot) });
  let contractKernel: StartedKernel | undefined;
  describeSourceAdapterContract('site', {
    async create() {
      const made = await kernelWith();
      contractKernel = made.kernel;
      return made.adapter;
    },
    library: { id: 'httpx', name: 'HTTPX', docsUrl: corpusWeb.siteUrl('httpx-html-bare') },
    foreignLibrary: { id: 'elsewhere', name: 'Elsewhere', repository: 'someone/elsewhere' },
    async destroy() {
      await contractKernel?.stop();
      await corpusWeb.close();
    },
  });
}
