/**
 * @pro-context/engine/api: the small engine API for plugins (issue #27), in the manner of Backstage's extension
 * points. A plugin imports the engine only through this entry: the engine's service token and the types of what
 * it answers, the configuration sections plugins read, the budget/cut helpers, and the remote-docs token (the
 * kernel's `docsFallbackToken`, declared once in the kernel and re-exported here). `@pro-context/engine` itself
 * stays closed to plugins (ARCHITECTURE.md's layer test says so).
 *
 * Every export here is public API; named exports only.
 */
export type { DocsFallback, FallbackDocs, FallbackLibrary } from '@pro-context/kernel';
// the remote-docs token: Context7 (or another service) behind the engine, declared once, in the kernel
export { docsFallbackToken } from '@pro-context/kernel';
export type { RankedChunk } from './core/ranking.js';
// the budget and cut helpers: ranked sections within a token budget, a text cut at a paragraph boundary
export { cutAtBoundary, fillBudget } from './core/ranking.js';
export type { DocsEngine } from './engine.js';
export type { LoadedDocs, StoredChunk } from './indexing/doc-store.js';
// the engine's service token
export { docsEngineToken } from './plugin.js';
// the optional contracts of replicas sharing one store (postgres-store binds them)
export type { IndexLease, LeaseHandle, ReplicaEvent, ReplicaEvents } from './replicas.js';
export { indexLeaseToken, replicaEventsToken } from './replicas.js';
// the reranking seam: optional Embedder / Reranker contracts and their tokens (issue #28)
export type { Embedder, RerankCandidate, Reranker } from './reranking.js';
export {
  DEFAULT_RERANK_BUDGET_MS,
  DEFAULT_RERANK_WEIGHT,
  embedderToken,
  rerankerToken,
} from './reranking.js';
export type { ResolveResult } from './resolve-library/resolve.js';
export type { ProjectConfig } from './settings.js';
// the `project` section (project detection, its working directory and Python environment)
export { projectConfigSection } from './settings.js';
