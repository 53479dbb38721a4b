import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { LibraryDescriptor } from '@pro-context/kernel';
import { parseMetadata } from './metadata.js';
import { isInside } from './paths.js';

/** A package installed in the project, as found on disk. */
export interface InstalledPackage {
  ecosystem: 'npm' | 'pypi';
  /** As the registry spells it (npm), or PEP 503-normalized (PyPI). */
  name: string;
  /** The installed version (`node_modules/<pkg>/package.json`, or METADATA's `Version`). */
  version: string;
  /** The package folder (npm) or the `*.dist-info` folder (PyPI): the root its documents are read under. */
  root: string;
  /** npm: the `.d.ts` entry, relative to `root`, if the package ships types. */
  types?: string;
}

/** PEP 503 normalization of a Python distribution name. */
export const normalizePypi = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/**
 * The packages found installed, shared by the library provider (which finds them) and the source adapter
 * (which serves them, answering `canHandle` from memory, without I/O).
 */
export class InstalledPackages {
  private readonly byKey = new Map<string, InstalledPackage>();

  /** Replaces what is known with a new scan's findings. */
  replace(packages: readonly InstalledPackage[]): void {
    this.byKey.clear();
    for (const p of packages) this.byKey.set(`${p.ecosystem}:${p.name}`, p);
  }

  /** Every package found. */
  all(): InstalledPackage[] {
    return [...this.byKey.values()];
  }

  /** The installed package a library is, by its `packages` (or its name in the registry of its language). */
  of(library: LibraryDescriptor): InstalledPackage | undefined {
    for (const [ecosystem, name] of Object.entries(library.packages ?? {})) {
      const found = this.get(ecosystem, name);
      if (found) return found;
    }
    if (library.packages && Object.keys(library.packages).length > 0) return undefined;
    const name = library.packageName ?? library.name;
    const language = library.language?.toLowerCase();
    if (language === 'javascript' || language === 'typescript') return this.get('npm', name);
    if (language === 'python') return this.get('pypi', name);
    return undefined;
  }

  /** The package of this ecosystem and name. */
  get(ecosystem: string, name: string): InstalledPackage | undefined {
    if (ecosystem === 'pypi') return this.byKey.get(`pypi:${normalizePypi(name)}`);
    if (ecosystem === 'npm') return this.byKey.get(`npm:${name}`);
    return undefined;
  }
}

const readJson = async (file: string): Promise<Record<string, unknown> | undefined> => {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

/** The `.d.ts` entry of a package.json: `types`/`typings`, else the `types` condition of `exports['.']`, else `index.d.ts`. */
async function typesEntry(dir: string, manifest: Record<string, unknown>): Promise<string | undefined> {
  const candidates: string[] = [];
  for (const key of ['types', 'typings'] as const) {
    if (typeof manifest[key] === 'string') candidates.push(manifest[key] as string);
  }
  const exports = manifest.exports as unknown;
  const dot =
    exports && typeof exports === 'object' && !Array.isArray(exports)
      ? ((exports as Record<string, unknown>)['.'] ?? exports)
      : undefined;
  const findTypes = (node: unknown, depth = 0): string | undefined => {
    if (!node || typeof node !== 'object' || depth > 4) return undefined;
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === 'types' && typeof value === 'string') return value;
      const inner = findTypes(value, depth + 1);
      if (inner) return inner;
    }
    return undefined;
  };
  const fromExports = findTypes(dot);
  if (fromExports) candidates.push(fromExports);
  candidates.push('index.d.ts');
  for (const candidate of candidates) {
    const rel = candidate.replace(/^\.\//, '');
    if (isAbsolute(rel) || rel.split('/').includes('..')) continue;
    try {
      if ((await stat(join(dir, rel))).isFile()) return rel;
    } catch {
      // try the next
    }
  }
  return undefined;
}

/**
 * An npm package installed for a project file: `node_modules/<name>` in the file's folder or a folder above it,
 * up to the project root (Node's resolution, bounded by the root). Its real path must stay inside the project
 * (pnpm's links into `node_modules/.pnpm` do); a link leading out of it is not followed.
 */
export async function findNpmPackage(
  projectRoot: string,
  fromDir: string,
  name: string,
): Promise<InstalledPackage | undefined> {
  const realRoot = await realpath(projectRoot).catch(() => undefined);
  if (!realRoot) return undefined;
  let dir = resolve(fromDir);
  for (;;) {
    const candidate = join(dir, 'node_modules', ...name.split('/'));
    const real = await realpath(candidate).catch(() => undefined);
    if (real && isInside(realRoot, real)) {
      const manifest = await readJson(join(real, 'package.json'));
      if (manifest && typeof manifest.version === 'string') {
        const types = await typesEntry(real, manifest);
        return { ecosystem: 'npm', name, version: manifest.version, root: real, ...(types ? { types } : {}) };
      }
    }
    if (!isInside(resolve(projectRoot), dir) || dir === resolve(projectRoot)) return undefined;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The `site-packages` folders of a virtual environment (POSIX `lib/python3.X/`, Windows `Lib/`). */
async function sitePackages(venv: string): Promise<string[]> {
  const found: string[] = [];
  for (const lib of ['lib', 'Lib', 'lib64']) {
    const entries = await readdir(join(venv, lib)).catch(() => [] as string[]);
    if (entries.includes('site-packages')) found.push(join(venv, lib, 'site-packages'));
    for (const e of entries) if (/^(python|pypy)\d/.test(e)) found.push(join(venv, lib, e, 'site-packages'));
  }
  return found;
}

/**
 * The distributions installed in a virtual environment (`*.dist-info` folders with a METADATA), by normalized
 * name. Only what is inside the environment's real path is listed.
 */
export async function scanVenv(venv: string): Promise<Map<string, InstalledPackage>> {
  const out = new Map<string, InstalledPackage>();
  const realVenv = await realpath(venv).catch(() => undefined);
  if (!realVenv) return out;
  for (const site of await sitePackages(realVenv)) {
    const entries = await readdir(site).catch(() => [] as string[]);
    for (const entry of entries) {
      const m = /^(.+?)-([^-]+)\.dist-info$/.exec(entry);
      if (!m) continue;
      const real = await realpath(join(site, entry)).catch(() => undefined);
      if (!real || !isInside(realVenv, real)) continue;
      const text = await readFile(join(real, 'METADATA'), 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      const metadata = parseMetadata(text);
      const name = normalizePypi(metadata.name ?? (m[1] as string));
      out.set(name, { ecosystem: 'pypi', name, version: metadata.version ?? (m[2] as string), root: real });
    }
  }
  return out;
}

/** The project's virtual environment: `pythonEnv` when configured, else `.venv` or `venv` in the project root. */
export async function findVenv(projectRoot: string, pythonEnv?: string): Promise<string | undefined> {
  const candidates = pythonEnv
    ? [resolve(projectRoot, pythonEnv)]
    : [join(projectRoot, '.venv'), join(projectRoot, 'venv')];
  for (const candidate of candidates) {
    if (
      await stat(join(candidate, 'pyvenv.cfg')).then(
        () => true,
        () => false,
      )
    )
      return candidate;
    if ((await sitePackages(candidate)).length > 0) return candidate;
  }
  return undefined;
}
