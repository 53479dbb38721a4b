import { createHash } from 'node:crypto';
import type { CacheStore } from '@pro-context/kernel';

/** Loads in flight, per cache store, so that two kernels never share one. */
const inFlight = new WeakMap<CacheStore, Map<string, Promise<unknown>>>();

/** Options of {@link cachedResult}. */
export interface CachedResultOptions {
  /** Time to live of a stored result, ms (`0`: the result is not stored, only concurrent calls share it). */
  ttlMs: number;
}

/** What {@link cachedResult} answers: the value, and whether it came from the cache or a load already running. */
export interface CachedResult<T> {
  value: T;
  /** Read from the cache (`false` when this call or a concurrent identical one loaded it). */
  cached: boolean;
}

/**
 * A stable cache key for the JSON form of `parts` (argument objects with their keys sorted), hashed so that
 * long queries stay short keys.
 */
export function cacheKeyOf(...parts: unknown[]): string {
  const stable = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(stable);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>)
          .filter(([, v]) => v !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, v]) => [k, stable(v)]),
      );
    }
    return value;
  };
  return createHash('sha256')
    .update(JSON.stringify(parts.map(stable)))
    .digest('hex')
    .slice(0, 40);
}

/**
 * A remote tool's result through the cache store: a fresh stored value is answered at once; otherwise
 * `load` runs, once for all identical concurrent calls, and its value is stored for `ttlMs`. A failed load
 * is never stored (every waiting call gets its error; the next call tries again). A cache that fails to
 * read or write is passed by, not fatal.
 */
export async function cachedResult<T>(
  cache: CacheStore,
  namespace: string,
  key: string,
  options: CachedResultOptions,
  load: () => Promise<T>,
): Promise<CachedResult<T>> {
  const stored = await cache.get<T>(namespace, key).catch(() => undefined);
  if (stored && !stored.stale) return { value: stored.value, cached: true };
  let running = inFlight.get(cache);
  if (!running) {
    running = new Map();
    inFlight.set(cache, running);
  }
  const id = `${namespace}\u0000${key}`;
  const pending = running.get(id) as Promise<T> | undefined;
  if (pending) return { value: await pending, cached: false };
  const table = running;
  const promise = (async () => {
    try {
      const value = await load();
      if (options.ttlMs > 0) await cache.set(namespace, key, value, { ttlMs: options.ttlMs }).catch(() => undefined);
      return value;
    } finally {
      table.delete(id);
    }
  })();
  table.set(id, promise);
  return { value: await promise, cached: false };
}
