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
  type FaultSpec,
  startFakeWeb,
} from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LlmsTxtPluginOptionsInput, LlmsTxtSourceAdapter, llmsTxtPlugin } from '../src/index.js';
import { corpusDir } from './corpora.js';

/** A started test kernel with the plugin (loopback allowed, fast retries) and its adapter. */
async function kernelWith(
  options?: LlmsTxtPluginOptionsInput,
): Promise<{ kernel: StartedKernel; adapter: SourceAdapter }> {
  const kernel = await createTestKernel({ plugins: [options ? [llmsTxtPlugin, options] : llmsTxtPlugin] });
  const adapter = kernel.resolveAll(sourceAdapterToken).find((a) => a.id === 'llms-txt');
  if (!adapter) throw new Error('llms-txt adapter not bound');
  return { kernel, adapter };
}

describe('the plugin', () => {
  it('binds one adapter, constructed with every dependency injected', async () => {
    const { kernel, adapter } = await kernelWith();
    expect(adapter).toBeInstanceOf(LlmsTxtSourceAdapter);
    expect([adapter.id, adapter.priority]).toEqual(['llms-txt', 10]);
    // Injection worked if the adapter can use its options (canHandle reads them).
    expect(adapter.canHandle({ id: 'a', name: 'A', docsUrl: 'https://a.dev' })).toBe(true);
    await kernel.stop();
  });

  it('binds nothing when disabled', async () => {
    const kernel = await createTestKernel({ plugins: [[llmsTxtPlugin, { enabled: false }]] });
    expect(kernel.resolveAll(sourceAdapterToken).some((a) => a.id === 'llms-txt')).toBe(false);
    await kernel.stop();
  });

  it('refuses a misspelt or out-of-range option, naming it', async () => {
    const error = await catalogErrorOf(createTestKernel({ plugins: [[llmsTxtPlugin, { maxPage: 10 }]] }));
    expect(error.code).toBe('PLUGIN_OPTIONS_INVALID');
    expect(error.message).toContain('maxPage');
    const range = await catalogErrorOf(createTestKernel({ plugins: [[llmsTxtPlugin, { concurrency: 0 }]] }));
    expect(range.message).toContain('concurrency');
  });

  it('reads its options from the sources.llmsTxt config section', async () => {
    const kernel = await createTestKernel({
      plugins: [llmsTxtPlugin],
      config: { sources: { llmsTxt: { enabled: false } } },
    });
    expect(kernel.resolveAll(sourceAdapterToken).some((a) => a.id === 'llms-txt')).toBe(false);
    await kernel.stop();
  });
});

