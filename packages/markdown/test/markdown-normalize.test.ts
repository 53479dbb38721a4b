import { describe, expect, it } from 'vitest';
import { normalizeMarkdown } from '../src/markdown/normalize.js';

const md = (...lines: string[]): string => lines.join('\n');

describe('normalizeMarkdown: front matter and comments', () => {
  it('drops YAML front matter', () => {
    expect(normalizeMarkdown(md('---', 'title: Hello', 'tags: [a]', '---', '', '# Hello', '', 'Body.'))).toBe(
      md('# Hello', '', 'Body.'),
    );
  });

  it('drops HTML comments, on one line or across lines, and keeps the text around them', () => {
    const out = normalizeMarkdown(md('Before <!-- hidden --> after.', '', '<!--', 'multi', 'line', '-->', 'Next.'));
    expect(out).toBe(md('Before  after.', '', 'Next.'));
  });

  it('keeps a comment marker written inside inline code', () => {
    expect(normalizeMarkdown('Write `<!-- more -->` to cut the excerpt.')).toBe(
      'Write `<!-- more -->` to cut the excerpt.',
    );
  });

  it('does not let an unclosed comment swallow the rest of the page', () => {
    const out = normalizeMarkdown(md('<!-- oops', '', '## Still here', '', 'Text.'));
    expect(out).toContain('## Still here');
    expect(out).toContain('Text.');
  });

  it('drops markdown comments written as link definitions and abbreviations', () => {
    const out = normalizeMarkdown(
      md('[//]: # (generated, do not edit)', '', 'Text about HTML.', '', '*[HTML]: Hyper Text'),
    );
    expect(out).toBe('Text about HTML.');
  });
});

describe('normalizeMarkdown: admonitions and blocks', () => {
  it('turns `!!! note "Title"` with an indented body into a label and the dedented body', () => {
    const out = normalizeMarkdown(
      md('!!! note "Careful here"', '    First line.', '', '    Second line.', '', 'After.'),
    );
    expect(out).toBe(md('**Note: Careful here**', '', 'First line.', '', 'Second line.', '', 'After.'));
  });

  it('reads collapsible, untitled, untyped and space-less admonition headers', () => {
    expect(normalizeMarkdown(md('??? tip', '    Body.'))).toBe(md('**Tip**', '', 'Body.'));
    expect(normalizeMarkdown(md('???+ example "Example - type hints"', '    Body.'))).toBe(
      md('**Example - type hints**', '', 'Body.'),
    );
    expect(normalizeMarkdown(md('!!! warning ""', '    Body only.'))).toBe('Body only.');
    expect(normalizeMarkdown(md('??? "Install dependencies"', '    pip install x'))).toBe(
      md('**Note: Install dependencies**', '', 'pip install x'),
    );
    expect(normalizeMarkdown(md('!!!info  "Prerequisites"', '    Body.'))).toBe(
      md('**Info: Prerequisites**', '', 'Body.'),
    );
  });

  it('dedents a code block inside an admonition, blank lines and comments included', () => {
    const out = normalizeMarkdown(
      md('!!! example', '    ```python', '    # a comment', '', '    x = 1', '    ```', '', 'Outside.'),
    );
    expect(out).toBe(md('**Example**', '', '```python', '# a comment', '', 'x = 1', '```', '', 'Outside.'));
  });

  it('handles nested admonitions and content tabs', () => {
    const out = normalizeMarkdown(
      md(
        '=== "pip"',
        '',
        '    ```bash',
        '    pip install pydantic',
        '    ```',
        '',
        '=== "uv"',
        '',
        '    !!! note',
        '        Fast.',
        '',
      ),
    );
    expect(out).toBe(
      md('**pip**', '', '```bash', 'pip install pydantic', '```', '', '**uv**', '', '**Note**', '', 'Fast.'),
    );
  });

  it('turns pymdown `/// type | Title` blocks into labels and drops their closers, nested ones too', () => {
    const out = normalizeMarkdown(
      md(
        '/// details | Other versions',
        '',
        '//// tab | Python 3.10+',
        '',
        '```python',
        'x: int | None',
        '```',
        '',
        '////',
        '',
        '///',
        '',
        'After.',
      ),
    );
    expect(out).toBe(
      md('**Other versions**', '', '**Python 3.10+**', '', '```python', 'x: int | None', '```', '', 'After.'),
    );
    expect(normalizeMarkdown(md('/// tip', '', 'Use it.', '', '///'))).toBe(md('**Tip**', '', 'Use it.'));
  });

  it('turns VitePress and Docusaurus containers into labels', () => {
    expect(normalizeMarkdown(md('::: tip Sample Project', 'See the example.', ':::'))).toBe(
      md('**Tip: Sample Project**', '', 'See the example.'),
    );
    expect(normalizeMarkdown(md('::: warning', 'Careful.', ':::'))).toBe(md('**Warning**', '', 'Careful.'));
    expect(normalizeMarkdown(md('::: code-group', '```ts [a.ts]', 'a()', '```', ':::'))).toBe(
      md('```ts title="a.ts"', 'a()', '```'),
    );
    expect(normalizeMarkdown(md(':::python', 'Python only.', ':::', '', ':::js', 'JS only.', ':::'))).toBe(
      md('**Python**', '', 'Python only.', '', '**JavaScript**', '', 'JS only.'),
    );
  });

  it('names mkdocstrings directives and drops their option blocks', () => {
    const out = normalizeMarkdown(
      md('::: pydantic.main.BaseModel', '    options:', '      show_root_heading: true', '', 'Text.'),
    );
    expect(out).toBe(md('API reference: `pydantic.main.BaseModel`', '', 'Text.'));
  });

  it('turns vitepress-plugin-tabs `== Tab` lines into labels', () => {
    expect(normalizeMarkdown(md('::: tabs', '== npm', 'npm i x', '== pnpm', 'pnpm add x', ':::'))).toBe(
      md('**npm**', '', 'npm i x', '', '**pnpm**', '', 'pnpm add x'),
    );
  });
});

