/**
 * The text analysis and the relevance model's constants shared by every search backend that ranks like this one.
 * They live in `@pro-context/search-kit` now; this entry re-exports them unchanged for those who import them from
 * here. It loads neither Orama nor anything else heavy.
 *
 * Every export here is public API. Add exports deliberately.
 */
export type {
  CodeTokenizer,
  IndexEntry,
  QueryTerm,
  SearchLanguage,
  TokenizerOptions,
  TypoCandidate,
} from '@pro-context/search-kit';
export {
  allowedTypos,
  BM25_SHARE,
  boundedEditDistance,
  createCodeTokenizer,
  englishSynonymGroups,
  MAX_TYPO_CANDIDATES,
  MIN_TYPO_LENGTH,
  NUMERIC_TERM,
  SYNONYM_WEIGHT,
  synonymIndex,
  TypoVocabulary,
} from '@pro-context/search-kit';