describe('LlmsTxtSourceAdapter on a loopback site', () => {
  let web: FakeWeb;
  let kernel: StartedKernel;
  let adapter: SourceAdapter;
  let base: string;
  const lib = (extra: Partial<LibraryDescriptor> = {}): LibraryDescriptor => ({
    id: 'ex',
    name: 'Example',
    docsUrl: `${base}/ex`,
    ...extra,
  });
  const serve = (path: string, body: string, extra: FaultSpec = {}) =>
    web.setFault({ path: `/ex/${path}` }, { body, contentType: 'text/markdown; charset=utf-8', ...extra });
  const requested = (path: string) => web.requests.filter((r) => r.path === `/ex/${path}`).length;

  beforeAll(async () => {
    web = await startFakeWeb({ sites: [] });
    base = web.url;
    ({ kernel, adapter } = await kernelWith({ concurrency: 4, reuseTocSeconds: 0 }));
  });
  afterEach(() => {
    web.clearFaults();
    web.clearRequests();
  });
  afterAll(async () => {
    await kernel.stop();
    await web.close();
  });

  it('handles libraries with a docs site or llms.txt URL, unless another source is forced', () => {
    expect(adapter.canHandle(lib())).toBe(true);
    expect(adapter.canHandle({ id: 'x', name: 'X', llmsTxtUrl: 'https://x.dev/llms.txt' })).toBe(true);
    expect(adapter.canHandle(lib({ source: 'llms-txt' }))).toBe(true);
    expect(adapter.canHandle(lib({ source: 'github' }))).toBe(false);
    expect(adapter.canHandle({ id: 'x', name: 'X', repository: 'x/x' })).toBe(false);
  });

  it('returns the TOC with freshness, owns the listed URLs and allowlists their hosts', async () => {
    serve(
      'llms.txt',
      '# Example\n\n> An example.\n\n## Guide\n\n- [Start](start): Begin\n- [Other host](https://other.example/page)\n',
      { headers: { etag: '"v1"', 'last-modified': 'Tue, 01 Oct 2024 10:00:00 GMT' } },
    );
    const toc = await adapter.fetchToc(lib(), 'latest');
    expect(toc).toMatchObject({
      title: 'Example',
      summary: 'An example.',
      sourceUrl: `${base}/ex/llms.txt`,
      entries: [
        { title: 'Start', url: `${base}/ex/start`, description: 'Begin', section: 'Guide' },
        { title: 'Other host', url: 'https://other.example/page', section: 'Guide' },
      ],
      freshness: { etag: '"v1"', lastModified: 'Tue, 01 Oct 2024 10:00:00 GMT' },
    });
    expect(toc.freshness.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(Number.isNaN(Date.parse(toc.fetchedAt))).toBe(false);
    expect(adapter.ownsUrl?.(new URL(`${base}/ex/start`))).toBe(true);
    expect(adapter.ownsUrl?.(new URL(`${base}/ex/start.md`))).toBe(true);
    expect(adapter.ownsUrl?.(new URL(`${base}/ex/unlisted`))).toBe(false);
    expect(kernel.allowlist.isAllowed('https://other.example/anything')).toBe(true);
    expect(kernel.allowlist.entries()).toContainEqual({
      entry: 'other.example',
      reason: `llms.txt ${base}/ex/llms.txt`,
    });
    expect(kernel.allowlist.isAllowed('https://never-listed.example/')).toBe(false);
  });

  it('falls through with SOURCE_UNAVAILABLE when the site has neither llms.txt nor llms-full.txt', async () => {
    const error = await catalogErrorOf(adapter.fetchToc(lib(), 'latest'));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.message).toBe(
      `No llms.txt at ${base}/ex/llms.txt (HTTP 404), nor llms-full.txt at ${base}/ex/llms-full.txt (HTTP 404).`,
    );
    expect(error.recoverable).toBe(false);
    // It says what the user can do, and promises no other source: whether one is installed is not its to know.
    // (the setting's place is sources.llmsTxt since the per-source bag; the old top-level key is still read)
    expect(error.suggestion).toContain('set sources.llmsTxt.llmsTxtUrl');
    expect(error.suggestion).not.toMatch(/github/i);
    // and names the setting this library is configured with
    const configured = lib();
    const setting = (['llmsTxtUrl', 'llmsFullTxtUrl', 'versionedDocsUrl', 'docsUrl'] as const).find(
      (k) => configured[k],
    );
    expect(error.suggestion).toMatch(new RegExp(`^Check ${setting}\\b.* of ${configured.id} in the configuration`));
    expect(requested('llms.txt')).toBe(1);
    expect(requested('llms-full.txt')).toBe(1);
    const byLlmsTxt = await catalogErrorOf(
      adapter.fetchToc(lib({ docsUrl: undefined, llmsTxtUrl: `${base}/ex/llms.txt` }), 'latest'),
    );
    expect(byLlmsTxt.suggestion).toMatch(/^Check sources\.llmsTxt\.llmsTxtUrl of ex in the configuration/);
    const inBag = await catalogErrorOf(
      adapter.fetchToc(
        lib({ docsUrl: undefined, sources: { llmsTxt: { llmsTxtUrl: `${base}/ex/llms.txt` } } }),
        'latest',
      ),
    );
    expect(inBag.suggestion).toMatch(/^Check sources\.llmsTxt\.llmsTxtUrl of ex in the configuration/);
  });

  it('reads a site without llms.txt from its llms-full.txt: TOC, documentation and read-page', async () => {
    const fresh = await kernelWith();
    const full = [
      '# Example',
      '',
      '> An example library.',
      '',
      '# Install',
      `Source: ${base}/ex/install`,
      '',
      'Run `pip install example`. It needs Python 3.10.',
      '',
      '# Usage',
      `Source: ${base}/ex/usage`,
      '',
      'Call `example.run()` to start.',
      '',
    ].join('\n');
    serve('llms-full.txt', full, { headers: { etag: '"f1"' } });
    const toc = await fresh.adapter.fetchToc(lib(), 'latest');
    expect(toc).toMatchObject({
      title: 'Example',
      summary: 'An example library.',
      sourceUrl: `${base}/ex/llms-full.txt`,
      entries: [
        { title: 'Install', url: `${base}/ex/install`, description: 'Run `pip install example`.' },
        { title: 'Usage', url: `${base}/ex/usage`, description: 'Call `example.run()` to start.' },
      ],
      freshness: { etag: '"f1"' },
    });
    const docs = await fresh.adapter.fetchDocs(lib(), 'latest');
    expect(docs.sourceUrl).toBe(`${base}/ex/llms-full.txt`);
    expect(docs.pages.map((p) => [p.url, p.markdown])).toEqual([
      [`${base}/ex/install`, '# Install\n\nRun `pip install example`. It needs Python 3.10.'],
      [`${base}/ex/usage`, '# Usage\n\nCall `example.run()` to start.'],
    ]);
    // The TOC read for resolve-library is the one indexed: llms-full.txt was downloaded once, not twice.
    expect(requested('llms-full.txt')).toBe(1);
    expect(requested('llms.txt')).toBe(1);
    // Its pages are the library's own: read-page asks the adapter, markdown twin first.
    expect(fresh.adapter.ownsUrl?.(new URL(`${base}/ex/usage`))).toBe(true);
    serve('usage.md', '# Usage\n\nThe page itself.');
    expect((await fresh.adapter.fetchPage!(new URL(`${base}/ex/usage`))).markdown).toBe('# Usage\n\nThe page itself.');
    // Freshness follows the llms-full.txt the docs came from.
    expect(await fresh.adapter.checkFreshness(lib(), 'latest', docs.freshness)).toBe('fresh');
    serve('llms-full.txt', `${full}\n# More\nSource: ${base}/ex/more\n\nNew.\n`);
    expect(await fresh.adapter.checkFreshness(lib(), 'latest', docs.freshness)).toBe('changed');
    expect((await fresh.adapter.fetchToc(lib(), 'latest')).entries).toHaveLength(3);
    await fresh.kernel.stop();
  });

  it('reads an llms.txt and an llms-full.txt saved as UTF-16 with a byte-order mark (issue #25.6)', async () => {
    const utf16 = (text: string, bom: number[]) => {
      const le = Buffer.from(text, 'utf16le');
      if (bom[0] === 0xff) return Buffer.concat([Buffer.from(bom), le]);
      const be = Buffer.from(le);
      be.swap16();
      return Buffer.concat([Buffer.from(bom), be]);
    };
    const full = `# Example\n\n> Ünïcode docs.\n\n# Install\nSource: ${base}/ex/install\n\nRun \`pip install example\` — “quoted”.\n`;
    web.setFault({ path: '/ex/llms-full.txt' }, { body: utf16(full, [0xfe, 0xff]), contentType: 'text/plain' });
    const docs = await adapter.fetchDocs(lib(), 'latest');
    expect(docs.pages.map((p) => p.markdown)).toEqual(['# Install\n\nRun `pip install example` — “quoted”.']);

    web.setFault(
      { path: '/ex/llms.txt' },
      { body: utf16('# Example\n\n- [Start](start): Begin ✓\n', [0xff, 0xfe]), contentType: 'text/plain' },
    );
    const toc = await adapter.fetchToc(lib(), 'latest');
    expect(toc.entries).toEqual([expect.objectContaining({ title: 'Start', description: 'Begin ✓' })]);
  });

  it('reads a headings-only llms-full.txt as anchored sections, served back to read-page', async () => {
    serve('llms-full.txt', '# Guide\n\nIntro text.\n\n# Reference\n\nEvery function.\n');
    const toc = await adapter.fetchToc(lib(), 'latest');
    // no `> summary` under the first heading: it is a page's title, not the site's
    expect(toc.title).toBeUndefined();
    expect(toc.entries.map((e) => e.url)).toEqual([
      `${base}/ex/llms-full.txt#guide`,
      `${base}/ex/llms-full.txt#reference`,
    ]);
    const reference = new URL(toc.entries[1]!.url);
    expect(adapter.ownsUrl?.(reference)).toBe(true);
    expect((await adapter.fetchPage!(reference)).markdown).toBe('# Reference\n\nEvery function.');
  });

  it('does not take an HTML page served as llms-full.txt for documentation', async () => {
    serve('llms-full.txt', '<!doctype html><html><body>app shell</body></html>', { contentType: 'text/html' });
    const error = await catalogErrorOf(adapter.fetchToc(lib(), 'latest'));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.message).toBe(
      `No llms.txt at ${base}/ex/llms.txt (HTTP 404), and ${base}/ex/llms-full.txt is not an llms-full.txt file: it is an HTML page.`,
    );
  });

  it('reuses the TOC it just read, until reuseTocSeconds, ttlHours or a changed freshness says otherwise', async () => {
    const reusing = await kernelWith();
    serve('llms.txt', '# Example\n- [A](a.md)\n');
    serve('a.md', '# A\ntext');
    const toc = await reusing.adapter.fetchToc(lib(), 'latest');
    await reusing.adapter.fetchDocs(lib(), 'latest');
    expect(requested('llms.txt')).toBe(1);
    // a changed llms.txt, once a freshness check has seen it, is read again
    serve('llms.txt', '# Example\n- [A](a.md)\n- [B](b.md)\n');
    expect(await reusing.adapter.checkFreshness(lib(), 'latest', toc.freshness)).toBe('changed');
    expect((await reusing.adapter.fetchDocs(lib(), 'latest')).toc?.entries).toHaveLength(2);
    expect(requested('llms.txt')).toBe(3);
    // a library whose docs expire sooner than the reuse window caps it
    const brief = lib({ ttlHours: 0.00001 }); // 36 ms
    for (let i = 0; i < 2; i++) {
      await new Promise((r) => setTimeout(r, 60));
      await reusing.adapter.fetchToc(brief, 'latest');
    }
    expect(requested('llms.txt')).toBe(5);
    await reusing.kernel.stop();
    // reuseTocSeconds: 0 (this suite's shared adapter) reads it every time
    web.clearRequests();
    await adapter.fetchToc(lib(), 'latest');
    await adapter.fetchToc(lib(), 'latest');
    expect(requested('llms.txt')).toBe(2);
  });

  it.each([
    [
      'an HTML page',
      '<!DOCTYPE html><html><body>Welcome</body></html>',
      /is not an llms\.txt file: it is an HTML page\.$/,
    ],
    ['JSON', '{"error": "not here"}', /is not an llms\.txt file: it is JSON\.$/],
    ['an empty body', '', /is not an llms\.txt file: it is empty\.$/],
    [
      'text without links or headings',
      'Coming soon.',
      /^Malformed llms\.txt at .*: it has neither links nor headings\.$/,
    ],
  ])('rejects %s served as llms.txt with INVALID_CONTENT', async (_, body, message) => {
    serve('llms.txt', body);
    const error = await catalogErrorOf(adapter.fetchToc(lib(), 'latest'));
    expect(error.code).toBe('INVALID_CONTENT');
    expect(error.message).toMatch(message);
  });

  // each with a kernel of its own: its HTTP client then keeps that host waiting, which would fail the other tests
  it('reports a rate-limited llms.txt as RATE_LIMITED with the server’s Retry-After, and asks again only after it', async () => {
    const own = await kernelWith({ reuseTocSeconds: 0 });
    try {
      web.setFault({ path: '/ex/llms.txt' }, { status: 429, retryAfter: 120 });
      const error = await catalogErrorOf(own.adapter.fetchToc(lib(), 'latest'));
      expect(error.code).toBe('RATE_LIMITED');
      expect(error.retryAfter).toBe(120);
      serve('llms.txt', '# Example\n- [Start](start)\n');
      const again = await catalogErrorOf(own.adapter.fetchToc(lib(), 'latest'));
      expect(again.code).toBe('RATE_LIMITED');
      expect(again.retryAfter).toBeGreaterThan(100);
      expect(again.message).toMatch(/answered 429 with Retry-After: not asked again for 1\d\d s\.$/);
      expect(requested('llms.txt')).toBe(1);
    } finally {
      await own.kernel.stop();
    }
  });

  it('reports a 503 with Retry-After as SOURCE_UNAVAILABLE carrying retryAfter', async () => {
    const own = await kernelWith({ reuseTocSeconds: 0 });
    try {
      web.setFault({ path: '/ex/llms.txt' }, { status: 503, retryAfter: 120 });
      const error = await catalogErrorOf(own.adapter.fetchToc(lib(), 'latest'));
      expect(error.code).toBe('SOURCE_UNAVAILABLE');
      expect(error.retryAfter).toBe(120);
      expect(error.suggestion).toBe('Try again after 120 seconds.');
    } finally {
      await own.kernel.stop();
    }
  });

  it('reports a failing server as SOURCE_UNAVAILABLE after the client’s retries', async () => {
    web.setFault({ path: '/ex/llms.txt' }, { status: 503 });
    const error = await catalogErrorOf(adapter.fetchToc(lib(), 'latest'));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(requested('llms.txt')).toBe(3);
  });

  it('reads the llms.txt of the requested version from versionedDocsUrl, and latest from docsUrl', async () => {
    serve('2.10/llms.txt', '# Example 2.10\n- [Old page](old.md)\n');
    serve('llms.txt', '# Example latest\n- [New page](new.md)\n');
    const versioned = lib({ versionedDocsUrl: `${base}/ex/{version}/` });
    expect((await adapter.fetchToc(versioned, '2.10')).title).toBe('Example 2.10');
    expect((await adapter.fetchToc(versioned, 'latest')).title).toBe('Example latest');
    // A version without its own llms.txt fails instead of silently serving another version.
    const error = await catalogErrorOf(adapter.fetchToc(versioned, '1.0'));
    expect(error.message).toBe(
      `No llms.txt at ${base}/ex/1.0/llms.txt (HTTP 404), nor llms-full.txt at ${base}/ex/1.0/llms-full.txt (HTTP 404).`,
    );
  });

  it('fills {version} as the site writes versions (versionFormat major.minor: 2.10.6 is read at /2.10/)', async () => {
    serve('2.10/llms.txt', '# Example 2.10\n- [Old page](old.md)\n');
    const versioned = lib({
      sources: { llmsTxt: { versionedDocsUrl: `${base}/ex/{version}/`, versionFormat: 'major.minor' } },
    });
    const toc = await adapter.fetchToc(versioned, '2.10.6');
    expect(toc.title).toBe('Example 2.10');
    expect(toc.sourceUrl).toBe(`${base}/ex/2.10/llms.txt`);
  });

  it('fetches listed pages markdown twin first, skipping failures, Optional pages last', async () => {
    serve(
      'llms.txt',
      [
        '# Example',
        '## Optional',
        '- [Extra](extra.md)',
        '## Guide',
        '- [Intro](intro)',
        '- [Install](install.md)',
        '- [Broken](broken.md)',
        '- [Html only](html-only)',
        '- [Same page, other anchor](install.md#windows)',
      ].join('\n'),
    );
    serve('intro.md', '# Intro\n\nWelcome.');
    serve('install.md', '# Install\n\nRun it.');
    serve('extra.md', '# Extra\n\nMore.');
    web.setFault({ path: '/ex/broken.md' }, { status: 500 });
    serve('html-only', '<!doctype html><html><head><title>Html</title></head><body>x</body></html>', {
      contentType: 'text/html',
    });
    const progress: [number, number][] = [];
    const docs = await adapter.fetchDocs(lib(), 'latest', { progress: (done, total) => progress.push([done, total]) });
    expect(docs.pages.map((p) => [p.title, p.url, p.section])).toEqual([
      ['Intro', `${base}/ex/intro`, 'Guide'],
      ['Install', `${base}/ex/install.md`, 'Guide'],
      ['Html only', `${base}/ex/html-only`, 'Guide'],
      ['Extra', `${base}/ex/extra.md`, 'Optional'],
    ]);
    expect(docs.pages[0]?.markdown).toBe('# Intro\n\nWelcome.');
    // a page served only as HTML goes to the engine as HTML, for it to extract the main content
    expect(docs.pages[2]).toMatchObject({ markdown: '', html: expect.stringContaining('<body>x</body>') });
    expect(docs.sourceUrl).toBe(`${base}/ex/llms.txt`);
    expect(docs.toc?.entries).toHaveLength(6);
    // (with the catalog code of the failure: the engine names the page in the library's notes)
    expect(docs.skipped).toEqual([
      { url: `${base}/ex/broken.md`, reason: expect.stringContaining('HTTP 500'), code: 'SOURCE_UNAVAILABLE' },
    ]);
    expect(progress.at(-1)).toEqual([5, 5]);
    // The twin was asked for first; .md URLs were fetched as they are, and once for two anchors.
    const order = web.requests.map((r) => r.path);
    expect(order.indexOf('/ex/intro.md')).toBeGreaterThan(-1);
    expect(requested('intro')).toBe(0);
    expect(requested('install.md')).toBe(1);
    expect(requested('install.md.md')).toBe(0);
    expect(requested('html-only.md')).toBe(1);
  });

  it('leaves Optional pages out first when over maxPages', async () => {
    const small = await kernelWith({ maxPages: 2 });
    serve('llms.txt', '# Example\n## Optional\n- [Opt](opt.md)\n## Guide\n- [A](a.md)\n- [B](b.md)\n- [C](c.md)\n');
    for (const p of ['opt', 'a', 'b', 'c']) serve(`${p}.md`, `# ${p}\ntext`);
    const docs = await small.adapter.fetchDocs(lib(), 'latest');
    expect(docs.pages.map((p) => p.title)).toEqual(['A', 'B']);
    expect(docs.skipped).toEqual([
      { url: `${base}/ex/c.md`, reason: 'over maxPages (2)' },
      { url: `${base}/ex/opt.md`, reason: 'over maxPages (2), Optional section' },
    ]);
    expect(requested('opt.md')).toBe(0);
    await small.kernel.stop();
  });

  it('fetches no more than `concurrency` pages at a time', async () => {
    const slow = await kernelWith({ concurrency: 2 });
    serve('llms.txt', `# Example\n${Array.from({ length: 6 }, (_, i) => `- [P${i}](p${i}.md)`).join('\n')}\n`);
    web.setFault({ path: /^\/ex\/p\d\.md$/ }, { delayMs: 150, body: '# Page\ntext', contentType: 'text/markdown' });
    const started = performance.now();
    const docs = await slow.adapter.fetchDocs(lib(), 'latest');
    expect(docs.pages).toHaveLength(6);
    // Six 150 ms pages two at a time take at least three rounds.
    expect(performance.now() - started).toBeGreaterThanOrEqual(440);
    await slow.kernel.stop();
  });

  // A host that accepts a page's request and never answers, or trickles its body, held the whole fetch (and so the
  // library's first get-docs, past engine.interactiveTimeoutMs) until the HTTP client's 30 s deadline; each page now
  // has pageTimeoutSeconds, its markdown twin's wait included, and is skipped past it.
  it('skips a page that has not arrived within pageTimeoutSeconds (twin included); the others arrive', async () => {
    const quick = await kernelWith({ pageTimeoutSeconds: 1 });
    serve('llms.txt', '# Example\n- [A](a.md)\n- [Stuck](stuck.md)\n- [Stuck twin](twin)\n- [Late](late.md)\n');
    serve('a.md', '# A\ntext');
    web.setFault({ path: '/ex/stuck.md' }, { hang: true });
    web.setFault({ path: /^\/ex\/twin/ }, { hang: true });
    web.setFault({ path: '/ex/late.md' }, { delayMs: 5000, body: '# Late\nlate' });
    const started = performance.now();
    const docs = await quick.adapter.fetchDocs(lib(), 'latest');
    const ms = performance.now() - started;
    expect(docs.pages.map((p) => p.title)).toEqual(['A']);
    const reasons = Object.fromEntries((docs.skipped ?? []).map((s) => [s.url.replace(`${base}/ex/`, ''), s.reason]));
    expect(reasons).toEqual({
      'stuck.md': `${base}/ex/stuck.md did not arrive within 1 s (sources.llmsTxt.pageTimeoutSeconds).`,
      twin: `${base}/ex/twin did not arrive within 1 s (sources.llmsTxt.pageTimeoutSeconds).`,
      'late.md': `${base}/ex/late.md did not arrive within 1 s (sources.llmsTxt.pageTimeoutSeconds).`,
    });
    // one budget per page, not one per request (the twin and the page would take 2 s): generous for a loaded machine
    expect(ms).toBeLessThan(1900);
    await quick.kernel.stop();
  });

  it('fails when every listed page fails, saying why', async () => {
    serve('llms.txt', '# Example\n- [A](a.md)\n- [B](b)\n');
    web.setFault({ path: '/ex/b' }, { status: 500 });
    const error = await catalogErrorOf(adapter.fetchDocs(lib(), 'latest'));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.message).toBe(`None of the pages listed in ${base}/ex/llms.txt could be read.`);
    expect(error.details?.skippedCount).toBe(2);
  });

  it('stops when the caller aborts', async () => {
    serve('llms.txt', `# Example\n${Array.from({ length: 40 }, (_, i) => `- [P${i}](p${i}.md)`).join('\n')}\n`);
    web.setFault({ path: /^\/ex\/p\d+\.md$/ }, { delayMs: 20, body: '# Page\ntext', contentType: 'text/markdown' });
    const controller = new AbortController();
    const run = adapter.fetchDocs(lib(), 'latest', {
      signal: controller.signal,
      progress: (done) => {
        if (done === 3) controller.abort(new Error('user cancelled'));
      },
    });
    await expect(run).rejects.toThrow('user cancelled');
    await new Promise((r) => setTimeout(r, 100));
    expect(web.requests.filter((r) => /^\/ex\/p\d+\.md$/.test(r.path)).length).toBeLessThan(12);
  });

  it('uses llms-full.txt within maxFullTxtTokens, and the pages otherwise', async () => {
    const tiny = await kernelWith({ maxFullTxtTokens: 50 });
    serve('llms.txt', '# Example\n## Guide\n- [A](a.md)\n');
    serve('a.md', '# A\nfrom the page');
    serve('llms-full.txt', `# A\nSource: ${base}/ex/a.md\n\nfrom llms-full\n`);
    const full = await tiny.adapter.fetchDocs(lib(), 'latest');
    expect(full.sourceUrl).toBe(`${base}/ex/llms-full.txt`);
    expect(full.pages).toEqual([
      { url: `${base}/ex/a.md`, title: 'A', section: 'Guide', markdown: '# A\n\nfrom llms-full' },
    ]);
    expect(requested('a.md')).toBe(0);

    serve('llms-full.txt', `# A\nSource: ${base}/ex/a.md\n\n${'long text '.repeat(100)}\n`);
    const pages = await tiny.adapter.fetchDocs(lib(), 'latest');
    expect(pages.sourceUrl).toBe(`${base}/ex/llms.txt`);
    expect(pages.pages[0]?.markdown).toBe('# A\nfrom the page');
    await tiny.kernel.stop();

    const prefer = await kernelWith({ maxFullTxtTokens: 50, preferFullTxt: true });
    expect((await prefer.adapter.fetchDocs(lib(), 'latest')).sourceUrl).toBe(`${base}/ex/llms-full.txt`);
    await prefer.kernel.stop();
  });

  it('ignores an llms-full.txt that is an HTML fallback page', async () => {
    serve('llms.txt', '# Example\n- [A](a.md)\n');
    serve('a.md', '# A\ntext');
    serve('llms-full.txt', '<!doctype html><html><body>app shell</body></html>', { contentType: 'text/html' });
    const docs = await adapter.fetchDocs(lib(), 'latest');
    expect(docs.sourceUrl).toBe(`${base}/ex/llms.txt`);
    expect(docs.condensed).toBeUndefined(); // an index of pages is the documentation itself
  });

  it('serves a self-contained llms.txt (a manual) as its own pages, and reads sections back by anchor', async () => {
    const manual = `# Tool\n\nIntro.\n\n## Install\n\nRun \`pip install tool\`.\n\n${'```sh\n# not a heading\n```\n'}\n## Usage\n\nCall it.\n${'Details. '.repeat(40)}\n`;
    serve('llms.txt', manual);
    const docs = await adapter.fetchDocs(lib(), 'latest');
    expect(docs.sourceUrl).toBe(`${base}/ex/llms.txt`);
    // a summary of docs that live elsewhere: the engine prefers the library's other sources
    expect(docs.condensed).toBe(true);
    expect(docs.toc?.condensed).toBe(true);
    expect(docs.pages.map((p) => p.url)).toEqual([
      `${base}/ex/llms.txt#tool`,
      `${base}/ex/llms.txt#install`,
      `${base}/ex/llms.txt#usage`,
    ]);
    const install = new URL(`${base}/ex/llms.txt#install`);
    expect(adapter.ownsUrl?.(install)).toBe(true);
    const page = await adapter.fetchPage!(install);
    expect(page).toMatchObject({ title: 'Install', contentType: 'markdown', url: install.href });
    expect(page.markdown).toMatch(/^## Install\n\nRun `pip install tool`\./);
    // Non-ASCII headings give percent-encoded anchors that survive a round trip through `new URL`.
    serve('llms.txt', `${manual}\n## Café & Crème\n\nAccents.\n`);
    const toc = await adapter.fetchToc(lib(), 'latest');
    const accented = toc.entries.at(-1)!;
    expect(accented).toMatchObject({ title: 'Café & Crème', url: `${base}/ex/llms.txt#caf%C3%A9-cr%C3%A8me` });
    expect(adapter.ownsUrl?.(new URL(accented.url))).toBe(true);
    expect((await adapter.fetchPage!(new URL(accented.url))).markdown).toBe('## Café & Crème\n\nAccents.');
    const missing = await catalogErrorOf(adapter.fetchPage!(new URL(`${base}/ex/llms.txt#nope`)));
    expect(missing.code).toBe('PAGE_NOT_FOUND');
  });

  it('fetchPage tries the markdown twin first and reports what the origin served', async () => {
    serve('llms.txt', '# Example\n- [Guide](guide)\n- [SPA](spa)\n- [Legacy](legacy/)\n');
    await adapter.fetchToc(lib(), 'latest');
    serve('guide.md', '# The Guide\n\ntext');
    const twin = await adapter.fetchPage!(new URL(`${base}/ex/guide`));
    expect(twin).toMatchObject({
      url: `${base}/ex/guide`,
      finalUrl: `${base}/ex/guide.md`,
      title: 'Guide',
      contentType: 'markdown',
      markdown: '# The Guide\n\ntext',
    });
    expect(twin.freshness.contentHash).toMatch(/^[0-9a-f]{64}$/);

    // A single-page app answers every URL with its shell: that is not a markdown twin.
    const shell = '<!DOCTYPE html><html><head><title>App</title></head><body><div id="app"></div></body></html>';
    serve('spa.md', shell, { contentType: 'text/html' });
    serve('spa', '# Real SPA page', { contentType: 'text/plain' });
    expect(await adapter.fetchPage!(new URL(`${base}/ex/spa`))).toMatchObject({
      finalUrl: `${base}/ex/spa`,
      contentType: 'markdown',
    });

    serve('legacy/', '<!DOCTYPE html><html><head><title>Legacy docs</title></head><body>old</body></html>', {
      contentType: 'text/html',
    });
    const html = await adapter.fetchPage!(new URL(`${base}/ex/legacy/`));
    expect(html).toMatchObject({ contentType: 'html', finalUrl: `${base}/ex/legacy/` });
    expect(html.markdown).toContain('<body>old</body>');
    expect(requested('legacy/index.md')).toBe(1);
    expect(requested('legacy/index.html.md')).toBe(1);

    const gone = await catalogErrorOf(adapter.fetchPage!(new URL(`${base}/ex/guide-removed`)));
    expect(gone.code).toBe('PAGE_NOT_FOUND');
  });

  it('fetchPage tries no markdown twin for a URL that no TOC lists', async () => {
    serve('llms.txt', '# Example\n- [Guide](guide)\n');
    await adapter.fetchToc(lib(), 'latest');
    serve('redir', '', { redirectTo: `${base}/ex/target` });
    serve('target', '# Target\ntext');
    const page = await adapter.fetchPage!(new URL(`${base}/ex/redir`));
    expect(page).toMatchObject({ finalUrl: `${base}/ex/target`, title: 'Target' });
    // one request (and its redirect), where twin-first would have asked for redir.md first
    expect(requested('redir.md')).toBe(0);
    expect(requested('redir')).toBe(1);
  });

  it('fetches pages as they are when preferMarkdownVariant is off', async () => {
    const plain = await kernelWith({ preferMarkdownVariant: false });
    serve('llms.txt', '# Example\n- [Guide](guide)\n');
    await plain.adapter.fetchToc(lib(), 'latest');
    serve('guide', '# Guide\ntext');
    expect((await plain.adapter.fetchPage!(new URL(`${base}/ex/guide`))).finalUrl).toBe(`${base}/ex/guide`);
    expect(requested('guide.md')).toBe(0);
    await plain.kernel.stop();
  });

  it('checks freshness by content hash when the server ignores conditional requests', async () => {
    serve('llms.txt', '# Example\n- [A](a.md)\n');
    const toc = await adapter.fetchToc(lib(), 'latest');
    expect(await adapter.checkFreshness(lib(), 'latest', toc.freshness)).toBe('fresh');
    serve('llms.txt', '# Example\n- [A](a.md)\n- [B](b.md)\n');
    expect(await adapter.checkFreshness(lib(), 'latest', toc.freshness)).toBe('changed');
    web.setFault({ path: '/ex/llms.txt' }, { status: 404 });
    expect(await adapter.checkFreshness(lib(), 'latest', toc.freshness)).toBe('changed');
    web.setFault({ path: '/ex/llms.txt' }, { reset: true });
    expect(await adapter.checkFreshness(lib(), 'latest', toc.freshness)).toBe('unknown');
    web.clearFaults();
    serve('llms.txt', '# Example\n- [A](a.md)\n');
    expect(await adapter.checkFreshness(lib(), 'latest', {})).toBe('unknown');
  });
});

