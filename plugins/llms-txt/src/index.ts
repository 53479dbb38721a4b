/**
 * @pro-context/plugin-llms-txt: a SourceAdapter for documentation sites that publish llms.txt (and
 * llms-full.txt), plus the pure parsers it is built on.
 *
 * Every export here is public API.
 */

// the parsers live in @pro-context/markdown (local-docs reads llms.txt files too); re-exported unchanged
export type {
  LlmsFullSplitterOptions,
  LlmsFullStyle,
  LlmsTxtFormat,
  LlmsTxtSection,
  ParsedLlmsTxt,
  SplitLlmsFullOptions,
  SplitLlmsFullResult,
} from '@pro-context/markdown';
export { detectLlmsFull, LlmsFullSplitter, llmsTxtPages, parseLlmsTxt, splitLlmsFull } from '@pro-context/markdown';
export { LlmsTxtSourceAdapter } from './adapter.js';
export type { LlmsTxtPluginOptions, LlmsTxtPluginOptionsInput } from './options.js';
export { llmsTxtOptionsToken, llmsTxtPluginOptionsSchema } from './options.js';
export { default, llmsTxtPlugin } from './plugin.js';
export type { LlmsTxtLibrarySettings, VersionFormat } from './settings.js';
export { llmsTxtLibrarySettings, llmsTxtLibrarySettingsSchema, llmsTxtSettingsOf } from './settings.js';
export { formatVersion, hasVersionedDocs, llmsFullTxtUrlOf, llmsTxtUrlOf } from './urls.js';
