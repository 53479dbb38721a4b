import { LRUCache } from 'lru-cache';

/** Options of {@link TtlMemo}. */
export interface TtlMemoOptions {
  /** How long a value is kept, ms; `0` (or less) keeps nothing. A `set` may give its own. */
  ttlMs: number;
  /** Most values kept; the least recently used one goes first. */
  max: number;
}

// wall-clock time, as the memos this replaces measured it (and as tests that move the clock expect)
const wallClock = { now: () => Date.now() };

/**
 * Values kept for a while, at most `max` of them: what a plugin read from an upstream lately (a registry's
 * package document, a repository's tree, a crawl), so the steps of one call, or calls close together, make one
 * request. An expired value is never answered. {@link TtlMemo.remember} shares a load in flight and keeps no
 * failure. The one TTL memo of the plugins (on `lru-cache`).
 */
export class TtlMemo<V extends NonNullable<unknown>> {
  private readonly cache: LRUCache<string, V> | undefined;

  constructor(private readonly options: TtlMemoOptions) {
    this.cache =
      options.ttlMs > 0 && options.max > 0
        ? new LRUCache<string, V>({ max: options.max, ttl: options.ttlMs, perf: wallClock })
        : undefined;
  }

  /** The value kept under `key`, if it has not expired. */
  get(key: string): V | undefined {
    return this.cache?.get(key);
  }

  /** Keeps `value` for `ttlMs` (default: the memo's); nothing is kept for a `ttlMs` of 0 or less. */
  set(key: string, value: V, ttlMs = this.options.ttlMs): void {
    if (ttlMs > 0) this.cache?.set(key, value, { ttl: ttlMs });
  }

  /**
   * The value of `key`: kept, else what `load` gives (kept then). The promise itself is kept, so concurrent calls
   * share one load; a load that fails is dropped, and the next call tries again.
   */
  remember<P extends V & Promise<unknown>>(key: string, load: () => P): P {
    const kept = this.get(key);
    if (kept !== undefined) return kept as unknown as P;
    const value = load();
    this.set(key, value);
    value.catch(() => {
      if (this.cache?.peek(key) === value) this.cache.delete(key);
    });
    return value;
  }

  delete(key: string): void {
    this.cache?.delete(key);
  }

  /** Drops every value whose key `matches` (a version read again, a site crawled again). */
  deleteWhere(matches: (key: string) => boolean): void {
    if (!this.cache) return;
    for (const key of [...this.cache.keys()]) if (matches(key)) this.cache.delete(key);
  }

  /** The values not expired, most recently used first. */
  *values(): IterableIterator<V> {
    if (!this.cache) return;
    for (const [, value] of this.cache.entries()) yield value;
  }
}
