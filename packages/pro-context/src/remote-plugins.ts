import { type AnyPlugin, type ConfigSource, defineConfigSection, getPath, lineOf, z } from '@pro-context/kernel';
import { closestName } from '@pro-context/plugin-kit';
/**
 * The remote tool plugins the preset can enable by name (`plugins:` / `PRO_CONTEXT_PLUGINS`); a plugin not
 * enabled is never registered, so it binds, starts and lists nothing. A loader returns the plugins to add;
 * when two names bring a plugin of the same id, the one whose id is an enabled name wins (`codex7` brings
 * Context7's client alone, `context7` the client with its tools). Add a remote plugin here: its name and a
 * loader.
 *
 * Each is imported (`import()`) only when enabled: a server that enables none never reads, parses or evaluates
 * their modules (start-up at the floor, issue #27).
 */
export const remotePluginLoaders = {
  context7: async (): Promise<AnyPlugin[]> => [(await import('@pro-context/plugin-context7')).context7Plugin],
  codex7: async (): Promise<AnyPlugin[]> => {
    const [context7, codex7] = await Promise.all([
      import('@pro-context/plugin-context7'),
      import('@pro-context/plugin-codex7'),
    ]);
    return [context7.context7ClientPlugin, codex7.codex7Plugin];
  },
  grounding: async (): Promise<AnyPlugin[]> => [(await import('@pro-context/plugin-grounding')).groundingPlugin],
  exa: async (): Promise<AnyPlugin[]> => [(await import('@pro-context/plugin-exa')).exaPlugin],
  // a model reranking get-docs' best sections; also enabled by an `embeddings` section or PRO_CONTEXT_EMBEDDINGS_URL
  'openai-embeddings': async (): Promise<AnyPlugin[]> => [
    (await import('@pro-context/plugin-openai-embeddings')).openAiEmbeddingsPlugin,
  ],
} satisfies Record<string, () => Promise<AnyPlugin[]>>;

/** A remote plugin's name in `plugins:` / `PRO_CONTEXT_PLUGINS`. */
export type RemotePluginName = keyof typeof remotePluginLoaders;

/** The environment variable listing remote plugins to enable, comma-separated (`context7,grounding,exa`). */
export const PLUGINS_ENV = 'PRO_CONTEXT_PLUGINS';

const names = Object.keys(remotePluginLoaders) as [RemotePluginName, ...RemotePluginName[]];

/**
 * `plugins`: remote tool plugins to enable; a list, or (from the environment) a comma-separated string. A name
 * that is no remote plugin does not stop the server: it enables nothing, and {@link unknownPluginsNote} says so
 * (on stderr and in the instructions an MCP client gets at initialize), since a client of a server that exits
 * at start sees only "Connection closed".
 */
export const pluginsConfigSchema = z
  .preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(/[,\s]+/)
            .map((name) => name.trim())
            .filter(Boolean)
        : value,
    z.array(z.string().min(1)),
  )
  .default([])
  .describe(
    `Remote tool plugins to enable besides the docs engine's tools: ${names.join(', ')}. ${PLUGINS_ENV}=context7,… sets it from the environment. An unknown name enables nothing (a warning names it).`,
  );

const isRemotePluginName = (name: string): name is RemotePluginName => Object.hasOwn(remotePluginLoaders, name);

/** The names in `plugins` / `PRO_CONTEXT_PLUGINS` that are no remote plugin (a typo, another case). */
export function unknownRemotePlugins(listed: readonly string[]): string[] {
  return [...new Set(listed.filter((name) => !isRemotePluginName(name)))];
}

/**
 * The remote plugin a name was meant to be, among those not listed already: the same name in another case, else the
 * closest spelling within two edits (and under a third of the name: `openai-embedings` → `openai-embeddings`,
 * `contex7` → `context7`).
 */
function closestPluginName(name: string, listed: readonly string[]): RemotePluginName | undefined {
  return closestName(
    name,
    names.filter((known) => !listed.includes(known)),
  );
}

/**
 * What to tell the user and the agent about unknown names in the `plugins` list (undefined when there are
 * none): which names, that their tools are not offered, the names that exist, and the setting to fix.
 */
