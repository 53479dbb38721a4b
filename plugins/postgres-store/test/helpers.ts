import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll } from 'vitest';
import { Database } from '../src/index.js';

/** The test database (`.ci/run` starts one; locally: `eval "$(scripts/test-server.sh start)"`). */
export const databaseUrl: string | undefined = process.env.PRO_CONTEXT_TEST_DATABASE_URL;

/** Why the PostgreSQL tests are skipped, or `undefined` when they run. */
export const skipReason: string | undefined = databaseUrl
  ? undefined
  : 'PRO_CONTEXT_TEST_DATABASE_URL is not set (CI sets it; locally: eval "$(plugins/postgres-store/scripts/test-server.sh start)")';

const schemas: string[] = [];
const databases: Database[] = [];

afterAll(async () => {
  for (const db of databases.splice(0)) await db.close();
  if (!databaseUrl || schemas.length === 0) return;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  for (const schema of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

/** A schema name of its own (dropped after the file's tests). */
export function freshSchema(): string {
  const schema = `t_${randomBytes(5).toString('hex')}`;
  schemas.push(schema);
  return schema;
}

/** A database handle on a fresh schema (or `schema`), closed after the file's tests. */
export function openDatabase(schema = freshSchema(), replicaId?: string): Database {
  const db = new Database({
    url: databaseUrl as string,
    schema,
    poolSize: 4,
    ...(replicaId ? { replicaId } : {}),
  });
  databases.push(db);
  return db;
}
