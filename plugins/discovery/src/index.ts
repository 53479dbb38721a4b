/**
 * @pro-context/plugin-discovery: a LibraryProvider that finds the documentation of packages no library list
 * names, from their PyPI or npm metadata, by probing for llms.txt.
 *
 * Every export here is public API.
 */
export type { DiscoveryPluginOptions, DiscoveryPluginOptionsInput } from './options.js';
export { discoveryOptionsToken, discoveryPluginOptionsSchema } from './options.js';
export { default, discoveryPlugin } from './plugin.js';
export type { LlmsFileKind, ProbeCandidate, ProbeOutcome } from './probe.js';
export { notLlmsText, probeCandidates, siteBase } from './probe.js';
export type { DiscoveredPackage, DiscoveryDeps } from './provider.js';
export {
  DISCOVERY_NAMESPACE,
  DiscoveryLibraryProvider,
  descriptorOf,
  libraryIdOf,
  normalizePackageName,
  triedNote,
} from './provider.js';
