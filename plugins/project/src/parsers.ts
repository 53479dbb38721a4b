import { dirname, join } from 'node:path';
import { parseSyml } from '@yarnpkg/parsers';
import JSON5 from 'json5';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';

/** The package registries detection knows. */
export type Ecosystem = 'pypi' | 'npm';

/** One dependency a project file names: a manifest names it (maybe with a pin), a lockfile installs a version. */
export interface FoundDependency {
  ecosystem: Ecosystem;
  /** PEP 503-normalized for PyPI; as written for npm. */
  name: string;
  /** The installed (locked or `==`-pinned) version, if the file says. */
  version?: string;
  /** Whether the file names it as a direct dependency of the project (a manifest, a lockfile's importers). */
  direct: boolean;
}

/** What one project file says. */
export interface ParsedFile {
  dependencies: FoundDependency[];
  /** Names of the project's own packages (never a dependency to document). */
  own?: string[];
  /** Other files this one includes (`-r other.txt`), as absolute paths. */
  includes?: string[];
}

/** PEP 503 normalization: lower case, runs of `-`, `_`, `.` as one `-`. */
export function normalizePypiName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The distribution name at the start of a PEP 508 requirement (extras, versions and markers dropped). */
const PEP508_NAME = /^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)/;
/** An exact pin in a requirement (`==2.10.6`, `===2.10.6`; not a wildcard). */
const PEP508_PIN = /^[^;]*?===?\s*([0-9][A-Za-z0-9.+!-]*)\s*(?:[,;]|$)/;

/** A PEP 508 requirement string as a dependency; `undefined` for URLs and paths. */
export function pep508(requirement: string, direct = true): FoundDependency | undefined {
  const text = requirement.trim();
  if (!text || /^(?:[a-z+]+:\/\/|\.{0,2}\/|git\+)/i.test(text)) return undefined;
  const name = PEP508_NAME.exec(text)?.[1];
  if (!name) return undefined;
  const version = PEP508_PIN.exec(text.slice(name.length))?.[1];
  return { ecosystem: 'pypi', name: normalizePypiName(name), ...(version ? { version } : {}), direct };
}

const pypiDeps = (requirements: readonly string[]) =>
  requirements.flatMap((r) => {
    const found = pep508(r);
    return found ? [found] : [];
  });

/** `pyproject.toml`: PEP 621 dependencies and extras, PEP 735 dependency groups, Poetry's tables. */
export function parsePyproject(text: string): ParsedFile {
  const doc = parseToml(text) as Obj;
  const project = isObj(doc.project) ? doc.project : {};
  const requirements = [...strings(project.dependencies)];
  if (isObj(project['optional-dependencies']))
    for (const group of Object.values(project['optional-dependencies'])) requirements.push(...strings(group));
  if (isObj(doc['dependency-groups']))
    // `{ include-group = "…" }` entries name a group listed here anyway
    for (const group of Object.values(doc['dependency-groups'])) requirements.push(...strings(group));
  const dependencies = pypiDeps(requirements);
  const tool = isObj(doc.tool) ? doc.tool : {};
  const poetry = isObj(tool.poetry) ? tool.poetry : {};
  const tables = [poetry.dependencies, poetry['dev-dependencies']];
  if (isObj(poetry.group))
    for (const group of Object.values(poetry.group)) if (isObj(group)) tables.push(group.dependencies);
  for (const table of tables) {
    if (!isObj(table)) continue;
    for (const [name, spec] of Object.entries(table)) {
      if (name.toLowerCase() === 'python') continue;
      // `{ path = "…" }` and `{ git = "…" }` are not registry packages
      if (isObj(spec) && (spec.path !== undefined || spec.git !== undefined || spec.url !== undefined)) continue;
      const pin = typeof spec === 'string' ? /^={0,2}\s*(\d[\w.+!-]*)$/.exec(spec.trim())?.[1] : undefined;
      dependencies.push({
        ecosystem: 'pypi',
        name: normalizePypiName(name),
        ...(pin ? { version: pin } : {}),
        direct: true,
      });
    }
  }
  const own = [project.name, poetry.name].filter((n): n is string => typeof n === 'string').map(normalizePypiName);
  return { dependencies, own };
}

