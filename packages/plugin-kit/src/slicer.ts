import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Long work on the event loop's thread in slices: {@link Slicer.turn} gives other calls (answers of libraries
 * already indexed) a turn once the current slice has run `sliceMs`. For loops that would otherwise hold the thread
 * for tens of milliseconds: writing a library's blocks to SQLite (synchronous, a few milliseconds a block), or
 * splitting a download whose chunks arrive faster than they are handled (`for await` over a stream with data
 * buffered runs on microtasks, never letting a timer or an I/O callback in).
 */
export class Slicer {
  private started = performance.now();

  constructor(private readonly sliceMs = 4) {}

  /** Resolves at once while the slice lasts; else after the event loop's other work (a new slice). */
  async turn(): Promise<void> {
    if (performance.now() - this.started < this.sliceMs) return;
    await nextTurn();
    this.started = performance.now();
  }
}
