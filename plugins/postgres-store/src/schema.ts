/**
 * The schema, as plain versioned SQL: step N brings a database from version N-1 to N, inside one transaction
 * under an advisory lock (see `Database.migrate`), and its number is kept in `schema_versions`. Append only: a
 * released step never changes. `{schema}` is the configured schema, quoted.
 */
export const migrations: readonly string[] = [
  `CREATE TABLE {schema}.cache_entries (
     namespace text NOT NULL,
     key text NOT NULL,
     kind text NOT NULL,
     -- the value as bytes: JSON text, UTF-8 text or raw bytes (index snapshots, chunk blocks). PostgreSQL keeps
     -- large ones out of line (TOAST, compressed), so a replica restores an index from here without fetching
     value bytea NOT NULL,
     etag text,
     meta jsonb,
     stored_at bigint NOT NULL,
     expires_at bigint,
     size_bytes integer NOT NULL,
     PRIMARY KEY (namespace, key)
   );
   CREATE INDEX cache_entries_stored_at ON {schema}.cache_entries (stored_at);
   CREATE TABLE {schema}.api_keys (
     id text PRIMARY KEY,
     name text NOT NULL UNIQUE,
     hash text NOT NULL UNIQUE,
     created_at bigint NOT NULL,
     last_used_at bigint,
     revoked_at bigint,
     rate_per_minute integer,
     rate_burst integer
   );
   -- one row per key and tool; tool '' holds the key's requests
   CREATE TABLE {schema}.usage (
     key_id text NOT NULL,
     tool text NOT NULL,
     calls bigint NOT NULL DEFAULT 0,
     errors bigint NOT NULL DEFAULT 0,
     last_used_at bigint,
     PRIMARY KEY (key_id, tool)
   );
   -- token buckets per key, shared by every replica; times are the database's clock (ms)
   CREATE TABLE {schema}.rate_buckets (
     key_id text PRIMARY KEY,
     tokens double precision NOT NULL,
     updated_at double precision NOT NULL,
     allowed boolean NOT NULL
   );
   CREATE TABLE {schema}.leases (
     name text PRIMARY KEY,
     holder text NOT NULL,
     expires_at double precision NOT NULL
   );`,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION: number = migrations.length;

/** The NOTIFY channel of a schema's replicas. */
export const channelOf = (schema: string): string => `${schema}_events`;
