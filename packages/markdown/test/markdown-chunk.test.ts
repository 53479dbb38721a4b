import { estimateTokens } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { type Chunk, chunkMarkdown } from '../src/markdown/chunk.js';
import { createSlugger, slugify } from '../src/markdown/slug.js';

const md = (...lines: string[]): string => lines.join('\n');
const url = 'https://docs.example.test/guide/page/';
const chunk = (markdown: string, options: Parameters<typeof chunkMarkdown>[1] = {}, title?: string): Chunk[] =>
  chunkMarkdown({ url, markdown, ...(title ? { title } : {}) }, { minTokens: 0, ...options });
const paragraph = (words: number, seed = 'word'): string =>
  Array.from({ length: words }, (_, i) => `${seed}${i}`).join(' ');

describe('slugify', () => {
  it('makes MkDocs-style anchors', () => {
    expect(slugify('A database dependency with `yield`')).toBe('a-database-dependency-with-yield');
    expect(slugify('Query parameter list / multiple values')).toBe('query-parameter-list-multiple-values');
    expect(slugify('Defining a custom `__init__()`')).toBe('defining-a-custom-__init__');
    expect(slugify('What is "Dependency Injection"')).toBe('what-is-dependency-injection');
    expect(slugify('Café [links](https://x.test) **bold**')).toBe('cafe-links-bold');
    expect(slugify('Version <Badge type="info">4.0</Badge>')).toBe('version-40');
  });

  it('keeps anchors unique within a page, the MkDocs way', () => {
    const slugger = createSlugger();
    expect([slugger.slug('Usage'), slugger.slug('Usage'), slugger.slug('Usage')]).toEqual([
      'usage',
      'usage_1',
      'usage_2',
    ]);
    expect(slugger.slug('Other', 'usage_3')).toBe('usage_3');
    expect(slugger.slug('Usage')).toBe('usage_4');
  });
});

