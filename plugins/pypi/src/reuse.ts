/**
 * Answers kept for a few seconds, so the lookup and version resolution of one `resolve-library` call make one
 * request. Bounded (oldest entries go first); the engine keeps the long-lived, stale-tolerant version cache.
 */
export class ReuseCache<T> {
  private readonly entries = new Map<string, { at: number; value: T }>();

  constructor(
    private readonly seconds: number,
    private readonly maxEntries = 200,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at >= this.seconds * 1000) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T): void {
    if (this.seconds <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { at: this.now(), value });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
