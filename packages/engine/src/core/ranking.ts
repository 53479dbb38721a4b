/**
 * Ranking of get-docs and search-docs, split by concern under `./ranking/` (issue #28): query terms and
 * coverage (`terms`), query analysis (`query`), labels and heading text (`labels`), sections and the budget
 * (`sections`), the relevance cut-off (`cutoff`), page kinds (`kinds`) and the re-ranking rules (`rerank`).
 * This module keeps the names its callers import.
 */
export { joinHits, type RankedChunk } from './ranking/chunks.js';
export { type CutoffParams, DEFAULT_CUTOFF, sectionsLeftOut, selectRelevant } from './ranking/cutoff.js';
export { asksAboutVersions, type PageKind, pageKind } from './ranking/kinds.js';
export {
  chunkTitle,
  chunkUrl,
  continuedHeading,
  cutAtBoundary,
  headingIdentifier,
  headingText,
  sectionPath,
  withoutAttributesAndComments,
  withoutCallOrTypeArguments,
  withoutSectionSuffix,
} from './ranking/labels.js';
export {
  analyzeQuery,
  comparisonSubjects,
  type QueryAnalysis,
  type QueryIntent,
  searchText,
  withoutScaffolding,
} from './ranking/query.js';
export { errorPhrases, queryIdentifiers, rerank, rerankLookups } from './ranking/rerank.js';
export { fillBudget, indexSections, snippetOf, withParentIntros, withSectionParts } from './ranking/sections.js';
export {
  confidenceOf,
  queryTerms,
  termCoverage,
  termWeights,
  termWeightsFrom,
  withinOneEdit,
  withoutLibraryName,
} from './ranking/terms.js';
