import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The relative-import graph of every file of `packages/*/src` and `plugins/*/src` — static imports, re-exports,
// `import type` and dynamic `import()` alike — must have no cycle. A type-only cycle costs nothing at run time
// but tangles two modules all the same: the shared types belong in the folder's own `types.ts`.
const root = fileURLToPath(new URL('../../..', import.meta.url));

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts)$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

/** `./x.js` → `./x.ts` (or `./x/index.ts`), as TypeScript's NodeNext resolution maps it; undefined when absent. */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(m?js|m?ts)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.mts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    // TypeScript's own pre-parser: every import/export-from/import() specifier, type-only ones included,
    // and nothing inside comments or strings
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((entry) => entry.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => resolveRelative(file, specifier))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components of more than one file (or a file importing itself), by Tarjan's algorithm. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

function allSources(): string[] {
  return ['packages', 'plugins'].flatMap((group) =>
    readdirSync(join(root, group)).flatMap((entry) => sourceFiles(join(root, group, entry, 'src'))),
  );
}

describe('import cycles', () => {
  it('no cycle among the relative imports of packages/*/src and plugins/*/src (type-only imports included)', () => {
    const files = allSources();
    expect(files.length).toBeGreaterThan(100);
    const named = cycles(importGraph(files)).map((component) =>
      component.map((file) => relative(root, file)).join(' <-> '),
    );
    expect(named, 'move the types both sides share into the folder’s types.ts').toEqual([]);
  });

  it('finds a cycle, a type-only one too, and names its files', () => {
    const a = '/x/src/a.ts';
    const b = '/x/src/b.ts';
    const c = '/x/src/c.ts';
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [c]],
          [c, [a]],
        ]),
      ),
    ).toEqual([[a, b, c]]);
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [c]],
          [c, []],
        ]),
      ),
    ).toEqual([]);
    // `import type` is read as an import like any other
    const { importedFiles } = ts.preProcessFile("import type { T } from './b.js';\n// from './c.js'\n", true, true);
    expect(importedFiles.map((entry) => entry.fileName)).toEqual(['./b.js']);
  });
});
