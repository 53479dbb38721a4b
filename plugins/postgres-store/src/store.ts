import type {
  CacheEntry,
  CacheGetOptions,
  CacheSetOptions,
  CacheStats,
  CacheStore,
  CacheTierReads,
  CacheValue,
  Logger,
} from '@pro-context/kernel';
import type { Database } from './database.js';
import type { PostgresStorePluginOptions } from './options.js';
import { migrations } from './schema.js';

type Kind = 'json' | 'string' | 'buffer' | 'bytes';

interface EntryRow {
  kind: Kind;
  value: Buffer;
  etag: string | null;
  meta: Record<string, unknown> | null;
  stored_at: number;
  expires_at: number | null;
  size_bytes: number;
}

const HOUR = 3_600_000;

/** Strings as UTF-8 text, bytes verbatim, anything else as JSON text. */
function encode(value: unknown): { kind: Kind; bytes: Buffer } {
  if (typeof value === 'string') return { kind: 'string', bytes: Buffer.from(value, 'utf8') };
  if (value instanceof Uint8Array) {
    return {
      kind: Buffer.isBuffer(value) ? 'buffer' : 'bytes',
      bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength),
    };
  }
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    throw new TypeError(
      'Cache values may be JSON data, a string, a Buffer or a Uint8Array; convert other binary data to a Uint8Array.',
    );
  }
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`Cache values must be JSON-serializable; got ${typeof value}.`);
  return { kind: 'json', bytes: Buffer.from(text, 'utf8') };
}