/** `requirements*.txt`: one requirement a line; `-r`/`--requirement` includes; other options, URLs and paths skipped. */
export function parseRequirements(text: string, file: string): ParsedFile {
  const dependencies: FoundDependency[] = [];
  const includes: string[] = [];
  // a trailing backslash continues the line
  for (const raw of text.replace(/\\\r?\n/g, ' ').split(/\r?\n/)) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) continue;
    const include = /^(?:-r|--requirement)(?:\s+|=)(\S+)/.exec(line)?.[1];
    if (include) {
      includes.push(join(dirname(file), include));
      continue;
    }
    if (line.startsWith('-')) continue;
    // per-requirement options (`--hash=…`, `--config-settings …`) follow the requirement
    const found = pep508(line.replace(/\s+--[a-z].*$/i, ''));
    if (found) dependencies.push(found);
  }
  return { dependencies, includes };
}

/** `Pipfile`: `[packages]` and `[dev-packages]`. */
export function parsePipfile(text: string): ParsedFile {
  const doc = parseToml(text) as Obj;
  const dependencies: FoundDependency[] = [];
  for (const table of [doc.packages, doc['dev-packages']]) {
    if (!isObj(table)) continue;
    for (const [name, spec] of Object.entries(table)) {
      if (isObj(spec) && (spec.path !== undefined || spec.git !== undefined || spec.file !== undefined)) continue;
      const pin = typeof spec === 'string' ? /^==\s*(\d[\w.+!-]*)$/.exec(spec.trim())?.[1] : undefined;
      dependencies.push({
        ecosystem: 'pypi',
        name: normalizePypiName(name),
        ...(pin ? { version: pin } : {}),
        direct: true,
      });
    }
  }
  return { dependencies };
}

/** A package.json range that is not a registry package (`workspace:*`, `file:…`, a git URL). */
const LOCAL_SPEC = /^(?:workspace:|file:|link:|portal:|patch:|git\+|git:|github:|https?:|\.{0,2}\/)/;

/** `package.json`: dependencies, devDependencies, optionalDependencies (the workspace's own packages are not). */
export function parsePackageJson(text: string): ParsedFile {
  const doc = JSON.parse(text) as Obj;
  const dependencies: FoundDependency[] = [];
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    const table = doc[field];
    if (!isObj(table)) continue;
    for (const [name, spec] of Object.entries(table)) {
      if (typeof spec === 'string' && LOCAL_SPEC.test(spec)) continue;
      dependencies.push({ ecosystem: 'npm', name, direct: true });
    }
  }
  return { dependencies, own: typeof doc.name === 'string' ? [doc.name] : [] };
}

/** `uv.lock`: every locked package; the project's own (editable, virtual, path) sources are not dependencies. */
export function parseUvLock(text: string): ParsedFile {
  const doc = parseToml(text) as Obj;
  const dependencies: FoundDependency[] = [];
  const own: string[] = [];
  for (const pkg of Array.isArray(doc.package) ? doc.package : []) {
    if (!isObj(pkg) || typeof pkg.name !== 'string') continue;
    const source = isObj(pkg.source) ? pkg.source : {};
    if (source.editable !== undefined || source.virtual !== undefined || source.directory !== undefined) {
      own.push(normalizePypiName(pkg.name));
      continue;
    }
    if (typeof pkg.version !== 'string') continue;
    dependencies.push({ ecosystem: 'pypi', name: normalizePypiName(pkg.name), version: pkg.version, direct: false });
  }
  return { dependencies, own };
}