export function unknownPluginsNote(listed: readonly string[], fromVariable = false, line?: number): string | undefined {
  const unknown = unknownRemotePlugins(listed);
  if (unknown.length === 0) return undefined;
  // a name listed already is no guess (`context7,context8` meant two names, not context7 twice)
  // each guess once (`contex7` and `Context7` were both meant as context7)
  const guesses = [
    ...new Set(
      unknown
        .map((name) => closestPluginName(name, listed))
        .filter((guess): guess is RemotePluginName => guess !== undefined),
    ),
  ];
  const where = fromVariable ? PLUGINS_ENV : "the configuration's plugins";
  return `${where}${!fromVariable && line !== undefined ? ` (line ${line})` : ''} names ${unknown.map((n) => `'${n}'`).join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} no remote plugin of pro-context: no tools of ${unknown.length === 1 ? 'it' : 'them'} are offered. Known plugins: ${names.join(', ')}${guesses.length > 0 ? ` (did you mean ${guesses.map((g) => `'${g}'`).join(', ')}?)` : ''}. Fix the name in ${where} and restart the server.`;
}

/** `plugins`: the remote tool plugins enabled. */
export const pluginsConfigSection = defineConfigSection('plugins', pluginsConfigSchema);

/**
 * The remote plugins a configuration enables: `PRO_CONTEXT_PLUGINS` (when set) over the file's `plugins`.
 * A value that does not validate enables nothing here: the kernel's validation reports it, naming the key.
 */
export function enabledRemotePlugins(
  config: ConfigSource | Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): RemotePluginName[] {
  const names = listedRemotePlugins(config, env).names.filter(isRemotePluginName);
  if (embeddingsConfigured(config, env)) names.push('openai-embeddings');
  return [...new Set(names)];
}

/**
 * Whether the configuration sets up a reranking model: an `embeddings` section (file or overrides), or
 * `PRO_CONTEXT_EMBEDDINGS_URL`. The plugin is off otherwise (the lexical ranking needs nothing).
 */
function embeddingsConfigured(
  config: ConfigSource | Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  const source = 'values' in config && 'lines' in config ? (config as ConfigSource) : undefined;
  const environment = source?.env ?? env;
  const values = source ? source.values : config;
  const overrides = source?.overrides ? getPath(source.overrides, 'embeddings') : undefined;
  return (
    overrides !== undefined ||
    getPath(values, 'embeddings') !== undefined ||
    Boolean(environment.PRO_CONTEXT_EMBEDDINGS_URL?.trim())
  );
}

/**
 * Every name the configuration lists in `plugins` (known or not), and whether `PRO_CONTEXT_PLUGINS` gave them:
 * overrides over the variable over the file. A value that does not validate lists nothing.
 */
export function listedRemotePlugins(
  config: ConfigSource | Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): { names: string[]; fromVariable: boolean; line?: number } {
  const source = 'values' in config && 'lines' in config ? (config as ConfigSource) : undefined;
  const values = source ? source.values : config;
  const environment = source?.env ?? env;
  const fromOverrides = source?.overrides ? getPath(source.overrides, 'plugins') : undefined;
  const fromEnv = environment[PLUGINS_ENV]?.trim() ? environment[PLUGINS_ENV] : undefined;
  const parsed = pluginsConfigSchema.safeParse(fromOverrides ?? fromEnv ?? getPath(values, 'plugins'));
  const fromFile = fromOverrides === undefined && fromEnv === undefined;
  const line = fromFile && source ? lineOf(source.lines, 'plugins') : undefined;
  return {
    names: parsed.success ? parsed.data : [],
    fromVariable: fromOverrides === undefined && fromEnv !== undefined,
    ...(line === undefined ? {} : { line }),
  };
}

/** `context7 (line 6) is set but no installed plugin reads it.`: the validator's warning of a reserved section. */
const UNREAD_SECTION = /^([a-z][a-z0-9-]*)( \(line \d+\))? is set but no installed plugin reads it\.$/;

/**
 * The validator's warning about a section no installed plugin reads, with the way to enable the remote plugin
 * that reads it when there is one (`context7:` set without `plugins: [context7]`); any other warning as it is.
 */
export function withEnableHint(warning: string): string {
  const match = UNREAD_SECTION.exec(warning);
  const name = match?.[1];
  if (name === undefined || !isRemotePluginName(name)) return warning;
  return `${warning.slice(0, -1)}: the ${name} plugin is not enabled. Add it to the configuration's plugins (plugins: [${name}]) or set ${PLUGINS_ENV}=${name}, and restart the server.`;
}

/** Imports the plugins of `enabled` (only those); a plugin id brought by two names is added once. */
export async function loadRemotePlugins(enabled: readonly RemotePluginName[]): Promise<AnyPlugin[]> {
  const loaded = await Promise.all(enabled.map(async (name) => ({ name, plugins: await remotePluginLoaders[name]() })));
  const byId = new Map<string, AnyPlugin>();
  for (const { name, plugins } of loaded) {
    for (const plugin of plugins) {
      if (!byId.has(plugin.id) || plugin.id === name) byId.set(plugin.id, plugin);
    }
  }
  return [...byId.values()];
}