/** A value of the reader's own (every read decodes a fresh copy from the row). */
function decode(kind: Kind, bytes: Buffer): unknown {
  switch (kind) {
    case 'json':
      return JSON.parse(bytes.toString('utf8'));
    case 'string':
      return bytes.toString('utf8');
    case 'buffer':
      return bytes;
    case 'bytes':
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
}

/**
 * The {@link CacheStore} on PostgreSQL, shared by every replica: one row per entry (`cache_entries`), values as
 * `bytea` (PostgreSQL stores large ones out of line, compressed), so an index snapshot written by one replica is
 * read by the others instead of fetching and indexing again. No memory tier: a replica would serve its copy after
 * another replica replaced the entry; the engine keeps what it uses in memory in its own form, and the HTTP
 * host's answer memo is invalidated across replicas by the revisions (LISTEN/NOTIFY).
 *
 * Writes are single `INSERT … ON CONFLICT DO UPDATE` statements: a reader sees the old row or the new one.
 */
export class PostgresCacheStore implements CacheStore {
  readonly id = 'postgres-store';
  private hits = 0;
  private misses = 0;
  private readonly reads = new Map<string, CacheTierReads>();
  private readonly table: string;

  constructor(
    private readonly db: Database,
    private readonly options: Pick<PostgresStorePluginOptions, 'defaultTTLHours' | 'ttlHours' | 'maxSizeMB'>,
    private readonly logger?: Logger,
  ) {
    this.table = db.table('cache_entries');
  }

  /** Creates or upgrades the schema (every method does it on first use). */
  open(): Promise<void> {
    return this.db.migrate(migrations);
  }

  private ttlMs(namespace: string, ttlMs: number | undefined): number {
    if (ttlMs !== undefined) return ttlMs;
    const hours = (this.options.ttlHours as Record<string, number | undefined>)[namespace];
    return (hours ?? this.options.defaultTTLHours) * HOUR;
  }

  private count(namespace: string, tier: 'durableHits' | 'misses'): void {
    let reads = this.reads.get(namespace);
    if (!reads) {
      reads = { namespace, memoryHits: 0, durableHits: 0, misses: 0 };
      this.reads.set(namespace, reads);
    }
    reads[tier] += 1;
    if (tier === 'misses') this.misses += 1;
    else this.hits += 1;
  }

  async get<T = CacheValue>(
    namespace: string,
    key: string,
    options: CacheGetOptions = {},
  ): Promise<CacheEntry<T> | undefined> {
    await this.open();
    const { rows } = await this.db.query<EntryRow>(
      `SELECT kind, value, etag, meta, stored_at, expires_at, size_bytes FROM ${this.table} WHERE namespace = $1 AND key = $2`,
      [namespace, key],
    );
    const row = rows[0];
    const stale = row !== undefined && row.expires_at !== null && row.expires_at <= Date.now();
    if (!row || (stale && !options.allowStale)) {
      this.count(namespace, 'misses');
      return undefined;
    }
    this.count(namespace, 'durableHits');
    return {
      value: decode(row.kind, row.value) as T,
      storedAt: row.stored_at,
      expiresAt: row.expires_at,
      stale,
      ...(row.etag !== null ? { etag: row.etag } : {}),
      ...(row.meta !== null ? { meta: row.meta } : {}),
      sizeBytes: row.size_bytes,
    };
  }

  async set<T = CacheValue>(namespace: string, key: string, value: T, options: CacheSetOptions = {}): Promise<void> {
    const { kind, bytes } = encode(value);
    await this.open();
    const now = Date.now();
    const ttl = this.ttlMs(namespace, options.ttlMs);
    await this.db.query(
      `INSERT INTO ${this.table} (namespace, key, kind, value, etag, meta, stored_at, expires_at, size_bytes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (namespace, key) DO UPDATE SET kind = excluded.kind, value = excluded.value, etag = excluded.etag,
         meta = excluded.meta, stored_at = excluded.stored_at, expires_at = excluded.expires_at,
         size_bytes = excluded.size_bytes`,
      [
        namespace,
        key,
        kind,
        bytes,
        options.etag ?? null,
        options.meta === undefined ? null : JSON.stringify(options.meta),
        now,
        ttl === 0 ? null : now + ttl,
        bytes.byteLength + key.length + namespace.length,
      ],
    );
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    await this.open();
    const { rowCount } = await this.db.query(`DELETE FROM ${this.table} WHERE namespace = $1 AND key = $2`, [
      namespace,
      key,
    ]);
    return (rowCount ?? 0) > 0;
  }

  async expiresAt(namespace: string, key: string): Promise<number | null | undefined> {
    await this.open();
    const { rows } = await this.db.query<{ expires_at: number | null }>(
      `SELECT expires_at FROM ${this.table} WHERE namespace = $1 AND key = $2`,
      [namespace, key],
    );
    return rows[0] ? rows[0].expires_at : undefined;
  }

  async keys(namespace: string, prefix = ''): Promise<string[]> {
    await this.open();
    const { rows } = await this.db.query<{ key: string }>(
      `SELECT key FROM ${this.table} WHERE namespace = $1 AND starts_with(key, $2) ORDER BY key`,
      [namespace, prefix],
    );
    return rows.map((r) => r.key);
  }

  async clear(namespace?: string): Promise<number> {
    await this.open();
    const { rowCount } =
      namespace === undefined
        ? await this.db.query(`DELETE FROM ${this.table}`)
        : await this.db.query(`DELETE FROM ${this.table} WHERE namespace = $1`, [namespace]);
    return rowCount ?? 0;
  }

  async stats(): Promise<CacheStats> {
    await this.open();
    const { rows } = await this.db.query<{ entries: number; bytes: number }>(
      `SELECT count(*)::int8 AS entries, coalesce(sum(size_bytes), 0)::int8 AS bytes FROM ${this.table}`,
    );
    const total = this.hits + this.misses;
    return {
      memoryEntries: 0,
      durableEntries: rows[0]?.entries ?? 0,
      durableBytes: rows[0]?.bytes ?? 0,
      hits: this.hits,
      misses: this.misses,
      hitRate: total === 0 ? 0 : this.hits / total,
      reads: [...this.reads.values()].map((r) => ({ ...r })),
    };
  }

  /**
   * Keeps the cache within `maxSizeMB`: expired entries first (oldest expiry first), then the oldest written,
   * in batches. Run by one replica at a time (the plugin holds the `cache-cleanup` lease around it).
   */
  async cleanup(): Promise<{ deleted: number; bytes: number }> {
    await this.open();
    const budget = this.options.maxSizeMB * 1024 * 1024;
    const { rows } = await this.db.query<{ bytes: number }>(
      `SELECT coalesce(sum(size_bytes), 0)::int8 AS bytes FROM ${this.table}`,
    );
    const bytes = rows[0]?.bytes ?? 0;
    if (bytes <= budget) return { deleted: 0, bytes };
    // one statement: entries in eviction order, deleted while what is deleted before each is short of the excess
    const { rowCount } = await this.db.query(
      `DELETE FROM ${this.table} WHERE (namespace, key) IN (
         SELECT namespace, key FROM (
           SELECT namespace, key, size_bytes, sum(size_bytes) OVER (
             ORDER BY (expires_at IS NOT NULL AND expires_at <= $1) DESC, stored_at, namespace, key) AS running
           FROM ${this.table}) AS ordered
         WHERE running - size_bytes < $2)`,
      [Date.now(), bytes - budget],
    );
    const deleted = rowCount ?? 0;
    if (deleted > 0) this.logger?.info(`postgres-store: removed ${deleted} entries to stay within cache.maxSizeMB`);
    const after = await this.db.query<{ bytes: number }>(
      `SELECT coalesce(sum(size_bytes), 0)::int8 AS bytes FROM ${this.table}`,
    );
    return { deleted, bytes: after.rows[0]?.bytes ?? 0 };
  }

  async close(): Promise<void> {
    // the pool is the plugin's (shared with the access store and the leases): it closes it
  }
}
