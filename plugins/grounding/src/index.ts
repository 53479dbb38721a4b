/**
 * @pro-context/plugin-grounding: web search grounded by Gemini with Google Search, as MCP tools
 * (`ground.search`, `ground.dev`, `ground.docs`, `ground.reddit`).
 *
 * Every export here is public API. The package root is cheap to import: no request is made and nothing is
 * read until a tool is called.
 */
export type { GenerateOptions, GroundedAnswer, GroundingSource } from './gemini.js';
export { generateGrounded, groundingErrors, MISSING_KEY_MESSAGE, renderSources, sourcesOf } from './gemini.js';
export type { GroundingPluginOptions, GroundingPluginOptionsInput } from './options.js';
export {
  DEFAULT_GEMINI_MODEL,
  DEFAULT_GEMINI_URL,
  GEMINI_API_KEY_ENV,
  GEMINI_URL_ENV,
  groundingOptionsToken,
  groundingPluginOptionsSchema,
} from './options.js';
export { default, groundingPlugin, groundingPlugin as plugin } from './plugin.js';
export type { GroundingFocus } from './tools.js';
export {
  GROUNDING_CACHE_NAMESPACE,
  GroundingTools,
  groundingFocusModes,
  groundingPrompts,
  renderGrounded,
} from './tools.js';
