import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '@pro-context/kernel';
import { errorText } from '@pro-context/plugin-kit';
import type Database from 'better-sqlite3';
import type { CheckpointReply, CheckpointWorkerData } from './checkpoint-worker.js';

/**
 * Log pages after which a write checkpoints (without the worker): 250 (1 MB) rather than SQLite's 1,000. The
 * checkpoint and its fsync run inside that write; writing 1 MB values here, 1,000 pages stalled 20 of 80 writes
 * for 15-30 ms, 250 pages one (each write 6-7 ms instead of 2.5), in the same total time. 100-library run: hot
 * get-docs p99 while others index 19.2-21.5 -> 16.7-20.0 ms.
 */
export const AUTOCHECKPOINT_PAGES = 250;

/** Bytes written after which the worker is asked for a checkpoint: SQLite's own threshold (1,000 pages of 4 KB). */
export const CHECKPOINT_AFTER_BYTES = 4 * 1024 * 1024;
/** A worker with nothing to do for this long ends (it is started again by the next writes). */
const IDLE_MS = 5000;

/** The checkpoint worker's script: beside this module when built, else the built one (tests run the sources). */
export function checkpointWorkerScript(): URL {
  const here = new URL('./checkpoint-worker.js', import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return here;
  const built = new URL('../dist/checkpoint-worker.js', import.meta.url);
  if (!existsSync(fileURLToPath(built))) {
    throw new Error(`${fileURLToPath(built)} is missing: build @pro-context/plugin-sqlite-cache first (pnpm build).`);
  }
  return built;
}

/**
 * Moves the checkpoints of a store's connection to a worker thread: the connection's automatic checkpoint is
 * turned off, the store counts what it writes ({@link wrote}), and past {@link CHECKPOINT_AFTER_BYTES} the worker
 * (started then, ended after {@link IDLE_MS} idle) checkpoints on a connection of its own. Should the worker fail to
 * start or die, the connection checkpoints by itself again ({@link AUTOCHECKPOINT_PAGES}).
 */
export class Checkpointer {
  private worker: Worker | undefined;
  private written = 0;
  private running = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private failed = false;
  /** Checkpoints the worker made (for tests and health). */
  checkpoints = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
    private readonly busyTimeoutMs: number,
    private readonly logger: Logger,
    private readonly script: URL | undefined = undefined,
  ) {
    db.pragma('wal_autocheckpoint = 0');
  }

  /** Counts `bytes` written; asks for a checkpoint once enough are. */
  wrote(bytes: number): void {
    if (this.failed) return;
    this.written += bytes;
    if (this.written >= CHECKPOINT_AFTER_BYTES && !this.running) this.request();
  }

  private request(): void {
    this.written = 0;
    this.running = true;
    clearTimeout(this.idleTimer);
    try {
      this.start().postMessage('checkpoint');
    } catch (error) {
      this.fail(error);
    }
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const data: CheckpointWorkerData = { file: this.file, busyTimeoutMs: this.busyTimeoutMs };
    const worker = new Worker(this.script ?? checkpointWorkerScript(), {
      workerData: data,
      // a connection and a pragma: the smallest heap V8 allows is plenty
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 },
    });
    worker.unref();
    worker.on('message', (reply: CheckpointReply) => {
      this.running = false;
      if (reply.ok) this.checkpoints++;
      else this.logger.debug('cache: a checkpoint did not complete', { file: this.file, error: reply.error });
      // writes that came meanwhile may already call for the next one
      if (this.written >= CHECKPOINT_AFTER_BYTES) this.request();
      else this.idleTimer = setTimeout(() => this.stop(), IDLE_MS).unref();
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (this.worker === worker) {
        this.worker = undefined;
        if (this.running) this.fail(new Error(`the checkpoint worker exited with code ${code}`));
      }
    });
    this.worker = worker;
    return worker;
  }

  /** The worker cannot checkpoint: the connection does it itself again, from now on. */
  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.running = false;
    this.logger.warn('cache: the checkpoint worker failed; checkpoints are made on the main thread', {
      file: this.file,
      error: errorText(error),
    });
    try {
      this.db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    } catch {
      // closed meanwhile
    }
    void this.stop();
  }

  /** Ends the worker (idle, or the store closes). */
  async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    this.running = false;
    if (worker) await worker.terminate();
  }
}
