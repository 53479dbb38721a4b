import { createRequire } from 'node:module';
import { keyStoreToken, usageStoreToken } from '@pro-context/access';
import { cacheStoreToken, createToken, definePlugin, type PluginDefinition } from '@pro-context/kernel';
import { SqliteAccessStore } from './access-store.js';
import {
  type SqliteCachePluginInput,
  type SqliteCachePluginOptions,
  sqliteCacheErrors,
  sqliteCachePluginOptionsSchema,
} from './options.js';
import { SqliteCacheStore } from './store.js';

// src/ and dist/ are both one level below the package root, so this works from either.
const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

/**
 * The plugin's own store, for code that needs more than the {@link CacheStore} contract
 * (`cleanup()`, `file`). Bound to the same instance as `cacheStoreToken`.
 */
export const sqliteCacheStoreToken = createToken<SqliteCacheStore>('sqlite-cache.store');

/** The store behind `keyStoreToken` and `usageStoreToken` (`access.db` in the cache directory). */
export const sqliteAccessStoreToken = createToken<SqliteAccessStore>('sqlite-cache.accessStore');

/**
 * Provides `cacheStoreToken` with a {@link SqliteCacheStore}, configured by the `cache` config section, and
 * `keyStoreToken`/`usageStoreToken` with a {@link SqliteAccessStore} in the same directory.
 *
 * `register` only binds (the store's constructor does no I/O). `start` opens the database so a bad
 * directory or a newer schema stops the server at start-up; the store would otherwise open itself on first
 * use, which also covers plugins that read the cache in their own `start` before this one ran.
 * `stop` flushes, checkpoints and closes.
 */
export const sqliteCachePlugin: PluginDefinition<SqliteCachePluginOptions, SqliteCachePluginInput> = definePlugin<
  SqliteCachePluginOptions,
  SqliteCachePluginInput
>({
  id: 'sqlite-cache',
  version: pkg.version,
  description: 'CacheStore on SQLite (better-sqlite3, WAL) with an in-memory LRU in front.',
  kernel: '^0.1.0',
  configKey: 'cache',
  provides: [cacheStoreToken, keyStoreToken, usageStoreToken],
  optionsSchema: sqliteCachePluginOptionsSchema,
  errors: sqliteCacheErrors.errors,
  environment: [{ variable: 'PRO_CONTEXT_CACHE_DIR', key: 'cache.directory' }],
  register(context, options) {
    const logger = context.logger;
    context.bindFactory(sqliteCacheStoreToken, () => new SqliteCacheStore(options, { logger }));
    context.bindFactory(cacheStoreToken, (resolver) => resolver.resolve(sqliteCacheStoreToken));
    // API keys and usage of the HTTP host: `access.db` beside `cache.db`, opened on first use
    context.bindFactory(sqliteAccessStoreToken, () => new SqliteAccessStore(options.directory, options.busyTimeoutMs));
    context.bindFactory(keyStoreToken, (resolver) => resolver.resolve(sqliteAccessStoreToken));
    context.bindFactory(usageStoreToken, (resolver) => resolver.resolve(sqliteAccessStoreToken));
  },
  start(context) {
    context.resolve(sqliteCacheStoreToken).open();
  },
  async stop(context) {
    await context.resolve(sqliteCacheStoreToken).close();
    context.resolve(sqliteAccessStoreToken).close();
  },
});

export default sqliteCachePlugin;
