/**
 * @pro-context/engine: the docs engine and its MCP tools, resources and prompts.
 */

// chunking moved to @pro-context/markdown; re-exported so that imports from the engine keep working
export type { Chunk, ChunkablePage, ChunkOptions } from '@pro-context/markdown';
export { chunkMarkdown } from '@pro-context/markdown';
export type { CatalogMatch } from './core/catalog.js';
export { LibraryCatalog, mergeLibrary, normalizeQuery } from './core/catalog.js';
export type { DocsRecord, IndexingNow, LoadedDocs, LoadResult, StoredChunk, StoredPage } from './core/doc-store.js';
export type { DocsAnswer, DocsEngineDeps, LibrarySummary, ResolveResult, SearchAnswer } from './core/engine.js';
export { DocsEngine } from './core/engine.js';
export type { PageSlice } from './core/pages.js';
export { markdownVariants, truncationNote } from './core/pages.js';
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
export type { VersionInfo, VersionScheme, VersionSources } from './core/versions.js';
export { matchVersion, registryOf, resolveLibraryVersion, versionSchemeOf } from './core/versions.js';
export { ConfigLibraryProvider } from './libraries/config-provider.js';
export type { LibrarySettingsReport } from './libraries/settings.js';
export { applyLibrarySettings } from './libraries/settings.js';
export type { EngineOptions } from './options.js';
export { engineOptionsSchema } from './options.js';
export { docsEngineToken, enginePlugin } from './plugin.js';
export { enginePrompts, renderTemplate } from './prompts.js';
export type { LibraryConfig, ProjectConfig } from './settings.js';
export {
  librariesConfigSection,
  libraryConfigSchema,
  projectConfigSchema,
  projectConfigSection,
} from './settings.js';
export * as schemas from './tools/schemas.js';
export { docsTools } from './tools/tools.js';
