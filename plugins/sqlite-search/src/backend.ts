import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type {
  IndexableChunk,
  IndexKey,
  Logger,
  SearchBackend,
  SearchOptions,
  SearchResults,
} from '@pro-context/kernel';
import { expandHome, retrySync } from '@pro-context/plugin-kit';
import Database from 'better-sqlite3';
import { ANALYSIS, FTS5_TOKENIZER, ftsString, indexText, queryTerms } from './analysis.js';

/** Whether better-sqlite3 failed because another connection holds a lock (`SQLITE_BUSY` and its variants). */
const isBusy = (error: unknown): boolean =>
  String((error as { code?: unknown } | null)?.code).startsWith('SQLITE_BUSY');

/** Column weights of `bm25()`. */
export interface SqliteSearchBoost {
  title: number;
  headings: number;
  body: number;
}

/** Settings of {@link SqliteSearchBackend}. */
export interface SqliteSearchBackendOptions {
  /** Directory of `search.db`, or `':memory:'`. */
  directory: string;
  boost: SqliteSearchBoost;
  /** SQLite page cache, MB. */
  cacheSizeMB: number;
  /** `coverage`: share of the query's terms first, BM25 second (as Orama's backend); `bm25`: bm25() alone. */
  rank: 'coverage' | 'bm25';
  busyTimeoutMs: number;
}

/** What {@link SqliteSearchBackend}'s constructor takes: anything left out takes its default. */
export type SqliteSearchBackendInput = Partial<Omit<SqliteSearchBackendOptions, 'boost'>> & {
  boost?: Partial<SqliteSearchBoost>;
};

/** Defaults of {@link SqliteSearchBackendOptions}. */
export const defaultSqliteSearchBackendOptions: Readonly<SqliteSearchBackendOptions> = Object.freeze({
  directory: '~/.pro-context/cache',
  boost: Object.freeze({ title: 1, headings: 1, body: 1 }),
  cacheSizeMB: 16,
  rank: 'coverage',
  busyTimeoutMs: 5000,
});

/** Identifies the marker {@link SqliteSearchBackend.snapshot} returns. */
const SNAPSHOT_FORMAT = 'pro-context/sqlite-search';
const SNAPSHOT_VERSION = 1;
const DEFAULT_LIMIT = 10;
// Chunks ranked by bm25() that the coverage ranking reorders: this many times the limit, at least the floor.
const CANDIDATES_PER_HIT = 5;
const MIN_CANDIDATES = 100;
// Share of BM25 (relative to the best candidate) beside the coverage of the query's terms: Orama's backend's.
const BM25_SHARE = 0.3;
/** Indexes with more chunks than this rank by their query's rarer words only (see `rarestTerms`). */
const LARGE_INDEX_CHUNKS = 20_000;
/** In a large index, a word in more than this share of the chunks is left out of the ranking… */
const COMMON_TERM_SHARE = 0.05;
/** …unless it is among this many rarest words of the query. */
const MIN_RANKING_TERMS = 2;
/** `total` is exact up to this many matching chunks, and this number beyond. */
export const MAX_TOTAL = 10_000;
// Rows inserted between two yields to the event loop while building, so searches keep being served.
const INSERT_SLICE = 2000;

interface Marker {
  format: string;
  version: number;
  build: string;
  chunks: number;
}

/** One row of the `indexes` registry table. */
interface IndexRow {
  key: string;
  tbl: number;
  build: string;
  chunks: number;
  analysis: string;
}

interface Statements {
  search: Database.Statement<[string, number], { rowid: number; id: string; score: number }>;
  count: Database.Statement<[string], { total: number }>;
  /** Number of chunks containing one term (plucked). */
  df: Database.Statement<[string], number>;
  /** Row ids of the chunks containing one term (plucked). */
  posting: Database.Statement<[string], number>;
}

const keyOf = (key: IndexKey): string => JSON.stringify([key.libraryId, key.version]);
const describe = (key: IndexKey): string => `${key.libraryId}@${key.version}`;
const yieldToEventLoop = (): Promise<void> => new Promise((done) => setImmediate(done));

/** The database file for a `directory` option. */
export function resolveSearchDatabase(directory: string): { directory: string | null; file: string } {
  if (directory === ':memory:') return { directory: null, file: ':memory:' };
  const absolute = resolve(expandHome(directory));
  return { directory: absolute, file: resolve(absolute, 'search.db') };
}

/** The heading path without the page title (a chunk's first heading usually repeats it). */
function headingPath(title: string, headings: readonly string[]): string {
  return (headings[0] === title ? headings.slice(1) : headings).join('\n');
}

