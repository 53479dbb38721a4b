import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type MessagePort, Worker } from 'node:worker_threads';
import { ProContextError } from '@pro-context/kernel';
import {
  DocsPreparer,
  type PreparablePage,
  type PreparedBatch,
  type PreparedChunk,
  type PreparedDocs,
  type PreparedPage,
  type PreparedTotals,
  type PrepareOptions,
  type PrepareProgress,
  prepareDocs,
  type SkippedPage,
} from './prepare/prepare.js';

/** Options of a {@link ChunkingPool}. */
export interface ChunkingPoolOptions {
  /**
   * Worker threads at most (started on first use, one per library being prepared). `0` prepares on the
   * calling thread. Default: one less than the cores, at least 1, at most 4.
   */
  size?: number;
  /**
   * Pages totalling fewer characters than this are prepared on the calling thread: tens of milliseconds of work,
   * less than a worker's start and the copies to and from it cost (and no worker's memory). Default 2 M.
   */
  minChars?: number;
  /** A worker idle this long stops (its memory is returned); the next task starts one again. Default 30 s. */
  idleMs?: number;
  /**
   * A worker that has just prepared more than this many characters of pages stops at once instead of idling: its
   * heap grew with them (a worker holds some 80 MB after a library), and the thread that indexes them next needs
   * the memory. Default 0: every worker stops after its task ({@link ChunkingPool.warm} starts the next one while
   * the pages are fetched).
   */
  recycleAfterChars?: number;
  /**
   * Heap limit of each worker, MB (`resourceLimits.maxOldGenerationSizeMb`). A library prepared in batches keeps
   * only its duplicate check and term index between them; a bounded heap makes the worker collect each batch's
   * garbage instead of growing. Default 256.
   */
  maxHeapMB?: number;
  /**
   * Young generation of each worker, MB (`resourceLimits.maxYoungGenerationSizeMb`). V8's default lets a busy
   * thread's young generation grow to 32 MB and more, which a worker keeps for its whole life; chunking a 24 MB
   * library with 8 MB took as much CPU time (within the noise of a loaded 2-core box) for a 25-55 MB lower peak
   * RSS. Default 8.
   */
  maxYoungMB?: number;
  /**
   * The worker script. Default: `prepare-worker.js` beside this module (in `dist/`, or in a bundle that ships it
   * as an entry point beside its chunks). Running from the TypeScript sources (tests), there is none, and work
   * runs on the calling thread.
   */
  workerUrl?: URL;
  /**
   * Node flags of the workers (`Worker`'s `execArgv`). Default: the process's own (tests running the built worker
   * under a runner's `--conditions source` pass `[]`).
   */
  execArgv?: string[];
}

/** Options of one {@link ChunkingPool.prepare} call. */
export interface PrepareCallOptions {
  /** Aborting stops the work (the worker is stopped) and rejects with the signal's reason. */
  signal?: AbortSignal;
  progress?: PrepareProgress;
}

/**
 * One library prepared batch by batch ({@link ChunkingPool.session}), in one worker that keeps what the batches
 * share (duplicates seen, the revision hash, the term index) and nothing else between them.
 */
export interface PrepareSession {
  /** Prepares the next pages (see {@link DocsPreparer.add}). */
  add(pages: readonly PreparablePage[], progress?: PrepareProgress): Promise<PreparedBatch>;
  /** The revision and term index of every batch; then the session is over. */
  finish(): Promise<PreparedTotals>;
  /** Lets the worker go (after {@link finish}, or to abandon the library). */
  close(): void;
  /**
   * Only in a worker thread (else absent): from now on, each batch's chunks go from the worker straight to `port`
   * (an index build's channel: `{ seq, chunks }` messages of `IndexableChunk`s, `seq` 1, 2, 3…) and are cut there
   * into blocks of `blockChars` characters encoded for storage; the calling thread receives only the pages, the
   * chunks' ids, page runs and block offsets, and the encoded blocks ({@link PipedSession}). Called before any
   * {@link add}; the session is then used through what it returns.
   */
  pipe?(port: MessagePort, blockChars: number): Promise<PipedSession>;
}

/** A {@link PrepareSession} whose chunks go to an index build's channel ({@link PrepareSession.pipe}). */
export interface PipedSession {
  /** Prepares the next pages; `withChunks`: the chunks come back as well (a small library keeps them at hand). */
  add(
    pages: readonly PreparablePage[],
    progress: PrepareProgress | undefined,
    withChunks: boolean,
  ): Promise<PipedBatch>;
  /** The revision, term index and last block; then the session is over. */
  finish(): Promise<PipedTotals>;
  close(): void;
}

/** What a {@link PipedSession} returns of a batch. */
export interface PipedBatch {
  pages: PreparedPage[];
  /** The `seq` the batch's chunks were posted to the channel with. */
  seq: number;
  /** What the batch's chunks added to the ids, page runs (`[url, first ordinal]`) and block offsets. */
  ids: string[];
  runs: [string, number][];
  blockStarts: number[];
  /** The blocks the batch completed, in order: their chunks as JSON, UTF-8 ({@link encodeBlock}). */
  blocks: Uint8Array[];
  /** The chunks, when asked for. */
  chunks?: PreparedChunk[];
  /** Pages of the batch left out (over a limit, or failing). */
  skipped?: SkippedPage[];
}

