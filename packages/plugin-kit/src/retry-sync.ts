/** How {@link retrySync} retries. */
export interface RetrySyncOptions {
  /** Gives up (throws the last error) once this many ms have passed since the first attempt. */
  timeoutMs: number;
  /** Whether an error is worth another attempt; any other error is thrown at once. */
  retryIf: (error: unknown) => boolean;
  /** Pause between attempts, ms (default 10). */
  intervalMs?: number;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs a synchronous step again, after a short blocking pause, while it fails with an error `retryIf`
 * accepts, until `timeoutMs` has passed. For the few synchronous operations that a lock held by another
 * process can refuse at once without waiting, such as SQLite switching a new database file to WAL while
 * another process does the same (its busy handler is not called there). The pause blocks the thread, so
 * keep it to start-up steps that take milliseconds.
 */
export function retrySync<T>(attempt: () => T, options: RetrySyncOptions): T {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    try {
      return attempt();
    } catch (error) {
      if (!options.retryIf(error) || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, Math.min(options.intervalMs ?? 10, Math.max(1, deadline - Date.now())));
    }
  }
}
