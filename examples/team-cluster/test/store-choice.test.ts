import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyStoreToken, rateLimiterToken } from '@pro-context/access';
import { indexLeaseToken, replicaEventsToken } from '@pro-context/engine/api';
import { cacheStoreToken, type StartedKernel } from '@pro-context/kernel';
import { createLogger } from '@pro-context/logging';
import pg from 'pg';
import { defaultPlugins, startProContext } from 'pro-context';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { databaseUrl } from './helpers.js';

describe("the preset's store", () => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-preset-store-'));
  const kernels: StartedKernel[] = [];
  const schemas: string[] = [];
  afterEach(async () => {
    await Promise.all(kernels.splice(0).map((k) => k.stop()));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (databaseUrl && schemas.length > 0) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      await client.end();
    }
  });

  it('is SQLite unless cache.store: postgres or PRO_CONTEXT_DATABASE_URL (without cache.store: sqlite) chooses PostgreSQL', () => {
    const ids = (env: Record<string, string>, values?: Record<string, unknown>) =>
      defaultPlugins(env, values).map((p) => p.id);
    expect(ids({})).toContain('sqlite-cache');
    expect(ids({})).not.toContain('postgres-store');
    expect(ids({}, { cache: { store: 'sqlite' } })).toContain('sqlite-cache');
    expect(ids({ PRO_CONTEXT_DATABASE_URL: 'postgres://u:p@127.0.0.1:1/x' })).toContain('postgres-store');
    expect(ids({}, { cache: { store: 'postgres' } })).toContain('postgres-store');
    expect(ids({}, { cache: { store: 'postgres' } })).not.toContain('sqlite-cache');
    // an explicit cache.store: sqlite wins over the variable
    expect(ids({ PRO_CONTEXT_DATABASE_URL: 'postgres://u:p@127.0.0.1:1/x' }, { cache: { store: 'sqlite' } })).toContain(
      'sqlite-cache',
    );
  });

  it('says what is missing when cache.store is postgres without a URL', async () => {
    const error = await startProContext({
      cwd: dir,
      env: {},
      config: { cache: { store: 'postgres' }, project: { autoDetect: false } },
      logger: createLogger({ level: 'error', stream: { write: () => true } }),
    }).catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(/no database is configured \(cache\.postgres\.url\)/);
  });

  it.skipIf(!databaseUrl)(
    `with PRO_CONTEXT_DATABASE_URL binds every shared contract, and never logs the password${databaseUrl ? '' : ' (skipped: PRO_CONTEXT_TEST_DATABASE_URL is not set)'}`,
    async () => {
      const schema = `preset_${Date.now().toString(36)}`;
      schemas.push(schema);
      const lines: string[] = [];
      const kernel = await startProContext({
        cwd: dir,
        env: { PRO_CONTEXT_DATABASE_URL: databaseUrl as string },
        overrides: { cache: { postgres: { schema } }, project: { autoDetect: false }, logging: { level: 'debug' } },
        logger: createLogger({ level: 'debug', stream: { write: (line: string) => lines.push(line) } }),
      });
      kernels.push(kernel);
      expect(kernel.resolve(cacheStoreToken).id).toBe('postgres-store');
      await kernel.resolve(keyStoreToken).add({ id: 'key_1', name: 'alice', hash: 'h', createdAt: 1 });
      expect((await kernel.resolve(keyStoreToken).list()).map((k) => k.name)).toEqual(['alice']);
      expect(kernel.isBound(rateLimiterToken)).toBe(true);
      expect(kernel.isBound(indexLeaseToken)).toBe(true);
      expect(kernel.isBound(replicaEventsToken)).toBe(true);
      const password = decodeURIComponent(new URL(databaseUrl as string).password);
      const logged = lines.join('');
      expect(logged).toMatch(/postgres-store: 127\.0\.0\.1:\d+\/pro_context/);
      expect(logged).not.toContain(password);
    },
  );
});