/**
 * {@link SearchBackend} on SQLite FTS5: one contentless FTS5 table per (library, exact version) in one
 * database file, ranked by a column-weighted `bm25()`. Only SQLite's page cache is in memory, so memory does
 * not grow with the number of libraries.
 *
 * `has()` is true for the indexes this instance built or restored: an index another process (or an earlier
 * run) left in the file is used only after `restore()` was handed the marker `snapshot()` returned for it,
 * so the engine's cache entry (its TTL, its versioning) stays what decides whether an index is current.
 */
export class SqliteSearchBackend implements SearchBackend {
  /** The plugin id. */
  readonly id = 'sqlite-search';
  private readonly options: SqliteSearchBackendOptions;
  private readonly logger: Logger | undefined;
  private db: Database.Database | undefined;
  /** Indexes attached to this instance, by key. */
  private readonly attached = new Map<string, IndexRow>();
  private readonly statements = new Map<number, Statements>();
  /** Writes (index, drop) run one at a time: a build yields to the event loop inside its transaction. */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(options: SqliteSearchBackendInput = {}, logger?: Logger) {
    const defaults = defaultSqliteSearchBackendOptions;
    this.options = {
      directory: options.directory ?? defaults.directory,
      boost: { ...defaults.boost, ...options.boost },
      cacheSizeMB: options.cacheSizeMB ?? defaults.cacheSizeMB,
      rank: options.rank ?? defaults.rank,
      busyTimeoutMs: options.busyTimeoutMs ?? defaults.busyTimeoutMs,
    };
    for (const [column, value] of Object.entries(this.options.boost)) {
      if (!Number.isFinite(value) || value <= 0)
        throw new RangeError(`boost.${column} must be positive, got ${value}.`);
    }
    this.logger = logger;
  }

  /** The database file (`':memory:'` for an in-memory one). */
  get file(): string {
    return resolveSearchDatabase(this.options.directory).file;
  }

  /** Opens the database (done on first use otherwise). */
  open(): Database.Database {
    if (this.db !== undefined) return this.db;
    const { directory, file } = resolveSearchDatabase(this.options.directory);
    if (directory !== null) mkdirSync(directory, { recursive: true });
    const db = new Database(file, { timeout: this.options.busyTimeoutMs });
    // a new file's switch to WAL is refused at once (no busy handler) while another process switches it too
    if (directory !== null) {
      try {
        retrySync(() => db.pragma('journal_mode = WAL'), { timeoutMs: this.options.busyTimeoutMs, retryIf: isBusy });
      } catch (error) {
        db.close();
        throw error;
      }
    }
    db.pragma('synchronous = NORMAL');
    db.pragma(`cache_size = ${-Math.round(this.options.cacheSizeMB * 1024)}`);
    db.exec(`
      CREATE TABLE IF NOT EXISTS tables (n INTEGER PRIMARY KEY AUTOINCREMENT);
      CREATE TABLE IF NOT EXISTS indexes (
        key TEXT PRIMARY KEY,
        tbl INTEGER NOT NULL,
        build TEXT NOT NULL,
        chunks INTEGER NOT NULL,
        analysis TEXT NOT NULL,
        built_at INTEGER NOT NULL
      );
    `);
    this.db = db;
    return db;
  }

  /** Closes the database; the next call opens it again. */
  close(): void {
    this.statements.clear();
    this.attached.clear();
    this.db?.close();
    this.db = undefined;
  }

  async index(key: IndexKey, chunks: IndexableChunk[]): Promise<void> {
    const seen = new Set<string>();
    for (const chunk of chunks) {
      if (seen.has(chunk.id)) {
        throw new Error(
          `Chunk id ${JSON.stringify(chunk.id)} appears twice in the chunks of ${describe(key)}; ids must be unique within an index.`,
        );
      }
      seen.add(chunk.id);
    }
    await this.exclusive(() => this.build(key, chunks));
  }

  async search(key: IndexKey, query: string, options: SearchOptions = {}): Promise<SearchResults> {
    const row = this.attached.get(keyOf(key));
    const limit = Math.max(0, Math.floor(options.limit ?? DEFAULT_LIMIT));
    if (row === undefined) return { hits: [], total: 0 };
    const terms = queryTerms(query).map((term) => ftsString(term));
    if (terms.length === 0) return { hits: [], total: 0 };
    const match = terms.join(' OR ');
    const statements = this.statementsOf(row.tbl);
    if (limit === 0) return { hits: [], total: statements.count.get(match)?.total ?? 0 };
    // bm25() costs per matching chunk: in a large index, words most chunks contain are left out of the ranking.
    const ranking = row.chunks > LARGE_INDEX_CHUNKS ? this.rarestTerms(statements, terms, row.chunks) : terms;
    const coverage = this.options.rank === 'coverage';
    const wanted = coverage ? Math.max(limit * CANDIDATES_PER_HIT, MIN_CANDIDATES) : limit;
    const candidates = statements.search.all(ranking.join(' OR '), wanted);
    // Counting the matches is a second pass over them: only when there may be more than were fetched.
    const total =
      candidates.length < wanted && ranking.length === terms.length
        ? candidates.length
        : (statements.count.get(match)?.total ?? wanted);
    const ranked = coverage ? this.byCoverage(statements, ranking, candidates, row.chunks) : candidates;
    return { hits: ranked.slice(0, limit).map((hit) => ({ id: hit.id, score: hit.score })), total };
  }

