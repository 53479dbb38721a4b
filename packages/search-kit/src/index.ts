/**
 * @pro-context/search-kit: what pro-context's search backends share, so that they rank alike — the code-aware
 * text analysis (tokenizer, Porter stemmer, stop words, American spelling, synonym groups, typo vocabulary, the
 * scan that sets link targets and URLs aside), the relevance model's constants, the lazy `SearchBackend` wrapper
 * and the loaded-index LRU with build generations. The ranking options (zod) are the `./options` entry: this one
 * loads nothing of the kernel, so an index worker may import it.
 *
 * Every export here is public API; named exports only.
 */
export type { ClosableSearchBackend } from './lazy-backend.js';
export { LazySearchBackend } from './lazy-backend.js';
export { LoadedIndexes } from './loaded-indexes.js';
export { NonProseScanner, replaceSpans } from './non-prose.js';
export type { FieldPage, PageFieldMatch } from './page-fields.js';
export {
  ANCHOR_FIELD_WEIGHT,
  MAX_RELATED_PER_TERM,
  MAX_RELATED_TERMS,
  PageFieldIndex,
} from './page-fields.js';
export { porterStem } from './porter.js';
export { BM25_SHARE, MAX_TYPO_CANDIDATES, NUMERIC_TERM } from './scoring.js';
export { americanSpelling } from './spelling.js';
export { englishStopWords } from './stop-words.js';
export { englishSynonymGroups, SYNONYM_WEIGHT, synonymIndex } from './synonyms.js';
export type {
  CodeTokenizer,
  IndexEntry,
  OramaTokenizerShape,
  QueryTerm,
  SearchLanguage,
  TokenizerOptions,
} from './tokenizer.js';
export { createCodeTokenizer } from './tokenizer.js';
export type { TypoCandidate } from './typo-vocabulary.js';
export {
  allowedTypos,
  boundedEditDistance,
  MIN_TWO_TYPO_LENGTH,
  MIN_TYPO_LENGTH,
  TypoVocabulary,
} from './typo-vocabulary.js';
