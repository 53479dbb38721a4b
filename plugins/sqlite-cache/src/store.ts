import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import {
  type CacheEntry,
  type CacheGetOptions,
  type CacheSetOptions,
  type CacheStats,
  type CacheStore,
  type CacheTierReads,
  type CacheValue,
  type CompactResult,
  createNullLogger,
  isProContextError,
  type Logger,
  type ProContextError,
} from '@pro-context/kernel';
import { errorText } from '@pro-context/plugin-kit';
import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { AUTOCHECKPOINT_PAGES, Checkpointer } from './checkpointer.js';
import { checksum, decodeValue, encodeValue, isValueKind, presentValue, type ValueKind } from './codec.js';
import { sqliteCacheMessages } from './messages.js';
import {
  parseSqliteCacheOptions,
  resolveDatabaseFile,
  type SqliteCachePluginInput,
  type SqliteCachePluginOptions,
  sqliteCacheErrors,
} from './options.js';
import { isBusyError, migrate, openWalDatabase } from './schema.js';

const MB = 1024 * 1024;
const HOUR_MS = 3_600_000;
/** The largest cache file an unwritable cache is copied into memory from (a bigger one starts empty). */
const MEMORY_COPY_MAX_BYTES = 256 * MB;
/** Eviction stops at this fraction of `maxSizeMB`, so a full cache does not evict on every write. */
const EVICT_TARGET = 0.9;
/** Access times are written in batches: after this long, or once this many are pending. */
const TOUCH_FLUSH_MS = 10_000;
/** The warning that entries in use keep the file over `maxSizeMB` is logged at most this often. */
const IN_USE_WARNING_MS = 10 * 60_000;
const TOUCH_FLUSH_COUNT = 512;
/** Access times written in one transaction when they are written in turns. */
const TOUCH_SLICE = 64;
const EVICT_BATCH = 256;
/** Separates namespace and key in memory keys; namespaces may not contain it. */
const SEP = '\u0000';
/**
 * Values larger than this are stored in parts of this size (table `parts`): SQLite copies what it is given to
 * write and assembles a value it reads, so a 40 MB index snapshot in one row cost 40 MB more on each side.
 */
export const PART_BYTES = 1024 * 1024;
/**
 * Parts written per transaction; the event loop gets a turn between transactions (other calls are answered). One:
 * four (4 MB) took 40-80 ms a transaction on the benchmark machine, a stall for the calls waiting meanwhile.
 */
const PARTS_PER_TURN = 1;
/** Parts no entry refers to (a writer died before its entry) are deleted by the cleanup once this old. */
const ORPHAN_PARTS_MS = HOUR_MS;
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** An entry as both tiers hold it. */
interface StoredEntry {
  kind: ValueKind;
  stored: string | Buffer;
  storedAt: number;
  expiresAt: number | null;
  etag: string | null;
  /** JSON text, parsed per read like the value. */
  meta: string | null;
  sizeBytes: number;
  /** What the memory copy costs, bytes (the memory tier's budget counts these). */
  heapBytes: number;
}

/**
 * Bytes a memory copy takes: a Buffer its length; a string one byte per character when its UTF-8 form is as long
 * (ASCII), else two (V8 holds a string with any character beyond Latin-1 as UTF-16).
 */
function heapBytesOf(stored: string | Buffer, utf8Bytes: number): number {
  if (typeof stored !== 'string') return stored.byteLength;
  return utf8Bytes === stored.length ? stored.length : 2 * stored.length;
}

interface EntryRow {
  kind: string;
  size: number;
  value_length: number;
  checksum: number;
  stored_at: number;
  expires_at: number | null;
  etag: string | null;
  meta: string | null;
  value: Buffer;
}

interface UpsertParams {
  namespace: string;
  key: string;
  kind: ValueKind;
  size: number;
  value_length: number;
  checksum: number;
  stored_at: number;
  expires_at: number | null;
  accessed_at: number;
  etag: string | null;
  meta: string | null;
  value: Buffer;
}

interface VictimRow {
  namespace: string;
  key: string;
  size: number;
}

