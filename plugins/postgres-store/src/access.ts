import {
  type ApiKeyRecord,
  type KeyRow,
  type KeyStore,
  keyRecordFromRow,
  type RateDecision,
  type RateLimiter,
  type RateLimitSettings,
  type UsageDelta,
  type UsageRow,
  type UsageStore,
  type UsageSummary,
  usageSummariesFromRows,
} from '@pro-context/access';
import type { Database } from './database.js';
import { postgresStoreMessages } from './messages.js';
import { migrations } from './schema.js';

/**
 * API keys, usage and rate-limit buckets in the database every replica shares ({@link KeyStore},
 * {@link UsageStore}, {@link RateLimiter}). Keys are read through on every request (one indexed lookup by
 * hash), so a key revoked through one replica (or `pro-context-admin`) is refused by every replica at its next
 * request. A charge against a bucket is one atomic statement, so limits hold per key across replicas.
 */
export class PostgresAccessStore implements KeyStore, UsageStore, RateLimiter {
  private readonly keysTable: string;
  private readonly usageTable: string;
  private readonly bucketsTable: string;

  constructor(private readonly db: Database) {
    this.keysTable = db.table('api_keys');
    this.usageTable = db.table('usage');
    this.bucketsTable = db.table('rate_buckets');
  }

  private async row(idOrName: string): Promise<KeyRow | undefined> {
    await this.db.migrate(migrations);
    const { rows } = await this.db.query<KeyRow>(
      `SELECT * FROM ${this.keysTable} WHERE id = $1 OR name = $1 ORDER BY (id = $1) DESC LIMIT 1`,
      [idOrName],
    );
    return rows[0];
  }

  async add(key: { id: string; name: string; hash: string; createdAt: number }): Promise<ApiKeyRecord> {
    await this.db.migrate(migrations);
    const { rows } = await this.db.query<KeyRow>(
      `INSERT INTO ${this.keysTable} (id, name, hash, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING *`,
      [key.id, key.name, key.hash, key.createdAt],
    );
    const row = rows[0];
    if (!row) {
      throw postgresStoreMessages.create('KEY_NAME_TAKEN', { name: key.name });
    }
    return keyRecordFromRow(row);
  }

  async findByHash(hash: string): Promise<(ApiKeyRecord & { hash: string }) | undefined> {
    await this.db.migrate(migrations);
    const { rows } = await this.db.query<KeyRow>(`SELECT * FROM ${this.keysTable} WHERE hash = $1`, [hash]);
    const row = rows[0];
    return row ? { ...keyRecordFromRow(row), hash: row.hash } : undefined;
  }

  async find(idOrName: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.row(idOrName);
    return row ? keyRecordFromRow(row) : undefined;
  }

  async list(): Promise<ApiKeyRecord[]> {
    await this.db.migrate(migrations);
    const { rows } = await this.db.query<KeyRow>(`SELECT * FROM ${this.keysTable} ORDER BY created_at, id`);
    return rows.map(keyRecordFromRow);
  }

  async revoke(idOrName: string, at: number): Promise<ApiKeyRecord | undefined> {
    const row = await this.row(idOrName);
    if (!row) return undefined;
    const { rows } = await this.db.query<KeyRow>(
      `UPDATE ${this.keysTable} SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2 RETURNING *`,
      [at, row.id],
    );
    await this.forget(row.id);
    return rows[0] ? keyRecordFromRow(rows[0]) : undefined;
  }

  async setRateLimit(idOrName: string, limit: RateLimitSettings | null): Promise<ApiKeyRecord | undefined> {
    const row = await this.row(idOrName);
    if (!row) return undefined;
    const { rows } = await this.db.query<KeyRow>(
      `UPDATE ${this.keysTable} SET rate_per_minute = $1, rate_burst = $2 WHERE id = $3 RETURNING *`,
      [limit?.maxRequestsPerMinute ?? null, limit?.burstSize ?? null, row.id],
    );
    return rows[0] ? keyRecordFromRow(rows[0]) : undefined;
  }

