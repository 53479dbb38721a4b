import type { ApiKeyRecord, UsageSummary } from './contracts.js';

/**
 * The table rows both access stores keep (SQLite in `plugin-sqlite-cache`, PostgreSQL in
 * `plugin-postgres-store`): one row per key, and one usage row per key and tool (tool `''` holds the key's
 * requests). The stores write their own SQL; reading rows back into records is shared here.
 */
export interface KeyRow {
  id: string;
  name: string;
  hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  rate_per_minute: number | null;
  rate_burst: number | null;
}

export interface UsageRow {
  key_id: string;
  tool: string;
  calls: number;
  errors: number;
  last_used_at: number | null;
}

/** A key's row as the record the admin commands and the HTTP host see (never the hash). */
export function keyRecordFromRow(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    rateLimit:
      row.rate_per_minute === null || row.rate_burst === null
        ? null
        : { maxRequestsPerMinute: row.rate_per_minute, burstSize: row.rate_burst },
  };
}

/** Usage rows (ordered by key) as one summary per key. */
export function usageSummariesFromRows(rows: readonly UsageRow[]): UsageSummary[] {
  const byKey = new Map<string, UsageSummary>();
  for (const row of rows) {
    let s = byKey.get(row.key_id);
    if (!s) {
      s = { keyId: row.key_id, requests: 0, errors: 0, toolCalls: {}, toolErrors: {}, lastUsedAt: null };
      byKey.set(row.key_id, s);
    }
    if (row.tool === '') {
      s.requests = row.calls;
      s.errors = row.errors;
      s.lastUsedAt = row.last_used_at;
    } else {
      s.toolCalls[row.tool] = row.calls;
      s.toolErrors[row.tool] = row.errors;
    }
  }
  return [...byKey.values()];
}
