import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { LibraryDescriptor, LibraryProvider, Logger } from '@pro-context/kernel';
import { dependencyDescriptor, type ProjectDependencies } from '@pro-context/plugin-kit';
import {
  findNpmPackage,
  findVenv,
  type InstalledPackage,
  type InstalledPackages,
  normalizePypi,
  scanVenv,
} from './installed.js';
import type { CustomSource } from './options.js';

/** A library id made from a name ("Internal SDK" → `internal-sdk`). */
const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9._/-]+/g, '-')
    .replace(/^-+|-+$/g, '');

/**
 * A custom source (seed 001 §8.4) as a library: `url` → the llms-txt source's `sources.llmsTxt.llmsTxtUrl`;
 * `file` → `localPath` (this plugin's adapter reads it); `github` → `repository` (and `docsPath`), for a
 * source that reads repositories.
 */
export function customSourceLibrary(source: CustomSource, baseDir: string): LibraryDescriptor {
  const library: LibraryDescriptor = {
    id: source.libraryId ?? slug(source.name),
    name: source.libraryName ?? source.name,
    ...(source.description ? { description: source.description } : {}),
    ...(source.language ? { language: source.language } : {}),
    ...(source.aliases ? { aliases: source.aliases } : {}),
    ...(source.ttlHours ? { ttlHours: source.ttlHours } : {}),
  };
  if (source.type === 'url' && source.url) library.sources = { llmsTxt: { llmsTxtUrl: source.url } };
  if (source.type === 'file' && source.path) library.localPath = resolve(baseDir, source.path);
  if (source.type === 'github' && source.repo) {
    library.repository = source.repo;
    if (source.docsPath) library.docsPath = source.docsPath;
  }
  return library;
}

/** The `sources.custom` libraries as a {@link LibraryProvider} (priority 10: beneath the config file's `libraries`, above the curated registry). */
export class CustomSourcesProvider implements LibraryProvider {
  readonly id = 'local-docs';
  readonly priority = 10;
  private readonly listed: LibraryDescriptor[];

  constructor(sources: readonly CustomSource[], baseDir: string) {
    this.listed = sources.map((s) => customSourceLibrary(s, baseDir));
  }

  libraries(): readonly LibraryDescriptor[] {
    return this.listed;
  }
}

/**
 * The project's dependencies as installed (priority 250), found from project detection's libraries
 * (`@pro-context/plugin-project`, which reads the manifests and lockfiles and provides them as the
 * `projectDependenciesToken` service of `@pro-context/plugin-kit`): an npm dependency in
 * `node_modules/<pkg>` beside its manifest (or above, up to the project root), a Python one in the project's
 * virtual environment. Each comes with its installed version (`installedVersion`, and `versions: [installed]`
 * so that it is served offline, when no package registry can be asked); the engine places it beneath what it
 * knows. Nothing is scanned without a project provider to follow.
 */
export class InstalledPackagesProvider implements LibraryProvider {
  readonly id = 'local-docs-installed';
  readonly priority = 250;
  private found: LibraryDescriptor[] = [];
  private scanned = false;
  private readonly listeners = new Set<() => void>();
  private unwatch: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private following: Pick<LibraryProvider, 'settled'> | undefined;

  constructor(private readonly installed: InstalledPackages) {}

  libraries(): readonly LibraryDescriptor[] {
    return this.found;
  }

  watch(onChange: () => void): () => void {
    this.listeners.add(onChange);
    if (this.scanned) queueMicrotask(onChange);
    return () => this.listeners.delete(onChange);
  }

  /** Follows project detection: each time it announces the project's libraries, finds them installed. */
  follow(project: ProjectDependencies, root: string, options: { pythonEnv?: string; logger?: Logger } = {}): void {
    this.following = project;
    this.unwatch = project.watch(() => {
      if (this.running) {
        this.again = true;
        return;
      }
      const run = async (): Promise<void> => {
        do {
          this.again = false;
          // the folder project detection took as the project (walked up to, or the client's root)
          await this.scan(project.libraries(), project.root ?? root, options);
        } while (this.again && !this.stopped);
      };
      this.running = run()
        .catch((error: unknown) => options.logger?.warn('installed packages scan failed', { error }))
        .finally(() => {
          this.running = undefined;
        });
    });
  }

  /**
   * Resolves when the project detection this follows has settled and the packages it named were looked for
   * (a one-shot command waits for it before answering); never rejects.
   */
  async settled(): Promise<void> {
    await this.following?.settled?.();
    while (this.running) await this.running;
  }

  /** Stops following and waits for a scan in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    await this.running;
    this.listeners.clear();
  }

  /** Finds `libraries` (project detection's) installed under `root` and announces them. */
  async scan(
    libraries: readonly LibraryDescriptor[],
    root: string,
    options: { pythonEnv?: string; logger?: Logger } = {},
  ): Promise<void> {
    const started = Date.now();
    const packages: InstalledPackage[] = [];
    let venv: Map<string, InstalledPackage> | undefined;
    for (const library of libraries) {
      if (this.stopped) return;
      for (const [ecosystem, name] of Object.entries(library.packages ?? {})) {
        if (ecosystem === 'npm') {
          const from = library.detectedFrom ? dirname(join(root, library.detectedFrom)) : root;
          const found = await findNpmPackage(root, isAbsolute(from) ? from : resolve(root, from), name);
          if (found) packages.push(found);
        } else if (ecosystem === 'pypi') {
          if (!venv) {
            const dir = await findVenv(root, options.pythonEnv);
            venv = dir ? await scanVenv(dir) : new Map();
          }
          const found = venv.get(normalizePypi(name));
          if (found) packages.push(found);
        }
      }
    }
    if (this.stopped) return;
    this.installed.replace(packages);
    this.found = packages.map((p) => ({
      ...dependencyDescriptor({
        ecosystem: p.ecosystem,
        name: p.name,
        version: p.version,
        detectedFrom: detectedFromOf(libraries, p),
      }),
      versions: [p.version],
    }));
    this.scanned = true;
    options.logger?.info(
      `local-docs: ${packages.length} project dependencies installed in ${root} (${Date.now() - started} ms)`,
    );
    for (const listener of this.listeners) listener();
  }
}

/** The project file a package was detected in (kept as detection said). */
function detectedFromOf(libraries: readonly LibraryDescriptor[], p: InstalledPackage): string {
  const same = libraries.find((l) => {
    const name = l.packages?.[p.ecosystem];
    return name !== undefined && (p.ecosystem === 'pypi' ? normalizePypi(name) === p.name : name === p.name);
  });
  return same?.detectedFrom ?? (p.ecosystem === 'npm' ? 'package.json' : 'METADATA');
}
