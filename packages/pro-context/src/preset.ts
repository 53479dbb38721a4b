import { createRequire } from 'node:module';
import { loadConfig, validateConfig } from '@pro-context/config';
import { enginePlugin } from '@pro-context/engine';
import { createHttpClient } from '@pro-context/http';
import type {
  AnyPlugin,
  ConfigSource,
  ConfigValidator,
  HttpClientOptions,
  Logger,
  StartedKernel,
} from '@pro-context/kernel';
import { knownLibrariesPlugin } from '@pro-context/known-libraries/plugin';
import { createLogger } from '@pro-context/logging';
import { discoveryPlugin } from '@pro-context/plugin-discovery';
import { githubPlugin } from '@pro-context/plugin-github';
import { llmsTxtPlugin } from '@pro-context/plugin-llms-txt';
import { localDocsPlugin } from '@pro-context/plugin-local-docs';
import { npmPlugin } from '@pro-context/plugin-npm';
import { packedSearchPlugin } from '@pro-context/plugin-packed-search/plugin';
import { projectPlugin } from '@pro-context/plugin-project/plugin';
import { pypiPlugin } from '@pro-context/plugin-pypi';
import { siteCrawlPlugin } from '@pro-context/plugin-site-crawl';
import { sqliteCachePlugin } from '@pro-context/plugin-sqlite-cache';
import { createKernel } from '@pro-context/runtime';
import {
  enabledRemotePlugins,
  listedRemotePlugins,
  loadRemotePlugins,
  unknownPluginsNote,
  withEnableHint,
} from './remote-plugins.js';
import { proContextPlugin } from './settings.js';

/** This preset's version. */
export const PRESET_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;

/**
 * The embedded defaults: SQLite cache, the packed search index, the llms.txt and GitHub sources, the crawl of
 * docs sites without llms.txt, the curated registry of well-known libraries, the PyPI and npm version resolvers,
 * the docs engine, docs discovery for packages nobody listed, project detection, and local docs (folders of
 * markdown, `sources.custom`, the installed packages' own docs). `PRO_CONTEXT_SEARCH_BACKEND` chooses another
 * search backend: `orama-search` (Orama; ranks exactly as packed-search, builds slower, on the main thread) or
 * `sqlite-search` (SQLite FTS5, disk-backed indexes; ranks worse). `PRO_CONTEXT_DATABASE_URL` (or `cache.store:
 * postgres` in `values`, the configuration) puts the cache, keys, usage and rate limits on PostgreSQL
 * (`postgres-store`, for several replicas) instead of SQLite.
 *
 * The other stores and search backends are imported (`import()`) only when chosen: a server on the defaults never
 * reads, parses or evaluates the PostgreSQL store's module, nor those of the search backends it does not use (and
 * the defaults are imported with this module: their start waits for no further import).
 * `defaultPlugins` (of `pro-context`'s main entry) is the same list, synchronously.
 */
export async function loadDefaultPlugins(
  env: Record<string, string | undefined> = process.env,
  values?: Record<string, unknown>,
): Promise<AnyPlugin[]> {
  const [store, search] = await Promise.all([storePlugin(env, values), searchPlugin(env)]);
  return [store, search, ...presetPlugins];
}

