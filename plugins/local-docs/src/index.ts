/**
 * @pro-context/plugin-local-docs: documentation from the local disk — folders of markdown, local llms.txt files,
 * `sources.custom` entries, and the docs of the packages installed in the project, at their installed version,
 * offline.
 *
 * Every export here is public API.
 */
export { type LocalDocsAdapterDeps, LocalDocsSourceAdapter } from './adapter.js';
export { renderDts } from './dts.js';
export { type InstalledPackage, InstalledPackages, normalizePypi } from './installed.js';
export { type DistMetadata, parseMetadata, rstHeadingsToMarkdown } from './metadata.js';
export {
  type CustomSource,
  customSourceSchema,
  customSourcesSection,
  type LocalDocsPluginOptions,
  type LocalDocsPluginOptionsInput,
  localDocsErrors,
  localDocsOptionsToken,
  localDocsPluginOptionsSchema,
} from './options.js';
export { default, localDocsPlugin } from './plugin.js';
export { CustomSourcesProvider, customSourceLibrary, InstalledPackagesProvider } from './provider.js';
export { LOCAL_HOST, localUrl } from './urls.js';
