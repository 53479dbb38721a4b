import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../src/html/html-to-markdown.js';
import { chunkMarkdown } from '../src/markdown/chunk.js';

const base = 'https://docs.acme.test/guide/setup/';
const prose = (n: number): string =>
  Array.from(
    { length: n },
    (_, i) =>
      `<p>Paragraph ${i} explains how the client keeps connections alive, retries failed requests with a backoff, and reports every error to the caller in a predictable, documented way.</p>`,
  ).join('\n');

const docsPage = `<!DOCTYPE html><html><head><title>Setup - Acme Docs</title></head><body>
<header class="site-header"><a href="/">Acme Docs</a><nav><ul><li><a href="/guide/">Guide</a></li><li><a href="/api/">API Reference</a></li></ul></nav></header>
<aside class="sidebar"><ul><li><a href="/guide/install/">Installing Acme</a></li><li><a href="/guide/faq/">Frequently asked</a></li></ul></aside>
<main>
  <article>
    <h1 id="setup">Setup<a class="headerlink" href="#setup" title="Permanent link">¶</a></h1>
    <p>Read the <a href="../options/#timeouts">options</a> first, then <a href="#configure">configure</a>.</p>
    <h2 id="configure">Configure<a class="headerlink" href="#configure">¶</a></h2>
    <div class="admonition warning"><p class="admonition-title">Careful</p><p>Keep secrets out of the repository.</p></div>
    <pre><code class="language-ts">const client = createClient({ retries: 3 });</code></pre>
    <pre class="language-bash"><code>npm install acme</code></pre>
    <div class="language-python highlight"><pre><span></span><code><span id="l1"><a href="#l1"></a><span class="kn">import</span> <span class="nn">acme</span></span>
<span class="n">acme</span><span class="o">.</span><span class="n">run</span><span class="p">()</span></code></pre></div>
    <p>Call <code>acme.<strong>run</strong>()</code> with <img src="/img/run.png" alt="run diagram"> care.</p>
    <table><thead><tr><th>Option</th><th>Type</th><th>Default</th></tr></thead>
      <tbody><tr><td>retries</td><td>number</td><td>3</td></tr><tr><td>timeout</td><td>number</td><td>30</td></tr></tbody></table>
    <div class="tabbed-set"><input type="radio" checked><input type="radio">
      <div class="tabbed-labels"><label>pip</label><label>uv</label></div>
      <div class="tabbed-content"><div class="tabbed-block"><pre><code>pip install acme</code></pre></div><div class="tabbed-block"><pre><code>uv add acme</code></pre></div></div>
    </div>
    <button class="md-clipboard">Copy to clipboard</button>
  </article>
</main>
<footer><p>Copyright Acme. Made with love.</p><a href="/privacy/">Privacy</a></footer>
<script>window.analytics = 1;</script>
</body></html>`;

describe('htmlToMarkdown on a documentation page', () => {
  const { title, markdown } = htmlToMarkdown(docsPage, base);

  it('keeps the main content and its H1, without permalinks', () => {
    expect(title).toBe('Setup');
    expect(markdown.startsWith('# Setup\n\n')).toBe(true);
    expect(markdown).toContain('## Configure');
    expect(markdown).not.toContain('¶');
  });

  it('drops the header, navigation, sidebar, footer, buttons and scripts', () => {
    for (const chrome of [
      'API Reference',
      'Installing Acme',
      'Frequently asked',
      'Copyright',
      'Privacy',
      'Copy to clipboard',
      'analytics',
    ]) {
      expect(markdown).not.toContain(chrome);
    }
  });

  it('makes links and images absolute', () => {
    expect(markdown).toContain('[options](https://docs.acme.test/guide/options/#timeouts)');
    expect(markdown).toContain('[configure](https://docs.acme.test/guide/setup/#configure)');
    expect(markdown).toContain('![run diagram](https://docs.acme.test/img/run.png)');
  });

  it('fences code with its language, wherever the class is', () => {
    expect(markdown).toContain('```ts\nconst client = createClient({ retries: 3 });\n```');
    expect(markdown).toContain('```bash\nnpm install acme\n```');
    expect(markdown).toContain('```python\nimport acme\nacme.run()\n```');
  });

  it('keeps inline code as its text', () => {
    expect(markdown).toContain('Call `acme.run()` with');
  });

  it('turns tables into GFM tables', () => {
    expect(markdown).toMatch(
      /\| Option \| Type \| Default \|\n\| --- \| --- \| --- \|\n\| retries \| number \| 3 +\|\n\| timeout \| number \| 30 +\|/,
    );
  });

  it('keeps admonition titles and content-tab labels readable', () => {
    expect(markdown).toContain('**Careful**\n\nKeep secrets out of the repository.');
    expect(markdown).toContain('**pip**\n\n```\npip install acme\n```\n\n**uv**\n\n```\nuv add acme\n```');
  });
});