describe('chunkMarkdown: headings', () => {
  it('makes one chunk per section with the heading path, anchor and body starting at the heading', () => {
    const chunks = chunk(
      md(
        '# Guide',
        '',
        'Intro.',
        '',
        '## Install',
        '',
        'Run it.',
        '',
        '### On Linux',
        '',
        'Apt.',
        '',
        '## Use',
        '',
        'Call it.',
      ),
    );
    expect(chunks.map((c) => c.headings)).toEqual([
      ['Guide'],
      ['Guide', 'Install'],
      ['Guide', 'Install', 'On Linux'],
      ['Guide', 'Use'],
    ]);
    expect(chunks.map((c) => c.anchor)).toEqual(['guide', 'install', 'on-linux', 'use']);
    expect(chunks[2]?.body).toBe(md('### On Linux', '', 'Apt.'));
    expect(chunks.every((c) => c.pageTitle === 'Guide' && c.url === url)).toBe(true);
    expect(chunks.map((c) => c.order)).toEqual([0, 1, 2, 3]);
    expect(chunks.map((c) => c.id)).toEqual([`${url}#guide`, `${url}#install`, `${url}#on-linux`, `${url}#use`]);
    expect(chunks.every((c) => c.tokens === estimateTokens(c.body))).toBe(true);
  });

  it('splits at every level from H1 to H6 and at setext headings', () => {
    const chunks = chunk(
      md('Top', '===', '', 'a', '', 'Second', '------', '', 'b', '', '#### Four', 'c', '', '###### Six', 'd'),
    );
    expect(chunks.map((c) => c.headings.at(-1))).toEqual(['Top', 'Second', 'Four', 'Six']);
    expect(chunks[3]?.headings).toEqual(['Top', 'Second', 'Four', 'Six']);
  });

  it('does not take a `#` line inside a code block for a heading', () => {
    const chunks = chunk(
      md(
        '# Page',
        '',
        '```python',
        '# a comment',
        '## another',
        '```',
        '',
        '~~~',
        '# tilde fenced',
        '~~~',
        '',
        '````markdown',
        '```',
        '# inside a longer fence',
        '```',
        '````',
        '',
        '- item',
        '',
        '    ```bash',
        '    # indented fence in a list',
        '    ```',
      ),
    );
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.body).toContain('# inside a longer fence');
    expect(chunks[0]?.body).toContain('    # indented fence in a list');
  });

  it('honours explicit `{ #anchor }` and `{#anchor}` suffixes and strips them from the text', () => {
    const chunks = chunk(
      md('# Python Types Intro { #python-types-intro }', '', 'a', '', '## Motivation {#why}', '', 'b'),
    );
    expect(chunks.map((c) => [c.headings.at(-1), c.anchor])).toEqual([
      ['Python Types Intro', 'python-types-intro'],
      ['Motivation', 'why'],
    ]);
    expect(chunks[1]?.body.startsWith('## Motivation\n')).toBe(true);
  });

  it('honours Fumadocs `[#id]` heading ids (real zod lines) and strips them from the text', () => {
    const chunks = chunk(
      md(
        '## Stringbools [#stringbool]',
        '',
        'a',
        '',
        '### `z.deepPartial()` [#deep-partial]',
        '',
        'b',
        '',
        '### `z.input()` and `z.output()` [#input-output]',
        '',
        'c',
        '',
        '## Arrays [#] and [#1] are text',
        '',
        'd',
      ),
    );
    expect(chunks.map((c) => [c.headings.at(-1), c.anchor])).toEqual([
      ['Stringbools', 'stringbool'],
      ['`z.deepPartial()`', 'deep-partial'],
      ['`z.input()` and `z.output()`', 'input-output'],
      ['Arrays [#] and [#1] are text', 'arrays-and-1-are-text'],
    ]);
    expect(chunks[1]?.id).toBe(`${url}#deep-partial`);
    expect(chunks[1]?.body.startsWith('### `z.deepPartial()`\n')).toBe(true);
  });

  it('removes badges and components from heading text but keeps generics in code', () => {
    const chunks = chunk(
      md(
        '# watch <CRoot /> {#watch}',
        '',
        'a',
        '',
        '## Custom Provider <Badge type="danger">advanced</Badge>',
        '',
        'b',
        '',
        '## `Array<string>`',
        '',
        'c',
      ),
    );
    expect(chunks.map((c) => c.headings.at(-1))).toEqual(['watch', 'Custom Provider advanced', '`Array<string>`']);
    expect(chunks[1]?.anchor).toBe('custom-provider-advanced');
  });

  it('reads Windows line endings and `{: #anchor }` attribute lists', () => {
    const chunks = chunk('# Title {: #top }\r\n\r\nText.\r\n\r\n## Next\r\n\r\nMore.\r\n');
    expect(chunks.map((c) => [c.anchor, c.body])).toEqual([
      ['top', md('# Title', '', 'Text.')],
      ['next', md('## Next', '', 'More.')],
    ]);
  });

  it('gives repeated headings distinct anchors and ids', () => {
    const chunks = chunk(md('# P', '', 'x', '', '## Example', '', 'a', '', '## Example', '', 'b'));
    expect(chunks.map((c) => c.anchor)).toEqual(['p', 'example', 'example_1']);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(3);
  });
});

describe('chunkMarkdown: titles', () => {
  it('uses the front matter title when there is no H1, and starts every path with it', () => {
    const chunks = chunk(
      md('---', 'title: "Defining schemas"', '---', '', 'Intro text.', '', '## Primitives', '', 'Text.'),
    );
    expect(chunks.map((c) => c.headings)).toEqual([['Defining schemas'], ['Defining schemas', 'Primitives']]);
    expect(chunks[0]?.body).toBe(md('# Defining schemas', '', 'Intro text.'));
    expect(chunks[0]?.anchor).toBeUndefined();
    expect(chunks[0]?.id).toBe(url);
  });

  it('prefers the H1 to the front matter and to the given title', () => {
    const chunks = chunk(md('---', 'title: Front', '---', '# Real Title', '', 'x'), {}, 'Given');
    expect(chunks[0]?.pageTitle).toBe('Real Title');
  });

  it('falls back to the given title, then to the URL', () => {
    expect(chunk(md('## Only H2', '', 'x'), {}, 'From TOC')[0]?.headings).toEqual(['From TOC', 'Only H2']);
    expect(chunkMarkdown({ url: 'https://x.test/docs/error-handling/', markdown: '## A\n\nx' })[0]?.pageTitle).toBe(
      'Error handling',
    );
    expect(chunkMarkdown({ url: 'docs/concepts/type_adapter.md', markdown: 'x' })[0]?.pageTitle).toBe('Type adapter');
  });

  it('keeps text written before the H1 in the H1 chunk', () => {
    const chunks = chunk(md('[![badge](b.svg)](x)', '', '# Title', '', 'Intro.'));
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.body).toBe(md('# Title', '', '[![badge](b.svg)](x)', '', 'Intro.'));
  });

  it('gives a page without headings one chunk', () => {
    const chunks = chunk('Just some text.', {}, 'Notes');
    expect(chunks).toEqual([
      {
        id: url,
        url,
        pageTitle: 'Notes',
        headings: ['Notes'],
        body: md('# Notes', '', 'Just some text.'),
        tokens: estimateTokens('# Notes\n\nJust some text.'),
        order: 0,
      },
    ]);
  });
});