  /** Adds every delta in one statement (the totals of all replicas add up in the same rows). */
  async record(deltas: readonly UsageDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    await this.db.migrate(migrations);
    const keyIds: string[] = [];
    const tools: string[] = [];
    const calls: number[] = [];
    const errors: number[] = [];
    const at: number[] = [];
    for (const d of deltas) {
      keyIds.push(d.keyId);
      tools.push('');
      calls.push(d.requests);
      errors.push(d.errors);
      at.push(d.lastUsedAt);
      for (const [tool, t] of Object.entries(d.tools)) {
        keyIds.push(d.keyId);
        tools.push(tool);
        calls.push(t.calls);
        errors.push(t.errors);
        at.push(d.lastUsedAt);
      }
    }
    // one statement: the usage rows, then the keys' last use (a CTE, so both or neither)
    await this.db.query(
      `WITH delta AS (
         SELECT key_id, tool, sum(calls)::int8 AS calls, sum(errors)::int8 AS errors, max(at)::int8 AS at
         FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[], $5::int8[]) AS d(key_id, tool, calls, errors, at)
         GROUP BY key_id, tool
       ), added AS (
         INSERT INTO ${this.usageTable} AS u (key_id, tool, calls, errors, last_used_at)
         SELECT key_id, tool, calls, errors, at FROM delta
         ON CONFLICT (key_id, tool) DO UPDATE SET calls = u.calls + excluded.calls, errors = u.errors + excluded.errors,
           last_used_at = GREATEST(COALESCE(u.last_used_at, 0), excluded.last_used_at)
       )
       UPDATE ${this.keysTable} AS k SET last_used_at = GREATEST(COALESCE(k.last_used_at, 0), d.at)
       FROM (SELECT key_id, max(at) AS at FROM delta GROUP BY key_id) AS d WHERE k.id = d.key_id`,
      [keyIds, tools, calls, errors, at],
    );
  }

  async summary(keyId?: string): Promise<UsageSummary[]> {
    await this.db.migrate(migrations);
    const { rows } =
      keyId === undefined
        ? await this.db.query<UsageRow>(`SELECT * FROM ${this.usageTable} ORDER BY key_id, tool`)
        : await this.db.query<UsageRow>(`SELECT * FROM ${this.usageTable} WHERE key_id = $1 ORDER BY tool`, [keyId]);
    return usageSummariesFromRows(rows);
  }

  /**
   * One token-bucket charge as one atomic statement on the key's row (`INSERT … ON CONFLICT DO UPDATE` takes
   * the row lock, so concurrent charges from any replica serialize on it). Time is the database's clock, so
   * replicas with skewed clocks still refill one bucket alike.
   */
  async take(keyId: string, settings: RateLimitSettings, cost = 1): Promise<RateDecision> {
    await this.db.migrate(migrations);
    const perMs = settings.maxRequestsPerMinute / 60_000;
    const burst = settings.burstSize;
    const { rows } = await this.db.query<{ tokens: number; allowed: boolean; now: number }>(
      `WITH clock AS (SELECT extract(epoch FROM clock_timestamp()) * 1000 AS now)
       INSERT INTO ${this.bucketsTable} AS b (key_id, tokens, updated_at, allowed)
       SELECT $1, CASE WHEN $2::float8 >= $3::float8 THEN $2::float8 - $3::float8 ELSE $2::float8 END, clock.now,
         $2::float8 >= $3::float8
       FROM clock
       ON CONFLICT (key_id) DO UPDATE SET
         tokens = CASE
           WHEN LEAST($2::float8, b.tokens + GREATEST(excluded.updated_at - b.updated_at, 0) * $4::float8) >= $3::float8
           THEN LEAST($2::float8, b.tokens + GREATEST(excluded.updated_at - b.updated_at, 0) * $4::float8) - $3::float8
           ELSE LEAST($2::float8, b.tokens + GREATEST(excluded.updated_at - b.updated_at, 0) * $4::float8) END,
         allowed = LEAST($2::float8, b.tokens + GREATEST(excluded.updated_at - b.updated_at, 0) * $4::float8) >= $3::float8,
         updated_at = GREATEST(excluded.updated_at, b.updated_at)
       RETURNING tokens, allowed, updated_at AS now`,
      [keyId, burst, cost, perMs],
    );
    const row = rows[0] as { tokens: number; allowed: boolean; now: number };
    const missing = burst - row.tokens;
    return {
      allowed: row.allowed,
      limit: burst,
      remaining: Math.max(0, Math.floor(row.tokens)),
      reset: Math.ceil((row.now + missing / perMs) / 1000),
      retryAfter: row.allowed ? 0 : Math.max(1, Math.ceil((Math.min(cost, burst) - row.tokens) / perMs / 1000)),
    };
  }

  async forget(keyId: string): Promise<void> {
    await this.db.migrate(migrations);
    await this.db.query(`DELETE FROM ${this.bucketsTable} WHERE key_id = $1`, [keyId]);
  }
}