describe('htmlToMarkdown: other page shapes', () => {
  it('uses Readability on a page without a content container, and adds the H1 it drops', () => {
    const html = `<html><head><title>Connection pooling | Acme</title></head><body>
      <div class="menu"><a href="/a">Home</a> <a href="/b">Blog</a></div>
      <div id="wrap"><div class="post"><h1>Connection pooling</h1>${prose(12)}
      <div class="highlight"><pre><code class="language-py"><span class="n">pool</span> = Pool(size=4)</code></pre></div></div></div>
      <div class="bottom">Subscribe to our newsletter</div></body></html>`;
    const { title, markdown } = htmlToMarkdown(html, base);
    expect(title).toBe('Connection pooling');
    expect(markdown.startsWith('# Connection pooling\n\nParagraph 0 explains')).toBe(true);
    expect(markdown).toContain('Paragraph 11 explains');
    expect(markdown).toContain('```py\npool = Pool(size=4)\n```');
    expect(markdown).not.toContain('Subscribe to our newsletter');
    expect(markdown).not.toContain('Blog');
  });

  it('drops a short menu left before the H1 when falling back to the body', () => {
    const html = `<html><head><title>Pooling</title></head><body><div class="menu"><a href="/a">Home</a> <a href="/b">Blog</a></div><h1>Pooling</h1><p>Short text.</p></body></html>`;
    expect(htmlToMarkdown(html, base).markdown).toBe('# Pooling\n\nShort text.');
  });

  it('falls back to the body for a short page, without its navigation', () => {
    const html = `<html><head><title>Short</title></head><body><nav><a href="/x">Nav link</a></nav><h1>Short</h1><p>tiny <a href="x">x</a></p></body></html>`;
    expect(htmlToMarkdown(html, 'https://a.test/b/')).toEqual({
      title: 'Short',
      markdown: '# Short\n\ntiny [x](https://a.test/b/x)',
      // the links a crawler follows include the navigation's
      links: ['https://a.test/x', 'https://a.test/b/x'],
    });
  });

  it('takes the title from <title> without the site name when there is no H1', () => {
    const html = `<html><head><title>Timeouts - HTTPX</title></head><body><main>${prose(3)}</main></body></html>`;
    const { title, markdown } = htmlToMarkdown(html, base);
    expect(title).toBe('Timeouts');
    expect(markdown.startsWith('# Timeouts\n\nParagraph 0')).toBe(true);
  });

  it('accepts an HTML fragment and honours <base href>', () => {
    expect(htmlToMarkdown('<h1>Frag</h1><p>See <a href="y">y</a>.</p>', 'https://a.test/docs/x').markdown).toBe(
      '# Frag\n\nSee [y](https://a.test/docs/y).',
    );
    const withBase =
      '<html><head><base href="https://cdn.test/v2/"></head><body><h1>B</h1><p><a href="page">p</a></p></body></html>';
    expect(htmlToMarkdown(withBase, 'https://a.test/').markdown).toContain('[p](https://cdn.test/v2/page)');
  });

  it('drops javascript: links and keeps code containing backtick fences intact', () => {
    const html =
      '<main><h1>J</h1><p><a href="javascript:alert(1)">click</a></p><pre><code class="language-md">```js\nx\n```</code></pre></main>';
    const { markdown } = htmlToMarkdown(html, base);
    expect(markdown).not.toContain('javascript:');
    expect(markdown).toContain('````md\n```js\nx\n```\n````');
  });

  it('gives a title-only document for an empty page', () => {
    expect(htmlToMarkdown('<html><head><title>Nothing</title></head><body></body></html>', base)).toEqual({
      title: 'Nothing',
      markdown: '# Nothing',
      links: [],
    });
  });
});

// The shared corpora: $PRO_CONTEXT_SHARED_DIR/corpora, else ../shared/corpora beside the repository.
const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpusRoot = [
  ...(process.env.PRO_CONTEXT_SHARED_DIR ? [path.resolve(process.env.PRO_CONTEXT_SHARED_DIR, 'corpora')] : []),
  path.resolve(packageDir, '../../../shared/corpora'),
].find((dir) => existsSync(path.join(dir, 'html')));
if (!corpusRoot) console.warn('html corpus tests skipped: shared corpora not found (set PRO_CONTEXT_SHARED_DIR)');

function htmlFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) htmlFiles(full, out);
    else if (name === 'index.html') out.push(full);
  }
  return out;
}

/** ATX headings outside code, reduced to plain lower-case words for a loose comparison. */
function headingSet(markdown: string): Set<string> {
  const out = new Set<string>();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const m = fence ? null : /^#{1,6}\s+(.*?)\s*(\{[^}]*\})?\s*$/.exec(line);
    if (m) out.add(plain(m[1] as string));
  }
  return out;
}
const plain = (text: string): string =>
  text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>|[`*\\]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
const fences = (markdown: string): number => (markdown.match(/^\s*```/gm) ?? []).length / 2;