describe('chunkMarkdown: sizes', () => {
  it('splits an oversized section at paragraphs, repeating the heading line, within maxTokens', () => {
    const text = md('# T', '', '## Big', '', paragraph(150, 'a'), '', paragraph(150, 'b'), '', paragraph(150, 'c'));
    const chunks = chunk(text, { maxTokens: 200 });
    const big = chunks.filter((c) => c.anchor === 'big');
    expect(big.length).toBeGreaterThan(1);
    for (const c of big) {
      expect(c.body.startsWith('## Big\n\n')).toBe(true);
      expect(c.headings).toEqual(['T', 'Big']);
      expect(c.tokens).toBeLessThanOrEqual(200);
    }
    expect(big.map((c) => c.id)).toEqual([`${url}#big`, `${url}#big~2`, `${url}#big~3`]);
    // Nothing lost, nothing duplicated.
    const joined = big.map((c) => c.body.replace('## Big\n\n', '')).join('\n\n');
    expect(joined).toBe(md(paragraph(150, 'a'), '', paragraph(150, 'b'), '', paragraph(150, 'c')));
  });

  it('never cuts a code block, and keeps an oversized one whole in its own chunk', () => {
    const longCode = Array.from({ length: 80 }, (_, i) => `line_${i} = compute(${i})  # step`).join('\n');
    const text = md(
      '# T',
      '',
      'Intro paragraph.',
      '',
      'Run this:',
      '',
      '```python',
      longCode,
      '```',
      '',
      'After the code.',
    );
    const chunks = chunk(text, { maxTokens: 150 });
    const withCode = chunks.filter((c) => c.body.includes('```python'));
    expect(withCode).toHaveLength(1);
    expect(withCode[0]?.body).toContain(`\`\`\`python\n${longCode}\n\`\`\``);
    expect(withCode[0]?.tokens).toBeGreaterThan(150);
    for (const c of chunks.filter((x) => x !== withCode[0])) expect(c.tokens).toBeLessThanOrEqual(150);
    expect(chunks.at(-1)?.body).toBe(md('# T', '', 'After the code.'));
  });

  it('keeps a lead-in sentence with the code block it introduces', () => {
    const code = md('```ts', ...Array.from({ length: 8 }, (_, i) => `const v${i} = make(${i});`), '```');
    const text = md('# T', '', paragraph(70), '', 'Create the values like this:', '', code);
    const chunks = chunk(text, { maxTokens: 150 });
    const part = chunks.find((c) => c.body.includes('```ts'));
    expect(part?.body).toBe(md('# T', '', 'Create the values like this:', '', code));
  });

  it('splits a long table by rows and repeats its header', () => {
    const rows = Array.from({ length: 40 }, (_, i) => `| option${i} | The description of option number ${i} |`);
    const text = md('# Options', '', '| Name | Description |', '| --- | --- |', ...rows);
    const chunks = chunk(text, { maxTokens: 120 });
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.body.startsWith('# Options\n\n| Name | Description |\n| --- | --- |\n| option')).toBe(true);
      expect(c.tokens).toBeLessThanOrEqual(120);
    }
    expect(chunks.map((c) => c.body).join('\n')).toContain('option39');
  });

  it('splits a long list between items and a single huge line at spaces', () => {
    const items = Array.from({ length: 30 }, (_, i) => `- item ${i}: ${paragraph(8, `w${i}x`)}`);
    const chunks = chunk(md('# L', '', ...items, '', paragraph(400, 'long')), { maxTokens: 100 });
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(100);
    expect(chunks.filter((c) => /^- item \d+/m.test(c.body)).every((c) => /\n\n- item/.test(c.body))).toBe(true);
    expect(chunks.some((c) => c.body.includes('long399'))).toBe(true);
  });

  it('joins a short introduction to the subsection that follows it', () => {
    const text = md(
      '# Validators',
      '',
      'Two kinds exist.',
      '',
      '## Field validators',
      '',
      paragraph(80),
      '',
      '## Model validators',
      '',
      paragraph(80),
    );
    const chunks = chunkMarkdown({ url, markdown: text }, { minTokens: 20 });
    expect(chunks).toHaveLength(2);
    expect(chunks[0]?.body.startsWith(md('# Validators', '', 'Two kinds exist.', '', '## Field validators'))).toBe(
      true,
    );
    expect(chunks[0]?.headings).toEqual(['Validators', 'Field validators']);
    expect(chunks[0]?.anchor).toBe('validators');
    expect(chunks[1]?.headings).toEqual(['Validators', 'Model validators']);
  });

  it('leaves a short section alone when the next heading is a sibling', () => {
    const text = md('# P', '', paragraph(80), '', '## Short', '', 'Tiny.', '', '## Next', '', paragraph(80));
    const chunks = chunkMarkdown({ url, markdown: text }, { minTokens: 20 });
    expect(chunks.map((c) => c.headings.at(-1))).toEqual(['P', 'Short', 'Next']);
  });

  it('does not join an introduction when the result would exceed maxTokens', () => {
    const text = md('# P', '', 'Short intro.', '', '## Long', '', paragraph(150));
    const chunks = chunkMarkdown({ url, markdown: text }, { minTokens: 20, maxTokens: 200 });
    expect(chunks[0]?.body).toBe(md('# P', '', 'Short intro.'));
  });

  it('trims thematic breaks at the ends of a section', () => {
    const chunks = chunk(md('# P', '', '---', '', 'Text.', '', '***', '', '## Q', '', 'More.', '', '---'));
    expect(chunks.map((c) => c.body)).toEqual([md('# P', '', 'Text.'), md('## Q', '', 'More.')]);
  });

  it('drops headings with nothing under them', () => {
    const chunks = chunk(md('# P', '', 'x', '', '## Empty', '', '<Sponsors />', '', '## Full', '', 'y'));
    expect(chunks.map((c) => c.headings.at(-1))).toEqual(['P', 'Full']);
  });
});

