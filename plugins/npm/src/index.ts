/**
 * @pro-context/plugin-npm: a RegistryResolver for the npm registry of the user's npm configuration, plus the
 * registry discovery and packument helpers it is built on.
 *
 * Every export here is public API.
 */
export type { NpmEnvironment, NpmPluginOptions, NpmPluginOptionsInput } from './options.js';
export {
  NPM_URL_ENV,
  npmEnvironmentToken,
  npmOptionsToken,
  npmPluginOptionsSchema,
  processNpmEnvironment,
} from './options.js';
export type { NpmPackument, NpmRepository, NpmVersionManifest } from './packument.js';
export { nearestNpmVersions, npmMetadata, repositoryUrl, selectNpmVersion } from './packument.js';
export { default, npmPlugin } from './plugin.js';
export type { NpmRegistrySettings } from './registry-config.js';
export {
  discoverNpmRegistry,
  projectDirOf,
  readNpmrc,
  registryUrl,
  spawnNpmConfigGetRegistry,
} from './registry-config.js';
export { NpmRegistryResolver, npmPackagePath } from './resolver.js';
