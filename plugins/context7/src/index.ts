/**
 * @pro-context/plugin-context7: Context7's hosted documentation index as MCP tools (`context7.search`,
 * `context7.doc`, seed 000), and the client other plugins build on.
 *
 * Every export here is public API.
 */
export type {
  Context7CodeSnippet,
  Context7InfoSnippet,
  Context7Library,
  Context7Snippets,
  ResolvedLibraryKey,
} from './client.js';
export { Context7Client } from './client.js';
export type {
  DocsAnswerOrigin,
  DocumentationToolArgs,
  DocumentationToolData,
  DocumentationToolName,
  EngineToolCaller,
  LibraryMatch,
  ResolveLibraryResult,
  SearchDocumentationResult,
} from './documentation-tools.js';
export {
  countCodeExamples,
  DocumentationTools,
  definitionCaller,
  documentationToolDescriptions,
  libraryMatchSchema,
  provenanceLine,
  renderDocumentation,
  renderMatches,
  resolveLibraryInput,
  resolveLibraryOutput,
  searchDocumentationInput,
  searchDocumentationOutput,
} from './documentation-tools.js';
export { context7Errors, KEY_MISSING_MESSAGE, renderContext7Error } from './errors.js';
export { CONTEXT7_ENABLE_HINT, context7Fallback, withinTokens } from './fallback.js';
export type { NormalizedLibraryKey } from './normalize.js';
export { clamp, normalizeLibraryKey, normalizeTopic, stripQuotes } from './normalize.js';
export type { Context7PluginOptions, Context7PluginOptionsInput } from './options.js';
export {
  CONTEXT7_API_KEY_ENV,
  CONTEXT7_URL_ENV,
  context7OptionsToken,
  context7PluginOptionsSchema,
  DEFAULT_CONTEXT7_URL,
} from './options.js';
export {
  context7ClientPlugin,
  context7ClientToken,
  context7Plugin,
  createContext7Plugin,
  default,
} from './plugin.js';
export { context7Tools, DEFAULT_LIMIT, renderCodeSnippet, renderInfoSnippet } from './tools.js';
