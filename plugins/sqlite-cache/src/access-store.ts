import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type ApiKeyRecord,
  type KeyRow,
  type KeyStore,
  keyRecordFromRow,
  type RateLimitSettings,
  type UsageDelta,
  type UsageRow,
  type UsageStore,
  type UsageSummary,
  usageSummariesFromRows,
} from '@pro-context/access';
import type Database from 'better-sqlite3';
import { sqliteCacheMessages } from './messages.js';
import { resolveDatabaseFile } from './options.js';
import { openWalDatabase } from './schema.js';

// Append only, like the cache's migrations: a released step never changes.
const migrations: readonly string[] = [
  `CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     hash TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL,
     last_used_at INTEGER,
     revoked_at INTEGER,
     rate_per_minute INTEGER,
     rate_burst INTEGER
   );
   -- one row per key and tool; tool '' holds the key's requests
   CREATE TABLE usage (
     key_id TEXT NOT NULL,
     tool TEXT NOT NULL,
     calls INTEGER NOT NULL DEFAULT 0,
     errors INTEGER NOT NULL DEFAULT 0,
     last_used_at INTEGER,
     PRIMARY KEY (key_id, tool)
   );`,
];

/**
 * API keys and usage per key ({@link KeyStore}, {@link UsageStore}) in `<cache directory>/access.db`: a file of
 * its own, so cache eviction, `clear()` and the cache's schema never touch them. WAL and a busy timeout let
 * the admin CLI write while a server runs; the server reads keys per request, so a revocation applies to the
 * next one. Opens on first use.
 */
export class SqliteAccessStore implements KeyStore, UsageStore {
  private db: Database.Database | undefined;
  /** `findByHash` runs on every authenticated request: its statement is prepared once. */
  private byHash: Database.Statement<[string], KeyRow> | undefined;
  readonly file: string;

  constructor(
    directory: string,
    private readonly busyTimeoutMs = 5000,
  ) {
    const resolved = resolveDatabaseFile(directory);
    this.file = resolved.directory ? resolve(resolved.directory, 'access.db') : ':memory:';
  }

  private open(): Database.Database {
    if (this.db) return this.db;
    if (this.file !== ':memory:') mkdirSync(resolve(this.file, '..'), { recursive: true });
    const db = openWalDatabase(this.file, this.busyTimeoutMs);
    try {
      // the version is read inside the IMMEDIATE transaction: a process opening the file at the same moment has
      // either migrated it already (nothing left to do) or waits for this one
      db.transaction(() => {
        const version = db.pragma('user_version', { simple: true }) as number;
        if (version > migrations.length) {
          throw sqliteCacheMessages.create('NEWER_KEY_STORE', {
            file: this.file,
            version,
            known: migrations.length,
          });
        }
        for (let v = version; v < migrations.length; v += 1) db.exec(migrations[v] as string);
        db.pragma(`user_version = ${migrations.length}`);
      }).immediate();
    } catch (error) {
      db.close();
      throw error;
    }
    this.db = db;
    return db;
  }

  private row(idOrName: string): KeyRow | undefined {
    const db = this.open();
    return (
      db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE id = ?').get(idOrName) ??
      db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE name = ?').get(idOrName)
    );
  }

  async add(key: { id: string; name: string; hash: string; createdAt: number }): Promise<ApiKeyRecord> {
    const db = this.open();
    if (this.row(key.name) || this.row(key.id)) {
      throw sqliteCacheMessages.create('KEY_NAME_TAKEN', { name: key.name });
    }
    db.prepare('INSERT INTO api_keys (id, name, hash, created_at) VALUES (?, ?, ?, ?)').run(
      key.id,
      key.name,
      key.hash,
      key.createdAt,
    );
    return keyRecordFromRow(this.row(key.id) as KeyRow);
  }

  async findByHash(hash: string): Promise<(ApiKeyRecord & { hash: string }) | undefined> {
    this.byHash ??= this.open().prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE hash = ?');
    const row = this.byHash.get(hash);
    return row ? { ...keyRecordFromRow(row), hash: row.hash } : undefined;
  }

  async find(idOrName: string): Promise<ApiKeyRecord | undefined> {
    const row = this.row(idOrName);
    return row ? keyRecordFromRow(row) : undefined;
  }

  async list(): Promise<ApiKeyRecord[]> {
    return this.open()
      .prepare<[], KeyRow>('SELECT * FROM api_keys ORDER BY created_at, id')
      .all()
      .map(keyRecordFromRow);
  }

  async revoke(idOrName: string, at: number): Promise<ApiKeyRecord | undefined> {
    const row = this.row(idOrName);
    if (!row) return undefined;
    this.open().prepare('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?').run(at, row.id);
    return keyRecordFromRow(this.row(row.id) as KeyRow);
  }

  async setRateLimit(idOrName: string, limit: RateLimitSettings | null): Promise<ApiKeyRecord | undefined> {
    const row = this.row(idOrName);
    if (!row) return undefined;
    this.open()
      .prepare('UPDATE api_keys SET rate_per_minute = ?, rate_burst = ? WHERE id = ?')
      .run(limit?.maxRequestsPerMinute ?? null, limit?.burstSize ?? null, row.id);
    return keyRecordFromRow(this.row(row.id) as KeyRow);
  }

  async record(deltas: readonly UsageDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    const db = this.open();
    const add = db.prepare(
      `INSERT INTO usage (key_id, tool, calls, errors, last_used_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (key_id, tool) DO UPDATE SET calls = calls + excluded.calls, errors = errors + excluded.errors,
         last_used_at = MAX(COALESCE(last_used_at, 0), excluded.last_used_at)`,
    );
    const touch = db.prepare('UPDATE api_keys SET last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?');
    db.transaction(() => {
      for (const d of deltas) {
        add.run(d.keyId, '', d.requests, d.errors, d.lastUsedAt);
        for (const [tool, t] of Object.entries(d.tools)) add.run(d.keyId, tool, t.calls, t.errors, d.lastUsedAt);
        touch.run(d.lastUsedAt, d.keyId);
      }
    })();
  }

  async summary(keyId?: string): Promise<UsageSummary[]> {
    const db = this.open();
    const rows =
      keyId === undefined
        ? db.prepare<[], UsageRow>('SELECT * FROM usage ORDER BY key_id, tool').all()
        : db.prepare<[string], UsageRow>('SELECT * FROM usage WHERE key_id = ? ORDER BY tool').all(keyId);
    return usageSummariesFromRows(rows);
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
    this.byHash = undefined;
  }
}
