import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// ARCHITECTURE.md's two machine-read tables ("layers": what each package may import; "debts": crossings the
// redesign removes) held against every import of every package's src/ and its package.json dependencies.
const root = fileURLToPath(new URL('../../..', import.meta.url));
const architecture = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');

function block(kind: string): string[] {
  const match = new RegExp(`\`\`\`${kind}\\n([\\s\\S]*?)\`\`\``).exec(architecture);
  if (!match?.[1]) throw new Error(`ARCHITECTURE.md has no \`\`\`${kind} block`);
  return match[1]
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter(Boolean);
}

const allowed = new Map<string, string[]>();
for (const line of block('layers')) {
  const colon = line.indexOf(':');
  allowed.set(
    line.slice(0, colon).trim(),
    line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .filter(Boolean),
  );
}
const debts = new Set(block('debts').map((line) => line.replace(/\s+/g, ' ')));

interface Pkg {
  name: string;
  dir: string;
  group: string;
  deps: string[];
}

function packages(): Pkg[] {
  const found: Pkg[] = [];
  for (const group of ['packages', 'plugins', 'examples']) {
    for (const entry of readdirSync(join(root, group))) {
      const dir = join(root, group, entry);
      if (!existsSync(join(dir, 'package.json'))) continue;
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      const deps = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies });
      found.push({ name: pkg.name, dir, group, deps });
    }
  }
  return found;
}

const all = packages();
const ours = new Set(all.map((p) => p.name));

/**
 * Entries the layers table names on their own (`@pro-context/engine/api`): an import of one counts as that entry,
 * not as its package, so a row may allow the entry and not the rest of the package. Any other deep entry
 * (`@pro-context/x/sub`) counts as its package.
 */
const namedEntries = new Set([...allowed.values()].flat().filter((entry) => !ours.has(entry) && ownPackage(entry)));

function ownPackage(specifier: string): string | undefined {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? '');
  return ours.has(name) ? name : undefined;
}

/** What an import of `specifier` counts as: a named entry, else its package (undefined: not ours). */
function ownEntry(specifier: string): string | undefined {
  return namedEntries.has(specifier) ? specifier : ownPackage(specifier);
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

// static imports, re-exports and dynamic imports with a literal specifier
const importPattern = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"]([^'"\n]+)['"]/g;

function importsOf(pkg: Pkg): Map<string, string> {
  const seen = new Map<string, string>();
  for (const file of sourceFiles(join(pkg.dir, 'src'))) {
    for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
      const target = ownEntry(match[1] ?? '');
      if (target && target !== pkg.name && !seen.has(target)) seen.set(target, relative(root, file));
    }
  }
  for (const dep of pkg.deps) {
    const target = ownPackage(dep);
    // a dependency on a package whose named entry the sources import is that entry's dependency (what the
    // sources import of the package is checked above)
    if (!target || seen.has(target) || [...seen.keys()].some((entry) => ownPackage(entry) === target)) continue;
    seen.set(target, relative(root, join(pkg.dir, 'package.json')));
  }
  return seen;
}

function rule(pkg: Pkg): string[] | undefined {
  if (pkg.group === 'plugins') return allowed.get('plugin');
  if (pkg.group === 'examples') return allowed.get('example');
  return allowed.get(pkg.name);
}

describe('ARCHITECTURE.md layers', () => {
  it('names every package of the repository', () => {
    const unknown = all.filter((pkg) => !rule(pkg)).map((pkg) => pkg.name);
    expect(unknown, 'add a row for each to the layers table of ARCHITECTURE.md').toEqual([]);
  });

  it('no package imports across the layers except a listed debt', () => {
    const crossings: string[] = [];
    for (const pkg of all) {
      const may = rule(pkg) ?? [];
      if (may.includes('*')) continue;
      for (const [target, where] of importsOf(pkg)) {
        if (may.includes(target) || debts.has(`${pkg.name} -> ${target}`)) continue;
        crossings.push(`${pkg.name} -> ${target} (${where})`);
      }
    }
    expect(crossings).toEqual([]);
  });

  it('every listed debt is still owed (a paid one leaves the list)', () => {
    const owed = new Set<string>();
    for (const pkg of all) for (const target of importsOf(pkg).keys()) owed.add(`${pkg.name} -> ${target}`);
    expect([...debts].filter((debt) => !owed.has(debt))).toEqual([]);
  });

  it("plugins may import the engine's API entry and not the engine itself", () => {
    const may = rule({ name: '@pro-context/plugin-x', dir: '', group: 'plugins', deps: [] }) ?? [];
    expect(may).toContain('@pro-context/engine/api');
    expect(may).not.toContain('@pro-context/engine');
    expect(ownEntry('@pro-context/engine/api')).toBe('@pro-context/engine/api');
    expect(ownEntry('@pro-context/engine')).toBe('@pro-context/engine');
    expect(ownEntry('@pro-context/engine/core/ranking')).toBe('@pro-context/engine');
  });

  it('the kernel imports no other package of the repository', () => {
    const kernel = all.find((pkg) => pkg.name === '@pro-context/kernel');
    expect(kernel && [...importsOf(kernel).keys()]).toEqual([]);
  });
});
