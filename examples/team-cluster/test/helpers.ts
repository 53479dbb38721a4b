import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { corpusSites, type FakeWeb, findCorpusRoot, startFakeWeb } from '@pro-context/testing/fake-web';
import pg from 'pg';
import { replicaConfig } from '../src/loopback.js';

const binDir = join(dirname(createRequire(import.meta.url).resolve('pro-context/package.json')), 'dist', 'bin');
export const cliPath = join(binDir, 'pro-context.js');
export const adminPath = join(binDir, 'pro-context-admin.js');
export const databaseUrl = process.env.PRO_CONTEXT_TEST_DATABASE_URL;
const corpusRoot = findCorpusRoot();

/** Why these tests are skipped, or `undefined`. */
export const skipReason: string | undefined = !databaseUrl
  ? 'PRO_CONTEXT_TEST_DATABASE_URL is not set (CI sets it; locally: eval "$(plugins/postgres-store/scripts/test-server.sh start)")'
  : !corpusRoot
    ? 'the corpora in ../shared/corpora are absent'
    : !existsSync(cliPath)
      ? 'packages/pro-context/dist/bin/pro-context.js is not built'
      : undefined;

export async function startCorpusWeb(): Promise<FakeWeb> {
  return startFakeWeb({ sites: corpusSites(corpusRoot as string) });
}

/** A project folder whose config runs a replica on a schema of its own, for the corpus libraries. */
export function writeClusterProject(
  web: FakeWeb,
  options: { rateLimit?: { maxRequestsPerMinute: number; burstSize: number } } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'pc-cluster-'));
  const schema = `e2e_${randomBytes(5).toString('hex')}`;
  const libraries = ['fastapi', 'pydantic', 'httpx'].map((id) => ({
    id,
    name: id,
    language: 'python',
    llmsTxtUrl: web.llmsTxtUrl(id),
  }));
  const configFile = join(dir, 'pro-context.config.yaml');
  writeFileSync(configFile, JSON.stringify(replicaConfig({ schema, libraries, ...options }), null, 2));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    PRO_CONTEXT_CONFIG: configFile,
    PRO_CONTEXT_DATABASE_URL: databaseUrl as string,
  };
  return {
    dir,
    schema,
    configFile,
    env,
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

/**
 * Waits until the store of `schema` stops changing (entries and bytes equal over `quietMs`): a replica writes
 * a library's blocks and index after it answered. Without the engine taking the indexing lease (`IndexLease`),
 * a replica asked for a library before those writes finished fetches it too.
 */
export async function waitForStoreQuiet(schema: string, quietMs = 600, timeoutMs = 60_000): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const started = Date.now();
    let last = '';
    let since = Date.now();
    for (;;) {
      const { rows } = await client.query(
        `SELECT namespace, count(*)::int AS n, sum(size_bytes)::int8 AS bytes FROM "${schema}".cache_entries GROUP BY namespace ORDER BY namespace`,
      );
      const now = JSON.stringify(rows);
      if (now !== last) {
        last = now;
        since = Date.now();
      } else if (Date.now() - since >= quietMs) return now;
      if (Date.now() - started > timeoutMs) throw new Error(`the store kept changing: ${now}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
}
