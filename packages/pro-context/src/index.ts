/**
 * pro-context: the preset. `startProContext()` composes the default plugins (SQLite cache, Orama search,
 * llms.txt source, docs engine) from `pro-context.config.yaml` and the environment.
 */
export { defaultPlugins, presetConfigJsonSchema } from './default-plugins.js';
export type { StartOptions } from './preset.js';
export {
  configurationNotes,
  loadDefaultPlugins,
  PRESET_VERSION,
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