describe('normalizeMarkdown: MDX and HTML', () => {
  it('drops MDX import and export lines, multi-line ones too', () => {
    const out = normalizeMarkdown(
      md(
        "import { Tabs, Tab } from 'fumadocs-ui/components/tabs';",
        'import {',
        '  Callout,',
        "} from 'fumadocs-ui/components/callout';",
        "import './styles.css'",
        'export const meta = {',
        "  title: 'x',",
        '};',
        '',
        'Text.',
      ),
    );
    expect(out).toBe('Text.');
  });

  it('keeps prose that merely starts with "import"', () => {
    expect(normalizeMarkdown('import the module before use.')).toBe('import the module before use.');
  });

  it('turns JSX components into labels and drops the tags that carry no text', () => {
    const out = normalizeMarkdown(
      md(
        '<Tabs groupId="lib" items={["Zod", "Zod Mini"]}>',
        '<Tab value="Zod">',
        '```ts',
        'z.string();',
        '```',
        '</Tab>',
        '</Tabs>',
        '',
        '<Callout type="warn">',
        'Be careful.',
        '</Callout>',
        '',
        '<ZodUtilities />',
        '<Accordion title="How coercion works">',
        'Details.',
        '</Accordion>',
      ),
    );
    expect(out).toBe(
      md(
        '**Zod**',
        '',
        '```ts',
        'z.string();',
        '```',
        '',
        '**Warning**',
        '',
        'Be careful.',
        '',
        '**How coercion works**',
        '',
        'Details.',
      ),
    );
  });

  it('joins a component tag written across lines', () => {
    const out = normalizeMarkdown(
      md('<ThemedImage', '  alt="Diagram"', '  sources={{ light: "a.png" }}', '/>', 'Text.'),
    );
    expect(out).toBe('Text.');
  });

  it('drops MDX comments, even when they contain a code fence', () => {
    const out = normalizeMarkdown(md('{/* Hidden:', '```ts', 'z.old();', '```', '*/}', '', 'Visible.'));
    expect(out).toBe('Visible.');
  });

  it('drops <script> and <style> blocks and wrapper <div>s but keeps what they wrap', () => {
    const out = normalizeMarkdown(
      md(
        '<script setup>',
        "import X from './x.vue'",
        '</script>',
        '',
        '<div class="termy">',
        '',
        '```console',
        '$ pip install x',
        '```',
        '',
        '</div>',
      ),
    );
    expect(out).toBe(md('```console', '$ pip install x', '```'));
  });

  it('turns <summary> into a label', () => {
    expect(normalizeMarkdown(md('<details>', '<summary>More <b>info</b></summary>', '', 'Body.', '</details>'))).toBe(
      md('**More info**', '', 'Body.'),
    );
  });
});

