/**
 * @pro-context/engine: the docs engine and its MCP tools, resources and prompts.
 *
 * Every export here is public API; named exports only.
 */

// chunking moved to @pro-context/markdown; re-exported so that imports from the engine keep working
export type { Chunk, ChunkablePage, ChunkOptions } from '@pro-context/markdown';
export { chunkMarkdown } from '@pro-context/markdown';
export type { LibrarySettingsReport } from '@pro-context/plugin-kit';
export { applyLibrarySettings } from '@pro-context/plugin-kit';
export type { CutoffParams, PageKind, RankedChunk } from './core/ranking.js';
export {
  chunkUrl,
  cutAtBoundary,
  DEFAULT_CUTOFF,
  fillBudget,
  joinHits,
  pageKind,
  queryTerms,
  rerank,
  sectionPath,
  sectionsLeftOut,
  selectRelevant,
  termWeights,
  withoutLibraryName,
  withSectionParts,
} from './core/ranking.js';
export type { DocsEngineDeps } from './engine.js';
export { DocsEngine } from './engine.js';
export type { DocsAnswer, DocsRequest, DocsResult, RenderOverhead } from './get-docs/answer.js';
export { type Ranking, rankChunks } from './get-docs/rank.js';
export type { DocsRecord, IndexingNow, LoadedDocs, LoadResult, StoredChunk, StoredPage } from './indexing/doc-store.js';
export type { CatalogMatch } from './libraries/catalog.js';
export { LibraryCatalog, mergeLibrary, normalizeQuery } from './libraries/catalog.js';
export { ConfigLibraryProvider } from './libraries/config-provider.js';
export type { LibrarySummary, ListFilters } from './libraries/list-libraries.js';
export type { EngineOptions } from './options.js';
export { engineOptionsSchema } from './options.js';
export { docsEngineToken, enginePlugin } from './plugin.js';
export { enginePrompts, renderTemplate } from './prompts.js';
export type { PageSlice } from './read-page/pages.js';
export { markdownVariants, truncationNote } from './read-page/pages.js';
export type { Embedder, RerankCandidate, Reranker } from './reranking.js';
export { DEFAULT_RERANK_BUDGET_MS, DEFAULT_RERANK_WEIGHT, embedderToken, rerankerToken } from './reranking.js';
export type { ResolveOptions } from './resolve-library/matches.js';
export type { ResolveResult } from './resolve-library/resolve.js';
export type { SearchAnswer } from './search-docs/search.js';
export type { LibraryConfig, ProjectConfig } from './settings.js';
export {
  librariesConfigSection,
  libraryConfigSchema,
  projectConfigSchema,
  projectConfigSection,
} from './settings.js';
export type { RenderedDocsAnswer } from './tools/render-docs.js';
export { docsFooterOverhead, renderDocsAnswer } from './tools/render-docs.js';
export { schemas } from './tools/schemas.js';
export { docsTools } from './tools/tools.js';
export type { ServedVersion } from './versions/served-version.js';
export type { VersionInfo, VersionScheme, VersionSources } from './versions/versions.js';
export { matchVersion, registryOf, resolveLibraryVersion, versionSchemeOf } from './versions/versions.js';