/** What a {@link PipedSession} finishes with. */
export interface PipedTotals extends PreparedTotals {
  /** The last block (encoded), if any chunks are left. */
  last?: Uint8Array;
}

interface Slot {
  worker: Worker;
  busy: boolean;
  idleTimer?: NodeJS.Timeout;
}

type Message =
  | { id: number; done: number; total: number }
  | { id: number; result: unknown }
  | { id: number; error: string };

/** The default number of chunking workers: the cores but one (the main thread answers), 1 to 4. */
export function defaultChunkingWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/** The worker script next to this module (none beside the TypeScript sources). */
function findWorkerScript(): URL | undefined {
  const url = new URL('./prepare-worker.js', import.meta.url);
  return existsSync(fileURLToPath(url)) ? url : undefined;
}

/**
 * Prepares libraries' pages ({@link prepareDocs}: HTML to markdown, chunking, revision hash) in worker threads,
 * so that a large library being prepared never holds up the thread that answers. Workers start on first use and
 * stop when idle; a worker that dies fails its task with `INTERNAL_ERROR` and is replaced by the next task.
 * Without a worker script (the TypeScript sources, in tests) or with `size: 0`, work runs on the calling thread.
 */
export class ChunkingPool {
  private readonly size: number;
  private readonly idleMs: number;
  private readonly recycleAfterChars: number;
  private readonly minChars: number;
  private readonly maxHeapMB: number;
  private readonly maxYoungMB: number;
  private readonly workerUrl: URL | undefined;
  private readonly execArgv: string[] | undefined;
  private readonly slots: Slot[] = [];
  private readonly waiting: (() => void)[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: ChunkingPoolOptions = {}) {
    this.size = options.size ?? defaultChunkingWorkers();
    this.idleMs = options.idleMs ?? 30_000;
    this.recycleAfterChars = options.recycleAfterChars ?? 0;
    this.minChars = options.minChars ?? 2_000_000;
    this.maxHeapMB = options.maxHeapMB ?? 256;
    this.maxYoungMB = options.maxYoungMB ?? 8;
    this.workerUrl = this.size > 0 ? (options.workerUrl ?? findWorkerScript()) : undefined;
    this.execArgv = options.execArgv;
  }

  /** Whether work runs in worker threads (else on the calling thread). */
  get threaded(): boolean {
    return this.workerUrl !== undefined;
  }

  /** Workers running now. */
  get workers(): number {
    return this.slots.length;
  }

  /** Prepares one library's pages; see {@link prepareDocs}. */
  async prepare(
    pages: readonly PreparablePage[],
    options: PrepareOptions,
    call: PrepareCallOptions = {},
  ): Promise<PreparedDocs> {
    call.signal?.throwIfAborted();
    let chars = 0;
    for (const page of pages) chars += page.markdown.length + (page.html?.length ?? 0);
    // (on this thread, which answers calls too: other work gets turns)
    if (!this.workerUrl || chars < this.minChars) return prepareDocs(pages, options, call.progress, true);
    const slot = await this.acquire(call.signal);
    try {
      return await this.run<PreparedDocs>(
        slot,
        (id) => ({ id, pages, options }),
        call.signal,
        call.progress,
        `preparing ${pages.length} pages`,
      );
    } finally {
      if (chars > this.recycleAfterChars && this.slots.includes(slot)) {
        this.remove(slot);
        void slot.worker.terminate();
      }
      this.release(slot);
    }
  }