/** The preset's plugins after the cache store and the search backend, in start order (one list for both loaders). */
export const presetPlugins: readonly AnyPlugin[] = [
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

/** The cache store the configuration chooses ({@link usesPostgres}); PostgreSQL's module is imported now. */
async function storePlugin(env: Record<string, string | undefined>, values?: Record<string, unknown>) {
  return usesPostgres(env, values)
    ? (await import('@pro-context/plugin-postgres-store')).postgresStorePlugin
    : sqliteCachePlugin;
}

/** The search backend `PRO_CONTEXT_SEARCH_BACKEND` chooses (default packed-search); another's module is imported now. */
async function searchPlugin(env: Record<string, string | undefined>) {
  const backend = env.PRO_CONTEXT_SEARCH_BACKEND;
  if (backend === 'sqlite-search') return (await import('@pro-context/plugin-sqlite-search/plugin')).sqliteSearchPlugin;
  if (backend === 'orama-search') return (await import('@pro-context/plugin-orama-search/plugin')).oramaSearchPlugin;
  return packedSearchPlugin;
}

/**
 * Whether the configuration chooses the PostgreSQL store: `cache.store: postgres`, or `PRO_CONTEXT_DATABASE_URL`
 * unless the configuration says `cache.store: sqlite`.
 */
export function usesPostgres(env: Record<string, string | undefined>, values?: Record<string, unknown>): boolean {
  const store = (values?.cache as { store?: unknown } | undefined)?.store;
  if (store === 'postgres' || store === 'sqlite') return store === 'postgres';
  return Boolean(env.PRO_CONTEXT_DATABASE_URL);
}

/** Options of {@link startProContext}. */
export interface StartOptions {
  /** Config file (default: `PRO_CONTEXT_CONFIG`, `./pro-context.config.yaml`, `~/.pro-context/config.yaml`). */
  configFile?: string;
  /** Ready configuration instead of reading files and the environment. */
  config?: ConfigSource | Record<string, unknown>;
  /** Values above the file and environment (command-line flags). */
  overrides?: Record<string, unknown>;
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Plugins to add to (or, with `replaceDefaults`, use instead of) the defaults. */
  plugins?: AnyPlugin[];
  replaceDefaults?: boolean;
  logger?: Logger;
  httpOptions?: Partial<HttpClientOptions>;
  /**
   * Leave the plugins' background phases (the project scan) to the caller, who runs `kernel.background()` once
   * its first answers are out (the stdio server: after `tools/list`). Default false: they run right after start.
   */
  deferBackground?: boolean;
}

/**
 * The configuration's validator, whose warning about the section of a remote plugin that is not enabled
 * (`context7:` without `plugins: [context7]`) says how to enable it.
 */
const presetValidator: ConfigValidator = (source, plugins) => {
  const validated = validateConfig(source, plugins);
  return { ...validated, warnings: validated.warnings.map(withEnableHint) };
};

/**
 * Loads the configuration and starts a kernel with the preset's plugins, and the remote tool plugins the
 * configuration enables (`plugins:` or `PRO_CONTEXT_PLUGINS`), imported only then.
 */
export async function startProContext(options: StartOptions = {}): Promise<StartedKernel> {
  const config =
    options.config ??
    (await loadConfig({
      ...(options.configFile ? { file: options.configFile } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(options.overrides ? { overrides: options.overrides } : {}),
    }));
  const builder = createKernel({
    config,
    validateConfig: presetValidator,
    createHttpClient,
    createLogger,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.httpOptions ? { httpOptions: options.httpOptions } : {}),
    ...(options.deferBackground ? { deferBackground: true } : {}),
  });
  const chosen = options.replaceDefaults
    ? (options.plugins ?? [])
    : [...(await loadDefaultPlugins(options.env ?? process.env, configValues(config))), ...(options.plugins ?? [])];
  const remote = await loadRemotePlugins(enabledRemotePlugins(config, options.env));
  const plugins = [...chosen, ...remote.filter((r) => !chosen.some((p) => p.id === r.id))];
  for (const plugin of withPresetSettings(plugins)) builder.use(plugin);
  const kernel = await builder.start();
  // a misspelt plugin name does not stop the server (its client would see only "Connection closed"): the
  // server starts without that plugin and says why, on stderr and in the instructions sent at initialize
  const listed = listedRemotePlugins(config, options.env);
  const note = unknownPluginsNote(listed.names, listed.fromVariable, listed.line);
  if (note) {
    kernel.logger.warn(note);
    startupNotes.set(kernel, [note]);
  }
  return kernel;
}

/** The values of a loaded configuration, or a ready one. */
function configValues(config: ConfigSource | Record<string, unknown>): Record<string, unknown> {
  const source = config as Partial<ConfigSource>;
  return source.values && source.lines instanceof Map ? source.values : (config as Record<string, unknown>);
}

/** What a started kernel's configuration got wrong without stopping it (an unknown plugin name), by kernel. */
const startupNotes = new WeakMap<StartedKernel, string[]>();

/**
 * What the configuration of a kernel of {@link startProContext} got wrong without stopping it (an unknown
 * plugin name), besides the kernel's own `warnings`: for `config check` and the instructions.
 */
export function configurationNotes(kernel: StartedKernel): readonly string[] {
  return startupNotes.get(kernel) ?? [];
}

/**
 * The instructions a host sends at initialize for a kernel of {@link startProContext}: {@link SERVER_INSTRUCTIONS},
 * then what the configuration got wrong without stopping the server (an unknown plugin name), for the agent
 * to tell its user.
 */
export function serverInstructions(kernel: StartedKernel): string {
  const notes = configurationNotes(kernel);
  return notes.length === 0
    ? SERVER_INSTRUCTIONS
    : [SERVER_INSTRUCTIONS, ...notes.map((n) => `Note: ${n}`)].join('\n\n');
}

/** `plugins` behind {@link proContextPlugin} (the hosts' settings), which every preset kernel has. */
export function withPresetSettings(plugins: AnyPlugin[]): AnyPlugin[] {
  return plugins.some((p) => p.id === proContextPlugin.id) ? plugins : [proContextPlugin, ...plugins];
}

/** Instructions sent to agents at initialize. */
export const SERVER_INSTRUCTIONS = [
  'pro-context serves current, version-specific documentation of libraries.',
  'Start with resolve-library (it returns the libraryId, versions and the table of contents).',
  'Fast path: get-docs with a topic returns the best-matching sections within maxTokens.',
  'Navigation path: read-page on TOC, search-docs or relatedPages URLs; search-docs narrows first.',
  'Every answer names its version and source; do not substitute another version than the one asked for.',
].join(' ');