describe('chunkMarkdown: documentation dialects', () => {
  it('chunks an MkDocs page with admonitions, tabs and a python comment in code', () => {
    const text = md(
      '# Models { #models }',
      '',
      '!!! note "Heads up"',
      '    Models are classes.',
      '',
      '## Usage',
      '',
      '=== "Python 3.10+"',
      '',
      '    ```python',
      '    # create a model',
      '    class User(BaseModel):',
      '        id: int',
      '    ```',
    );
    const chunks = chunk(text);
    expect(chunks.map((c) => c.headings)).toEqual([['Models'], ['Models', 'Usage']]);
    expect(chunks[0]?.body).toBe(md('# Models', '', '**Note: Heads up**', '', 'Models are classes.'));
    expect(chunks[1]?.body).toContain(
      md('**Python 3.10+**', '', '```python', '# create a model', 'class User(BaseModel):'),
    );
  });

  it('chunks an MDX page without its imports and component tags', () => {
    const text = md(
      '---',
      'title: Basic usage',
      '---',
      "import { Tabs, Tab } from 'fumadocs-ui/components/tabs';",
      '',
      '## Parsing',
      '',
      '<Tabs items={["Zod", "Zod Mini"]}>',
      '<Tab value="Zod">',
      '```ts',
      'schema.parse(x);',
      '```',
      '</Tab>',
      '</Tabs>',
    );
    const chunks = chunk(text);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.headings).toEqual(['Basic usage', 'Parsing']);
    expect(chunks[0]?.body).toBe(md('## Parsing', '', '**Zod**', '', '```ts', 'schema.parse(x);', '```'));
  });

  it('passes include resolution through', () => {
    const chunks = chunkMarkdown(
      { url, markdown: md('# P', '', '{* ../../docs_src/a.py *}') },
      { resolveInclude: (p) => (p === '../../docs_src/a.py' ? 'print("hi")\n' : undefined) },
    );
    expect(chunks[0]?.body).toBe(md('# P', '', '```python', 'print("hi")', '```'));
  });
});