  /**
   * The terms of a query in a large index that are worth ranking by: those in at most
   * {@link COMMON_TERM_SHARE} of the chunks, and at least the {@link MIN_RANKING_TERMS} rarest. A word in a
   * third of 76 000 chunks adds little to bm25() (its idf is low) but costs most of a query's time.
   */
  private rarestTerms(statements: Statements, terms: readonly string[], chunks: number): string[] {
    if (terms.length <= MIN_RANKING_TERMS) return [...terms];
    const byRarity = terms.map((term) => ({ term, df: statements.df.get(term) ?? 0 })).sort((a, b) => a.df - b.df);
    return byRarity.filter((t, i) => i < MIN_RANKING_TERMS || t.df <= chunks * COMMON_TERM_SHARE).map((t) => t.term);
  }

  /**
   * The ranking Orama's backend uses: first how much of the question a chunk speaks to (the idf-weighted share
   * of the query's terms it contains, wherever they are), then BM25 to order chunks covering the same share.
   * FTS5's bm25() sums over terms, so a chunk that repeats one word can outrank one that has them all.
   */
  private byCoverage(
    statements: Statements,
    terms: readonly string[],
    candidates: readonly { rowid: number; id: string; score: number }[],
    chunks: number,
  ): { id: string; score: number }[] {
    if (candidates.length === 0) return [];
    const position = new Map<number, number>();
    for (const [i, c] of candidates.entries()) position.set(c.rowid, i);
    const coverage = new Float64Array(candidates.length);
    let queryWeight = 0;
    for (const term of terms) {
      const rowids = statements.posting.all(term);
      const idf = Math.log(1 + (chunks - rowids.length + 0.5) / (rowids.length + 0.5));
      queryWeight += idf;
      for (const rowid of rowids) {
        const i = position.get(rowid);
        if (i !== undefined) coverage[i]! += idf;
      }
    }
    const best = candidates[0]?.score ?? 0;
    return candidates
      .map((c, i) => ({
        id: c.id,
        score: coverage[i]! / (queryWeight || 1) + (best > 0 ? (BM25_SHARE * c.score) / best : 0),
      }))
      .sort((a, b) => b.score - a.score);
  }

  async has(key: IndexKey): Promise<boolean> {
    return this.attached.has(keyOf(key));
  }

  async drop(key: IndexKey): Promise<void> {
    const id = keyOf(key);
    this.attached.delete(id);
    await this.exclusive(async () => {
      const db = this.open();
      db.transaction(() => {
        const row = db.prepare<[string], IndexRow>('SELECT * FROM indexes WHERE key = ?').get(id);
        if (row === undefined) return;
        db.prepare('DELETE FROM indexes WHERE key = ?').run(id);
        this.dropTables(row.tbl);
      })();
      this.attached.delete(id);
    });
  }

  async snapshot(key: IndexKey): Promise<Uint8Array | null> {
    const row = this.attached.get(keyOf(key));
    if (row === undefined) return null;
    const marker: Marker = { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, build: row.build, chunks: row.chunks };
    return new TextEncoder().encode(JSON.stringify(marker));
  }

