import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { IndexChannel, Logger } from '@pro-context/kernel';
import { mergePacked, type PackedChunk, type PackedIndexData, packedBuffers } from './packed-index.js';
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
  worker: Worker;
  resolve(data: PackedIndexData): void;
  reject(error: Error): void;
  /** A streamed build's batch taken in (`ack` of its `add`). */
  added?(ack: number): void;
}

/** A build fed batch by batch ({@link WorkerIndexBuilder.session}). */
export interface BuildSession {
  /** Sends a batch; resolves once the batch before it is in (at most one batch waits in the worker). */
  add(chunks: PackedChunk[]): Promise<void>;
  /** The index of every batch sent; `undefined` when superseded. */
  finish(): Promise<PackedIndexData | undefined>;
  cancel(): void;
  /**
   * The batches come from now on through the channel's port, posted by another thread (`IndexBatchMessage`s of
   * `IndexableChunk`s, converted in the worker); {@link add} is not called again.
   */
  channel(): IndexChannel;
}

/** Settings of {@link WorkerIndexBuilder}. */
export interface WorkerBuilderOptions {
  /**
   * Worker threads at most (default 1). With more, a large library is split between them. Measured on the
   * 2-core machine shared with other work: two workers built the synthetic 68 MB corpus no faster than one,
   * for 17% more CPU and 240 MB more RSS (each worker warms its own word cache), so one is the default.
   * Measured again with the faster tokenizer (load 5-9, wall times too noisy to compare): 10-35% more CPU,
   * 190 MB more RSS, and 2-4 s of the main thread busy merging the parts (`mergePacked` runs there).
   */
  workers?: number;
  /**
   * A worker with nothing to build ends after this long (ms), which gives its heap back (a build's word
   * cache and term maps); the next build starts a new one. Default 10 s.
   */
  idleMs?: number;
  /**
   * A worker that has just built an index of more than this many MB (its buffers, as they came back) stops at once
   * instead of idling for `idleMs`: its heap grew with the build (the chunks' ids, the builder's maps) and holds
   * the builder's garbage until its next collection, some 100 MB after the synthetic 68 MB corpus, while the thread
   * it sent the index to takes it in and saves it. The next build starts a new worker. Default 16.
   */
  recycleAboveMB?: number;
  /** Heap limit of each worker (its `resourceLimits.maxOldGenerationSizeMb`); default 384. */
  maxHeapMB?: number;
  /** The worker script (tests); {@link workerScript} by default. */
  script?: URL;
}

/** Heap limit of a build worker when none is set, MB (the synthetic 68 MB corpus builds within it). */
const DEFAULT_MAX_HEAP_MB = 384;

/** Index size above which a build worker stops once it has built it, MB ({@link WorkerBuilderOptions.recycleAboveMB}). */
const DEFAULT_RECYCLE_ABOVE_MB = 16;

/** Young generation of a build worker, MB (semi-spaces of 4 MB). */
const YOUNG_GENERATION_MB = 12;

/** A library with fewer chunks is built by one worker: splitting it costs more than it saves. */
export const MIN_SPLIT_CHUNKS = BATCH;

/**
 * Builds packed indexes in worker threads (a pool of `workers`, each started on first use and kept,
 * unreferenced: they never keep the process alive). A large library is cut into one contiguous part per
 * worker, built side by side and merged ({@link mergePacked}: the same index one worker would build). If a
 * worker dies, every build it had a part of fails with {@link WorkerBuildError}; the next build starts a
 * new one.
 */
export class WorkerIndexBuilder {
  private readonly workers: (Worker | undefined)[];
  private readonly pending = new Map<number, Pending>();
  private readonly idleTimers = new Map<Worker, NodeJS.Timeout>();
  private nextJob = 1;
  private nextWorker = 0;

  constructor(
    private readonly options: WorkerBuilderOptions = {},
    private readonly logger?: Logger,
  ) {
    const size = Math.min(options.workers ?? 1, availableParallelism());
    this.workers = new Array(Math.max(1, size)).fill(undefined);
  }