describe('normalizeMarkdown: includes', () => {
  const files: Record<string, string> = {
    '../../docs_src/app/tutorial001.py':
      'from fastapi import FastAPI\n\napp = FastAPI()\n\n@app.get("/")\ndef root():\n    return {}\n',
    'snippets/install.md': 'Run `pip install x`.\n',
  };
  const resolveInclude = (path: string): string | undefined => files[path];

  it('inlines a fastapi `{* path *}` include as a fenced block in the file language', () => {
    const out = normalizeMarkdown('{* ../../docs_src/app/tutorial001.py hl[3] *}', { resolveInclude });
    expect(out).toBe(
      md(
        '```python',
        'from fastapi import FastAPI',
        '',
        'app = FastAPI()',
        '',
        '@app.get("/")',
        'def root():',
        '    return {}',
        '```',
      ),
    );
  });

  it('applies `ln[...]` line selection', () => {
    const out = normalizeMarkdown('{* ../../docs_src/app/tutorial001.py ln[1:3] *}', { resolveInclude });
    expect(out).toBe(md('```python', 'from fastapi import FastAPI', '', 'app = FastAPI()', '```'));
  });

  it('names the file when the include cannot be resolved', () => {
    expect(normalizeMarkdown('{* ../../docs_src/missing.py *}')).toBe(
      '_Code example: `docs_src/missing.py` (not inlined)_',
    );
  });

  it('resolves `{!> path !}` inside a code block, and leaves it when it cannot', () => {
    const src = md('```Python hl_lines="1"', '{!> ../../docs_src/app/tutorial001.py!}', '```');
    expect(normalizeMarkdown(src, { resolveInclude })).toContain('app = FastAPI()');
    expect(normalizeMarkdown(src)).toBe(md('```python', '{!> ../../docs_src/app/tutorial001.py!}', '```'));
  });

  it('inlines a markdown snippet (`--8<--`) as markdown', () => {
    expect(normalizeMarkdown('--8<-- "snippets/install.md"', { resolveInclude })).toBe('Run `pip install x`.');
  });
});

describe('normalizeMarkdown: links, headings and code', () => {
  it('inlines reference-style links and drops their definitions', () => {
    const out = normalizeMarkdown(
      md('See [the guide][guide], [Guide][] and [guide].', '', '[guide]: https://example.test/guide "The guide"'),
    );
    expect(out).toBe(
      'See [the guide](https://example.test/guide), [Guide](https://example.test/guide) and [guide](https://example.test/guide).',
    );
  });

  it('keeps the text of cross-references that have no definition (mkdocs-autorefs)', () => {
    expect(
      normalizeMarkdown('Inherit from [`BaseModel`][pydantic.main.BaseModel] and [class method][classmethod].'),
    ).toBe('Inherit from `BaseModel` and class method.');
  });

  it('does not touch brackets inside inline code, or footnote definitions', () => {
    expect(normalizeMarkdown('Index with `data[0][key]` safely.')).toBe('Index with `data[0][key]` safely.');
    expect(normalizeMarkdown('[^1]: A footnote.')).toBe('[^1]: A footnote.');
  });

  it('turns setext headings into ATX headings, but keeps a thematic break after a blank line', () => {
    expect(
      normalizeMarkdown(md('Title', '=====', '', 'Sub part', '--------', '', 'Text.', '', '---', '', 'More.')),
    ).toBe(md('# Title', '', '## Sub part', '', 'Text.', '', '---', '', 'More.'));
  });

  it('drops standalone attribute lists', () => {
    expect(normalizeMarkdown(md('* item', '{#item-anchor}', '', 'Text.'))).toBe(md('* item', '', 'Text.'));
  });

  it('reduces fence info strings to the language and a title', () => {
    expect(normalizeMarkdown(md('```Python hl_lines="1 3"', 'x', '```'))).toBe(md('```python', 'x', '```'));
    expect(normalizeMarkdown(md('```py {title="main.py" test="skip"}', 'x', '```'))).toBe(
      md('```py title="main.py"', 'x', '```'),
    );
    expect(normalizeMarkdown(md('```ts{1,3}', 'x', '```'))).toBe(md('```ts', 'x', '```'));
  });

  it('never rewrites what is inside a code block', () => {
    const code = md(
      '````markdown',
      '!!! note "Not an admonition"',
      '    indented',
      '```',
      '<!-- kept -->',
      'import x from "y"',
      '[ref]: https://kept.test',
      '',
      '',
      '',
      'Title',
      '===',
      '````',
    );
    expect(normalizeMarkdown(code)).toBe(code);
  });

  it('closes a code block left open at the end of the page', () => {
    expect(normalizeMarkdown(md('Text.', '', '~~~~python', 'x = 1'))).toBe(
      md('Text.', '', '~~~~python', 'x = 1', '~~~~'),
    );
  });

  it('collapses runs of blank lines outside code', () => {
    expect(normalizeMarkdown(md('a', '', '', '', 'b'))).toBe(md('a', '', 'b'));
  });
});

describe('normalizeMarkdown: terminal transcripts', () => {
  it('drops the HTML colour markup of console blocks and leaves other code alone', () => {
    const md = [
      '```console',
      '$ <font color="#4E9A06">fastapi</font> run --workers 4 <u style="x">main.py</u>',
      '  <span style="background-color:#009485"><font color="#D3D7CF"> FastAPI </font></span>  Starting',
      '```',
      '',
      '```html',
      '<span class="x">kept</span>',
      '```',
    ].join('\n');
    const out = normalizeMarkdown(md);
    expect(out).toContain('$ fastapi run --workers 4 main.py');
    expect(out).toContain('   FastAPI   Starting');
    expect(out).toContain('<span class="x">kept</span>');
  });
});
