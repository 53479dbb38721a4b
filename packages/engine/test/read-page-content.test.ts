import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createHttpClient } from '@pro-context/http';
import type { HttpClient } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { createUrlAllowlist } from '@pro-context/runtime';
import { catalogErrorOf, MemoryCacheStore } from '@pro-context/testing';
import { findCorpusRoot } from '@pro-context/testing/fake-web';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PageReader, type TocTitleLookup, truncationNote } from '../src/read-page/pages.js';
import { SourceChain } from '../src/versions/sources.js';

// A loopback docs site: path → markdown body.
const pages = new Map<string, string>();
let server: http.Server;
let origin = '';
let client: HttpClient;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const body = pages.get(req.url ?? '/');
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = createHttpClient({ allowPrivateNetwork: true, proxy: false, retries: 0 });
});

afterEach(() => pages.clear());

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function reader(tocTitle?: TocTitleLookup): PageReader {
  const allowlist = createUrlAllowlist([{ entry: `${origin}/`, reason: 'test' }]);
  return new PageReader(client, new MemoryCacheStore(), allowlist, new SourceChain([]), createSilentLogger(), tocTitle);
}

const filler = 'Some prose that makes this page long enough to count as documentation content.';

describe('read-page titles', () => {
  it('skips headings inside code blocks and strips `{ #anchor }` suffixes', async () => {
    pages.set(
      '/guide.md',
      [
        'Intro paragraph.',
        '',
        '```python',
        '# V1',
        'x = 1',
        '```',
        '',
        '# Real title { #real-title }',
        '',
        filler,
      ].join('\n'),
    );
    expect((await reader().read(`${origin}/guide.md`, 2000)).title).toBe('Real title');
  });

  it('takes the title from the library TOC when the page has no H1 or front matter title', async () => {
    pages.set('/concepts/migration.md', `---\ndescription: Migrating.\n---\n\n## Install\n\n${filler}\n`);
    const fromToc = reader((url) => (url.pathname === '/concepts/migration.md' ? 'Migration Guide' : undefined));
    expect((await fromToc.read(`${origin}/concepts/migration.md`, 2000)).title).toBe('Migration Guide');
  });

  it('makes a readable title from the URL otherwise, never "index"', async () => {
    pages.set('/dependencies-with-yield/index.md', `## Section\n\n${filler}\n`);
    pages.set('/index.md', `${filler}\n`);
    expect((await reader().read(`${origin}/dependencies-with-yield/`, 2000)).title).toBe('Dependencies with yield');
    expect((await reader().read(`${origin}/`, 2000)).title).toBe('127.0.0.1');
  });

  it('prefers a front matter title to the TOC', async () => {
    pages.set('/fm.md', `---\ntitle: "From front matter"\n---\n\n${filler}\n`);
    expect((await reader(() => 'From TOC').read(`${origin}/fm.md`, 2000)).title).toBe('From front matter');
  });
});

describe('read-page content is clean markdown', () => {
  it('turns MkDocs admonitions, pymdown blocks, content tabs and heading attributes into plain markdown', async () => {
    pages.set(
      '/mkdocs.md',
      [
        '# Page { #page }',
        '',
        '/// tip',
        '',
        'Use `yield` once.',
        '',
        '///',
        '',
        '!!! note "Heads up"',
        '    Indented admonition body.',
        '',
        '=== "Python 3.10+"',
        '',
        '    ```python',
        '    # not a heading { #nope }',
        '    ```',
        '',
        '## Section { #section .class }',
        '',
        filler,
      ].join('\n'),
    );
    const { content } = await reader().read(`${origin}/mkdocs.md`, 2000);
    expect(content).not.toMatch(/^\s*(\/\/\/|!!!|===)/m);
    expect(content).not.toContain('{ #page }');
    expect(content).toContain('# Page\n');
    expect(content).toContain('**Tip**');
    expect(content).toContain('**Note: Heads up**');
    expect(content).toContain('Indented admonition body.');
    expect(content).toContain('**Python 3.10+**');
    expect(content).toContain('## Section\n');
    // code is never rewritten
    expect(content).toContain('# not a heading { #nope }');
  });
});