  /**
   * Starts preparing one library whose pages come in batches: in a worker held for the whole library (unless
   * `chars`, the size when known, is under `minChars`, or the pool runs on the calling thread). A dying worker
   * fails the call under way with `INTERNAL_ERROR`; aborting `signal` stops it.
   */
  async session(options: PrepareOptions, call: { signal?: AbortSignal; chars?: number } = {}): Promise<PrepareSession> {
    call.signal?.throwIfAborted();
    if (!this.workerUrl || (call.chars !== undefined && call.chars < this.minChars)) {
      const preparer = new DocsPreparer(options, true);
      return {
        add: (pages, progress) => preparer.add(pages, progress),
        finish: async () => preparer.finish(),
        close: () => undefined,
      };
    }
    const slot = await this.acquire(call.signal);
    const session = this.nextId++;
    let chars = 0;
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      if (this.slots.includes(slot)) {
        if (chars > this.recycleAfterChars) {
          this.remove(slot);
          void slot.worker.terminate();
        } else slot.worker.postMessage({ id: 0, session, op: 'finish' });
      }
      this.release(slot);
    };
    try {
      await this.run(slot, (id) => ({ id, session, op: 'open', options }), call.signal, undefined, 'starting');
    } catch (error) {
      close();
      throw error;
    }
    // one batch, and the session's end: the same messages whether the chunks come back or go down a pipe
    const add = <T>(pages: readonly PreparablePage[], progress?: PrepareProgress, withChunks?: boolean) => {
      for (const page of pages) chars += page.markdown.length + (page.html?.length ?? 0);
      return this.run<T>(
        slot,
        (id) => ({ id, session, op: 'add', pages, ...(withChunks === undefined ? {} : { withChunks }) }),
        call.signal,
        progress,
        `preparing ${pages.length} pages`,
      );
    };
    const finish = <T>() =>
      this.run<T>(slot, (id) => ({ id, session, op: 'finish' }), call.signal, undefined, 'finishing');
    return {
      add: (pages, progress) => add<PreparedBatch>(pages, progress),
      finish: () => finish<PreparedTotals>(),
      close,
      pipe: async (port, blockChars) => {
        await this.run(
          slot,
          (id) => ({ id, session, op: 'pipe', port, blockChars }),
          call.signal,
          undefined,
          'starting',
          [port],
        );
        return {
          add: (pages, progress, withChunks) => add<PipedBatch>(pages, progress, withChunks),
          finish: () => finish<PipedTotals>(),
          close,
        };
      },
    };
  }

  /**
   * Starts a worker ahead of a task (while its pages are being fetched), unless one is free or the pool is full:
   * the task then finds it loaded. It stops after `idleMs` if no task comes.
   */
  warm(): void {
    if (!this.workerUrl || this.closed || this.slots.length >= this.size || this.slots.some((s) => !s.busy)) return;
    const slot = this.spawn();
    slot.busy = false;
    this.release(slot, false);
  }

  /** Stops every worker. Tasks under way fail. */
  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private async acquire(signal?: AbortSignal): Promise<Slot> {
    for (;;) {
      if (this.closed) throw new ProContextError('INTERNAL_ERROR', 'The chunking workers are stopped.');
      const free = this.slots.find((s) => !s.busy);
      if (free) {
        clearTimeout(free.idleTimer);
        free.busy = true;
        free.worker.ref();
        return free;
      }
      if (this.slots.length < this.size) return this.spawn();
      await new Promise<void>((resolve, reject) => {
        this.waiting.push(resolve);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    }
  }

  /** A new worker, busy. */
  private spawn(): Slot {
    const slot: Slot = {
      // a bounded heap: garbage of a long library is collected as it goes instead of growing the worker's heap
      worker: new Worker(this.workerUrl as URL, {
        resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMB, maxYoungGenerationSizeMb: this.maxYoungMB },
        ...(this.execArgv ? { execArgv: this.execArgv } : {}),
      }),
      busy: true,
    };
    // a worker that dies between tasks leaves the pool; one that dies during a task fails that task
    slot.worker.once('exit', () => this.remove(slot));
    slot.worker.on('error', () => undefined);
    this.slots.push(slot);
    return slot;
  }

  private release(slot: Slot, wake = true): void {
    slot.busy = false;
    if (this.slots.includes(slot)) {
      slot.worker.unref();
      clearTimeout(slot.idleTimer);
      slot.idleTimer = setTimeout(() => void slot.worker.terminate(), this.idleMs);
      slot.idleTimer.unref();
    }
    if (wake) this.waiting.shift()?.();
  }

  private remove(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    if (!slot.busy) this.waiting.shift()?.();
  }

  /** Sends the worker one request (`message` of its id) and waits for its result. */
  private run<T>(
    slot: Slot,
    message: (id: number) => object,
    signal: AbortSignal | undefined,
    progress: PrepareProgress | undefined,
    doing: string,
    transfer: readonly MessagePort[] = [],
  ): Promise<T> {
    const id = this.nextId++;
    const { worker } = slot;
    // cancelled while waiting for a worker, or the worker is gone
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (!this.slots.includes(slot)) {
      return Promise.reject(new ProContextError('INTERNAL_ERROR', `The chunking worker stopped before ${doing}.`));
    }
    return new Promise<T>((resolve, reject) => {
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        signal?.removeEventListener('abort', onAbort);
      };
      const onMessage = (message: Message) => {
        if (message.id !== id) return;
        if ('done' in message) {
          progress?.(message.done, message.total);
          return;
        }
        cleanup();
        if ('result' in message) resolve(message.result as T);
        else reject(new ProContextError('INTERNAL_ERROR', `Preparing the documentation failed: ${message.error}`));
      };
      let failure: Error | undefined;
      const onError = (error: Error) => {
        failure = error;
      };
      const onExit = (code: number) => {
        cleanup();
        this.remove(slot);
        reject(
          new ProContextError(
            'INTERNAL_ERROR',
            `The chunking worker stopped (exit code ${code}${failure ? `: ${failure.message}` : ''}) while ${doing}.`,
            { ...(failure ? { cause: failure } : {}) },
          ),
        );
      };
      const onAbort = () => {
        cleanup();
        this.remove(slot);
        void worker.terminate();
        reject(signal?.reason);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.once('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage(message(id), [...transfer]);
    });
  }
}
