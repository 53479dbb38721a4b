/**
 * @pro-context/plugin-llms-txt: a SourceAdapter for documentation sites that publish llms.txt (and
 * llms-full.txt), plus the pure parsers it is built on.
 *
 * Every export here is public API.
 */
export { LlmsTxtSourceAdapter } from './adapter.js';
export type { LlmsTxtPluginOptions, LlmsTxtPluginOptionsInput } from './options.js';
export { llmsTxtOptionsToken, llmsTxtPluginOptionsSchema } from './options.js';
export type { LlmsFullStyle, SplitLlmsFullOptions, SplitLlmsFullResult } from './parse/llms-full.js';
export { detectLlmsFull, splitLlmsFull } from './parse/llms-full.js';
export type { LlmsFullSplitterOptions } from './parse/llms-full-stream.js';
export { LlmsFullSplitter } from './parse/llms-full-stream.js';
export type { LlmsTxtFormat, LlmsTxtSection, ParsedLlmsTxt } from './parse/llms-txt.js';
export { llmsTxtPages, parseLlmsTxt } from './parse/llms-txt.js';
export { default, llmsTxtPlugin } from './plugin.js';
export type { LlmsTxtLibrarySettings, VersionFormat } from './settings.js';
export { llmsTxtLibrarySettings, llmsTxtLibrarySettingsSchema, llmsTxtSettingsOf } from './settings.js';
export { formatVersion, hasVersionedDocs, llmsFullTxtUrlOf, llmsTxtUrlOf } from './urls.js';
