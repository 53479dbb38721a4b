/**
 * @pro-context/plugin-orama-search: the `SearchBackend` on Orama BM25, one in-memory index per library
 * version, with a code-aware tokenizer and typo tolerance.
 *
 * Every export here is public API. Add exports deliberately.
 */

export type { CodeTokenizer, QueryTerm, SearchLanguage } from '@pro-context/search-kit';
export { createCodeTokenizer, englishSynonymGroups } from '@pro-context/search-kit';
export type { OramaSearchBackendInput, OramaSearchBackendOptions } from './backend.js';
export { defaultOramaSearchBackendOptions, OramaSearchBackend } from './backend.js';
export type { ChunkField } from './chunk-db.js';
export type { OramaSearchPluginInput, OramaSearchPluginOptions } from './options.js';
export { oramaSearchPluginOptionsSchema } from './options.js';
export { default, oramaSearchPlugin } from './plugin.js';
