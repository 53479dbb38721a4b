import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  categories,
  type KnownLibrary,
  knownLibraries,
  knownLibraryRegistry,
  knownLibrarySchema,
  librariesDataUrl,
  registryId,
} from '../src/index.js';

const raw = JSON.parse(readFileSync(librariesDataUrl, 'utf8')) as { libraries: unknown[] };
const python = knownLibraries.filter((l) => l.language === 'python');
const javascript = knownLibraries.filter((l) => l.language === 'javascript');

/** Every URL an entry holds. */
function urlsOf(l: KnownLibrary): string[] {
  return [l.docsUrl, l.llmsTxt?.url, l.llmsFullTxt?.url, l.versionedDocs?.url].filter((u): u is string => !!u);
}

describe('the shipped data', () => {
  it('every entry validates on its own, with the entry named in any failure', () => {
    const failures = raw.libraries.flatMap((entry, i) => {
      const result = knownLibrarySchema.safeParse(entry);
      return result.success ? [] : [`#${i} ${(entry as { id?: string }).id}: ${result.error.message}`];
    });
    expect(failures).toEqual([]);
    expect(knownLibraries).toHaveLength(raw.libraries.length);
  });

  it('holds at least 300 libraries, split between Python and JavaScript/TypeScript', () => {
    expect(knownLibraries.length).toBeGreaterThanOrEqual(300);
    expect(python.length).toBeGreaterThanOrEqual(150);
    expect(javascript.length).toBeGreaterThanOrEqual(150);
  });

  it('covers the groups the registry is for, in both languages', () => {
    const count = (list: KnownLibrary[], category: string) =>
      list.filter((l) => (l.categories as string[]).includes(category)).length;
    for (const [category, min] of [
      ['ai', 20],
      ['web', 10],
      ['testing', 10],
      ['database', 10],
      ['cloud', 5],
    ] as const) {
      expect(count(python, category), `python ${category}`).toBeGreaterThanOrEqual(min);
    }
    for (const [category, min] of [
      ['ai', 15],
      ['frontend', 15],
      ['ui', 10],
      ['build', 10],
      ['testing', 10],
      ['orm', 5],
      ['validation', 5],
    ] as const) {
      expect(count(javascript, category), `javascript ${category}`).toBeGreaterThanOrEqual(min);
    }
  });

  it('uses every category of the vocabulary at least once', () => {
    const used = new Set(knownLibraries.flatMap((l) => l.categories));
    expect(categories.filter((c) => !used.has(c))).toEqual([]);
  });

  it('has unique ids, and within a language no id, package name or alias names two entries', () => {
    expect(new Set(knownLibraries.map((l) => l.id)).size).toBe(knownLibraries.length);
    expect(knownLibraryRegistry.problems()).toEqual([]);
  });

  it('gives every entry the id its primary package yields under the documented rule', () => {
    const pythonIds = new Set(python.map((l) => l.id));
    const off = knownLibraries
      .filter((l) => l.id !== registryId(l.packages[0]!, l.language, pythonIds))
      .map((l) => l.id);
    expect(off).toEqual([]);
    // the suffix is used exactly where a Python entry holds the bare id
    for (const l of javascript.filter((j) => j.id.endsWith('-js') && !j.packages[0]!.endsWith('-js'))) {
      expect(pythonIds.has(l.id.slice(0, -3)), l.id).toBe(true);
    }
  });

  it('uses https for every URL and keeps entries sorted by language, then id', () => {
    const bad = knownLibraries.flatMap((l) => urlsOf(l).filter((u) => !u.startsWith('https://')));
    expect(bad).toEqual([]);
    const order = knownLibraries.map((l) => `${l.language === 'python' ? 0 : 1} ${l.id}`);
    expect(order).toEqual([...order].sort((a, b) => a.localeCompare(b)));
  });

  it('has {version} in every versioned-docs URL', () => {
    const versioned = knownLibraries.filter((l) => l.versionedDocs);
    expect(versioned.length).toBeGreaterThanOrEqual(20);
    for (const l of versioned) expect(l.versionedDocs!.url, l.id).toContain('{version}');
  });

  it('names the evidence of every checked llms.txt URL, and checked URLs outnumber unchecked ones', () => {
    const files = knownLibraries.flatMap((l) => [l.llmsTxt, l.llmsFullTxt]).filter((f) => f !== undefined);
    expect(files.filter((f) => f.checked && !f.evidence)).toEqual([]);
    const checked = files.filter((f) => f.checked).length;
    expect(checked).toBeGreaterThanOrEqual(80);
    expect(checked).toBeGreaterThan(files.length - checked);
  });
});

