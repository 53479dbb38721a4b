import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, validateConfig } from '@pro-context/config';
import { cacheStoreToken, isProContextError } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { createKernel } from '@pro-context/runtime';
import { describe, expect, it } from 'vitest';
import sqliteCachePluginDefault, { SqliteCacheStore, sqliteCachePlugin, sqliteCacheStoreToken } from '../src/index.js';
import { recordingLogger, tempDir } from './helpers.js';

const logger = createSilentLogger();

describe('sqliteCachePlugin in a kernel', () => {
  it('provides cacheStoreToken from the cache config section, opens on start and closes on stop', async () => {
    const dir = join(tempDir(), 'cache');
    const kernel = await createKernel({ config: { cache: { directory: dir, maxMemoryEntries: 7 } }, logger })
      .use(sqliteCachePlugin)
      .start();
    const store = kernel.resolve(cacheStoreToken);
    expect(store.id).toBe('sqlite-cache');
    expect(store).toBeInstanceOf(SqliteCacheStore);
    expect(kernel.resolve(sqliteCacheStoreToken)).toBe(store);
    expect((store as SqliteCacheStore).options.maxMemoryEntries).toBe(7);
    expect(existsSync(join(dir, 'cache.db'))).toBe(true); // opened by start(), before any use
    expect(kernel.plugins.find((p) => p.id === 'sqlite-cache')?.version).toMatch(/^\d+\.\d+\.\d+/);

    await store.set('toc', 'lib', ['a']);
    expect((await store.get('toc', 'lib'))?.value).toEqual(['a']);
    await kernel.stop();
    await expect(store.get('toc', 'lib')).rejects.toThrow(/closed/);
  });

  it('reads the cache section of pro-context.config.yaml, with PRO_CONTEXT_CACHE_DIR over cache.directory', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'pro-context.config.yaml'),
      `cache:\n  directory: ${JSON.stringify(join(dir, 'from-file'))}\n  maxMemoryEntries: 9\n`,
    );
    const config = await loadConfig({ cwd: dir, env: { PRO_CONTEXT_CACHE_DIR: join(dir, 'from-env') } });
    const kernel = await createKernel({ config, logger, validateConfig }).use(sqliteCachePluginDefault).start();
    try {
      const store = kernel.resolve(cacheStoreToken) as SqliteCacheStore;
      expect(store.file).toBe(join(dir, 'from-env', 'cache.db'));
      expect(store.options.maxMemoryEntries).toBe(9);
    } finally {
      await kernel.stop();
    }
  });

  it('rejects a misspelt or invalid cache option before anything opens', async () => {
    const dir = tempDir();
    for (const cache of [
      { directory: dir, ttlHours: { verions: 2 } },
      { directory: dir, maxMemoryMB: -1 },
    ]) {
      let error: unknown;
      try {
        await createKernel({ config: { cache }, logger }).use(sqliteCachePlugin).start();
      } catch (caught) {
        error = caught;
      }
      expect(isProContextError(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/cache\.(ttlHours|maxMemoryMB)/);
    }
    expect(existsSync(join(dir, 'cache.db'))).toBe(false);
  });

  it('starts with a directory that cannot be created: the cache is in memory, with one CACHE_NOT_WRITABLE warning', async () => {
    const blocker = join(tempDir(), 'a-file');
    writeFileSync(blocker, 'x');
    const { logger: recording, records } = recordingLogger();
    const kernel = await createKernel({ config: { cache: { directory: join(blocker, 'cache') } }, logger: recording })
      .use(sqliteCachePlugin)
      .start();
    try {
      const store = kernel.resolve(sqliteCacheStoreToken);
      expect(store.notWritable?.code).toBe('CACHE_NOT_WRITABLE');
      expect(store.notWritable?.message).toContain(join(blocker, 'cache'));
      await kernel.resolve(cacheStoreToken).set('toc', 'k', 'v');
      expect((await kernel.resolve(cacheStoreToken).get('toc', 'k'))?.value).toBe('v');
      expect(records.filter((r) => r.level === 'warn')).toHaveLength(1);
    } finally {
      await kernel.stop();
    }
  });
});