/** `poetry.lock`: every locked package. */
export function parsePoetryLock(text: string): ParsedFile {
  const doc = parseToml(text) as Obj;
  const dependencies: FoundDependency[] = [];
  for (const pkg of Array.isArray(doc.package) ? doc.package : []) {
    if (!isObj(pkg) || typeof pkg.name !== 'string' || typeof pkg.version !== 'string') continue;
    const source = isObj(pkg.source) ? pkg.source : {};
    if (source.type === 'directory' || source.type === 'file' || source.type === 'git') continue;
    dependencies.push({ ecosystem: 'pypi', name: normalizePypiName(pkg.name), version: pkg.version, direct: false });
  }
  return { dependencies };
}

/** `Pipfile.lock` (JSON): `default` and `develop`, versions as `==x`. */
export function parsePipfileLock(text: string): ParsedFile {
  const doc = JSON.parse(text) as Obj;
  const dependencies: FoundDependency[] = [];
  for (const section of [doc.default, doc.develop]) {
    if (!isObj(section)) continue;
    for (const [name, entry] of Object.entries(section)) {
      const version =
        isObj(entry) && typeof entry.version === 'string' ? entry.version.replace(/^===?/, '') : undefined;
      if (!version) continue;
      dependencies.push({ ecosystem: 'pypi', name: normalizePypiName(name), version, direct: false });
    }
  }
  return { dependencies };
}

/** `package-lock.json` (v1, v2, v3): the hoisted packages (`node_modules/<name>`), or v1's `dependencies`. */
export function parsePackageLock(text: string): ParsedFile {
  const doc = JSON.parse(text) as Obj;
  const dependencies: FoundDependency[] = [];
  if (isObj(doc.packages)) {
    const root = isObj(doc.packages['']) ? doc.packages[''] : {};
    const direct = new Set(
      ['dependencies', 'devDependencies', 'optionalDependencies'].flatMap((f) =>
        isObj(root[f]) ? Object.keys(root[f] as Obj) : [],
      ),
    );
    for (const [path, entry] of Object.entries(doc.packages)) {
      const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path)?.[1];
      if (!name || !isObj(entry) || typeof entry.version !== 'string' || entry.link) continue;
      dependencies.push({ ecosystem: 'npm', name, version: entry.version, direct: direct.has(name) });
    }
  } else if (isObj(doc.dependencies)) {
    for (const [name, entry] of Object.entries(doc.dependencies)) {
      if (!isObj(entry) || typeof entry.version !== 'string' || LOCAL_SPEC.test(entry.version)) continue;
      dependencies.push({ ecosystem: 'npm', name, version: entry.version, direct: false });
    }
  }
  return { dependencies, own: typeof doc.name === 'string' ? [doc.name] : [] };
}

/** A pnpm version as the lockfile writes it, without its peer suffix (`3.22.4(typescript@5.4.0)` → `3.22.4`). */
const pnpmVersion = (v: unknown): string | undefined => {
  const version = isObj(v) ? v.version : v;
  if (typeof version !== 'string' || /^(?:link:|file:|workspace:)/.test(version)) return undefined;
  return version.replace(/\(.*$/, '').replace(/_.*$/, '');
};

/** `pnpm-lock.yaml` (v5 to v9): each importer's (workspace package's) direct dependencies and their versions. */
export function parsePnpmLock(text: string): ParsedFile {
  const doc = (parseYaml(text) ?? {}) as Obj;
  const dependencies: FoundDependency[] = [];
  // v5.3+ workspaces list importers; a single-package lockfile has the fields at the top level
  const importers = isObj(doc.importers) ? Object.values(doc.importers) : [doc];
  for (const importer of importers) {
    if (!isObj(importer)) continue;
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
      const table = importer[field];
      if (!isObj(table)) continue;
      for (const [name, entry] of Object.entries(table)) {
        const version = pnpmVersion(entry);
        if (version) dependencies.push({ ecosystem: 'npm', name, version, direct: true });
      }
    }
  }
  return { dependencies };
}

