import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Chunk, chunkMarkdown, DEFAULT_MAX_CHUNK_TOKENS } from '../src/markdown/chunk.js';

// The shared corpora: $PRO_CONTEXT_SHARED_DIR/corpora, else ../shared/corpora beside the repository.
const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpusRoot = [
  ...(process.env.PRO_CONTEXT_SHARED_DIR ? [path.resolve(process.env.PRO_CONTEXT_SHARED_DIR, 'corpora')] : []),
  path.resolve(packageDir, '../../../shared/corpora'),
].find((dir) => existsSync(path.join(dir, 'SOURCES.md')));
if (!corpusRoot) {
  console.warn('markdown-corpus tests skipped: shared corpora not found (set PRO_CONTEXT_SHARED_DIR)');
}

const CORPORA = ['fastapi', 'pydantic', 'httpx', 'typer', 'instructor', 'langgraph', 'hono', 'zod', 'vitest'];

function markdownFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) markdownFiles(full, out);
    else if (/\.mdx?$/.test(name)) out.push(full);
  }
  return out;
}

/** fastapi and typer include their examples from docs_src, relative to the folder of mkdocs.yml. */
function includeResolver(file: string): ((p: string) => string | undefined) | undefined {
  const root = corpusRoot as string;
  const base = file.includes(`${path.sep}fastapi${path.sep}`)
    ? path.join(root, 'fastapi/docs/en')
    : file.includes(`${path.sep}typer${path.sep}`)
      ? path.join(root, 'typer')
      : undefined;
  if (!base) return undefined;
  return (p) => {
    try {
      return readFileSync(path.resolve(base, p), 'utf8');
    } catch {
      return undefined;
    }
  };
}