/** Prepared statements, created once per connection. */
interface Statements {
  select: Database.Statement<[string, string], EntryRow>;
  expiry: Database.Statement<[string, string], { expires_at: number | null }>;
  upsert: Database.Statement<[UpsertParams]>;
  parts: Database.Statement<[number], { bytes: Buffer }>;
  addPart: Database.Statement<[number, number, Buffer]>;
  nextGroup: Database.Statement<[number, number], { group: number }>;
  orphanParts: Database.Statement<[number]>;
  remove: Database.Statement<[string, string]>;
  touch: Database.Statement<[number, string, string, number]>;
  totals: Database.Statement<[], { entries: number; bytes: number }>;
  keys: Database.Statement<[string], { key: string }>;
  keysWithPrefix: Database.Statement<{ namespace: string; prefix: string }, { key: string }>;
  clearNamespace: Database.Statement<[string]>;
  clearAll: Database.Statement<[]>;
  expiredVictims: Database.Statement<[number, number], VictimRow>;
  idleVictims: Database.Statement<[number, number], VictimRow>;
}

/** What {@link SqliteCacheStore.cleanup} did. */
export interface CleanupResult {
  /** Entries evicted to get under `maxSizeMB`. */
  evicted: number;
  /** Bytes still stored when entries in use (`keepInUseSeconds`) kept the file over `maxSizeMB`. */
  overInUse?: number;
  /** Bytes those entries held. */
  bytesFreed: number;
}

/** Collaborators of a {@link SqliteCacheStore}; all optional. */
export interface SqliteCacheStoreDependencies {
  /** Where warnings go (corrupt entries, evictions). Default: silent. */
  logger?: Logger;
  /** Current time in epoch ms. Tests pass a fake clock. */
  now?: () => number;
  /** The checkpoint worker's script (tests); `checkpoint-worker.js` beside this module by default. */
  checkpointScript?: URL;
}

/**
 * {@link CacheStore} on one SQLite file (`<directory>/cache.db`, WAL) with an in-memory LRU in front.
 *
 * Reads try memory, then SQLite; writes go to both. Several processes may share the file (WAL and a busy
 * timeout); each keeps its own memory tier, so a process may serve its in-memory copy of an entry another
 * process has since replaced, until that copy leaves its LRU. Every read returns a value of its own (JSON is
 * parsed per read, bytes copied). The database opens on {@link open} or on first use.
 */
export class SqliteCacheStore implements CacheStore {
  /** Equal to the plugin id. */
  readonly id = 'sqlite-cache';
  /** The validated options. */
  readonly options: SqliteCachePluginOptions;
  /** The database file (`':memory:'` when nothing is kept on disk). */
  readonly file: string;

  private readonly logger: Logger;
  /** Set when the cache could not be written and is served from memory (`CACHE_NOT_WRITABLE`, warned once). */
  notWritable: ProContextError | undefined;
  private readonly now: () => number;
  private readonly checkpointScript: URL | undefined;
  /** Checkpoints the write-ahead log in a worker thread (`checkpointInWorker`). */
  private checkpointer: Checkpointer | undefined;
  private readonly memory: LRUCache<string, StoredEntry>;
  private readonly maxBytes: number;
  private db: Database.Database | undefined;
  private statements: Statements | undefined;
  private writeEntry: ((params: UpsertParams) => void) | undefined;
  /** Writes parts `first`.. of a value; without a group, takes a new one (returned). */
  private writeParts: Database.Transaction<(group: number | null, first: number, bytes: Buffer) => number> | undefined;
  private closed = false;
  private hits = 0;
  private misses = 0;
  /** Reads by namespace and answering tier (`CacheStats.reads`). */
  private readonly reads = new Map<string, CacheTierReads>();
  private readonly pendingTouches = new Map<string, number>();
  private touchTimer: NodeJS.Timeout | undefined;
  private cleanupTimer: NodeJS.Timeout | undefined;
  /** Whether {@link flushTouchesInTurns} is writing access times, a slice per turn. */
  private touchSlices = false;
  /** When the last "entries in use over maxSizeMB" warning was logged. */
  private warnedOverInUse = Number.NEGATIVE_INFINITY;