describe.skipIf(!corpusRoot)('htmlToMarkdown on real built documentation sites', () => {
  const root = path.join(corpusRoot as string, 'html');
  const files = corpusRoot ? htmlFiles(root) : [];
  const results = new Map<string, { title: string; markdown: string; ms: number }>();
  const rel = (file: string): string => path.relative(root, file).split(path.sep).join('/');

  it('converts every page, each in well under a second', () => {
    expect(files.length).toBeGreaterThanOrEqual(28);
    for (const file of files) {
      const html = readFileSync(file, 'utf8');
      const url = `https://docs.example.test/${rel(file).replace(/index\.html$/, '')}`;
      const started = performance.now();
      const result = htmlToMarkdown(html, url);
      results.set(file, { ...result, ms: performance.now() - started });
    }
    const times = [...results.values()].map((r) => r.ms).sort((a, b) => a - b);
    console.info(
      `converted ${files.length} pages: median ${times[Math.floor(times.length / 2)]?.toFixed(0)} ms, max ${times.at(-1)?.toFixed(0)} ms`,
    );
    for (const [file, r] of results) {
      expect(r.markdown.startsWith(`# ${r.title}\n`), rel(file)).toBe(true);
      expect(r.ms, rel(file)).toBeLessThan(5_000);
    }
  });

  it('keeps no navigation, search, table-of-contents or footer text', () => {
    const chrome = [
      'Skip to content',
      'Initializing search',
      'Table of contents',
      'Back to top',
      'Copy to clipboard',
      'Was this page helpful',
      'Made with',
    ];
    for (const [file, r] of results) {
      for (const text of chrome) expect(r.markdown.includes(text), `${rel(file)}: ${text}`).toBe(false);
    }
    // The httpx site navigation lists every page; a page's markdown must not carry that list.
    const timeouts = [...results.entries()].find(
      ([f]) => rel(f) === 'httpx-gh-pages/advanced/timeouts/index.html',
    )?.[1];
    expect(timeouts?.markdown).not.toMatch(/\[Third Party Packages\]|\[Code of Conduct\]|\[Environment Variables\]/);
  });

  it('keeps the headings and code blocks of each pydantic page (compared with its index.md twin)', () => {
    for (const [file, r] of results) {
      const twin = path.join(path.dirname(file), 'index.md');
      if (!rel(file).startsWith('pydantic') || !existsSync(twin)) continue;
      const expected = readFileSync(twin, 'utf8');
      const ours = headingSet(r.markdown);
      const missing = [...headingSet(expected)].filter((h) => !ours.has(h) && ![...ours].some((o) => o.startsWith(h)));
      expect(missing, rel(file)).toEqual([]);
      expect(fences(r.markdown), rel(file)).toBe(fences(expected));
    }
  });

  it('converts pages whose chunks carry the real page anchors', () => {
    const api = [...results.entries()].find(([f]) => rel(f) === 'pydantic-docs-site/dev/api/base_model/index.html');
    const chunks = chunkMarkdown({
      url: 'https://docs.example.test/api/base_model/',
      markdown: api?.[1].markdown ?? '',
    });
    const dump = chunks.find((c) => c.anchor === 'pydantic.BaseModel.model_dump');
    expect(dump?.headings).toEqual(['BaseModel', 'pydantic.BaseModel', 'model_dump']);
    const models = [...results.entries()].find(([f]) => rel(f) === 'pydantic-docs-site/dev/concepts/models/index.html');
    const anchors = chunkMarkdown({ url: 'https://x.test/', markdown: models?.[1].markdown ?? '' }).map(
      (c) => c.anchor,
    );
    expect(anchors).toEqual(
      expect.arrayContaining(['extra-data', 'defining-a-custom-__init__', 'rootmodel-and-custom-root-types']),
    );
  });

  it('keeps the headings and code blocks of each httpx page (compared with the markdown sources)', () => {
    const docs = path.join(corpusRoot as string, 'httpx/docs');
    let compared = 0;
    for (const [file, r] of results) {
      if (!rel(file).startsWith('httpx')) continue;
      const page = rel(path.dirname(file)).replace(/^httpx-gh-pages\/?/, '') || 'index';
      const source = path.join(docs, `${page}.md`);
      if (!existsSync(source)) continue;
      compared += 1;
      const expected = readFileSync(source, 'utf8');
      const ours = headingSet(r.markdown);
      expect(
        [...headingSet(expected)].filter((h) => !ours.has(h)),
        rel(file),
      ).toEqual([]);
      expect(fences(r.markdown), rel(file)).toBeGreaterThanOrEqual(fences(expected));
    }
    expect(compared).toBeGreaterThan(15);
  });
});
