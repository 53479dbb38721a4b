import { readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, parse, relative, resolve, sep } from 'node:path';
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
  /** Project files (manifests, lockfiles) read at most (default 400). */
  maxFiles?: number;
  /** Time the walk and the reading may take, in milliseconds (default 3000); what was read by then is kept. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called once when a bound cut the scan short, with a sentence saying which (what was found is kept). */
  onLimit?: (note: string) => void;
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

/** The files and folders that make a folder a project's root (see {@link findProjectRoot}). */
export const PROJECT_MARKERS: readonly string[] = [
  'package.json',
  'pyproject.toml',
  'package-lock.json',
  'pnpm-lock.yaml',
  'yarn.lock',
  'bun.lock',
  'uv.lock',
  'poetry.lock',
  'Pipfile',
  'Pipfile.lock',
  'requirements.txt',
  '.git',
];

/** Where {@link findProjectRoot} looked, and what it found. */
export interface ProjectRoot {
  /** The project's root: the nearest folder from the start up with a {@link PROJECT_MARKERS} entry. */
  root?: string;
  /** Why there is no root (the walk reached the file system's root or the home folder without a marker). */
  reason?: string;
}

/**
 * The project a folder belongs to: `start`, or the nearest folder above it, holding a project marker (a lockfile,
 * `package.json`, `pyproject.toml`, `requirements.txt`, `Pipfile`, `.git`). The file system's root and the home
 * folder are never a project (a desktop client starting the server in `/` or `~` must not scan everything under
 * it): the walk stops there.
 */
export async function findProjectRoot(start: string, options: { home?: string } = {}): Promise<ProjectRoot> {
  const home = resolve(options.home ?? homedir());
  let dir = resolve(start);
  for (;;) {
    if (dir === parse(dir).root || dir === home)
      return {
        reason: `no project file (a lockfile, package.json, pyproject.toml, .git) in ${resolve(start)} or a folder above it (${dir === home ? 'the home folder' : 'the file system root'} itself is never scanned; --project <dir> or PRO_CONTEXT_PROJECT names the project)`,
      };
    let entries: string[] = [];
    try {
      entries = await readdir(dir);
    } catch {
      // an unreadable folder is no project; keep walking up
    }
    if (entries.some((e) => PROJECT_MARKERS.includes(e))) return { root: dir };
    const up = dirname(dir);
    if (up === dir) return { reason: `no project file in ${resolve(start)} or above it` };
    dir = up;
  }
}

/** The project files under `root`, breadth first (shallow files first), within the bounds. */
async function projectFiles(
  root: string,
  options: DetectOptions,
  { parserFor }: Parsers,
  limit: (note: string) => void,
  expired: () => boolean,
): Promise<string[]> {
  const maxDepth = options.maxDepth ?? 4;
  const maxDirectories = options.maxDirectories ?? 2000;
  const maxFiles = options.maxFiles ?? 400;
  const files: string[] = [];
  let queue: string[] = [root];
  let read = 0;
  for (let depth = 0; depth <= maxDepth && queue.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of queue) {
      options.signal?.throwIfAborted();
      if (read++ >= maxDirectories) {
        limit(`stopped after ${maxDirectories} folders`);
        return files;
      }
      if (expired()) {
        limit(`stopped after ${options.timeoutMs ?? 3000} ms`);
        return files;
      }
      if (files.length >= maxFiles) {
        limit(`stopped after ${maxFiles} project files`);
        return files;
      }
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
export async function detectProject(
  root: string,
  options: DetectOptions & { relativeTo?: string } = {},
): Promise<DetectedLibrary[]> {
  const deadline = Date.now() + (options.timeoutMs ?? 3000);
  const expired = () => Date.now() > deadline;
  let limited = false;
  const limit = (note: string) => {
    if (limited) return;
    limited = true;
    options.onLimit?.(`project detection in ${root} ${note}: the libraries found until then are kept`);
  };
  const parsers = await import('./parsers.js');
  const { LOCKFILES, parseRequirements, parserFor } = parsers;
  const files = await projectFiles(root, options, parsers, limit, expired);
  const rel = (file: string) =>
    relative(options.relativeTo ?? root, file)
      .split(sep)
      .join('/');
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
  for (const file of files) {
    if (expired()) {
      limit(`stopped after ${options.timeoutMs ?? 3000} ms`);
      break;
    }
    await parse(file);
  }

  const ecosystemsWithManifests = new Set([...direct.values()].map((d) => d.dep.ecosystem));
  const names = new Map(direct);
  for (const [k, entry] of locked)
    if (!ecosystemsWithManifests.has(entry.dep.ecosystem) && !names.has(k)) names.set(k, entry);
  const out: DetectedLibrary[] = [];
  for (const [k, { dep, file }] of names) {
    if (own.has(dep.name)) continue;
    if (out.length >= (options.maxLibraries ?? 500)) {
      limit(`stopped at ${options.maxLibraries ?? 500} libraries`);
      break;
    }
    const installed = locked.get(k);
    out.push({
      ecosystem: dep.ecosystem,
      name: dep.name,
      ...(installed?.dep.version ? { version: installed.dep.version } : {}),
      detectedFrom: rel(installed?.file ?? file),
    });
  }
  return out;
}