  constructor(options: SqliteCachePluginInput = {}, dependencies: SqliteCacheStoreDependencies = {}) {
    this.options = parseSqliteCacheOptions(options);
    this.logger = dependencies.logger ?? createNullLogger();
    this.now = dependencies.now ?? Date.now;
    this.checkpointScript = dependencies.checkpointScript;
    this.file = resolveDatabaseFile(this.options.directory).file;
    this.maxBytes = this.options.maxSizeMB * MB;
    this.memory = new LRUCache<string, StoredEntry>({
      max: this.options.maxMemoryEntries,
      maxSize: Math.max(1, Math.floor(this.options.maxMemoryMB * MB)),
      // big values (a library's chunks, an index snapshot) are read once, when their owner loads them:
      // keeping a second copy in memory only costs RSS
      maxEntrySize: Math.max(1, Math.floor(this.options.maxMemoryEntryKB * 1024)),
      // what the copy costs in memory: a string with characters beyond Latin-1 takes two bytes per character
      sizeCalculation: (entry) => Math.max(1, entry.heapBytes),
    });
  }

  /**
   * Opens the database: creates the directory, sets WAL, applies migrations, starts the cleanup timer.
   * Idempotent. Throws `CONFIG_INVALID` when the file cannot be opened or has a newer schema.
   */
  open(): void {
    if (this.db) return;
    if (this.closed) throw closedError();
    const { directory, file } = resolveDatabaseFile(this.options.directory);
    let db: Database.Database | undefined;
    let inMemory = false;
    try {
      try {
        if (directory) {
          mkdirSync(directory, { recursive: true });
          // a file or folder this user cannot write (a read-only mount, another owner's cache): said before
          // SQLite opens it read-only behind our back and fails on the first write
          accessSync(directory, constants.W_OK);
          if (existsSync(file)) accessSync(file, constants.W_OK);
        }
        db = openWalDatabase(file, this.options.busyTimeoutMs);
        migrate(db, file);
      } catch (error) {
        db?.close();
        db = undefined;
        if (!directory || !isPermissionProblem(error)) throw error;
        db = this.openInMemory(file, error);
        inMemory = true;
      }
      this.statements = prepareStatements(db);
      const { upsert, addPart, nextGroup } = this.statements;
      this.writeEntry = db.transaction((params: UpsertParams) => {
        upsert.run(params);
      });
      this.writeParts = db.transaction((given: number | null, first: number, bytes: Buffer) => {
        // a new group is numbered from the time (ms * 1000), past any group of this millisecond in the file: chosen
        // and first used in one write transaction, so no process sharing the file can take the same number
        const base = this.now() * 1000;
        const group = given ?? (nextGroup.get(base, base)?.group as number);
        for (let n = first; n < first + PARTS_PER_TURN && n * PART_BYTES < bytes.byteLength; n++) {
          addPart.run(group, n, bytes.subarray(n * PART_BYTES, (n + 1) * PART_BYTES));
        }
        return group;
      });
    } catch (error) {
      db?.close();
      if (isProContextError(error)) throw error;
      throw sqliteCacheMessages.create(
        'CANNOT_OPEN',
        { file, why: errorText(error) },
        { details: { file }, cause: error },
      );
    }
    this.db = db;
    if (this.options.checkpointInWorker && directory && !inMemory) {
      this.checkpointer = new Checkpointer(db, file, this.options.busyTimeoutMs, this.logger, this.checkpointScript);
    } else {
      db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    }
    const minutes = this.options.cleanupIntervalMinutes;
    if (minutes > 0) {
      this.cleanupTimer = setInterval(() => this.runCleanup(), minutes * 60_000);
      this.cleanupTimer.unref();
    }
  }

  /**
   * The cache that cannot be written, as an in-memory database for this process: a copy of its file when it can be
   * read (up to {@link MEMORY_COPY_MAX_BYTES}), else empty. One warning (`CACHE_NOT_WRITABLE`) says so.
   */
  private openInMemory(file: string, cause: unknown): Database.Database {
    let copy: Buffer | undefined;
    let how = 'empty';
    try {
      const size = existsSync(file) ? statSync(file).size : 0;
      if (size > MEMORY_COPY_MAX_BYTES) how = `empty: its ${Math.round(size / MB)} MB are more than it copies`;
      else if (size > 0) {
        try {
          // read-only, through SQLite: what the WAL holds is included
          const reader = new Database(file, { readonly: true, fileMustExist: true });
          try {
            copy = reader.serialize();
          } finally {
            reader.close();
          }
        } catch {
          copy = readFileSync(file);
        }
        // a WAL database's header says so; a copy in memory has no WAL: legacy journal
        if (copy[18] === 2) copy[18] = 1;
        if (copy[19] === 2) copy[19] = 1;
        how = 'a copy of what it holds, read-only on disk';
      }
    } catch {
      copy = undefined;
      how = 'empty: it could not be read either';
    }
    let db: Database.Database;
    try {
      db = copy ? new Database(copy) : new Database(':memory:');
      migrate(db, file);
    } catch (error) {
      // a copy that is no database (or of a newer schema): an empty one
      if (!copy) throw error;
      how = `empty: its copy could not be opened (${errorText(error)})`;
      db = new Database(':memory:');
      migrate(db, file);
    }
    const warning = sqliteCacheErrors.create(
      'CACHE_NOT_WRITABLE',
      { file, reason: errorText(cause), how },
      { details: { file }, cause },
    );
    this.logger?.warn(warning.message, { error: warning.toPayload() });
    this.notWritable = warning;
    return db;
  }

