import { configJsonSchema } from '@pro-context/config';
import type { AnyPlugin } from '@pro-context/kernel';
import { oramaSearchPlugin } from '@pro-context/plugin-orama-search/plugin';
import { packedSearchPlugin } from '@pro-context/plugin-packed-search/plugin';
import { postgresStorePlugin } from '@pro-context/plugin-postgres-store';
import { sqliteCachePlugin } from '@pro-context/plugin-sqlite-cache';
import { sqliteSearchPlugin } from '@pro-context/plugin-sqlite-search/plugin';
import { presetPlugins, usesPostgres, withPresetSettings } from './preset.js';

/**
 * The preset's default plugins ({@link loadDefaultPlugins} of `./preset.js`, which the server starts with),
 * synchronously: every store and search backend is imported with this module. Kept apart so that the
 * `pro-context` command's start-up does not load the ones it does not use.
 */
export function defaultPlugins(
  env: Record<string, string | undefined> = process.env,
  values?: Record<string, unknown>,
): AnyPlugin[] {
  const backend = env.PRO_CONTEXT_SEARCH_BACKEND;
  return [
    usesPostgres(env, values) ? postgresStorePlugin : sqliteCachePlugin,
    backend === 'sqlite-search'
      ? sqliteSearchPlugin
      : backend === 'orama-search'
        ? oramaSearchPlugin
        : packedSearchPlugin,
    ...presetPlugins,
  ];
}

/** JSON Schema of `pro-context.config.yaml` with the preset's plugins. */
export function presetConfigJsonSchema(plugins: AnyPlugin[] = defaultPlugins()): Record<string, unknown> {
  const schema = configJsonSchema(withPresetSettings(plugins));
  // both stores declare `cache`, and `cache.store` chooses one at start: an editor accepts either's settings (a
  // team's `cache: {store: postgres, postgres: …}` checked on a laptop whose environment chooses SQLite)
  const chosen = plugins.find((p) => p === sqliteCachePlugin || p === postgresStorePlugin);
  if (!chosen) return schema;
  const other = chosen === sqliteCachePlugin ? postgresStorePlugin : sqliteCachePlugin;
  const alternative = configJsonSchema(withPresetSettings(plugins.map((p) => (p === chosen ? other : p))));
  const properties = schema.properties as Record<string, unknown> | undefined;
  const cache = properties?.cache;
  const otherCache = (alternative.properties as Record<string, unknown> | undefined)?.cache;
  if (properties && cache && otherCache) {
    properties.cache = {
      description: 'The store of the cache, keys and usage: sqlite (the default) or postgres (cache.store: postgres).',
      anyOf: [cache, otherCache],
    };
  }
  return schema;
}