// The corpus sites are started before the suites are collected, as the contract suite needs their URLs.
// plus `pydantic-full-only`: pydantic's real llms-full.txt on a site that publishes no llms.txt
const corpusWeb = corpusDir
  ? await startFakeWeb({
      sites: corpusSites(corpusDir).flatMap((s) =>
        s.name === 'pydantic' ? [s, { ...s, name: 'pydantic-full-only', llmsTxt: false as const }] : [s],
      ),
    })
  : undefined;
afterAll(async () => {
  await corpusWeb?.close();
});

describe.skipIf(!corpusWeb)('LlmsTxtSourceAdapter on the corpus sites', () => {
  const web = corpusWeb as FakeWeb;
  const site = (name: string): LibraryDescriptor => ({ id: name, name, docsUrl: web?.siteUrl(name) });
  let kernel: StartedKernel;
  let adapter: SourceAdapter;
  beforeAll(async () => {
    ({ kernel, adapter } = await kernelWith());
  });
  afterEach(() => {
    web.clearFaults();
    web.clearRequests();
  });
  afterAll(async () => {
    await kernel.stop();
  });

  it('indexes pydantic page by page: its 1.8 MB llms-full.txt is over the default budget', async () => {
    const progress: number[] = [];
    const docs = await adapter.fetchDocs(site('pydantic'), 'latest', { progress: (done) => progress.push(done) });
    expect(docs.sourceUrl).toBe(web.llmsTxtUrl('pydantic'));
    // the 81 pages the llms.txt lists, then the pages its sitemap.xml adds (the migration guide among them)
    const listed = docs.pages.filter((p) => p.section !== 'Other pages');
    expect(listed).toHaveLength(81);
    expect(docs.skipped).toEqual([]);
    expect(docs.pages[0]).toMatchObject({ title: 'Alias', section: 'Concepts documentation' });
    expect(docs.pages[0]?.markdown).toContain('alias');
    expect(listed.at(-1)?.section).toBe('Optional');
    const discovered = docs.pages.filter((p) => p.section === 'Other pages');
    expect(discovered.map((p) => web.fileForUrl(p.url))).toContain('docs/migration.md');
    expect(progress.at(-1)).toBe(docs.pages.length);
    // The pages are served where the llms.txt says (rewritten to the fake), as mkdocs-llmstxt index.md twins.
    expect(web.fileForUrl(docs.pages[0]!.url)).toBe('docs/concepts/alias.md');
  });

  it('indexes pydantic from llms-full.txt when preferred, with the TOC’s URLs where titles match', async () => {
    const prefer = await kernelWith({ preferFullTxt: true });
    const docs = await prefer.adapter.fetchDocs(site('pydantic'), 'latest');
    const fullUrl = `${web.siteUrl('pydantic')}llms-full.txt`;
    expect(docs.sourceUrl).toBe(fullUrl);
    expect(docs.pages.length).toBeGreaterThan(600);
    expect(docs.pages.find((p) => p.title === 'Settings Management')?.url).toBe(
      `${web.siteUrl('pydantic')}concepts/pydantic_settings/index.md`,
    );
    const anchored = docs.pages.find((p) => p.title === 'Using alias generators')!;
    expect(anchored.url).toBe(`${fullUrl}#using-alias-generators`);
    expect(prefer.adapter.ownsUrl?.(new URL(anchored.url))).toBe(true);
    const page = await prefer.adapter.fetchPage!(new URL(anchored.url));
    expect(page.markdown).toBe(anchored.markdown);
    await prefer.kernel.stop();
  });

  it('reads pydantic from its llms-full.txt alone when the site has no llms.txt, downloading it once', async () => {
    const lib = site('pydantic-full-only');
    const fullUrl = `${web.siteUrl('pydantic-full-only')}llms-full.txt`;
    const toc = await adapter.fetchToc(lib, 'latest');
    expect(toc).toMatchObject({
      title: 'Pydantic Validation',
      summary: 'Data validation using Python type hints',
      sourceUrl: fullUrl,
    });
    // its H1s are the sections, the pages under them (titles stripped by mkdocs-llmstxt) are cut at their H2s
    expect(toc.entries.length).toBeGreaterThan(600);
    expect(toc.entries.find((e) => e.title === 'Using alias generators')).toMatchObject({
      url: `${fullUrl}#using-alias-generators`,
      section: 'Concepts documentation',
      description: expect.stringMatching(/alias/i),
    });
    const docs = await adapter.fetchDocs(lib, 'latest');
    expect(docs.sourceUrl).toBe(fullUrl);
    expect(docs.pages.map((p) => p.url)).toEqual(toc.entries.map((e) => e.url));
    expect(web.requestsTo(new URL(fullUrl).pathname)).toHaveLength(1);
    const page = docs.pages.find((p) => p.title === 'Using alias generators')!;
    expect((await adapter.fetchPage!(new URL(page.url))).markdown).toBe(page.markdown);
  });

  it('indexes hono from its generated llms-full.txt (Source: lines) with the pages’ own URLs', async () => {
    const prefer = await kernelWith({ preferFullTxt: true });
    const docs = await prefer.adapter.fetchDocs(site('hono'), 'latest');
    expect(docs.sourceUrl).toBe(`${web.siteUrl('hono')}llms-full.txt`);
    const toc = new Set(docs.toc?.entries.map((e) => e.url));
    expect(docs.pages.length).toBe(toc.size);
    expect(docs.pages.every((p) => toc.has(p.url))).toBe(true);
    await prefer.kernel.stop();
  });

  it('reads instructor’s self-contained llms.txt as its documentation', async () => {
    const docs = await adapter.fetchDocs(site('instructor'), 'latest');
    expect(docs.sourceUrl).toBe(web.llmsTxtUrl('instructor'));
    expect(docs.pages.map((p) => p.title)).toContain('Core Concept');
  });

  it('records langgraph’s broken links (notebook pages absent from the corpus) as skipped', async () => {
    const docs = await adapter.fetchDocs(site('langgraph'), 'latest');
    expect(docs.pages.length).toBeGreaterThan(100);
    expect(docs.skipped?.length).toBeGreaterThan(0);
    expect(docs.skipped?.every((s) => /HTTP 404/.test(s.reason))).toBe(true);
  });

  it('hands an HTML-only site to the engine as HTML pages, and serves its pages to read-page as HTML', async () => {
    const lib = site('httpx-html');
    const docs = await adapter.fetchDocs(lib, 'latest');
    expect(docs.pages.length).toBeGreaterThan(10);
    expect(docs.pages.every((p) => p.markdown === '' && /<html/i.test(p.html ?? ''))).toBe(true);
    const toc = await adapter.fetchToc(lib, 'latest');
    const page = await adapter.fetchPage!(new URL(toc.entries[0]!.url));
    expect(page.contentType).toBe('html');
    expect(page.markdown).toMatch(/<html/i);
  });

  it('answers fresh to a conditional request the site answers with 304', async () => {
    const toc = await adapter.fetchToc(site('vitest'), 'latest');
    expect(toc.freshness.etag).toBeTruthy();
    expect(await adapter.checkFreshness(site('vitest'), 'latest', toc.freshness)).toBe('fresh');
    const last = web.requestsTo(new URL(web.llmsTxtUrl('vitest')).pathname).at(-1);
    expect(last?.headers['if-none-match']).toBe(toc.freshness.etag);
    expect(last?.status).toBe(304);
  });
});

if (corpusWeb) {
  let contractKernel: StartedKernel | undefined;
  describeSourceAdapterContract('llms-txt', {
    async create() {
      const made = await kernelWith();
      contractKernel = made.kernel;
      return made.adapter;
    },
    library: { id: 'zod', name: 'Zod', docsUrl: corpusWeb.siteUrl('zod') },
    foreignLibrary: { id: 'elsewhere', name: 'Elsewhere', repository: 'someone/elsewhere' },
    destroy: () => contractKernel?.stop(),
  });
}
