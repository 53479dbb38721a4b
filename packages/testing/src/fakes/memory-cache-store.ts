import type { CacheEntry, CacheGetOptions, CacheSetOptions, CacheStats, CacheStore } from '@pro-context/kernel';

interface Stored {
  value: unknown;
  storedAt: number;
  expiresAt: number | null;
  etag?: string;
  meta?: Record<string, unknown>;
  sizeBytes: number;
}

function sizeOf(value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength;
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

function clone<T>(value: T): T {
  return value instanceof Uint8Array ? (new Uint8Array(value) as T) : structuredClone(value);
}

/**
 * An in-memory `CacheStore` for tests: real TTLs and stale reads, values copied on the way in and out
 * (so tests catch code that mutates cached objects). A `now` function makes time controllable.
 */
export class MemoryCacheStore implements CacheStore {
  readonly id = 'memory-cache';
  private readonly data = new Map<string, Stored>();
  private hits = 0;
  private misses = 0;

  constructor(private readonly options: { defaultTtlMs?: number; now?: () => number } = {}) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  async get<T>(namespace: string, key: string, options: CacheGetOptions = {}): Promise<CacheEntry<T> | undefined> {
    const stored = this.data.get(`${namespace}\u0000${key}`);
    const stale = stored?.expiresAt != null && stored.expiresAt <= this.now();
    if (!stored || (stale && !options.allowStale)) {
      this.misses += 1;
      return undefined;
    }
    this.hits += 1;
    return {
      value: clone(stored.value) as T,
      storedAt: stored.storedAt,
      expiresAt: stored.expiresAt,
      stale,
      sizeBytes: stored.sizeBytes,
      ...(stored.etag ? { etag: stored.etag } : {}),
      ...(stored.meta ? { meta: clone(stored.meta) } : {}),
    };
  }

  async set<T>(namespace: string, key: string, value: T, options: CacheSetOptions = {}): Promise<void> {
    const ttl = options.ttlMs ?? this.options.defaultTtlMs ?? 24 * 3_600_000;
    const now = this.now();
    this.data.set(`${namespace}\u0000${key}`, {
      value: clone(value),
      storedAt: now,
      expiresAt: ttl === 0 ? null : now + ttl,
      sizeBytes: sizeOf(value),
      ...(options.etag ? { etag: options.etag } : {}),
      ...(options.meta ? { meta: clone(options.meta) } : {}),
    });
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    return this.data.delete(`${namespace}\u0000${key}`);
  }

  async keys(namespace: string, prefix = ''): Promise<string[]> {
    const head = `${namespace}\u0000${prefix}`;
    return [...this.data.keys()].filter((k) => k.startsWith(head)).map((k) => k.slice(namespace.length + 1));
  }

  async clear(namespace?: string): Promise<number> {
    let removed = 0;
    for (const key of [...this.data.keys()]) {
      if (namespace === undefined || key.startsWith(`${namespace}\u0000`)) {
        this.data.delete(key);
        removed += 1;
      }
    }
    return removed;
  }

  async stats(): Promise<CacheStats> {
    const reads = this.hits + this.misses;
    let bytes = 0;
    for (const s of this.data.values()) bytes += s.sizeBytes;
    return {
      memoryEntries: this.data.size,
      durableEntries: 0,
      durableBytes: bytes,
      hits: this.hits,
      misses: this.misses,
      hitRate: reads === 0 ? 0 : this.hits / reads,
    };
  }

  async close(): Promise<void> {}
}