describe('the libraries of the shared corpora', () => {
  const get = (id: string) => {
    const library = knownLibraryRegistry.get(id);
    if (!library) throw new Error(`${id} is missing`);
    return library;
  };

  it('are all present with the language of their ecosystem', () => {
    for (const id of ['fastapi', 'pydantic', 'httpx', 'typer', 'instructor', 'langgraph']) {
      expect(get(id).language, id).toBe('python');
    }
    for (const id of ['hono', 'vitest', 'zod', 'react', 'vite', 'eslint']) {
      expect(get(id).language, id).toBe('javascript');
    }
  });

  it('carry the docs sites, repositories and llms.txt files the corpora were taken from', () => {
    expect(get('fastapi')).toMatchObject({
      docsUrl: 'https://fastapi.tiangolo.com',
      repository: 'fastapi/fastapi',
      docsPath: 'docs/en/docs',
    });
    expect(get('pydantic')).toMatchObject({
      docsUrl: 'https://docs.pydantic.dev/latest',
      repository: 'pydantic/pydantic',
      llmsTxt: { url: 'https://docs.pydantic.dev/latest/llms.txt', checked: true },
      llmsFullTxt: { url: 'https://docs.pydantic.dev/latest/llms-full.txt', checked: true },
    });
    expect(get('httpx')).toMatchObject({ docsUrl: 'https://www.python-httpx.org', repository: 'encode/httpx' });
    expect(get('typer')).toMatchObject({ docsUrl: 'https://typer.tiangolo.com', repository: 'fastapi/typer' });
    expect(get('instructor')).toMatchObject({
      docsUrl: 'https://python.useinstructor.com',
      repository: '567-labs/instructor',
      llmsTxt: { url: 'https://python.useinstructor.com/llms.txt', checked: true },
    });
    expect(get('langgraph')).toMatchObject({
      repository: 'langchain-ai/langgraph',
      llmsTxt: { url: 'https://docs.langchain.com/llms.txt', checked: true },
    });
    expect(get('hono')).toMatchObject({
      docsUrl: 'https://hono.dev',
      docsRepository: 'honojs/website',
      llmsTxt: { url: 'https://hono.dev/llms.txt', checked: true },
      llmsFullTxt: { url: 'https://hono.dev/llms-full.txt', checked: true },
    });
    expect(get('zod')).toMatchObject({ docsUrl: 'https://zod.dev', llmsTxt: { url: 'https://zod.dev/llms.txt' } });
    expect(get('vitest')).toMatchObject({ docsUrl: 'https://vitest.dev', repository: 'vitest-dev/vitest' });
    expect(get('react')).toMatchObject({ docsUrl: 'https://react.dev', docsRepository: 'reactjs/react.dev' });
    expect(get('vite')).toMatchObject({ repository: 'vitejs/vite', docsPath: 'docs' });
    expect(get('eslint')).toMatchObject({ docsUrl: 'https://eslint.org/docs/latest/', docsPath: 'docs/src' });
  });
});

describe('the README', () => {
  it('states the current counts', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const n = (list: KnownLibrary[], p: (l: KnownLibrary) => unknown = () => true) => list.filter(p).length;
    const row = (label: string, p: (l: KnownLibrary) => unknown, checked?: (l: KnownLibrary) => unknown) => {
      const cell = (list: KnownLibrary[]) => `${n(list, p)}${checked ? ` (${n(list, checked)})` : ''}`;
      return `| ${label} | ${cell(python)} | ${cell(javascript)} | ${cell([...knownLibraries])} |`;
    };
    for (const line of [
      row('libraries', () => true),
      row(
        'with an llms.txt (checked)',
        (l) => l.llmsTxt,
        (l) => l.llmsTxt?.checked,
      ),
      row(
        'with an llms-full.txt (checked)',
        (l) => l.llmsFullTxt,
        (l) => l.llmsFullTxt?.checked,
      ),
      row('with versioned docs', (l) => l.versionedDocs),
      row('with a repository', (l) => l.repository),
      row('with a docs folder', (l) => l.docsPath),
    ]) {
      expect(readme).toContain(line);
    }
  });
});
