import { isAbsolute, resolve } from 'node:path';
import type { LibraryDescriptor, LibraryProvider, Logger } from '@pro-context/kernel';
import { type DetectedLibrary, type DetectOptions, detectProject } from './detect.js';

/** The languages detected packages are written in, by ecosystem. */
const LANGUAGES = { pypi: 'python', npm: 'javascript' } as const;

/**
 * A detected dependency as a library: id and name the package name (an npm scope's `@` dropped from the id,
 * which allows no `@`), `packages` naming its registry, the installed version and the file it came from.
 * The engine merges it beneath a library another provider already describes (the same package).
 */
export function toDescriptor(detected: DetectedLibrary): LibraryDescriptor {
  return {
    id: detected.name.replace(/^@/, ''),
    name: detected.name,
    language: LANGUAGES[detected.ecosystem],
    packages: { [detected.ecosystem]: detected.name },
    ...(detected.name.startsWith('@') ? { aliases: [detected.name] } : {}),
    ...(detected.version ? { installedVersion: detected.version } : {}),
    detectedFrom: detected.detectedFrom,
  };
}

/**
 * The project's libraries as a {@link LibraryProvider} (priority 300, beneath config, the curated registry and
 * discovery): empty at start, filled by {@link scan} in the background, announced through `watch`.
 */
export class ProjectLibraryProvider implements LibraryProvider {
  readonly id = 'project';
  readonly priority = 300;
  private detected: LibraryDescriptor[] = [];
  private scanned = false;
  private readonly listeners = new Set<() => void>();
  private running: { controller: AbortController; scan: Promise<void> } | undefined;

  libraries(): readonly LibraryDescriptor[] {
    return this.detected;
  }

  watch(onChange: () => void): () => void {
    this.listeners.add(onChange);
    // a scan that finished before the engine watched is announced at once
    if (this.scanned) queueMicrotask(onChange);
    return () => this.listeners.delete(onChange);
  }

  /**
   * Starts a background scan on the next turn of the event loop (a failure is logged); {@link stop} cancels it.
   */
  start(directory: string, options: DetectOptions & { cwd?: string; logger?: Logger } = {}): void {
    const controller = new AbortController();
    const scan = new Promise<void>((done) => setImmediate(done))
      .then(() => this.scan(directory, { ...options, signal: controller.signal }))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) options.logger?.warn('project detection failed', { error });
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

  /** Scans `directory` (relative to `cwd`) and announces what it found. */
  async scan(directory: string, options: DetectOptions & { cwd?: string; logger?: Logger } = {}): Promise<void> {
    const root = isAbsolute(directory) ? directory : resolve(options.cwd ?? process.cwd(), directory);
    const started = Date.now();
    options.signal?.throwIfAborted();
    const found = await detectProject(root, {
      ...options,
      onError: (file, error) => options.logger?.warn(`project detection could not read ${file}`, { error }),
    });
    options.signal?.throwIfAborted();
    this.detected = found.map(toDescriptor);
    this.scanned = true;
    options.logger?.info(`project detection: ${found.length} libraries in ${root} (${Date.now() - started} ms)`);
    for (const listener of this.listeners) listener();
  }
}
