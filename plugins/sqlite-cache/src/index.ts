/**
 * @pro-context/plugin-sqlite-cache: the `CacheStore` on SQLite (better-sqlite3, WAL) with an in-memory LRU
 * in front.
 *
 * Every export here is public API. Add exports deliberately.
 */

export { SqliteAccessStore } from './access-store.js';
export type { SqliteCachePluginInput, SqliteCachePluginOptions } from './options.js';
export { sqliteCachePluginOptionsSchema } from './options.js';
export { default, sqliteAccessStoreToken, sqliteCachePlugin, sqliteCacheStoreToken } from './plugin.js';
export { SCHEMA_VERSION } from './schema.js';
export type { CleanupResult, SqliteCacheStoreDependencies } from './store.js';
export { SqliteCacheStore } from './store.js';
