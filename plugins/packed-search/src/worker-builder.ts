import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '@pro-context/kernel';
import type { PackedChunk, PackedIndexData } from './packed-index.js';
import type { BuildRequest, BuildResponse } from './protocol.js';

/** Chunks per message to the worker: each batch is a few ms to copy, and the main thread yields between them. */
const BATCH = 1024;
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Where the worker script is: beside this module (dist/packed-search-worker.js, or the CLI bundle's
 * dist/bin/packed-search-worker.js). Run from the TypeScript sources (tests), the package's built one.
 */
export function workerScript(): URL {
  const here = new URL('./packed-search-worker.js', import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return here;
  const built = new URL('../dist/packed-search-worker.js', import.meta.url);
  if (!existsSync(fileURLToPath(built))) {
    throw new Error(`${fileURLToPath(built)} is missing: build @pro-context/plugin-packed-search first (pnpm build).`);
  }
  return built;
}

/** Why a build did not finish: the worker died or refused the job. */
export class WorkerBuildError extends Error {}

interface Pending {
  resolve(data: PackedIndexData): void;
  reject(error: Error): void;
}

/** Settings of {@link WorkerIndexBuilder}. */
export interface WorkerBuilderOptions {
  /** Heap limit of the worker (its `resourceLimits.maxOldGenerationSizeMb`); Node's default when absent. */
  maxHeapMB?: number;
  /** The worker script (tests); {@link workerScript} by default. */
  script?: URL;
}

/**
 * Builds packed indexes in one worker thread, started on the first build and kept (unreferenced: it never
 * keeps the process alive). If it dies, every build it had fails with {@link WorkerBuildError} and the
 * next build starts a new one.
 */
export class WorkerIndexBuilder {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextJob = 1;

  constructor(
    private readonly options: WorkerBuilderOptions = {},
    private readonly logger?: Logger,
  ) {}

  /**
   * Builds the index of `chunks`. `superseded()` is asked between batches: once it says yes the build is
   * cancelled and the promise resolves with `undefined`.
   */
  async build(
    chunks: readonly PackedChunk[],
    language: 'english',
    superseded: () => boolean,
  ): Promise<PackedIndexData | undefined> {
    const worker = this.start();
    const job = this.nextJob++;
    const done = new Promise<PackedIndexData>((resolve, reject) => this.pending.set(job, { resolve, reject }));
    // A failure before the result is awaited must not count as unhandled.
    done.catch(() => {});
    this.post(worker, { type: 'start', job, language });
    for (let i = 0; i < chunks.length; i += BATCH) {
      if (i > 0) await yieldToEventLoop();
      if (superseded()) {
        if (this.pending.delete(job) && this.worker === worker) this.post(worker, { type: 'cancel', job });
        return undefined;
      }
      // the worker died under this build: `done` has failed already
      if (!this.pending.has(job)) return done;
      this.post(worker, { type: 'add', job, chunks: chunks.slice(i, i + BATCH) as PackedChunk[] });
    }
    this.post(worker, { type: 'finish', job });
    return done;
  }

  /** Stops the worker (builds under way fail). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }

  private post(worker: Worker, request: BuildRequest): void {
    worker.postMessage(request);
  }

  private start(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(this.options.script ?? workerScript(), {
      resourceLimits:
        this.options.maxHeapMB === undefined ? undefined : { maxOldGenerationSizeMb: this.options.maxHeapMB },
      // none of the parent's flags: a test runner's `--conditions source` would resolve the worker's imports
      // to TypeScript sources node cannot load
      execArgv: [],
      // the worker writes nothing; if it ever did, stdout belongs to MCP in stdio mode
      stdout: true,
      stderr: true,
    });
    worker.unref();
    worker.stdout.resume();
    worker.stderr.resume();
    worker.on('message', (response: BuildResponse) => {
      const pending = this.pending.get(response.job);
      if (pending === undefined) return;
      this.pending.delete(response.job);
      if (response.type === 'built') pending.resolve(response.data);
      else pending.reject(new WorkerBuildError(`failed: ${response.message}`));
    });
    const fail = (reason: string) => {
      if (this.worker === worker) this.worker = undefined;
      const jobs = [...this.pending.values()];
      this.pending.clear();
      if (jobs.length > 0) this.logger?.warn('search index worker failed', { reason, builds: jobs.length });
      for (const job of jobs) job.reject(new WorkerBuildError(reason));
    };
    worker.on('error', (error) => fail(`crashed (${error.message})`));
    worker.on('exit', (code) => fail(`exited with code ${code}`));
    this.worker = worker;
    return worker;
  }
}
