import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Long work on the event loop's thread in slices: {@link Slicer.turn} gives other calls (answers of libraries
 * already indexed) a turn once the current slice has run `sliceMs`. Writing a library's blocks to SQLite is
 * synchronous, a few milliseconds a block: without turns, a hot library's answer would wait behind dozens.
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
