import { homedir } from 'node:os';
import { isAbsolute, parse, resolve } from 'node:path';
import type { LibraryDescriptor, LibraryProvider, Logger } from '@pro-context/kernel';
import { dependencyDescriptor, type ProjectDependencies } from '@pro-context/plugin-kit';
import { type DetectedLibrary, type DetectOptions, detectProject, findProjectRoot } from './detect.js';

/**
 * A detected dependency as a library (the rule of the `ProjectDependencies` contract, in
 * `@pro-context/plugin-kit`): id and name the package name, `packages` naming its registry, the installed version
 * and the file it came from.
 */
export const toDescriptor: (detected: DetectedLibrary) => LibraryDescriptor = dependencyDescriptor;

/** Where a scan looks: a folder named as the project (scanned as is), or a folder to walk up from. */
export type ProjectLocation =
  | { root: string }
  | { workingDirectory: string }
  /** The client's roots (MCP `roots/list`): each scanned as a project (the file system root and home skipped). */
  | { roots: readonly string[] };

type ScanOptions = DetectOptions & { cwd?: string; home?: string; logger?: Logger };

/**
 * The project's libraries as a {@link LibraryProvider} (priority 300, beneath config, the curated registry and
 * discovery): empty at start, filled by {@link scan} in the background, announced through `watch`.
 */
export class ProjectLibraryProvider implements LibraryProvider, ProjectDependencies {
  readonly id = 'project';
  readonly priority = 300;
  private detected: LibraryDescriptor[] = [];
  private scanned = false;
  private readonly listeners = new Set<() => void>();
  private running: { controller: AbortController; scan: Promise<void> } | undefined;
  private projectRoot: string | undefined;
  private lastNotes: string[] = [];

  libraries(): readonly LibraryDescriptor[] {
    return this.detected;
  }

  /** The folder the last scan took as the project's root (`detectedFrom` is relative to it), if any. */
  get root(): string | undefined {
    return this.projectRoot;
  }

  /** What the last scan could not do (no project found, a bound reached), one sentence each. */
  get notes(): readonly string[] {
    return this.lastNotes;
  }

  watch(onChange: () => void): () => void {
    this.listeners.add(onChange);
    // a scan that finished before the engine watched is announced at once
    if (this.scanned) queueMicrotask(onChange);
    return () => this.listeners.delete(onChange);
  }

  /** Resolves when the scan under way (if any) has ended and its libraries were announced; never rejects. */
  async settled(): Promise<void> {
    // a scan started while waiting (the client's roots) is waited for too
    while (this.running) await this.running.scan;
  }

  /**
   * Starts a background scan on the next turn of the event loop (a failure is logged), cancelling one under
   * way; {@link stop} cancels it.
   */
  start(location: string | ProjectLocation, options: ScanOptions = {}): void {
    this.running?.controller.abort();
    const controller = new AbortController();
    const scan = new Promise<void>((done) => setImmediate(done))
      .then(() => this.scan(location, { ...options, signal: controller.signal }))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) options.logger?.warn('project detection failed', { error });
      })
      .finally(() => {
        if (this.running?.scan === scan) this.running = undefined;
      });
    this.running = { controller, scan };
  }

  /** Cancels a scan in progress and waits for it to end. */
  async stop(): Promise<void> {
    const run = this.running;
    this.running = undefined;
    run?.controller.abort();
    await run?.scan;
    this.listeners.clear();
  }

  /**
   * Scans the project and announces what it found. A string is a folder to walk up from (see
   * {@link findProjectRoot}), relative to `cwd`; `{ root }` is scanned as is; `{ roots }` (the client's) are
   * each scanned, `detectedFrom` relative to the first.
   */
  async scan(location: string | ProjectLocation, options: ScanOptions = {}): Promise<void> {
    const where: ProjectLocation = typeof location === 'string' ? { workingDirectory: location } : location;
    const abs = (dir: string) => (isAbsolute(dir) ? dir : resolve(options.cwd ?? process.cwd(), dir));
    const home = resolve(options.home ?? homedir());
    const notes: string[] = [];
    let roots: string[];
    if ('root' in where) roots = [abs(where.root)];
    else if ('roots' in where) {
      roots = where.roots.map(abs).filter((dir) => dir !== parse(dir).root && dir !== home);
      if (roots.length === 0)
        notes.push(
          "the client's roots hold no project folder (the file system root and the home folder are not scanned)",
        );
    } else {
      const found = await findProjectRoot(abs(where.workingDirectory), { home });
      roots = found.root ? [found.root] : [];
      if (found.reason) notes.push(`no project detected: ${found.reason}`);
    }
    const started = Date.now();
    options.signal?.throwIfAborted();
    const seen = new Set<string>();
    const found: DetectedLibrary[] = [];
    for (const root of roots) {
      const libraries = await detectProject(root, {
        ...options,
        ...(roots[0] ? { relativeTo: roots[0] } : {}),
        onError: (file, error) => options.logger?.warn(`project detection could not read ${file}`, { error }),
        onLimit: (note) => notes.push(note),
      });
      for (const library of libraries) {
        const key = `${library.ecosystem}:${library.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        found.push(library);
      }
    }
    options.signal?.throwIfAborted();
    this.detected = found.map(toDescriptor);
    this.projectRoot = roots[0];
    this.lastNotes = notes;
    this.scanned = true;
    // a bound reached is worth a warning; no project at all (a client starting the server in `/`) is not
    for (const note of notes) {
      if (roots.length > 0) options.logger?.warn(note);
      else options.logger?.info(note);
    }
    if (roots.length > 0)
      options.logger?.info(
        `project detection: ${found.length} libraries in ${roots.join(', ')} (${Date.now() - started} ms)`,
      );
    for (const listener of this.listeners) listener();
  }
}