/** The package name of a yarn descriptor (`zod@^3.22.0`, `@scope/pkg@npm:^1.0.0`). */
const descriptorName = (descriptor: string) => {
  const at = descriptor.indexOf('@', 1);
  return at < 0 ? descriptor : descriptor.slice(0, at);
};

/** `yarn.lock`, classic (v1) and berry, with yarn's own parser: each locked package's version. */
export function parseYarnLock(text: string): ParsedFile {
  const doc = parseSyml(text) as Obj;
  const dependencies: FoundDependency[] = [];
  const seen = new Set<string>();
  for (const [key, entry] of Object.entries(doc)) {
    if (key === '__metadata' || !isObj(entry) || typeof entry.version !== 'string') continue;
    const descriptors = key.split(/\s*,\s*/).map((d) => d.replace(/^"|"$/g, ''));
    // berry's workspace and link entries are the project's own packages
    if (descriptors.some((d) => /@(?:workspace|link|portal|file|patch):/.test(d))) continue;
    const name = descriptorName(descriptors[0] ?? '');
    if (!name || seen.has(name)) continue;
    seen.add(name);
    dependencies.push({ ecosystem: 'npm', name, version: entry.version, direct: false });
  }
  return { dependencies };
}

/** `bun.lock` (JSON with trailing commas, read with JSON5): `packages` entries `name: ["name@version", …]`, the hoisted ones. */
export function parseBunLock(text: string): ParsedFile {
  const doc = (JSON5.parse(text) ?? {}) as Obj;
  const dependencies: FoundDependency[] = [];
  const direct = new Set<string>();
  if (isObj(doc.workspaces))
    for (const workspace of Object.values(doc.workspaces)) {
      if (!isObj(workspace)) continue;
      for (const field of ['dependencies', 'devDependencies', 'optionalDependencies'])
        if (isObj(workspace[field])) for (const name of Object.keys(workspace[field] as Obj)) direct.add(name);
    }
  if (isObj(doc.packages)) {
    for (const [key, entry] of Object.entries(doc.packages)) {
      const ident = Array.isArray(entry) && typeof entry[0] === 'string' ? entry[0] : undefined;
      if (!ident) continue;
      const at = ident.lastIndexOf('@');
      if (at <= 0) continue;
      const name = ident.slice(0, at);
      const version = ident.slice(at + 1);
      // nested copies are keyed `parent/name`; workspace and link entries carry no registry version
      if (key !== name || !/^\d/.test(version)) continue;
      dependencies.push({ ecosystem: 'npm', name, version, direct: direct.has(name) });
    }
  }
  return { dependencies };
}

/** The project files detection reads, by file name; `requirements*.txt` is matched by {@link parserFor}. */
export const PARSERS: Record<string, (text: string, file: string) => ParsedFile> = {
  'pyproject.toml': parsePyproject,
  Pipfile: parsePipfile,
  'package.json': parsePackageJson,
  'uv.lock': parseUvLock,
  'poetry.lock': parsePoetryLock,
  'Pipfile.lock': parsePipfileLock,
  'package-lock.json': parsePackageLock,
  'pnpm-lock.yaml': parsePnpmLock,
  'yarn.lock': parseYarnLock,
  'bun.lock': parseBunLock,
};

/** The parser of a project file name, if detection reads it. */
export function parserFor(fileName: string): ((text: string, file: string) => ParsedFile) | undefined {
  if (/^requirements[\w.-]*\.txt$/i.test(fileName)) return parseRequirements;
  return PARSERS[fileName];
}

/** Whether a file is a lockfile (its versions are installed ones) rather than a manifest. */
export const LOCKFILES = new Set([
  'uv.lock',
  'poetry.lock',
  'Pipfile.lock',
  'package-lock.json',
  'pnpm-lock.yaml',
  'yarn.lock',
  'bun.lock',
]);