  /**
   * Builds the index of `chunks` (each turned into a {@link PackedChunk} by `convert`). `superseded()` is
   * asked between batches: once it says yes the build is cancelled and the promise resolves with `undefined`.
   */
  async build<T>(
    chunks: readonly T[],
    convert: (chunk: T) => PackedChunk,
    language: 'english',
    superseded: () => boolean,
  ): Promise<PackedIndexData | undefined> {
    const count = chunks.length < MIN_SPLIT_CHUNKS ? 1 : this.workers.length;
    const size = Math.ceil(chunks.length / count);
    const jobs: { job: number; worker: Worker; done: Promise<PackedIndexData>; from: number; to: number }[] = [];
    for (let i = 0; i < count; i++) {
      const worker = this.start((this.nextWorker + i) % this.workers.length);
      const job = this.nextJob++;
      const done = new Promise<PackedIndexData>((resolve, reject) =>
        this.pending.set(job, { worker, resolve, reject }),
      );
      // A failure before the result is awaited must not count as unhandled.
      done.catch(() => {});
      worker.postMessage({ type: 'start', job, language } satisfies BuildRequest);
      jobs.push({ job, worker, done, from: i * size, to: Math.min(chunks.length, (i + 1) * size) });
    }
    this.nextWorker = (this.nextWorker + 1) % this.workers.length;
    const cancel = () => {
      for (const { job, worker } of jobs) {
        if (this.pending.delete(job) && this.workers.includes(worker)) {
          worker.postMessage({ type: 'cancel', job } satisfies BuildRequest);
          this.scheduleIdle(worker);
        }
      }
    };
    // the parts' batches take turns, so the workers start together
    const longest = Math.max(...jobs.map((j) => j.to - j.from));
    for (let offset = 0; offset < longest; offset += BATCH) {
      if (offset > 0) await yieldToEventLoop();
      if (superseded()) {
        cancel();
        return undefined;
      }
      for (const { job, worker, from, to } of jobs) {
        // a worker died under this build: its part has failed already, and so will the whole
        if (!this.pending.has(job) || from + offset >= to) continue;
        // converted batch by batch: no step of a large library blocks the main thread for long
        const batch = chunks.slice(from + offset, Math.min(to, from + offset + BATCH)).map(convert);
        worker.postMessage({ type: 'add', job, chunks: batch } satisfies BuildRequest);
      }
    }
    for (const { job, worker } of jobs) {
      if (this.pending.has(job)) worker.postMessage({ type: 'finish', job } satisfies BuildRequest);
    }
    let parts: PackedIndexData[];
    try {
      parts = await Promise.all(jobs.map((j) => j.done));
    } catch (error) {
      cancel();
      throw error;
    }
    return superseded() ? undefined : mergePacked(parts);
  }

  /**
   * Starts a build whose chunks arrive in batches (a streamed library): one worker builds it, taking each batch
   * as it comes, so neither thread holds the library's chunks; `add` waits while more than one batch is queued.
   */
  session(language: 'english', superseded: () => boolean): BuildSession {
    const worker = this.start(this.nextWorker);
    this.nextWorker = (this.nextWorker + 1) % this.workers.length;
    const job = this.nextJob++;
    const acks = new Map<number, () => void>();
    /** The last batch taken in (acks come in order; a channel's may come before it is waited for). */
    let lastAck = 0;
    let failure: Error | undefined;
    const done = new Promise<PackedIndexData>((resolve, reject) =>
      this.pending.set(job, {
        worker,
        resolve,
        reject: (error) => {
          failure = error;
          for (const wake of acks.values()) wake();
          acks.clear();
          reject(error);
        },
        added: (ack) => {
          lastAck = Math.max(lastAck, ack);
          acks.get(ack)?.();
          acks.delete(ack);
        },
      }),
    );
    done.catch(() => {});
    worker.postMessage({ type: 'start', job, language } satisfies BuildRequest);
    let sent = 0;
    let previous: Promise<void> = Promise.resolve();
    const cancel = () => {
      if (this.pending.delete(job) && this.workers.includes(worker)) {
        worker.postMessage({ type: 'cancel', job } satisfies BuildRequest);
        this.scheduleIdle(worker);
      }
      for (const wake of acks.values()) wake();
      acks.clear();
    };
    return {
      add: async (chunks) => {
        if (failure) throw failure;
        if (!this.pending.has(job)) return;
        const ack = ++sent;
        const taken = new Promise<void>((resolve) => acks.set(ack, resolve));
        for (let from = 0; from < chunks.length; from += BATCH) {
          const last = from + BATCH >= chunks.length;
          worker.postMessage({
            type: 'add',
            job,
            chunks: chunks.slice(from, from + BATCH),
            ...(last ? { ack } : {}),
          } satisfies BuildRequest);
        }
        if (chunks.length === 0) acks.delete(ack);
        const waitFor = previous;
        previous = chunks.length === 0 ? previous : taken;
        await waitFor;
        if (failure) throw failure;
      },
      finish: async () => {
        if (failure) throw failure;
        if (superseded() || !this.pending.has(job)) {
          cancel();
          return undefined;
        }
        worker.postMessage({ type: 'finish', job } satisfies BuildRequest);
        try {
          const data = await done;
          return superseded() ? undefined : data;
        } catch (error) {
          cancel();
          throw error;
        }
      },
      cancel,
      channel: () => {
        const { port1, port2 } = new MessageChannel();
        worker.postMessage({ type: 'attach', job, port: port2 } satisfies BuildRequest, [port2]);
        return {
          port: port1,
          taken: (seq) => {
            if (failure) return Promise.reject(failure);
            if (!this.pending.has(job) || seq <= lastAck) return Promise.resolve();
            return new Promise<void>((resolve, reject) => acks.set(seq, () => (failure ? reject(failure) : resolve())));
          },
        };
      },
    };
  }

