/**
 * The text analysis and the relevance model's constants, shared by every search backend that ranks like
 * this one (`@pro-context/plugin-packed-search` imports them from `@pro-context/plugin-orama-search/analysis`):
 * the code-aware tokenizer, stop words and spelling, the synonym groups, the typo vocabulary. This entry
 * point loads neither Orama nor anything else heavy (the stemmer only).
 *
 * Every export here is public API. Add exports deliberately.
 */
export { BM25_SHARE, MAX_TYPO_CANDIDATES, NUMERIC_TERM } from './scoring.js';
export { englishSynonymGroups, SYNONYM_WEIGHT, synonymIndex } from './synonyms.js';
export type { CodeTokenizer, IndexEntry, QueryTerm, SearchLanguage, TokenizerOptions } from './tokenizer.js';
export { createCodeTokenizer } from './tokenizer.js';
export type { TypoCandidate } from './typo-vocabulary.js';
export { allowedTypos, boundedEditDistance, MIN_TYPO_LENGTH, TypoVocabulary } from './typo-vocabulary.js';