  async get<T = CacheValue>(
    namespace: string,
    key: string,
    options: CacheGetOptions = {},
  ): Promise<CacheEntry<T> | undefined> {
    checkName(namespace, key);
    const id = memoryKey(namespace, key);
    const now = this.now();
    let entry = this.memory.get(id);
    let tier: 'memoryHits' | 'durableHits' = 'memoryHits';
    // An expired memory copy sends the read to SQLite: another process may have refreshed the entry there.
    if (!entry || isExpired(entry, now)) {
      tier = 'durableHits';
      entry = this.readDurable(namespace, key);
      if (!entry) this.memory.delete(id);
      else if (options.memory !== false && (options.allowStale || !isExpired(entry, now))) this.memory.set(id, entry);
    }
    let reads = this.reads.get(namespace);
    if (!reads) {
      reads = { namespace, memoryHits: 0, durableHits: 0, misses: 0 };
      this.reads.set(namespace, reads);
    }
    if (!entry || (!options.allowStale && isExpired(entry, now))) {
      this.misses++;
      reads.misses++;
      return undefined;
    }
    this.hits++;
    reads[tier]++;
    this.touch(id, now);
    // bytes just read and not kept in the memory tier are the reader's own: no copy
    return toCacheEntry<T>(entry, now, tier === 'durableHits' && this.memory.peek(id) !== entry);
  }

  async set<T = CacheValue>(namespace: string, key: string, value: T, options: CacheSetOptions = {}): Promise<void> {
    checkName(namespace, key);
    if (options.ttlMs !== undefined && !(Number.isFinite(options.ttlMs) && options.ttlMs >= 0)) {
      throw new TypeError(`ttlMs must be a finite number >= 0 (0 = never expires); got ${options.ttlMs}.`);
    }
    const encoded = encodeValue(value, options.memory !== false);
    const metaText = options.meta === undefined ? null : JSON.stringify(options.meta);
    const now = this.now();
    const ttlMs = options.ttlMs ?? this.defaultTtlMs(namespace);
    const expiresAt = ttlMs === 0 ? null : now + ttlMs;
    const sizeBytes =
      encoded.bytes.byteLength +
      Buffer.byteLength(key) +
      (metaText === null ? 0 : Buffer.byteLength(metaText)) +
      (options.etag === undefined ? 0 : Buffer.byteLength(options.etag));
    this.ensureOpen();
    const sum = checksum(encoded.bytes);
    let row = encoded.bytes;
    if (row.byteLength > PART_BYTES) {
      // the parts first, a few per transaction with a turn between (a 40 MB value is not one long stall), then
      // the entry naming their group: readers see the old value or the new one, never a part of it
      // (the first transaction takes the group: IMMEDIATE, so its read of the numbers in use is still true when
      // it writes)
      const group = this.writeParts!.immediate(null, 0, row);
      for (let first = PARTS_PER_TURN; first * PART_BYTES < row.byteLength; first += PARTS_PER_TURN) {
        await turn();
        this.ensureOpen();
        this.writeParts!(group, first, row);
      }
      row = Buffer.from(String(group));
    }
    this.writeEntry!({
      namespace,
      key,
      kind: encoded.kind,
      size: sizeBytes,
      value_length: encoded.bytes.byteLength,
      checksum: sum,
      stored_at: now,
      expires_at: expiresAt,
      accessed_at: now,
      etag: options.etag ?? null,
      meta: metaText,
      value: row,
    });
    const id = memoryKey(namespace, key);
    this.pendingTouches.delete(id);
    if (options.memory === false) this.memory.delete(id);
    else
      this.memory.set(id, {
        kind: encoded.kind,
        stored: encoded.stored,
        storedAt: now,
        expiresAt,
        etag: options.etag ?? null,
        meta: metaText,
        sizeBytes,
        heapBytes: heapBytesOf(encoded.stored, encoded.bytes.byteLength) + (metaText?.length ?? 0),
      });
    this.checkpointer?.wrote(encoded.bytes.byteLength);
    this.enforceSizeLimit();
  }

