import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../src/html/html-to-markdown.js';

// One page per documentation generator, in each generator's real markup (its theme's class names, ids and
// custom elements, chrome included), all with the same content: an H1, a paragraph with inline code, an H2,
// a table, a Python (or TypeScript) code block and a note.
const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/generators');
const fixture = (name: string) => readFileSync(path.join(dir, `${name}.html`), 'utf8');

const generators: [name: string, file: string, lang: string, code: string][] = [
  ['Sphinx (Furo)', 'sphinx-furo', 'python', 'import acme\nacme.configure(timeout=10)'],
  ['Sphinx (Read the Docs theme)', 'sphinx-rtd', 'python', 'import acme\nacme.configure(timeout=10)'],
  ['MkDocs Material', 'mkdocs-material', 'python', 'import acme\nacme.configure(timeout=10)'],
  ['Docusaurus', 'docusaurus', 'python', 'import acme\nacme.configure(timeout=10)'],
  ['VitePress', 'vitepress', 'ts', "import { configure } from 'acme'\nconfigure({ timeout: 10 })"],
  ['Mintlify', 'mintlify', 'python', 'import acme\nacme.configure(timeout=10)'],
  ['Starlight', 'starlight', 'python', 'import acme\nacme.configure(timeout=10)'],
];

// Text of the chrome around the content in the fixtures: none of it may reach the markdown.
const CHROME = [
  'Skip to content',
  'Skip to main content',
  'Search',
  'Installation',
  'Previous',
  'Next',
  'Edit this page',
  'Edit page',
  'Suggest edits',
  'View page source',
  'Last updated',
  'Last update',
  'On this page',
  'Table of contents',
  'Copy',
  'Was this page helpful',
  'Made with',
  'Built with',
  'Powered by',
  'Copyright',
  '2.0',
  'v2.0',
  'Version: 2.1',
  'Select theme',
  'Français',
  'Back to top',
  'Toggle Light',
  'Introduction',
  'Home',
  'GitHub',
  '¶',
  '\u200b',
];

describe.each(generators)('htmlToMarkdown on a %s page', (_name, file, lang, code) => {
  const { title, markdown } = htmlToMarkdown(fixture(file), 'https://docs.acme.dev/guides/config/');

  it('keeps the title, the prose and the headings, without permalinks', () => {
    expect(title).toBe('Configuration');
    expect(markdown.startsWith('# Configuration\n\n')).toBe(true);
    expect(markdown).toContain(
      'Acme reads its settings from `acme.toml` in the project root, then from the environment.',
    );
    expect(markdown).toMatch(/^## Options$/m);
    expect(markdown).toContain('Environment variables win over the file.');
  });

  it('fences the code block with its language, one line per line', () => {
    expect(markdown).toContain(`\`\`\`${lang}\n${code}\n\`\`\``);
  });

  it('turns the table into a GFM table', () => {
    expect(markdown).toMatch(/\| Option \| Default \|\n\| -+ \| -+ \|\n\| timeout \| 30 +\|\n\| retries \| 3 +\|/);
  });

  it('drops navigation, search, sidebars, version and theme pickers, edit links and footers', () => {
    const found = CHROME.filter((text) => markdown.includes(text));
    expect(found).toEqual([]);
  });
});
