import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type ErrorCode, ProContextError } from '@pro-context/kernel';
import { type PageLimits, pageLimitError, pageLimits } from './html/limits.js';
import { type ConvertedPage, convertPage, type PageWork } from './page/convert.js';

/** Options of a {@link PageConverter}. */
export interface PageConverterOptions {
  /** Per-page limits (defaults: `DEFAULT_PAGE_LIMITS`). */
  limits?: Partial<PageLimits>;
  /**
   * Heap limit of the page worker, MB (`resourceLimits.maxOldGenerationSizeMb`): a page whose conversion needs
   * more is refused (`PAGE_TOO_COMPLEX`, memory) and the worker replaced. Default 160.
   */
  maxHeapMB?: number;
  /** The worker stops after this long without a page (its memory is returned). Default 30 s. */
  idleMs?: number;
  /** The worker script; `null` converts on the calling thread (no time budget then). Default: `page-worker.js` beside this module. */
  workerUrl?: URL | null;
  /** Node flags of the worker (default: the process's). */
  execArgv?: string[];
}

interface Task {
  work: PageWork;
  resolve(page: ConvertedPage): void;
  reject(error: unknown): void;
  signal: AbortSignal | undefined;
}

interface Reply {
  id: number;
  result?: ConvertedPage;
  error?: { code?: ErrorCode; message: string; details?: unknown };
}

function findWorkerScript(): URL | undefined {
  const url = new URL('./page-worker.js', import.meta.url);
  return existsSync(fileURLToPath(url)) ? url : undefined;
}

/**
 * Converts fetched pages (HTML to markdown, read-page's cleanup) one at a time in a worker thread, within per-page
 * limits: the size is checked before the page leaves the calling thread, depth, element count and line length by
 * linear passes in the worker before parsing, and a page still converting after `timeBudgetMs` (or whose
 * conversion runs out of the worker's heap) has its worker terminated; a fresh worker takes the next page. The
 * thread that answers clients does nothing proportional to a page's size. A page over a limit fails with
 * `PAGE_TOO_LARGE` or `PAGE_TOO_COMPLEX` naming the page, the limit and its setting.
 */
export class PageConverter {
  private limitsNow: PageLimits;
  private readonly maxHeapMB: number;
  private readonly idleMs: number;
  private readonly workerUrl: URL | undefined;
  private readonly execArgv: string[] | undefined;
  private worker: Worker | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly queue: Task[] = [];
  private busy = false;
  private nextId = 1;
  /** Workers terminated for overrunning a page's budget or memory (for tests and the benchmark). */
  terminated = 0;

  constructor(options: PageConverterOptions = {}) {
    this.limitsNow = pageLimits(options.limits);
    this.maxHeapMB = options.maxHeapMB ?? 160;
    this.idleMs = options.idleMs ?? 30_000;
    this.workerUrl = options.workerUrl === null ? undefined : (options.workerUrl ?? findWorkerScript());
    this.execArgv = options.execArgv;
  }

  /** The limits pages are converted within. */
  get limits(): PageLimits {
    return this.limitsNow;
  }

  /** Changes the limits (the engine's `engine.pages` settings); unset ones keep their defaults. */
  configure(limits: Partial<PageLimits>): void {
    this.limitsNow = pageLimits(limits);
  }

  /** Whether pages are converted in a worker thread (else on the calling thread, without a time budget). */
  get threaded(): boolean {
    return this.workerUrl !== undefined;
  }

  /** Converts one page; see {@link PageConverter}. */
  convert(work: PageWork, options: { signal?: AbortSignal } = {}): Promise<ConvertedPage> {
    options.signal?.throwIfAborted();
    // refused before it is copied anywhere: a length is known without reading the page
    if (work.text.length > this.limitsNow.maxBytes) {
      return Promise.reject(pageLimitError(work.url, 'maxBytes', work.text.length, this.limitsNow));
    }
    if (!this.workerUrl) return convertPage(work, this.limitsNow);
    return new Promise<ConvertedPage>((resolve, reject) => {
      this.queue.push({ work, resolve, reject, signal: options.signal });
      this.pump();
    });
  }

  /** Stops the worker; pages waiting fail. The next page starts a worker again. */
  async close(): Promise<void> {
    for (const task of this.queue.splice(0)) {
      task.reject(new ProContextError('INTERNAL_ERROR', 'The page worker is stopped.'));
    }
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private pump(): void {
    if (this.busy) return;
    const task = this.queue.shift();
    if (!task) {
      this.idle();
      return;
    }
    if (task.signal?.aborted) {
      task.reject(task.signal.reason);
      this.pump();
      return;
    }
    this.busy = true;
    clearTimeout(this.idleTimer);
    this.run(task).finally(() => {
      this.busy = false;
      this.pump();
    });
  }

  private idle(): void {
    if (!this.worker) return;
    this.worker.unref();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      const worker = this.worker;
      this.worker = undefined;
      void worker?.terminate();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  private spawn(): Worker {
    const worker = new Worker(this.workerUrl as URL, {
      resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMB, maxYoungGenerationSizeMb: 16 },
      ...(this.execArgv ? { execArgv: this.execArgv } : {}),
    });
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    return worker;
  }

  private async run(task: Task): Promise<void> {
    const limits = this.limitsNow;
    this.worker ??= this.spawn();
    const worker = this.worker;
    worker.ref();
    const id = this.nextId++;
    await new Promise<void>((done) => {
      let failure: Error | undefined;
      const finish = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        task.signal?.removeEventListener('abort', onAbort);
        done();
      };
      const stop = () => {
        if (this.worker === worker) this.worker = undefined;
        this.terminated += 1;
        void worker.terminate();
      };
      const onMessage = (reply: Reply) => {
        if (reply.id !== id) return;
        finish();
        if (reply.result) task.resolve(reply.result);
        else if (reply.error?.code) {
          task.reject(
            new ProContextError(reply.error.code, reply.error.message, {
              ...(reply.error.details ? { details: reply.error.details as Record<string, unknown> } : {}),
            }),
          );
        } else {
          task.reject(
            new ProContextError(
              'INTERNAL_ERROR',
              `Converting ${task.work.url} failed: ${reply.error?.message ?? 'no answer'}`,
            ),
          );
        }
      };
      const onError = (error: Error) => {
        failure = error;
      };
      const onExit = (code: number) => {
        finish();
        if (this.worker === worker) this.worker = undefined;
        const outOfMemory = (failure as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
        task.reject(
          outOfMemory
            ? pageLimitError(task.work.url, 'memory', undefined, limits)
            : new ProContextError(
                'INTERNAL_ERROR',
                `The page worker stopped (exit code ${code}${failure ? `: ${failure.message}` : ''}) while converting ${task.work.url}.`,
              ),
        );
      };
      const onAbort = () => {
        finish();
        stop();
        task.reject(task.signal?.reason);
      };
      const timer = setTimeout(() => {
        finish();
        stop();
        task.reject(pageLimitError(task.work.url, 'timeBudgetMs', undefined, limits));
      }, limits.timeBudgetMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.once('exit', onExit);
      task.signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ id, work: task.work, limits });
    });
  }
}

let shared: PageConverter | undefined;

/**
 * The process's page converter: one worker for every page the engine and the source plugins convert, so the
 * limits the engine is configured with (`engine.pages`) hold for all of them.
 */
export function sharedPageConverter(): PageConverter {
  shared ??= new PageConverter();
  return shared;
}
