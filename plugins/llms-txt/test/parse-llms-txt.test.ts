import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ParsedLlmsTxt, parseLlmsTxt } from '../src/index.js';
import { corpusDir, llmsCorpus } from './corpora.js';

const sectionCounts = (p: ParsedLlmsTxt) => p.sections.map((s) => [s.name, s.entries.length, s.optional]);
const byTitle = (p: ParsedLlmsTxt, title: string) => p.entries.find((e) => e.title === title);

describe.skipIf(!corpusDir)('parseLlmsTxt on the real llms.txt corpus', () => {
  it('reads the spec’s own llms.txt: title, summary, one section, descriptions', () => {
    const p = parseLlmsTxt(llmsCorpus('llmstxt-spec.llms.txt'), 'https://llmstxt.org/llms.txt');
    expect(p.format).toBe('index');
    expect(p.title).toBe('llms.txt');
    expect(p.summary).toMatch(/^A proposal that those interested in providing LLM-friendly content/);
    expect(sectionCounts(p)).toEqual([['Docs', 3, false]]);
    expect(p.entries[1]).toEqual({
      title: 'Python library docs',
      url: 'https://llmstxt.org/intro.html.md',
      section: 'Docs',
      description: 'Docs for `llms-txt` python lib',
    });
    expect(p.warnings).toEqual([]);
  });

  it('reads FastHTML’s llms.txt: details block, four sections, the Optional flag', () => {
    const p = parseLlmsTxt(llmsCorpus('fasthtml.llms.txt'), 'https://www.fastht.ml/docs/llms.txt');
    expect(p.title).toBe('FastHTML');
    expect(p.details).toMatch(/^Things to remember when writing FastHTML apps:/);
    expect(p.details).toContain('- Use `serve()` for running uvicorn');
    expect(sectionCounts(p)).toEqual([
      ['Docs', 3, false],
      ['API', 2, false],
      ['Examples', 2, false],
      ['Optional', 14, true],
    ]);
    expect(p.entries).toHaveLength(21);
    expect(byTitle(p, 'OAuth')).toMatchObject({
      section: 'Optional',
      url: 'https://www.fastht.ml/docs/explains/oauth.html.md',
    });
  });

  it('reads pydantic’s llms.txt: index.md URLs without descriptions, 81 entries, Optional last', () => {
    const p = parseLlmsTxt(llmsCorpus('pydantic.llms.txt'), 'https://docs.pydantic.dev/latest/llms.txt');
    expect(p.title).toBe('Pydantic Validation');
    expect(p.summary).toBe('Data validation using Python type hints');
    expect(p.details).toMatch(/^Pydantic is the most widely used/);
    expect(sectionCounts(p)).toEqual([
      ['Concepts documentation', 19, false],
      ['API documentation', 36, false],
      ['Internals', 2, false],
      ['Optional', 24, true],
    ]);
    expect(p.entries).toHaveLength(81);
    expect(p.entries.every((e) => e.url.endsWith('/index.md') && e.description === undefined)).toBe(true);
    expect(byTitle(p, 'Agent libraries – Pydantic AI')?.url).toBe(
      'https://docs.pydantic.dev/latest/examples/pydantic_ai/index.md',
    );
  });

  it('reads Mintlify’s flat 712-link list, joining multi-line descriptions with their nested bullets', () => {
    const p = parseLlmsTxt(llmsCorpus('langchain-mintlify.llms.txt'), 'https://docs.langchain.com/llms.txt');
    expect(p.format).toBe('index');
    expect(p.title).toBe('LangGraph');
    expect(p.details).toBe('LangGraph documentation has moved to docs.langchain.com.');
    expect(sectionCounts(p)).toEqual([['Docs', 712, false]]);
    expect(byTitle(p, 'Oauth Callback')?.description).toBeUndefined();
    expect(byTitle(p, 'Oauth Callback Get')?.description).toBe(
      'Handle OAuth callback redirect from OAuth providers. Processes the OAuth token exchange, then redirects to the frontend callback page for a consistent UI experience.',
    );
    const revoke = byTitle(p, 'Revoke All Slack Tokens For Workspace')?.description ?? '';
    expect(revoke).toMatch(/^Revoke ALL Slack tokens for the workspace\./);
    expect(revoke).toContain('- Deletes all Slack tokens from the database');
    // The bullet lines inside that description did not become entries of their own.
    expect(p.entries.some((e) => e.title.startsWith('Revokes all'))).toBe(false);
    expect(p.entries.every((e) => (e.description?.length ?? 0) <= 501)).toBe(true);
  });

  it('reads langgraph’s current llms.txt, listing the link in a section that has prose only', () => {
    const p = parseLlmsTxt(
      llmsCorpus('langgraph-current.llms.txt'),
      'https://langchain-ai.github.io/langgraph/llms.txt',
    );
    expect(p.title).toBe('LangGraph');
    expect(sectionCounts(p)).toEqual([
      ['Overview', 2, false],
      ['Core Concepts', 5, false],
      ['How-To Guides', 3, false],
      ['Tutorials', 2, false],
      ['Reference', 1, false],
      ['LangGraph Platform', 1, false],
    ]);
    expect(p.entries.at(-1)).toMatchObject({
      title: 'LangSmith documentation',
      url: 'https://docs.langchain.com/langsmith/agent-server',
      section: 'LangGraph Platform',
    });
  });

  it('reads langgraph’s mkdocs llms.txt: no title, H1s used as sections, a repeated link kept once', () => {
    const p = parseLlmsTxt(
      llmsCorpus('langgraph-mkdocs.llms.txt'),
      'https://langchain-ai.github.io/langgraph/llms.txt',
    );
    expect(p.title).toBeUndefined();
    // 115 + 12 + 13 list items; cloud/how-tos/cron_jobs/ is listed twice under Guides.
    expect(sectionCounts(p)).toEqual([
      ['Guides', 114, false],
      ['Examples', 12, false],
      ['Resources', 13, false],
    ]);
    expect(p.entries).toHaveLength(139);
    expect(new Set(p.entries.map((e) => e.url)).size).toBe(139);
    expect(p.warnings).toContain('no title (H1) found');
    expect(p.warnings).toContain('1 repeated link(s) listed once');
  });

  it('reads instructor’s llms.txt (a manual whose only links are in-page anchors) as a manual cut at its H2s', () => {
    const base = 'https://python.useinstructor.com/llms.txt';
    const p = parseLlmsTxt(llmsCorpus('instructor.llms.txt'), base);
    expect(p.format).toBe('manual');
    expect(p.title).toBe('Instructor: Type-Safe Structured Outputs from LLMs');
    // The "Table of Contents" H2 only lists anchors; `# OpenAI` lines inside code blocks are not headings.
    expect(p.entries.map((e) => e.title)).toEqual([
      'Instructor: Type-Safe Structured Outputs from LLMs',
      'Installation',
      'Core Concept',
      'Supported Providers',
      'Key Features',
      'Advanced Usage',
      'Examples',
    ]);
    expect(byTitle(p, 'Core Concept')).toEqual({
      title: 'Core Concept',
      url: `${base}#core-concept`,
      description:
        'Instructor uses Pydantic models to define structured outputs and patches LLM clients to enable extraction with validation.',
    });
  });

  it('reads hono’s condensed manual (llms-small.txt) as one entry per H1 page', () => {
    const base = 'https://hono.dev/llms-small.txt';
    const p = parseLlmsTxt(llmsCorpus('hono.llms-small.txt'), base);
    expect(p.format).toBe('manual');
    expect(p.summary).toBe('This is the tiny developer documentation for Hono.');
    // 35 H1s outside code; "Start of Hono documentation" has no body.
    expect(p.entries).toHaveLength(34);
    expect(p.entries.slice(0, 3).map((e) => e.title)).toEqual(['Hono', 'Best Practices', 'Examples']);
    expect(p.entries.at(-1)).toMatchObject({ title: 'Routing', url: `${base}#routing` });
    // Its relative cross-references resolve against the file's URL and are offered to the allowlist.
    expect(p.links).toContain('https://hono.dev/docs/helpers/cookie');
  });

  it('reads an XML-wrapped llms-ctx file: one entry per <doc>, anchors for docs without URLs', () => {
    const base = 'https://llmstxt.org/llms-ctx.txt';
    const p = parseLlmsTxt(llmsCorpus('llmstxt-spec.llms-ctx.txt'), base);
    expect(p.format).toBe('ctx');
    expect(p.title).toBe('llms.txt');
    expect(p.summary).toMatch(/^A proposal that those interested/);
    expect(p.entries).toEqual([
      {
        title: 'llms.txt proposal',
        url: `${base}#llmstxt-proposal`,
        description: 'The proposal for llms.txt',
        section: 'docs',
      },
      {
        title: 'Python library docs',
        url: `${base}#python-library-docs`,
        description: 'Docs for `llms-txt` python lib',
        section: 'docs',
      },
      expect.objectContaining({ title: 'ed demo', url: `${base}#ed-demo`, section: 'docs' }),
    ]);
  });

  it('reads FastHTML’s llms-ctx file, taking doc URLs from the generator’s printed list', () => {
    const p = parseLlmsTxt(llmsCorpus('fasthtml.llms-ctx.txt'), 'https://www.fastht.ml/docs/llms-ctx.txt');
    expect(p.title).toBe('FastHTML');
    expect(p.summary).toMatch(/^FastHTML is a python library .* fastcore's `FT` "FastTags"/);
    expect(sectionCounts(p)).toEqual([
      ['docs', 3, false],
      ['api', 2, false],
      ['examples', 2, false],
    ]);
    expect(byTitle(p, 'API List')?.url).toBe('https://www.fastht.ml/docs/apilist.txt');
  });

  it('survives pydantic’s 1.8 MB llms-full.txt served as an llms.txt', () => {
    const started = performance.now();
    const p = parseLlmsTxt(llmsCorpus('pydantic.llms-full.txt'), 'https://docs.pydantic.dev/latest/llms.txt');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(p.format).toBe('manual');
    expect(p.entries.length).toBeGreaterThan(500);
  });

  it('gives every corpus file a TOC of unique absolute URLs with titles, without throwing', () => {
    const files = readdirSync(path.join(corpusDir as string, 'llms-txt')).filter((f) => f.endsWith('.txt'));
    expect(files.length).toBeGreaterThanOrEqual(11);
    for (const file of files) {
      const p = parseLlmsTxt(llmsCorpus(file), `https://docs.example.com/${file}`);
      expect(p.format, file).not.toBe('invalid');
      expect(p.entries.length, file).toBeGreaterThan(0);
      expect(new Set(p.entries.map((e) => e.url)).size, file).toBe(p.entries.length);
      for (const e of p.entries) {
        expect(e.title.trim(), file).not.toBe('');
        expect(new URL(e.url).protocol, file).toMatch(/^https?:$/);
      }
    }
  });
});

describe('parseLlmsTxt on small and hostile inputs', () => {
  const base = 'https://docs.example.com/v2/llms.txt';

  it('resolves relative links against the llms.txt URL and keeps ": notes" descriptions', () => {
    const p = parseLlmsTxt(
      '# Ex\n\n## Guide\n\n- [Start](start.md): Begin here\n- [API](/api/): The reference\n- [Up](../old/page)\n',
      base,
    );
    expect(p.entries).toEqual([
      { title: 'Start', url: 'https://docs.example.com/v2/start.md', section: 'Guide', description: 'Begin here' },
      { title: 'API', url: 'https://docs.example.com/api/', section: 'Guide', description: 'The reference' },
      { title: 'Up', url: 'https://docs.example.com/old/page', section: 'Guide' },
    ]);
  });

  it('understands bullet styles, nested lists, bold links, " - " notes and brackets in titles', () => {
    const p = parseLlmsTxt(
      [
        '# Ex',
        '## A',
        '* [One](https://a.dev/1) - first',
        '+ **[Two](https://a.dev/2)**: second',
        '1. [Three [beta]](https://a.dev/3 "tooltip") — third',
        '  - [Nested](https://a.dev/wiki/Foo_(bar)): nested',
      ].join('\n'),
      base,
    );
    expect(p.entries.map((e) => [e.title, e.url, e.description])).toEqual([
      ['One', 'https://a.dev/1', 'first'],
      ['Two', 'https://a.dev/2', 'second'],
      ['Three [beta]', 'https://a.dev/3', 'third'],
      ['Nested', 'https://a.dev/wiki/Foo_(bar)', 'nested'],
    ]);
  });

  it('marks sections under "## Optional" (and their subsections) optional, and nothing after them', () => {
    const p = parseLlmsTxt(
      '# Ex\n## Optional\n- [a](https://a.dev/a)\n### Deep\n- [b](https://a.dev/b)\n## After\n- [c](https://a.dev/c)\n',
      base,
    );
    expect(sectionCounts(p)).toEqual([
      ['Optional', 1, true],
      ['Deep', 1, true],
      ['After', 1, false],
    ]);
  });

  it('ignores links and headings inside fenced code, but not after an unclosed fence', () => {
    const p = parseLlmsTxt(
      '# Ex\n## Docs\n```md\n## Fake\n- [no](https://a.dev/no)\n```\n- [yes](https://a.dev/yes)\n',
      base,
    );
    expect(p.entries.map((e) => e.title)).toEqual(['yes']);
    expect(p.links).toEqual(['https://a.dev/yes']);
    const stray = parseLlmsTxt('# Ex\n```\n## Docs\n- [a](https://a.dev/a)\n', base);
    expect(stray.entries.map((e) => e.title)).toEqual(['a']);
  });

  it('keeps a repeated URL once and skips links that are not http(s)', () => {
    const p = parseLlmsTxt(
      '# Ex\n- [a](https://a.dev/a)\n- [again](https://a.dev/a)\n- [mail](mailto:x@y.z)\n- [js](javascript:alert(1))\n',
      base,
    );
    expect(p.entries.map((e) => e.title)).toEqual(['a']);
    expect(p.warnings).toEqual(['1 repeated link(s) listed once', '2 link(s) that are not http(s) URLs were skipped']);
  });

  it('offers every absolute link outside code to the allowlist, prose and bare URLs included', () => {
    const p = parseLlmsTxt(
      '# Ex\n> See https://summary.dev/x.\n\nRead [this](https://prose.dev/p).\n\n## S\n- [a](https://a.dev/a)\n',
      base,
    );
    expect(p.links.sort()).toEqual(['https://a.dev/a', 'https://prose.dev/p', 'https://summary.dev/x']);
  });

  it('lists the pages of an llms-full.txt served in place of the llms.txt under their own URLs', () => {
    const page = (t: string, slug: string) =>
      `# ${t}\nSource: https://docs.x.com/${slug}\n\n${t} explains itself in one sentence. ${'More text. '.repeat(30)}\n\n\`\`\`ts\nrun();\n\`\`\`\n`;
    const text = Array.from({ length: 30 }, (_, i) => page(`Page ${i}`, `p${i}`)).join('\n');
    const p = parseLlmsTxt(text, 'https://docs.x.com/llms-full.txt');
    expect(p.format).toBe('manual');
    expect(p.entries).toHaveLength(30);
    expect(p.entries[3]).toEqual({
      title: 'Page 3',
      url: 'https://docs.x.com/p3',
      description: 'Page 3 explains itself in one sentence.',
    });
  });

  it('handles CRLF line endings and a byte-order mark', () => {
    const p = parseLlmsTxt('\uFEFF# Ex\r\n\r\n> Sum\r\n\r\n## S\r\n- [a](https://a.dev/a): d\r\n', base);
    expect(p).toMatchObject({ title: 'Ex', summary: 'Sum', entries: [{ title: 'a', description: 'd' }] });
  });

  it.each([
    ['an empty file', '', 'not an llms.txt file: the file is empty'],
    ['whitespace', ' \n\t\n', 'not an llms.txt file: the file is empty'],
    [
      'an HTML page',
      '<!DOCTYPE html><html><head><title>Docs</title></head><body><a href="/x">x</a></body></html>',
      'not an llms.txt file: the file is an HTML page',
    ],
    ['a JSON document', '{"links": ["https://a.dev/a"]}', 'not an llms.txt file: the file is JSON'],
    [
      'an XML sitemap',
      '<?xml version="1.0"?><urlset><url><loc>https://a.dev/</loc></url></urlset>',
      'not an llms.txt file: the file is XML',
    ],
    [
      'a binary file',
      String.fromCharCode(...Array.from({ length: 512 }, (_, i) => (i * 7) % 256)),
      'not an llms.txt file: the file is binary',
    ],
    ['plain text', 'Not Found\n', 'not an llms.txt file: it has neither links nor headings'],
  ])('yields no entries and one warning for %s', (_, text, warning) => {
    const p = parseLlmsTxt(text, base);
    expect(p.format).toBe('invalid');
    expect(p.entries).toEqual([]);
    expect(p.warnings).toEqual([warning]);
  });

  it('stays fast on pathological input (unmatched brackets, stray fences, huge lines)', () => {
    const started = performance.now();
    parseLlmsTxt(`# X\n- ${'['.repeat(200_000)}\n`, base);
    parseLlmsTxt(`# X\n${'```js\n'.repeat(50_000)}`, base);
    parseLlmsTxt(`# X\n- [a](https://a.dev/a): ${'**x '.repeat(100_000)}\n${'more text\n'.repeat(50_000)}`, base);
    parseLlmsTxt(`# X\n${'- [a](https://a.dev/'.repeat(20_000)}\n`, base);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('does not throw on a base URL that is not absolute; relative links are then skipped', () => {
    const p = parseLlmsTxt('# Ex\n- [a](/a)\n- [b](https://b.dev/b)\n', 'not a url');
    expect(p.entries.map((e) => e.url)).toEqual(['https://b.dev/b']);
  });
});
