/**
 * pro-context: the preset. `startProContext()` composes the default plugins (SQLite cache, Orama search,
 * llms.txt source, docs engine) from `pro-context.config.yaml` and the environment.
 */
export type { StartOptions } from './preset.js';
export {
  configurationNotes,
  defaultPlugins,
  PRESET_VERSION,
  presetConfigJsonSchema,
  SERVER_INSTRUCTIONS,
  serverInstructions,
  startProContext,
} from './preset.js';
export type { RemotePluginName } from './remote-plugins.js';
export {
  enabledRemotePlugins,
  listedRemotePlugins,
  loadRemotePlugins,
  PLUGINS_ENV,
  pluginsConfigSchema,
  pluginsConfigSection,
  remotePluginLoaders,
  unknownPluginsNote,
  unknownRemotePlugins,
} from './remote-plugins.js';
export {
  corsConfigSchema,
  corsConfigSection,
  firstPartySections,
  proContextPlugin,
  rateLimitConfigSchema,
  rateLimitConfigSection,
  serverConfigSchema,
  serverConfigSection,
} from './settings.js';
