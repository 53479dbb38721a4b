/**
 * @pro-context/plugin-sqlite-search: the `SearchBackend` on SQLite FTS5, one disk-backed index per
 * library version in one database file.
 *
 * Every export here is public API. Add exports deliberately.
 */
export { ftsQuery } from './analysis.js';
export type { SqliteSearchBackendInput, SqliteSearchBackendOptions, SqliteSearchBoost } from './backend.js';
export { defaultSqliteSearchBackendOptions, SqliteSearchBackend } from './backend.js';
export type { SqliteSearchPluginInput, SqliteSearchPluginOptions } from './options.js';
export { sqliteSearchPluginOptionsSchema } from './options.js';
export { default, sqliteSearchBackendToken, sqliteSearchPlugin } from './plugin.js';