describe('read-page offsets', () => {
  const long = Array.from({ length: 40 }, (_, i) => `## Part ${i}\n\n${filler} ${filler} ${filler}\n`).join('\n');

  it('truncates at a section boundary with the seed’s note and continues from nextOffset', async () => {
    pages.set('/long.md', `# Long\n\n${long}`);
    const r = reader();
    const first = await r.read(`${origin}/long.md`, 500);
    expect(first.truncated).toBe(true);
    expect(first.content).toMatch(/\n## Part \d+\n[\s\S]*\n\n\[Content truncated\. \d+ tokens not shown\./);
    const remaining = Number(/\[Content truncated\. (\d+) tokens/.exec(first.content)?.[1]);
    expect(first.content).toContain(truncationNote(remaining));
    const next = await r.read(`${origin}/long.md`, 500, first.nextOffset);
    expect(next.content.startsWith('## Part')).toBe(true);
  });

  it('starts at the section a URL fragment names (a TOC entry into one file), unless an offset is given', async () => {
    pages.set(
      '/all.md',
      `# All\n\n${filler}\n\n## Key Features { #key-features }\n\nStructured outputs.\n\n## Other\n\n${filler}\n`,
    );
    const r = reader();
    const atSection = await r.read(`${origin}/all.md#key-features`, 2000);
    expect(atSection.content.startsWith('## Key Features\n\nStructured outputs.')).toBe(true);
    expect((await r.read(`${origin}/all.md#no-such-section`, 2000)).content.startsWith('# All')).toBe(true);
    expect((await r.read(`${origin}/all.md#key-features`, 2000, 2)).content.startsWith('All')).toBe(true);
  });

  it('answers INVALID_INPUT naming the page length for an offset past the end', async () => {
    pages.set('/short.md', `# Short\n\n${filler}\n`);
    const r = reader();
    const whole = await r.read(`${origin}/short.md`, 2000);
    expect(whole.truncated).toBe(false);
    const length = whole.content.length;
    const error = await catalogErrorOf(r.read(`${origin}/short.md`, 2000, 99_999));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain(`${length} characters long`);
    expect(error.suggestion).toContain(`offset below ${length}`);
    // the last valid offset still reads the tail
    expect((await r.read(`${origin}/short.md`, 2000, length - 5)).content).toBe(whole.content.slice(-5));
  });
});

const corpora = findCorpusRoot();
describe.skipIf(!corpora)(
  `read-page on real corpus pages${corpora ? '' : ' (skipped: ../shared/corpora is absent; set PRO_CONTEXT_SHARED_DIR)'}`,
  () => {
    const file = (relative: string) => readFileSync(path.join(corpora as string, relative), 'utf8');

    it('pydantic migration guide: no "V1" from a Python comment, the TOC title or the path instead', async () => {
      pages.set('/migration.md', file('pydantic/docs/migration.md'));
      expect((await reader().read(`${origin}/migration.md`, 2000)).title).toBe('Migration');
      const withToc = reader(() => 'Migration Guide');
      expect((await withToc.read(`${origin}/migration.md`, 2000)).title).toBe('Migration Guide');
    });

    it('fastapi dependencies-with-yield: clean title and no MkDocs markup in the content', async () => {
      pages.set(
        '/tutorial/dependencies/dependencies-with-yield.md',
        file('fastapi/docs/en/docs/tutorial/dependencies/dependencies-with-yield.md'),
      );
      const slice = await reader().read(`${origin}/tutorial/dependencies/dependencies-with-yield.md`, 50_000);
      expect(slice.title).toBe('Dependencies with yield');
      expect(slice.truncated).toBe(false);
      expect(slice.content).not.toMatch(/\{ #[\w-]+ \}/);
      expect(slice.content).not.toMatch(/^\s*\/\/\//m);
      expect(slice.content).toContain('## A database dependency with `yield`\n');
      expect(slice.content).toContain('**Note: Technical Details**');
    });
  },
);

describe('read-page of a page over a per-page limit', () => {
  it('answers PAGE_TOO_COMPLEX naming the limit and setting, then the cached verdict without fetching again', async () => {
    pages.set('/rules.md', `# Rules\n\n${'-'.repeat(3_000_000)}\n`);
    const read = reader();
    const first = await catalogErrorOf(read.read(`${origin}/rules.md`, 2000));
    expect(first.code).toBe('PAGE_TOO_COMPLEX');
    expect(first.message).toContain('has a line of 3000000 characters');
    expect(first.message).toContain('engine.pages.maxLineLength');
    // the page is gone from the site: the second answer can only come from the cached verdict
    pages.clear();
    const second = await catalogErrorOf(read.read(`${origin}/rules.md`, 2000));
    expect(second.code).toBe('PAGE_TOO_COMPLEX');
    expect(second.message).toBe(first.message);
    expect(second.details).toMatchObject({ cached: true, setting: 'engine.pages.maxLineLength' });
  });
});
