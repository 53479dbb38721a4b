import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Database, migrations, PostgresCacheStore, parsePostgresStoreOptions, SCHEMA_VERSION } from '../src/index.js';
import { databaseUrl, freshSchema, openDatabase, skipReason } from './helpers.js';

const options = parsePostgresStoreOptions({});

describe.skipIf(skipReason)(`postgres-store cache${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('a 20 MB index snapshot written by one replica is read back byte for byte by another', async () => {
    const schema = freshSchema();
    const a = new PostgresCacheStore(openDatabase(schema, 'a'), options);
    const b = new PostgresCacheStore(openDatabase(schema, 'b'), options);
    const snapshot = new Uint8Array(randomBytes(20 * 1024 * 1024));
    await a.set('index', 'fastapi@0.115', snapshot, { ttlMs: 0, memory: false });
    const read = await b.get<Uint8Array>('index', 'fastapi@0.115', { memory: false });
    expect(read?.value).toBeInstanceOf(Uint8Array);
    expect(read?.value.byteLength).toBe(snapshot.byteLength);
    expect(Buffer.compare(Buffer.from(read?.value ?? []), Buffer.from(snapshot))).toBe(0);
    expect(read?.expiresAt).toBeNull();
    expect(await b.expiresAt('index', 'fastapi@0.115')).toBeNull();
    expect(await b.expiresAt('index', 'missing')).toBeUndefined();
  });

  it('applies the per-namespace TTLs of the options (versions: 1 hour)', async () => {
    const store = new PostgresCacheStore(openDatabase(), options);
    const before = Date.now();
    await store.set('versions', 'pypi:fastapi', ['0.115.0']);
    const expires = (await store.get('versions', 'pypi:fastapi'))?.expiresAt ?? 0;
    expect(expires - before).toBeGreaterThanOrEqual(3_600_000 - 1000);
    expect(expires - before).toBeLessThanOrEqual(3_600_000 + 5000);
  });

  it('migrates once when several replicas start together, and refuses a schema from a newer version', async () => {
    const schema = freshSchema();
    const replicas = Array.from({ length: 4 }, (_, i) => openDatabase(schema, `r${i}`));
    await Promise.all(replicas.map((db) => db.migrate(migrations)));
    const { rows } = await (replicas[0] as Database).query<{ version: number }>(
      `SELECT version FROM "${schema}".schema_versions ORDER BY version`,
    );
    expect(rows.map((r) => r.version)).toEqual([SCHEMA_VERSION]);
    await (replicas[0] as Database).query(`INSERT INTO "${schema}".schema_versions (version) VALUES (99)`);
    await expect(openDatabase(schema).migrate(migrations)).rejects.toThrow(/newer pro-context \(schema 99/);
  });

  it('keeps the cache within maxSizeMB: expired entries go first, then the oldest written', async () => {
    const small = parsePostgresStoreOptions({ maxSizeMB: 1 });
    const store = new PostgresCacheStore(openDatabase(), small);
    const blob = (n: number) => new Uint8Array(400 * 1024).fill(n);
    await store.set('pages', 'expired', blob(1), { ttlMs: 1 });
    await store.set('pages', 'old', blob(2));
    await store.set('pages', 'newer', blob(3));
    await store.set('pages', 'newest', blob(4));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const result = await store.cleanup();
    expect(result.deleted).toBeGreaterThanOrEqual(1);
    expect(result.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(await store.get('pages', 'expired', { allowStale: true })).toBeUndefined();
    expect(await store.get('pages', 'newest')).toBeDefined();
    expect(await store.get('pages', 'newer')).toBeDefined();
    expect(await store.get('pages', 'old')).toBeUndefined();
  });

  it('names an unreachable database by host and database, never with its password', async () => {
    const url = new URL(databaseUrl as string);
    url.password = 'hunter2-not-the-password';
    url.port = '1'; // nothing listens there
    const db = new Database({ url: url.toString(), schema: freshSchema(), connectionTimeoutMs: 2000 });
    const error = (await new PostgresCacheStore(db, options).get('pages', 'x').catch((e: unknown) => e)) as {
      code: string;
      message: string;
      toPayload(): { message: string; suggestion?: string };
    };
    await db.close();
    expect(error.code).toBe('DATABASE_UNAVAILABLE');
    expect(error.message).toContain('127.0.0.1:1/pro_context');
    expect(JSON.stringify(error.toPayload())).not.toContain('hunter2-not-the-password');
    expect(error.message).not.toContain('hunter2-not-the-password');
  });
});