  /** When the entry expires (`null`: never), from its row alone: its value is not read (a manifest is megabytes). */
  async expiresAt(namespace: string, key: string): Promise<number | null | undefined> {
    checkName(namespace, key);
    return this.stmts().expiry.get(namespace, key)?.expires_at;
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    checkName(namespace, key);
    const id = memoryKey(namespace, key);
    const inMemory = this.memory.delete(id);
    this.pendingTouches.delete(id);
    return this.stmts().remove.run(namespace, key).changes > 0 || inMemory;
  }

  async keys(namespace: string, prefix?: string): Promise<string[]> {
    checkName(namespace, prefix ?? '');
    const stmts = this.stmts();
    const rows = prefix ? stmts.keysWithPrefix.all({ namespace, prefix }) : stmts.keys.all(namespace);
    return rows.map((row) => row.key);
  }

  async clear(namespace?: string): Promise<number> {
    if (namespace !== undefined) checkName(namespace, '');
    const stmts = this.stmts();
    const removed = namespace === undefined ? stmts.clearAll.run() : stmts.clearNamespace.run(namespace);
    if (namespace === undefined) {
      this.memory.clear();
      this.pendingTouches.clear();
    } else {
      const prefix = `${namespace}${SEP}`;
      for (const id of [...this.memory.keys()]) if (id.startsWith(prefix)) this.memory.delete(id);
      for (const id of [...this.pendingTouches.keys()]) if (id.startsWith(prefix)) this.pendingTouches.delete(id);
    }
    return removed.changes;
  }

  async stats(): Promise<CacheStats> {
    const totals = this.stmts().totals.get() ?? { entries: 0, bytes: 0 };
    const reads = this.hits + this.misses;
    return {
      memoryEntries: this.memory.size,
      durableEntries: totals.entries,
      durableBytes: totals.bytes,
      hits: this.hits,
      misses: this.misses,
      hitRate: reads === 0 ? 0 : this.hits / reads,
      reads: [...this.reads.values()].map((r) => ({ ...r })),
      fileBytes: this.fileBytes(),
      freeBytes: this.freeBytes(),
    };
  }

