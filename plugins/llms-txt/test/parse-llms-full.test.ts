import { describe, expect, it } from 'vitest';
import { detectLlmsFull, llmsTxtPages, parseLlmsTxt, splitLlmsFull } from '../src/index.js';
import { corpusDir, llmsCorpus } from './corpora.js';

describe.skipIf(!corpusDir)('splitLlmsFull on the real corpus', () => {
  it('cuts pydantic’s llms-full.txt (H1 sections, page titles stripped, no URLs) into anchored pages', () => {
    const url = 'https://docs.pydantic.dev/latest/llms-full.txt';
    const toc = parseLlmsTxt(llmsCorpus('pydantic.llms.txt'), 'https://docs.pydantic.dev/latest/llms.txt');
    const text = llmsCorpus('pydantic.llms-full.txt');
    expect(detectLlmsFull(text)).toBe('headings');
    const { style, pages, warnings } = splitLlmsFull(text, url, { toc: toc.entries });
    expect(style).toBe('headings');
    expect(warnings).toEqual([]);
    expect(pages.length).toBeGreaterThan(600);
    expect(new Set(pages.map((p) => p.url)).size).toBe(pages.length);
    // Oversized H1 sections are cut at their H2s, the H1 becoming the section.
    expect(pages.find((p) => p.title === 'Using alias generators')).toMatchObject({
      url: `${url}#using-alias-generators`,
      section: 'Concepts documentation',
    });
    expect(pages.find((p) => p.url === `${url}#using-alias-generators`)?.markdown).toMatch(
      /^## Using alias generators\n\nYou can use the `alias_generator` parameter/,
    );
    // A top-level page whose title is a TOC entry takes the entry's real URL; an H2 chunk never does
    // ("Error handling" is a part of the Models page, not the TOC's "Error Handling" page).
    expect(pages.find((p) => p.title === 'Settings Management')?.url).toBe(
      'https://docs.pydantic.dev/latest/concepts/pydantic_settings/index.md',
    );
    expect(pages.find((p) => p.title === 'Error handling')?.url).toBe(`${url}#error-handling`);
    // Nothing is lost but the headings of heading-only sections ("# API documentation" right before an H2).
    const size = (s: string) => s.replace(/^#{1,2} .*$/gm, '').replace(/\s+/g, '').length;
    expect(pages.reduce((n, p) => n + size(p.markdown), 0)).toBe(size(text));
  });

  it('cuts hono’s llms-small.txt at its H1s, with the same URLs as its TOC', () => {
    const url = 'https://hono.dev/llms-small.txt';
    const text = llmsCorpus('hono.llms-small.txt');
    const toc = parseLlmsTxt(text, url);
    const pages = llmsTxtPages(text, url);
    expect(pages.map((p) => p.url)).toEqual(toc.entries.map((e) => e.url));
    expect(pages.find((p) => p.title === 'Routing')?.markdown).toMatch(/^# Routing\n/);
    expect(splitLlmsFull(text, url).pages.map((p) => p.url)).toEqual(toc.entries.map((e) => e.url));
  });

  it('reads llms-ctx files as one page per <doc>, content kept verbatim (HTML and nested examples included)', () => {
    const url = 'https://llmstxt.org/llms-ctx.txt';
    const text = llmsCorpus('llmstxt-spec.llms-ctx.txt');
    expect(detectLlmsFull(text)).toBe('ctx');
    const { pages } = splitLlmsFull(text, url);
    expect(pages.map((p) => [p.title, p.url, p.section])).toEqual([
      ['llms.txt proposal', `${url}#llmstxt-proposal`, 'docs'],
      ['Python library docs', `${url}#python-library-docs`, 'docs'],
      ['ed demo', `${url}#ed-demo`, 'docs'],
    ]);
    expect(pages[0]?.markdown).toMatch(/^# The \/llms\.txt file\nJeremy Howard/);
    expect(pages[1]?.markdown).toContain('<project title="FastHTML" summary=');
    expect(llmsTxtPages(text, url).map((p) => p.url)).toEqual(pages.map((p) => p.url));
  });

  it('matches FastHTML’s ctx docs to its llms.txt entries', () => {
    const toc = parseLlmsTxt(llmsCorpus('fasthtml.llms.txt'), 'https://www.fastht.ml/docs/llms.txt');
    const { pages } = splitLlmsFull(llmsCorpus('fasthtml.llms-ctx.txt'), 'https://www.fastht.ml/docs/llms-ctx.txt', {
      toc: toc.entries,
    });
    expect(pages).toHaveLength(7);
    expect(pages.find((p) => p.title === 'FastHTML concise guide')).toMatchObject({
      url: 'https://www.fastht.ml/docs/ref/concise_guide.html.md',
      section: 'Docs',
    });
  });
});

describe('splitLlmsFull styles', () => {
  it('splits Mintlify’s "# Title / Source: url" pages, ignoring look-alikes inside code', () => {
    const text = [
      '# Introduction',
      'Source: https://docs.x.com/introduction',
      '',
      'Welcome.',
      '',
      '## Next steps',
      'Read on.',
      '',
      '# Quickstart',
      '',
      'Source: https://docs.x.com/quickstart',
      '',
      '```md',
      '# Not a page',
      'Source: https://docs.x.com/not-a-page',
      '```',
    ].join('\n');
    expect(detectLlmsFull(text)).toBe('source-lines');
    const { pages } = splitLlmsFull(text, 'https://docs.x.com/llms-full.txt', {
      toc: [{ title: 'Quickstart', url: 'https://docs.x.com/quickstart.md', section: 'Get started' }],
    });
    expect(pages).toEqual([
      {
        url: 'https://docs.x.com/introduction',
        title: 'Introduction',
        markdown: '# Introduction\n\nWelcome.\n\n## Next steps\nRead on.',
      },
      {
        url: 'https://docs.x.com/quickstart',
        title: 'Quickstart',
        section: 'Get started',
        markdown: '# Quickstart\n\n\n```md\n# Not a page\nSource: https://docs.x.com/not-a-page\n```',
      },
    ]);
  });

  it('does not let a page that ends inside an unclosed fence swallow the pages after it', () => {
    const page = (title: string, slug: string, body: string) =>
      `# ${title}\n\nSource: https://d.dev/${slug}\n\n${body}\n`;
    const text = [
      page('One', 'one', 'Text.\n\n```ts\nconst unclosed = 1;'),
      page('Two', 'two', '```ts\nconst two = 2;\n```'),
      page('Three', 'three', '```\nplain fence first\n```'),
    ].join('\n');
    const url = 'https://d.dev/llms-full.txt';
    // Page two opens its first fence with an info string, so the fence left open by page one was stale.
    expect(splitLlmsFull(text, url).pages.map((p) => p.title)).toEqual(['One', 'Two', 'Three']);
    // When the next page's first fence is a bare one, a TOC naming the page still marks the boundary.
    const bare = [page('One', 'one', '```ts\nconst unclosed = 1;'), page('Three', 'three', '```\nplain\n```')].join(
      '\n',
    );
    expect(splitLlmsFull(bare, url).pages.map((p) => p.title)).toEqual(['One']);
    const toc = [{ title: 'Three', url: 'https://d.dev/three.md' }];
    expect(splitLlmsFull(bare, url, { toc }).pages.map((p) => p.title)).toEqual(['One', 'Three']);
  });

  it('splits front-matter pages (vitepress-plugin-llms), resolving relative URLs', () => {
    const text =
      '---\nurl: /guide/index.md\n---\n# Guide\nHello\n\n---\ntitle: "API"\nurl: /api.md\n---\n# The API\nStuff\n';
    expect(detectLlmsFull(text)).toBe('frontmatter');
    expect(splitLlmsFull(text, 'https://v.dev/llms-full.txt').pages).toEqual([
      { url: 'https://v.dev/guide/index.md', title: 'Guide', markdown: '# Guide\nHello' },
      { url: 'https://v.dev/api.md', title: 'API', markdown: '# The API\nStuff' },
    ]);
  });

  it('gives pages without URLs unique anchors named after their headings', () => {
    const { pages } = splitLlmsFull('# Setup\nOne.\n# Setup\nTwo.\n# Usage\nThree.\n', 'https://a.dev/llms-full.txt');
    expect(pages.map((p) => p.url)).toEqual([
      'https://a.dev/llms-full.txt#setup',
      'https://a.dev/llms-full.txt#setup-1',
      'https://a.dev/llms-full.txt#usage',
    ]);
  });

  it.each([
    ['empty', ''],
    ['HTML', '<!doctype html><html><body>404</body></html>'],
    ['binary', '\u0000\u0001\u0002PNG'],
  ])('returns no pages and a warning for %s content', (_, text) => {
    const result = splitLlmsFull(text, 'https://a.dev/llms-full.txt');
    expect(result.pages).toEqual([]);
    expect(result.warnings[0]).toMatch(/^not an llms-full\.txt file: /);
  });
});
