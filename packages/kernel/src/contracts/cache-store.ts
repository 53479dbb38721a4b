import { createToken } from './token.js';

/** Values a cache holds: JSON-serializable data or raw bytes. */
export type CacheValue = unknown;

/** A cached value and what is known about it. */
export interface CacheEntry<T = CacheValue> {
  value: T;
  /** Epoch ms when written. */
  storedAt: number;
  /** Epoch ms after which the entry is stale; `null` = never. */
  expiresAt: number | null;
  /** Past `expiresAt` (only returned with `allowStale`). */
  stale: boolean;
  /** Validator of the origin response (ETag), when known. */
  etag?: string;
  /** Small metadata stored beside the value. */
  meta?: Record<string, unknown>;
  /** Approximate stored size in bytes. */
  sizeBytes: number;
}

/** Options of a write. */
export interface CacheSetOptions {
  /** Time to live in ms. Default: the store's TTL for the namespace. `0` = never expires. */
  ttlMs?: number;
  etag?: string;
  meta?: Record<string, unknown>;
  /**
   * Whether a store with a memory tier in front of its durable one may keep this value there. `false` for values
   * the caller keeps in a form of its own or reads once (a library's chunk blocks, an index snapshot): the store
   * writes it through to the durable tier and drops any copy it held in memory. Default `true`; a store without a
   * memory tier ignores it.
   */
  memory?: boolean;
}

/** Options of a read. */
export interface CacheGetOptions {
  /** Return an expired entry (marked `stale: true`) instead of nothing. */
  allowStale?: boolean;
  /**
   * `false`: a value read from the durable tier is not added to the memory tier (a copy already there still
   * answers). Default `true`; a store without a memory tier ignores it.
   */
  memory?: boolean;
}

/** Counters for `pro-context://health`. */
export interface CacheStats {
  memoryEntries: number;
  durableEntries: number;
  durableBytes: number;
  hits: number;
  misses: number;
  /** hits / (hits + misses), 0 when nothing was read. */
  hitRate: number;
  /**
   * Reads since start by namespace and by the tier that answered: the memory tier, the durable tier (a
   * memory miss found on disk), or neither (a miss: the engine then fetches upstream). Optional: a store
   * that does not count them leaves it out.
   */
  reads?: CacheTierReads[];
  /**
   * Bytes the store's files take on disk (a store kept in files; `durableBytes` counts its entries only), and how
   * many of them no entry uses: space later writes reuse, which {@link CacheStore.compact} gives back.
   */
  fileBytes?: number;
  freeBytes?: number;
}

/** What {@link CacheStore.compact} did: the store's files on disk before and after. */
export interface CompactResult {
  fileBytesBefore: number;
  fileBytesAfter: number;
}

/** Reads of one namespace by the tier that answered them (see {@link CacheStats.reads}). */
export interface CacheTierReads {
  namespace: string;
  memoryHits: number;
  durableHits: number;
  misses: number;
}

/**
 * Namespaced key-value storage with TTLs and stale reads.
 *
 * Namespaces used by the engine: `versions` (1 h), `toc`, `docs`, `pages`, `chunks`, `index` (snapshots),
 * `answers`. A write is atomic: a reader sees the old entry or the new one, never half of one.
 */
export interface CacheStore {
  /** Stable id, equal to the plugin id (`'sqlite-cache'`). */
  readonly id: string;
  get<T = CacheValue>(namespace: string, key: string, options?: CacheGetOptions): Promise<CacheEntry<T> | undefined>;
  set<T = CacheValue>(namespace: string, key: string, value: T, options?: CacheSetOptions): Promise<void>;
  delete(namespace: string, key: string): Promise<boolean>;
  /**
   * When the entry expires (epoch ms; `null` = never), without reading its value; `undefined` when there is no
   * such entry. Optional: without it, a caller reads the entry (a large value costs its size to read).
   */
  expiresAt?(namespace: string, key: string): Promise<number | null | undefined>;
  /** Keys in a namespace, optionally only those starting with `prefix`. */
  keys(namespace: string, prefix?: string): Promise<string[]>;
  /** Removes every entry of a namespace (or of all namespaces); returns how many. */
  clear(namespace?: string): Promise<number>;
  stats(): Promise<CacheStats>;
  /**
   * Gives the space no entry uses back to the file system (after a clear or evictions, a database file keeps its
   * size and reuses the space). Optional: a store without files leaves it out.
   */
  compact?(): Promise<CompactResult>;
  close(): Promise<void>;
}

/** Singular contract: one cache store per kernel. */
export const cacheStoreToken = createToken<CacheStore>('kernel.cacheStore');
