import { configJsonSchema } from '@pro-context/config';
import { enginePlugin } from '@pro-context/engine';
import type { AnyPlugin } from '@pro-context/kernel';
import { knownLibrariesPlugin } from '@pro-context/known-libraries/plugin';
import { discoveryPlugin } from '@pro-context/plugin-discovery';
import { githubPlugin } from '@pro-context/plugin-github';
import { llmsTxtPlugin } from '@pro-context/plugin-llms-txt';
import { localDocsPlugin } from '@pro-context/plugin-local-docs';
import { npmPlugin } from '@pro-context/plugin-npm';
import { oramaSearchPlugin } from '@pro-context/plugin-orama-search/plugin';
import { packedSearchPlugin } from '@pro-context/plugin-packed-search/plugin';
import { postgresStorePlugin } from '@pro-context/plugin-postgres-store';
import { projectPlugin } from '@pro-context/plugin-project/plugin';
import { pypiPlugin } from '@pro-context/plugin-pypi';
import { siteCrawlPlugin } from '@pro-context/plugin-site-crawl';
import { sqliteCachePlugin } from '@pro-context/plugin-sqlite-cache';
import { sqliteSearchPlugin } from '@pro-context/plugin-sqlite-search/plugin';
import { usesPostgres, withPresetSettings } from './preset.js';

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
    llmsTxtPlugin,
    githubPlugin,
    siteCrawlPlugin,
    knownLibrariesPlugin,
    pypiPlugin,
    npmPlugin,
    enginePlugin,
    discoveryPlugin,
    projectPlugin,
    localDocsPlugin,
  ];
}

/** JSON Schema of `pro-context.config.yaml` with the preset's plugins. */
export function presetConfigJsonSchema(plugins: AnyPlugin[] = defaultPlugins()): Record<string, unknown> {
  return configJsonSchema(withPresetSettings(plugins));
}