  /**
   * Gives the pages no entry uses back to the file system: `VACUUM` rewrites the database without them, and a
   * checkpoint truncates the write-ahead log. Other processes may keep reading meanwhile; one writing waits
   * (`busyTimeoutMs`) or makes this fail with the cache's busy error. Takes about a second per 100 MB kept.
   */
  async compact(): Promise<CompactResult> {
    const db = this.ensureOpen();
    this.flushTouches();
    const fileBytesBefore = this.fileBytes();
    try {
      db.exec('VACUUM');
      // (a reader in another process may hold the log: then it is truncated at a later checkpoint)
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch (error) {
      if (!isBusyError(error)) throw error;
      throw sqliteCacheErrors.create(
        'CACHE_BUSY',
        { file: this.file, what: 'compacted' },
        { cause: error, retryAfter: 5 },
      );
    }
    return { fileBytesBefore, fileBytesAfter: this.fileBytes() };
  }

  /** Bytes of the database file and its write-ahead log on disk. */
  private fileBytes(): number {
    let bytes = 0;
    for (const file of [this.file, `${this.file}-wal`]) {
      try {
        bytes += statSync(file).size;
      } catch {
        // no log (yet)
      }
    }
    return bytes;
  }

  /** Bytes of the database's free pages. */
  private freeBytes(): number {
    const db = this.ensureOpen();
    return (
      (db.pragma('freelist_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number)
    );
  }

  /**
   * Writes pending access times and evicts down to 90 % of `maxSizeMB` if the file is over it (expired
   * entries first, oldest expiry first; then least recently accessed). Runs every `cleanupIntervalMinutes`
   * and after writes; exposed for admin tools and tests.
   */
  async cleanup(): Promise<CleanupResult> {
    this.ensureOpen();
    this.flushTouches();
    this.stmts().orphanParts.run((this.now() - ORPHAN_PARTS_MS) * 1000);
    return this.evict(true);
  }

  /** Writes pending access times, checkpoints the WAL and closes the database. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.cleanupTimer);
    clearTimeout(this.touchTimer);
    await this.checkpointer?.stop();
    this.checkpointer = undefined;
    const db = this.db;
    if (db) {
      try {
        this.flushTouches();
        // PASSIVE: never waits for another process's readers; close() itself checkpoints fully when last out.
        db.pragma('wal_checkpoint(PASSIVE)');
      } catch (error) {
        this.logger.warn('cache: could not flush before closing', { file: this.file, error: errorText(error) });
      }
      db.close();
    }
    this.db = undefined;
    this.statements = undefined;
    this.memory.clear();
    this.pendingTouches.clear();
  }

  private ensureOpen(): Database.Database {
    if (this.closed) throw closedError();
    if (!this.db) this.open();
    return this.db!;
  }

  private stmts(): Statements {
    this.ensureOpen();
    return this.statements!;
  }

  private defaultTtlMs(namespace: string): number {
    const overrides = this.options.ttlHours as Record<string, number | undefined>;
    const hours = Object.hasOwn(overrides, namespace) ? overrides[namespace] : undefined;
    return (hours ?? this.options.defaultTTLHours) * HOUR_MS;
  }

  /** Reads and verifies a row; a row whose bytes do not match its checksum is deleted and reported as a miss. */
  private readDurable(namespace: string, key: string): StoredEntry | undefined {
    const stmts = this.stmts();
    const row = stmts.select.get(namespace, key);
    if (!row) return undefined;
    try {
      if (!isValueKind(row.kind)) throw new Error(`unknown value kind '${row.kind}'`);
      const value = row.value.byteLength < row.value_length ? this.readParts(row) : row.value;
      if (value.byteLength !== row.value_length || checksum(value) !== row.checksum) {
        throw new Error('value does not match its stored length and checksum');
      }
      const stored = decodeValue(row.kind, value);
      return {
        kind: row.kind,
        stored,
        storedAt: row.stored_at,
        expiresAt: row.expires_at,
        etag: row.etag,
        meta: row.meta,
        sizeBytes: row.size,
        heapBytes: heapBytesOf(stored, value.byteLength) + (row.meta?.length ?? 0),
      };
    } catch (error) {
      this.logger.warn('cache: dropped a corrupt entry', {
        namespace,
        key,
        file: this.file,
        error: errorText(error),
      });
      stmts.remove.run(namespace, key);
      return undefined;
    }
  }

  /** A value stored in parts, put together (a part missing or too long makes it shorter or refused). */
  private readParts(row: EntryRow): Buffer {
    const group = Number(row.value.toString('latin1'));
    if (!Number.isSafeInteger(group)) throw new Error('value parts of an unreadable group');
    const value = Buffer.allocUnsafe(row.value_length);
    let at = 0;
    for (const { bytes } of this.stmts().parts.iterate(group)) {
      if (at + bytes.byteLength > value.byteLength) throw new Error('value parts longer than its stored length');
      value.set(bytes, at);
      at += bytes.byteLength;
    }
    return value.subarray(0, at);
  }

  /** Records an access; written in batches because a write per read would cost more than the read. */
  private touch(id: string, now: number): void {
    this.pendingTouches.set(id, now);
    if (this.pendingTouches.size >= TOUCH_FLUSH_COUNT) {
      this.flushTouchesInTurns();
    } else if (!this.touchTimer) {
      this.touchTimer = setTimeout(() => this.flushTouchesInTurns(), TOUCH_FLUSH_MS);
      this.touchTimer.unref();
    }
  }

  /**
   * Writes the pending access times {@link TOUCH_SLICE} at a time, one transaction each, with a turn of the event
   * loop between them: 512 in one transaction held the thread for 45-55 ms on the 100-library benchmark (every
   * answer waiting behind it), a slice takes a few.
   */
  private flushTouchesInTurns(): void {
    clearTimeout(this.touchTimer);
    this.touchTimer = undefined;
    if (this.touchSlices) return;
    this.touchSlices = true;
    const next = () => {
      try {
        if (this.pendingTouches.size === 0 || !this.db || !this.statements) {
          this.touchSlices = false;
          return;
        }
        const slice: [string, number][] = [];
        for (const entry of this.pendingTouches) {
          slice.push(entry);
          if (slice.length >= TOUCH_SLICE) break;
        }
        for (const [id] of slice) this.pendingTouches.delete(id);
        this.writeTouches(slice);
        setImmediate(next);
      } catch (error) {
        this.touchSlices = false;
        this.logger.warn('cache: could not record access times', { file: this.file, error: errorText(error) });
      }
    };
    setImmediate(next);
  }

  private flushTouches(): void {
    clearTimeout(this.touchTimer);
    this.touchTimer = undefined;
    if (this.pendingTouches.size === 0 || !this.db || !this.statements) return;
    const pending = [...this.pendingTouches];
    this.pendingTouches.clear();
    this.writeTouches(pending);
  }

  /** Writes access times in one transaction. */
  private writeTouches(pending: readonly (readonly [string, number])[]): void {
    const touch = this.statements!.touch;
    this.db!.transaction(() => {
      for (const [id, at] of pending) {
        const cut = id.indexOf(SEP);
        touch.run(at, id.slice(0, cut), id.slice(cut + 1), at);
      }
    })();
  }

  private enforceSizeLimit(): void {
    const totals = this.statements!.totals.get();
    if (totals && totals.bytes > this.maxBytes) {
      this.flushTouches();
      this.evict(false);
    }
  }

  private evict(logAlways: boolean): CleanupResult {
    const stmts = this.statements!;
    const result = this.db!.transaction((): CleanupResult => {
      let bytes = stmts.totals.get()?.bytes ?? 0;
      const outcome: CleanupResult = { evicted: 0, bytesFreed: 0 };
      if (bytes <= this.maxBytes) return outcome;
      const target = this.maxBytes * EVICT_TARGET;
      const inUseSince = this.now() - this.options.keepInUseSeconds * 1000;
      const phases = [
        () => stmts.expiredVictims.all(this.now(), EVICT_BATCH),
        () => stmts.idleVictims.all(inUseSince, EVICT_BATCH),
      ];
      for (const next of phases) {
        while (bytes > target) {
          const victims = next();
          if (victims.length === 0) break;
          for (const victim of victims) {
            stmts.remove.run(victim.namespace, victim.key);
            this.memory.delete(memoryKey(victim.namespace, victim.key));
            bytes -= victim.size;
            outcome.evicted++;
            outcome.bytesFreed += victim.size;
            if (bytes <= target) break;
          }
        }
      }
      if (bytes > this.maxBytes) outcome.overInUse = bytes;
      return outcome;
    }).immediate();
    if (result.evicted > 0 || logAlways) {
      this.logger.info('cache: evicted entries over maxSizeMB', { file: this.file, ...result });
    }
    const overInUse = result.overInUse;
    if (overInUse !== undefined && this.now() - this.warnedOverInUse >= IN_USE_WARNING_MS) {
      this.warnedOverInUse = this.now();
      this.logger.warn(
        `cache: the entries in use (read or written in the last ${this.options.keepInUseSeconds} s) take more than cache.maxSizeMB (${this.options.maxSizeMB} MB); they are kept, over the budget. Raise cache.maxSizeMB.`,
        { file: this.file, mb: Math.round((overInUse / MB) * 10) / 10, maxSizeMB: this.options.maxSizeMB },
      );
    }
    return result;
  }

  private runCleanup(): void {
    this.cleanup().catch((error: unknown) => {
      this.logger.warn('cache: periodic cleanup failed', { file: this.file, error: errorText(error) });
    });
  }
}

function prepareStatements(db: Database.Database): Statements {
  return {
    select: db.prepare(
      `SELECT kind, size, value_length, checksum, stored_at, expires_at, etag, meta, value
       FROM entries WHERE namespace = ? AND key = ?`,
    ),
    expiry: db.prepare('SELECT expires_at FROM entries WHERE namespace = ? AND key = ?'),
    upsert: db.prepare(
      `INSERT INTO entries
         (namespace, key, kind, size, value_length, checksum, stored_at, expires_at, accessed_at, etag, meta, value)
       VALUES
         (@namespace, @key, @kind, @size, @value_length, @checksum, @stored_at, @expires_at, @accessed_at, @etag, @meta, @value)
       ON CONFLICT (namespace, key) DO UPDATE SET
         kind = excluded.kind, size = excluded.size, value_length = excluded.value_length,
         checksum = excluded.checksum, stored_at = excluded.stored_at, expires_at = excluded.expires_at,
         accessed_at = excluded.accessed_at, etag = excluded.etag, meta = excluded.meta, value = excluded.value`,
    ),
    parts: db.prepare('SELECT bytes FROM parts WHERE value_group = ? ORDER BY n'),
    addPart: db.prepare('INSERT INTO parts (value_group, n, bytes) VALUES (?, ?, ?)'),
    nextGroup: db.prepare('SELECT COALESCE(MAX(value_group) + 1, ?) AS "group" FROM parts WHERE value_group >= ?'),
    // groups begun before the given number that no entry names
    orphanParts: db.prepare(
      `DELETE FROM parts WHERE value_group < ? AND value_group NOT IN (
         SELECT CAST(CAST(value AS TEXT) AS INTEGER) FROM entries WHERE length(value) < value_length)`,
    ),
    remove: db.prepare('DELETE FROM entries WHERE namespace = ? AND key = ?'),
    touch: db.prepare('UPDATE entries SET accessed_at = ? WHERE namespace = ? AND key = ? AND accessed_at < ?'),
    totals: db.prepare('SELECT entries, bytes FROM totals WHERE id = 1'),
    keys: db.prepare('SELECT key FROM entries WHERE namespace = ? ORDER BY key'),
    // The range start uses the (namespace, key) index; substr() then keeps only real prefix matches.
    keysWithPrefix: db.prepare(
      `SELECT key FROM entries
       WHERE namespace = @namespace AND key >= @prefix AND substr(key, 1, length(@prefix)) = @prefix
       ORDER BY key`,
    ),
    clearNamespace: db.prepare('DELETE FROM entries WHERE namespace = ?'),
    clearAll: db.prepare('DELETE FROM entries'),
    expiredVictims: db.prepare(
      `SELECT namespace, key, size FROM entries
       WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?`,
    ),
    // least recently accessed first, none accessed since the given time (in use)
    idleVictims: db.prepare(
      'SELECT namespace, key, size FROM entries WHERE accessed_at < ? ORDER BY accessed_at LIMIT ?',
    ),
  };
}

function memoryKey(namespace: string, key: string): string {
  return `${namespace}${SEP}${key}`;
}

function checkName(namespace: string, key: string): void {
  if (typeof namespace !== 'string' || namespace.length === 0 || namespace.includes(SEP)) {
    throw new TypeError(
      `Cache namespace must be a non-empty string without NUL characters; got ${JSON.stringify(namespace)}.`,
    );
  }
  if (typeof key !== 'string') throw new TypeError(`Cache key must be a string; got ${typeof key}.`);
}

function isExpired(entry: StoredEntry, now: number): boolean {
  return entry.expiresAt !== null && entry.expiresAt <= now;
}

function toCacheEntry<T>(entry: StoredEntry, now: number, own = false): CacheEntry<T> {
  return {
    value: presentValue(entry.kind, entry.stored, own) as T,
    storedAt: entry.storedAt,
    expiresAt: entry.expiresAt,
    stale: isExpired(entry, now),
    ...(entry.etag === null ? {} : { etag: entry.etag }),
    ...(entry.meta === null ? {} : { meta: JSON.parse(entry.meta) as Record<string, unknown> }),
    sizeBytes: entry.sizeBytes,
  };
}

function closedError(): ProContextError {
  return sqliteCacheMessages.create('CLOSED', {});
}

/**
 * Whether opening the cache failed because this user may not write there (a permission, a read-only file system,
 * a path through a regular file), not because the file is bad.
 */
function isPermissionProblem(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') {
    if (['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST'].includes(code)) return true;
    if (/^SQLITE_(READONLY|CANTOPEN|PERM|AUTH)/.test(code)) return true;
  }
  return /readonly database|read-only file system|permission denied|unable to open database file/i.test(
    errorText(error),
  );
}
