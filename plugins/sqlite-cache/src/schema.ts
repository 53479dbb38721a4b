import { retrySync } from '@pro-context/plugin-kit';
import Database from 'better-sqlite3';
import { sqliteCacheMessages } from './messages.js';

/** One schema step. Applied once, in its own transaction, recorded in `schema_migrations`. */
interface Migration {
  version: number;
  name: string;
  sql: string;
}

// Append only: a released migration never changes, a new one gets the next version.
const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'entries',
    sql: `
      CREATE TABLE entries (
        id INTEGER PRIMARY KEY,
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('json', 'string', 'buffer', 'bytes')),
        size INTEGER NOT NULL,
        value_length INTEGER NOT NULL,
        checksum INTEGER NOT NULL,
        stored_at INTEGER NOT NULL,
        expires_at INTEGER,
        accessed_at INTEGER NOT NULL,
        etag TEXT,
        meta TEXT,
        value BLOB NOT NULL, -- last: columns after a multi-MB blob would sit at the end of its overflow chain
        UNIQUE (namespace, key)
      );
      CREATE INDEX entries_expires_at ON entries (expires_at) WHERE expires_at IS NOT NULL;
      CREATE INDEX entries_accessed_at ON entries (accessed_at);

      -- Running totals kept by triggers: exact across processes, without a full scan per write.
      CREATE TABLE totals (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        entries INTEGER NOT NULL,
        bytes INTEGER NOT NULL
      );
      INSERT INTO totals (id, entries, bytes) VALUES (1, 0, 0);
      CREATE TRIGGER entries_after_insert AFTER INSERT ON entries BEGIN
        UPDATE totals SET entries = entries + 1, bytes = bytes + NEW.size WHERE id = 1;
      END;
      CREATE TRIGGER entries_after_delete AFTER DELETE ON entries BEGIN
        UPDATE totals SET entries = entries - 1, bytes = bytes - OLD.size WHERE id = 1;
      END;
      CREATE TRIGGER entries_after_update_size AFTER UPDATE OF size ON entries BEGIN
        UPDATE totals SET bytes = bytes - OLD.size + NEW.size WHERE id = 1;
      END;
    `,
  },
  {
    version: 2,
    name: 'value parts',
    sql: `
      -- A value larger than one part is stored here in parts, in order, under a group number its entry holds (as
      -- decimal text, its value shorter than its value_length): writing or reading it binds one part at a time, so
      -- SQLite never holds a second whole copy of a multi-MB value, and the parts can be written in several
      -- transactions before the entry that makes them visible. A group's number starts with the time it was begun
      -- (ms * 1000): parts no entry refers to, left by a writer that died, are cleaned up once an hour old.
      CREATE TABLE parts (
        value_group INTEGER NOT NULL,
        n INTEGER NOT NULL,
        bytes BLOB NOT NULL,
        PRIMARY KEY (value_group, n)
      ) WITHOUT ROWID;
      CREATE TRIGGER entries_after_delete_parts AFTER DELETE ON entries
        WHEN length(OLD.value) < OLD.value_length BEGIN
        DELETE FROM parts WHERE value_group = CAST(CAST(OLD.value AS TEXT) AS INTEGER);
      END;
      CREATE TRIGGER entries_after_update_parts AFTER UPDATE OF value ON entries
        WHEN length(OLD.value) < OLD.value_length AND OLD.value IS NOT NEW.value BEGIN
        DELETE FROM parts WHERE value_group = CAST(CAST(OLD.value AS TEXT) AS INTEGER);
      END;
    `,
  },
];

/** The schema version this release writes. */
export const SCHEMA_VERSION: number = migrations[migrations.length - 1]?.version ?? 0;

function currentVersion(db: Database.Database): number {
  const row = db
    .prepare<[], { version: number }>('SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations')
    .get();
  return row?.version ?? 0;
}

/**
 * Brings the database to {@link SCHEMA_VERSION}. Idempotent, and safe when two processes open a new file
 * at once: each step runs in an IMMEDIATE transaction that re-reads the version first.
 * Refuses a database written by a newer release, which this code could corrupt.
 */
export function migrate(db: Database.Database, file: string): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
  const found = currentVersion(db);
  if (found > SCHEMA_VERSION) {
    throw sqliteCacheMessages.create(
      'NEWER_SCHEMA',
      { file, found, supported: SCHEMA_VERSION },
      { details: { file, schemaVersion: found, supportedVersion: SCHEMA_VERSION } },
    );
  }
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const migration of migrations) {
    if (migration.version <= found) continue;
    db.transaction(() => {
      if (currentVersion(db) >= migration.version) return; // another process got here first
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
    }).immediate();
  }
}

/** Whether better-sqlite3 failed because another connection holds a lock (`SQLITE_BUSY` and its variants). */
export const isBusyError = (error: unknown): boolean =>
  String((error as { code?: unknown } | null)?.code).startsWith('SQLITE_BUSY');

/**
 * Opens a database file in WAL mode with a busy timeout. Switching a new file to WAL is refused at once, without
 * the busy handler, when another process switches it at the same moment (two servers starting on one cache
 * directory): that step is retried for up to the busy timeout.
 */
export function openWalDatabase(file: string, busyTimeoutMs: number): Database.Database {
  const db = new Database(file, { timeout: busyTimeoutMs });
  try {
    retrySync(() => db.pragma('journal_mode = WAL'), { timeoutMs: busyTimeoutMs, retryIf: isBusyError });
    db.pragma('synchronous = NORMAL');
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
