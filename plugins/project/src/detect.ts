import { readdir, readFile } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import type { Ecosystem, FoundDependency, ParsedFile } from './parsers.js';

/** A library detected in the project: its package, the installed version and where that was read. */
export interface DetectedLibrary {
  ecosystem: Ecosystem;
  /** PEP 503-normalized for PyPI; as written for npm. */
  name: string;
  /** The installed version (a lockfile's, or a manifest's exact pin), if any file says. */
  version?: string;
  /** The file that says so, relative to the scanned directory with `/` separators (`uv.lock`, `apps/web/package.json`). */
  detectedFrom: string;
}

/** Bounds of the walk (large monorepos). */
export interface DetectOptions {
  /** Folder levels below the root that are read (default 4). */
  maxDepth?: number;
  /** Folders read at most (default 2000). */
  maxDirectories?: number;
  /** Libraries reported at most (default 500). */
  maxLibraries?: number;
  signal?: AbortSignal;
  /** Called with a file that could not be read or parsed (it is skipped). */
  onError?: (file: string, error: unknown) => void;
}

/** Folders never walked: installed packages, virtual environments, VCS data, build output. */
const SKIPPED = new Set([
  'node_modules',
  'bower_components',
  'venv',
  'env',
  '__pycache__',
  'site-packages',
  'dist',
  'build',
  'target',
]);

/** The parsers, loaded on first scan (TOML, YAML and yarn's parser stay out of start-up). */
type Parsers = typeof import('./parsers.js');

/** The project files under `root`, breadth first (shallow files first), within the bounds. */
async function projectFiles(root: string, options: DetectOptions, { parserFor }: Parsers): Promise<string[]> {
  const maxDepth = options.maxDepth ?? 4;
  const maxDirectories = options.maxDirectories ?? 2000;
  const files: string[] = [];
  let queue: string[] = [root];
  let read = 0;
  for (let depth = 0; depth <= maxDepth && queue.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of queue) {
      options.signal?.throwIfAborted();
      if (read++ >= maxDirectories) return files;
      let entries: import('node:fs').Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        if (entry.isFile() && parserFor(entry.name)) files.push(join(dir, entry.name));
        // hidden folders (.git, .venv, .tox, .next) and installed packages are never walked
        else if (entry.isDirectory() && !entry.name.startsWith('.') && !SKIPPED.has(entry.name))
          next.push(join(dir, entry.name));
      }
    }
    queue = next;
  }
  return files;
}

const key = (ecosystem: string, name: string) => `${ecosystem}:${name}`;

/**
 * Scans `root` for project files (manifests and lockfiles of Python and JavaScript projects) and returns the
 * project's dependencies with their installed versions. Direct dependencies are the ones the manifests
 * (pyproject.toml, requirements*.txt, Pipfile, package.json) and the lockfiles' importers name; a lockfile
 * with no manifest beside it in its ecosystem contributes every package it locks. The version is the
 * shallowest lockfile's, else a manifest's exact pin. Local files only: no network.
 */
export async function detectProject(root: string, options: DetectOptions = {}): Promise<DetectedLibrary[]> {
  const parsers = await import('./parsers.js');
  const { LOCKFILES, parseRequirements, parserFor } = parsers;
  const files = await projectFiles(root, options, parsers);
  const rel = (file: string) => relative(root, file).split(sep).join('/');
  const direct = new Map<string, { dep: FoundDependency; file: string }>();
  const locked = new Map<string, { dep: FoundDependency; file: string }>();
  const own = new Set<string>();
  const read = new Set<string>();
  const parse = async (file: string, parser = parserFor(basename(file))): Promise<void> => {
    if (!parser || read.has(file)) return;
    read.add(file);
    options.signal?.throwIfAborted();
    let parsed: ParsedFile;
    try {
      parsed = parser(await readFile(file, 'utf8'), file);
    } catch (error) {
      options.onError?.(file, error);
      return;
    }
    for (const name of parsed.own ?? []) own.add(name);
    const lockfile = LOCKFILES.has(basename(file));
    for (const dep of parsed.dependencies) {
      const k = key(dep.ecosystem, dep.name);
      if (dep.direct && !direct.has(k)) direct.set(k, { dep, file });
      // the first lockfile's version wins; a manifest's pin only until a lockfile says
      const previous = locked.get(k);
      const previousLocked = previous !== undefined && LOCKFILES.has(basename(previous.file));
      if (dep.version && (!previous || (lockfile && !previousLocked))) locked.set(k, { dep, file });
    }
    // `-r other.txt`: read wherever it is, once
    for (const include of parsed.includes ?? []) await parse(include, parseRequirements);
  };
  for (const file of files) await parse(file);

  const ecosystemsWithManifests = new Set([...direct.values()].map((d) => d.dep.ecosystem));
  const names = new Map(direct);
  for (const [k, entry] of locked)
    if (!ecosystemsWithManifests.has(entry.dep.ecosystem) && !names.has(k)) names.set(k, entry);
  const out: DetectedLibrary[] = [];
  for (const [k, { dep, file }] of names) {
    if (own.has(dep.name)) continue;
    const installed = locked.get(k);
    out.push({
      ecosystem: dep.ecosystem,
      name: dep.name,
      ...(installed?.dep.version ? { version: installed.dep.version } : {}),
      detectedFrom: rel(installed?.file ?? file),
    });
    if (out.length >= (options.maxLibraries ?? 500)) break;
  }
  return out;
}