  async restore(key: IndexKey, snapshot: Uint8Array): Promise<boolean> {
    const id = keyOf(key);
    let marker: Partial<Marker>;
    try {
      marker = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(snapshot)) as Partial<Marker>;
    } catch {
      return false;
    }
    if (marker === null || typeof marker !== 'object' || marker.format !== SNAPSHOT_FORMAT) return false;
    if (marker.version !== SNAPSHOT_VERSION || typeof marker.build !== 'string') return false;
    const db = this.open();
    const row = db.prepare<[string], IndexRow>('SELECT * FROM indexes WHERE key = ?').get(id);
    const problem =
      row === undefined
        ? 'no such index in the database'
        : row.build !== marker.build
          ? 'the index was rebuilt since'
          : row.analysis !== ANALYSIS
            ? `built with analysis ${row.analysis}, expected ${ANALYSIS}`
            : row.chunks !== marker.chunks || this.rowCount(row.tbl) !== row.chunks
              ? 'chunk count differs'
              : undefined;
    if (problem !== undefined || row === undefined) {
      this.logger?.debug('search index not restored', { library: describe(key), reason: problem });
      return false;
    }
    this.attached.set(id, row);
    return true;
  }

  /** Keys of the indexes attached to this instance. */
  attachedKeys(): IndexKey[] {
    return [...this.attached.keys()].map((id) => {
      const [libraryId, version] = JSON.parse(id) as [string, string];
      return { libraryId, version };
    });
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.writing.then(work, work);
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async build(key: IndexKey, chunks: IndexableChunk[]): Promise<void> {
    const id = keyOf(key);
    const db = this.open();
    const started = performance.now();
    const tbl = Number(db.prepare('INSERT INTO tables DEFAULT VALUES').run().lastInsertRowid);
    const build = randomUUID();
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(`
        CREATE VIRTUAL TABLE fts_${tbl} USING fts5(title, headings, body, content='', tokenize='${FTS5_TOKENIZER}');
        CREATE TABLE ids_${tbl} (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL);
      `);
      const insertText = db.prepare(`INSERT INTO fts_${tbl}(rowid, title, headings, body) VALUES (?, ?, ?, ?)`);
      const insertId = db.prepare(`INSERT INTO ids_${tbl}(rowid, id) VALUES (?, ?)`);
      for (let i = 0; i < chunks.length; i++) {
        if (i > 0 && i % INSERT_SLICE === 0) await yieldToEventLoop();
        const chunk = chunks[i] as IndexableChunk;
        insertText.run(
          i + 1,
          indexText(chunk.title),
          indexText(headingPath(chunk.title, chunk.headings)),
          indexText(chunk.body),
        );
        insertId.run(i + 1, chunk.id);
      }
      const previous = db.prepare<[string], IndexRow>('SELECT * FROM indexes WHERE key = ?').get(id);
      db.prepare(
        `INSERT INTO indexes(key, tbl, build, chunks, analysis, built_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET tbl = excluded.tbl, build = excluded.build, chunks = excluded.chunks,
           analysis = excluded.analysis, built_at = excluded.built_at`,
      ).run(id, tbl, build, chunks.length, ANALYSIS, Date.now());
      if (previous !== undefined) this.dropTables(previous.tbl);
      db.exec('COMMIT');
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      db.prepare('DELETE FROM tables WHERE n = ?').run(tbl);
      throw error;
    }
    this.attached.set(id, { key: id, tbl, build, chunks: chunks.length, analysis: ANALYSIS });
    this.logger?.debug('search index built', {
      library: describe(key),
      chunks: chunks.length,
      durationMs: Math.round(performance.now() - started),
    });
  }

  /** Drops an index's tables (inside the caller's transaction). */
  private dropTables(tbl: number): void {
    const db = this.open();
    this.statements.delete(tbl);
    db.exec(`DROP TABLE IF EXISTS fts_${tbl}; DROP TABLE IF EXISTS ids_${tbl};`);
    db.prepare('DELETE FROM tables WHERE n = ?').run(tbl);
  }

  private rowCount(tbl: number): number {
    try {
      return this.open().prepare<[], { n: number }>(`SELECT count(*) AS n FROM ids_${tbl}`).get()?.n ?? -1;
    } catch {
      return -1;
    }
  }

  private statementsOf(tbl: number): Statements {
    let statements = this.statements.get(tbl);
    if (statements === undefined) {
      const db = this.open();
      const { title, headings, body } = this.options.boost;
      // bm25() is lower-is-better and negative; the contract's scores are higher-is-better. The weights are
      // validated numbers, so they can be part of the SQL.
      statements = {
        search: db.prepare(
          `SELECT m.rowid AS rowid, i.id AS id, -m.rank AS score
           FROM (SELECT rowid, rank FROM fts_${tbl}
                 WHERE fts_${tbl} MATCH ? AND rank MATCH 'bm25(${title}, ${headings}, ${body})'
                 ORDER BY rank LIMIT ?) AS m
           JOIN ids_${tbl} AS i ON i.rowid = m.rowid
           ORDER BY m.rank`,
        ),
        // Counting every match of a common word in a huge index costs as much as ranking them: capped.
        count: db.prepare(
          `SELECT count(*) AS total FROM (SELECT 1 FROM fts_${tbl} WHERE fts_${tbl} MATCH ? LIMIT ${MAX_TOTAL})`,
        ),
        df: db.prepare<[string], number>(`SELECT count(*) FROM fts_${tbl} WHERE fts_${tbl} MATCH ?`).pluck(),
        posting: db.prepare<[string], number>(`SELECT rowid FROM fts_${tbl} WHERE fts_${tbl} MATCH ?`).pluck(),
      };
      this.statements.set(tbl, statements);
    }
    return statements;
  }
}
