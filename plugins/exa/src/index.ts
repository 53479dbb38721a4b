/**
 * @pro-context/plugin-exa: Exa web search as MCP tools (`web_search`, `find_similar_content`), with the
 * output schemas of seed 004 §2.2 as structured content and a markdown rendering.
 *
 * Every export here is public API. The package root is cheap to import: no request is made and nothing is
 * read until a tool is called.
 */
export type { ExaRequestOptions, ExaResult, ExaSearchResponse } from './exa.js';
export { EXA_MISSING_KEY_MESSAGE, exaErrors, exaPost } from './exa.js';
export type { ExaPluginOptions, ExaPluginOptionsInput } from './options.js';
export {
  DEFAULT_EXA_URL,
  EXA_API_KEY_ENV,
  EXA_URL_ENV,
  exaOptionsToken,
  exaPluginOptionsSchema,
} from './options.js';
export { default, exaPlugin, exaPlugin as plugin } from './plugin.js';
export {
  EXA_CACHE_NAMESPACE,
  ExaTools,
  findSimilarInput,
  findSimilarOutput,
  renderFindSimilar,
  renderWebSearch,
  webSearchCategories,
  webSearchInput,
  webSearchOutput,
} from './tools.js';
