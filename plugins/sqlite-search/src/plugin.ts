import { createRequire } from 'node:module';
import { createToken, definePlugin, type PluginDefinition, searchBackendToken } from '@pro-context/kernel';
import { SqliteSearchBackend } from './backend.js';
import {
  type SqliteSearchPluginInput,
  type SqliteSearchPluginOptions,
  sqliteSearchPluginOptionsSchema,
} from './options.js';

// src/ and dist/ are both one level below the package root, so this works from either.
const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

const DEFAULT_DIRECTORY = '~/.pro-context/cache';

/** The plugin's own backend (`close()`, `file`), bound to the same instance as `searchBackendToken`. */
export const sqliteSearchBackendToken = createToken<SqliteSearchBackend>('sqlite-search.backend');

/**
 * Provides `searchBackendToken` with a {@link SqliteSearchBackend}, configured by the `search` config
 * section; its database sits beside the cache's (`cache.directory`) unless `search.directory` says otherwise.
 * Use it instead of `orama-search` (one search backend per kernel).
 */
export const sqliteSearchPlugin: PluginDefinition<SqliteSearchPluginOptions, SqliteSearchPluginInput> = definePlugin<
  SqliteSearchPluginOptions,
  SqliteSearchPluginInput
>({
  id: 'sqlite-search',
  version: pkg.version,
  description: 'SearchBackend on SQLite FTS5: disk-backed BM25 indexes, memory bounded by the page cache.',
  kernel: '^0.1.0',
  configKey: 'search',
  provides: [searchBackendToken],
  optionsSchema: sqliteSearchPluginOptionsSchema,
  register(context, options) {
    const cache = context.config.raw.cache as { directory?: unknown } | undefined;
    const directory =
      options.directory ?? (typeof cache?.directory === 'string' ? cache.directory : undefined) ?? DEFAULT_DIRECTORY;
    const logger = context.logger;
    context.bindFactory(sqliteSearchBackendToken, () => new SqliteSearchBackend({ ...options, directory }, logger));
    context.bindFactory(searchBackendToken, (resolver) => resolver.resolve(sqliteSearchBackendToken));
  },
  async stop(context) {
    context.resolve(sqliteSearchBackendToken).close();
  },
});

export default sqliteSearchPlugin;