/** Fence state of a chunk body: whether every block is closed, how many blocks, and the text outside them. */
function fenceReport(body: string): { balanced: boolean; blocks: number; prose: string } {
  let open: { char: string; length: number } | null = null;
  let blocks = 0;
  const prose: string[] = [];
  for (const line of body.split('\n')) {
    const m = /^[ \t]*(`{3,}|~{3,})(.*)$/.exec(line);
    if (open) {
      const marker = m?.[1];
      if (marker && marker[0] === open.char && marker.length >= open.length && m?.[2]?.trim() === '') open = null;
      continue;
    }
    const marker = m?.[1];
    if (marker && !(marker[0] === '`' && m?.[2]?.includes('`'))) {
      open = { char: marker[0] as string, length: marker.length };
      blocks += 1;
      continue;
    }
    prose.push(line);
  }
  return { balanced: open === null, blocks, prose: prose.join('\n') };
}

describe.skipIf(!corpusRoot)('chunkMarkdown on the nine real corpora', () => {
  const root = corpusRoot as string;
  const files = corpusRoot ? CORPORA.flatMap((c) => markdownFiles(path.join(root, c))) : [];
  const chunksByFile = new Map<string, Chunk[]>();

  it('chunks every markdown file without throwing, and fast', () => {
    const texts = files.map((f) => readFileSync(f, 'utf8'));
    const started = performance.now();
    files.forEach((file, i) => {
      const url = path.relative(root, file).split(path.sep).join('/');
      chunksByFile.set(
        file,
        chunkMarkdown({ url, markdown: texts[i] as string }, { resolveInclude: includeResolver(file) }),
      );
    });
    const ms = performance.now() - started;
    const total = [...chunksByFile.values()].reduce((n, cs) => n + cs.length, 0);
    console.info(`chunked ${files.length} files into ${total} chunks in ${ms.toFixed(0)} ms`);
    expect(files.length).toBeGreaterThan(1000);
    expect(total).toBeGreaterThan(files.length);
    // Generous: about 1 s on an idle 2-core machine; the bound only catches a pathological slowdown.
    expect(ms).toBeLessThan(30_000);
  });

  it('leaves no chunk with an unbalanced code fence', () => {
    const bad = [...chunksByFile.values()].flat().filter((c) => !fenceReport(c.body).balanced);
    expect(bad.map((c) => c.id)).toEqual([]);
  });

  it('keeps every chunk within maxTokens unless it is one code block that cannot be divided', () => {
    const over = [...chunksByFile.values()].flat().filter((c) => c.tokens > DEFAULT_MAX_CHUNK_TOKENS);
    const divisible = over.filter((c) => {
      const report = fenceReport(c.body);
      // Allowed: the heading line and one code block, perhaps with its one-line lead-in.
      return (
        report.blocks !== 1 ||
        report.prose
          .trim()
          .split('\n')
          .filter((l) => l.trim()).length > 2
      );
    });
    expect(divisible.map((c) => `${c.id} (${c.tokens})`)).toEqual([]);
  });

  it('starts every body with a heading line and every heading path with the page title', () => {
    for (const chunk of [...chunksByFile.values()].flat()) {
      expect(chunk.body).toMatch(/^#{1,6} \S/);
      expect(chunk.headings[0]).toBe(chunk.pageTitle);
    }
  });

  it('leaves no admonition, container, include, import or JSX syntax outside code', () => {
    const leftovers = /^(?:!!!|\?\?\?|:::|\/\/\/ ?[a-z]|\{\*|import .* from ['"]|<\/?[A-Z][\w.]*[ >/])/;
    const found: string[] = [];
    for (const chunk of [...chunksByFile.values()].flat()) {
      for (const line of fenceReport(chunk.body).prose.split('\n'))
        if (leftovers.test(line)) found.push(`${chunk.id}: ${line}`);
    }
    expect(found).toEqual([]);
  });

  const byUrl = (suffix: string): Chunk[] =>
    [...chunksByFile.entries()].find(([file]) => file.split(path.sep).join('/').endsWith(suffix))?.[1] ?? [];

  it('gets the heading paths of a fastapi page right (checked by hand)', () => {
    const chunks = byUrl('fastapi/docs/en/docs/tutorial/dependencies/dependencies-with-yield.md');
    expect(chunks[0]?.pageTitle).toBe('Dependencies with yield');
    const db = chunks.find((c) => c.anchor === 'a-database-dependency-with-yield');
    expect(db?.headings).toEqual(['Dependencies with yield', 'A database dependency with `yield`']);
    expect(db?.body).toContain('The code following the `yield` statement is executed after the response');
    // The include directive was resolved into the example's code.
    expect(db?.body).toMatch(/```python\n[\s\S]*yield db[\s\S]*```/);
    const always = chunks.find((c) => c.anchor === 'always-raise-in-dependencies-with-yield-and-except');
    expect(always?.headings).toEqual([
      'Dependencies with yield',
      'Dependencies with `yield` and `except`',
      'Always `raise` in Dependencies with `yield` and `except`',
    ]);
    // "Context Managers" has a one-line intro: it travels with its first subsection, whose path names both.
    const managers = chunks.find((c) => c.anchor === 'context-managers');
    expect(managers?.headings).toEqual(['Dependencies with yield', 'Context Managers', 'What are "Context Managers"']);
    expect(managers?.body).toMatch(/^## Context Managers\n\n[\s\S]*### What are "Context Managers"/);
  });

  it('gets the heading paths of a pydantic page without an H1 right (checked by hand)', () => {
    const chunks = byUrl('pydantic/docs/concepts/validators.md');
    expect(chunks[0]?.pageTitle).toBe('Validators');
    expect(chunks[0]?.headings).toEqual(['Validators']);
    expect(chunks[0]?.body.startsWith("# Validators\n\nIn addition to Pydantic's")).toBe(true);
    const context = chunks.find((c) => c.anchor === 'validation-context');
    expect(context?.headings).toEqual(['Validators', 'Validation info', 'Validation context']);
    const field = chunks.filter((c) => c.anchor === 'field-validators');
    expect(field.length).toBeGreaterThan(1);
    expect(field.every((c) => c.body.startsWith('## Field validators\n\n'))).toBe(true);
    // mkdocs-autorefs cross-references kept as their text.
    expect(chunks.some((c) => c.body.includes('[`BaseModel`][pydantic.main.BaseModel]'))).toBe(false);
  });

  it('resolves the examples typer includes from docs_src', () => {
    const chunks = byUrl('typer/docs/tutorial/first-steps.md');
    expect(chunks.some((c) => /```python\n(?:.*\n)*import typer/.test(c.body))).toBe(true);
    expect(chunks.some((c) => c.body.includes('(not inlined)'))).toBe(false);
  });

  it('gets an MDX page (zod) and a VitePress page (vitest) right (checked by hand)', () => {
    const zod = byUrl('zod/packages/docs/content/api.mdx');
    expect(zod[0]?.pageTitle).toBe('Defining schemas');
    expect(zod.some((c) => c.body.includes('fumadocs-ui'))).toBe(false);
    expect(zod.find((c) => c.anchor === 'literals')?.body).toContain('**Zod Mini**');
    // Fumadocs `[#id]` heading ids: the site's anchors, and not part of the heading text
    const deepPartial = zod.find((c) => c.anchor === 'deep-partial');
    expect(deepPartial?.headings.at(-1)).toBe('`z.deepPartial()`');
    expect(deepPartial?.body.startsWith('### `z.deepPartial()`\n')).toBe(true);
    expect(zod.some((c) => c.anchor === 'stringbool')).toBe(true);
    // (served together with the short `## Pipes` section above it, under that section's anchor)
    expect(zod.some((c) => c.body.includes('\n### `z.input()` and `z.output()`\n'))).toBe(true);
    expect(zod.some((c) => c.headings.some((h) => h.includes('[#')))).toBe(false);
    const vitest = byUrl('vitest/docs/config/coverage.md');
    // the page's short introduction is served with its first section, under the page's anchor
    expect(vitest[0]?.headings).toEqual(['coverage', 'coverage.provider']);
    expect(vitest[0]?.anchor).toBe('coverage');
    expect(vitest[0]?.body).toMatch(/^# coverage\n[\s\S]*\n## coverage\.provider\n/);
  });

  it('puts the answer of every eval question under its heading in one chunk', () => {
    const evalDir = path.resolve(root, '../eval');
    const misses: string[] = [];
    for (const lib of ['fastapi', 'pydantic']) {
      const file = path.join(evalDir, `questions-${lib}.jsonl`);
      if (!existsSync(file)) continue;
      for (const line of readFileSync(file, 'utf8').trim().split('\n')) {
        const q = JSON.parse(line) as { id: string; file: string; heading: string; must_contain: string };
        const hit = byUrl(`${lib}/${q.file}`).find(
          (c) => c.headings.includes(q.heading) && c.body.includes(q.must_contain),
        );
        if (!hit) misses.push(q.id);
      }
    }
    expect(misses).toEqual([]);
  });
});