  /** Workers running now. */
  get running(): number {
    return this.workers.filter((w) => w !== undefined).length;
  }

  /** Stops the workers (builds under way fail). */
  async close(): Promise<void> {
    const running = this.workers.filter((w): w is Worker => w !== undefined);
    this.workers.fill(undefined);
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    await Promise.all(running.map((worker) => worker.terminate()));
  }

  /** Whether `data` is an index large enough that its worker stops once it is built ({@link recycleAboveMB}). */
  private isLarge(data: PackedIndexData): boolean {
    let bytes = 0;
    for (const buffer of packedBuffers(data)) bytes += buffer.byteLength;
    return bytes > (this.options.recycleAboveMB ?? DEFAULT_RECYCLE_ABOVE_MB) * 1024 * 1024;
  }

  /** Ends `worker` now if it has no other build (else once idle). */
  private retire(worker: Worker): void {
    const slot = this.workers.indexOf(worker);
    if (slot < 0 || [...this.pending.values()].some((p) => p.worker === worker)) {
      this.scheduleIdle(worker);
      return;
    }
    clearTimeout(this.idleTimers.get(worker));
    this.idleTimers.delete(worker);
    this.workers[slot] = undefined;
    void worker.terminate();
  }

  /** Ends `worker` once it has been idle for `idleMs`, unless it gets a job before. */
  private scheduleIdle(worker: Worker): void {
    if ([...this.pending.values()].some((p) => p.worker === worker)) return;
    clearTimeout(this.idleTimers.get(worker));
    const timer = setTimeout(() => {
      this.idleTimers.delete(worker);
      const slot = this.workers.indexOf(worker);
      if (slot < 0 || [...this.pending.values()].some((p) => p.worker === worker)) return;
      this.workers[slot] = undefined;
      void worker.terminate();
    }, this.options.idleMs ?? 10_000);
    timer.unref();
    this.idleTimers.set(worker, timer);
  }

  private start(slot: number): Worker {
    const existing = this.workers[slot];
    if (existing !== undefined) {
      clearTimeout(this.idleTimers.get(existing));
      this.idleTimers.delete(existing);
      return existing;
    }
    const worker = new Worker(this.options.script ?? workerScript(), {
      // bounded by default: a streamed build's garbage is collected as it goes instead of growing the heap
      resourceLimits: {
        maxOldGenerationSizeMb: this.options.maxHeapMB ?? DEFAULT_MAX_HEAP_MB,
        // V8's default young generation here is 32 MB of semi-spaces; a build's short-lived garbage (a batch's
        // strings, new words) fits in far less, for the same CPU time (measured on the synthetic 68 MB corpus)
        maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
      },
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
      if (response.type === 'added') {
        pending.added?.(response.ack);
        return;
      }
      this.pending.delete(response.job);
      if (response.type === 'built') pending.resolve(response.data);
      else pending.reject(new WorkerBuildError(`failed: ${response.message}`));
      if (response.type === 'built' && this.isLarge(response.data)) this.retire(worker);
      else this.scheduleIdle(worker);
    });
    const fail = (reason: string) => {
      if (this.workers[slot] === worker) this.workers[slot] = undefined;
      clearTimeout(this.idleTimers.get(worker));
      this.idleTimers.delete(worker);
      const jobs = [...this.pending].filter(([, p]) => p.worker === worker);
      for (const [job] of jobs) this.pending.delete(job);
      if (jobs.length > 0) this.logger?.warn('search index worker failed', { reason, builds: jobs.length });
      for (const [, p] of jobs) p.reject(new WorkerBuildError(reason));
    };
    worker.on('error', (error) => fail(`crashed (${error.message})`));
    worker.on('exit', (code) => fail(`exited with code ${code}`));
    this.workers[slot] = worker;
    return worker;
  }
}
