import type { Tokenizer } from '@orama/orama';
import { stemmer as englishStemmer } from '@orama/stemmers/english';
import { americanSpelling } from './spelling.js';
import { englishStopWords } from './stop-words.js';

/** Languages the tokenizer supports (stemmer and stop words). */
export type SearchLanguage = 'english';

/** One query term: the indexed form (stemmed) and the word as typed (lowercased), for typo matching. */
export interface QueryTerm {
  term: string;
  surface: string;
}

/**
 * An indexed term as the tokenizer's word cache holds it: the same object each time its word recurs, until
 * the cache is released. `slot` is the indexer's (-1 until it sets it): an index builder that owns its
 * tokenizer keeps the term's number there instead of looking the term up again at every occurrence.
 */
export interface IndexEntry extends QueryTerm {
  slot: number;
}

/**
 * Orama's tokenizer interface plus what the custom index needs: index-time terms with duplicates (real
 * term frequencies) and query terms that keep the typed form.
 */
export interface CodeTokenizer extends Tokenizer {
  /**
   * Identifies the analysis (rules + language). A snapshot made with another fingerprint is refused,
   * because its terms would not match the terms this tokenizer produces for queries.
   */
  readonly fingerprint: string;
  /**
   * Calls `visit(surface, term)` for every indexed term of `text` in order, duplicates included (the
   * surface is the word as written, lowercased). Returns the number of terms (the field length).
   */
  indexTerms(text: string, visit: (surface: string, term: string) => void): number;
  /**
   * Like {@link CodeTokenizer.indexTerms}, with the cached entries themselves (see {@link IndexEntry}).
   * Returns the number of terms.
   */
  indexEntries(text: string, visit: (entry: IndexEntry) => void): number;
  /** Query terms of `text`, one per distinct indexed form. */
  queryTerms(text: string): QueryTerm[];
  /** The indexed form of one lowercased word (stemmed), or `''` if it is not indexed (stop word, too short). */
  termOf(surface: string): string;
  /** Forgets the per-word cache (it speeds up building an index; between builds it is only memory). */
  releaseCache(): void;
}

/** Bump when the analysis changes, so old snapshots are rebuilt instead of silently mismatching. */
const ANALYSIS_VERSION = 3;
const MIN_TERM_LENGTH = 2;
// Longer runs are hashes, base64 or minified code: no one searches for them.
const MAX_TERM_LENGTH = 64;
// A word: letters, digits and `_`, optionally joined by `.` or `-` (`httpx.AsyncClient`, `app.get`, `x-api-key`).
const WORD = /[\p{L}\p{N}_]+(?:[.-][\p{L}\p{N}_]+)*/gu;
// Markdown link targets and bare URLs: their path segments would make every page that links somewhere
// match that somewhere's words.
const LINK_TARGET = /\]\([^)\s]*(?:\s+"[^"]*")?\)/g;
const BARE_URL = /\bhttps?:\/\/[^\s)>\]]+/g;
// MkDocs attribute lists (`## Title { #anchor .class }`) repeat the heading's words and lengthen the field.
const ATTRIBUTE_LIST = /\{\s*[#.][^}\n]*\}/g;
// English contractions (`isn't`, `Pydantic's`, `you're`): the apostrophe would otherwise cut them into a
// word and a suffix (`re`, `ll` and `ve` are long enough to be indexed, and `re` is also a Python module).
// `n't` becomes ` not` (`isn't` → `is not`), the other suffixes are dropped.
// The lookbehind only starts a match at the start of a run of letters: a match found from inside the run
// is also found from its start, and without it the engine retries the run from every letter (quadratic).
const CONTRACTION = /(?<!\p{L})(\p{L}+)['’](t|s|re|ve|ll|d|m)(?![\p{L}\p{N}_])/giu;
// The word before `n't` when it is not the word itself (`can't`, `won't`, `shan't`, `ain't`).
const IRREGULAR_NOT: Readonly<Record<string, string>> = { ca: 'can', wo: 'will', sha: 'shall', ai: 'is' };
const expandContraction = (_match: string, word: string, suffix: string): string => {
  if (suffix.toLowerCase() !== 't' || !/n$/i.test(word)) return word;
  const base = word.slice(0, -1);
  return `${IRREGULAR_NOT[base.toLowerCase()] ?? base} not`;
};
// The same two rules for text that is all ASCII (most documentation): there `\p{L}` is `[A-Za-z]`, `\p{N}` is
// `[0-9]` and `’` cannot occur, and without the `u` flag the engine runs them several times faster.
const ASCII_WORD = /[A-Za-z0-9_]+(?:[.-][A-Za-z0-9_]+)*/g;
const ASCII_CONTRACTION = /(?<![A-Za-z])([A-Za-z]+)'(t|s|re|ve|ll|d|m)(?![A-Za-z0-9_])/gi;
const CAMEL_BOUNDARY = /[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/;
const CAMEL_SPLIT = /(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;
const NON_ASCII = /[\u0080-\uffff]/;
const COMBINING_MARKS = /[\u0300-\u036f]/g;
const WORD_CACHE_LIMIT = 100_000;

/**
 * A copy of `s` that does not point into the string it was cut from. V8 represents `match` and `slice`
 * results as views of the parent string, so the word cache would otherwise keep every chunk text it saw a
 * word in alive until the cache is released (measured: 12 MB more heap over the nine corpora).
 */
function detach(s: string): string {
  // Concatenation then slice flattens into a new string one character longer than `s`.
  return ` ${s}`.slice(1);
}

/**
 * Emits `word` and, for identifiers, its parts: dotted paths, then `-`, then `_`, then camelCase.
 * `httpx.AsyncClient` → `httpx.AsyncClient`, `httpx`, `AsyncClient`, `Async`, `Client`.
 */
function expand(word: string, emit: (raw: string) => void): void {
  emit(word);
  const separator = word.includes('.') ? '.' : word.includes('-') ? '-' : word.includes('_') ? '_' : undefined;
  if (separator !== undefined) {
    for (const part of word.split(separator)) if (part) expand(part, emit);
    return;
  }
  if (CAMEL_BOUNDARY.test(word)) {
    for (const part of word.split(CAMEL_SPLIT)) emit(part);
  }
}

/**
 * Creates the code-aware tokenizer: identifiers are indexed whole and in parts (`field_validator` →
 * `field_validator`, `field`, `validator`; `APIRouter` → `apirouter`, `api`, `router`), everything is
 * lowercased, spelt the American way (`serialise` → `serialize`) and stemmed (English Porter stemmer
 * from `@orama/stemmers`); contractions lose their suffix (`isn't` → `isn`, a stop word), stop words and
 * one-letter tokens are dropped. The same instance serves indexing, queries and restored indexes.
 */
export function createCodeTokenizer(language: SearchLanguage = 'english'): CodeTokenizer {
  const stem = englishStemmer;
  const stopWords = englishStopWords;
  // Word → what it indexes as. Documentation vocabularies are small and Zipf-distributed, so after the
  // first few pages nearly every word is a cache hit (this halves indexing time).
  const words = new Map<string, readonly IndexEntry[]>();

  const termOf = (surface: string): string => {
    if (surface.length < MIN_TERM_LENGTH || surface.length > MAX_TERM_LENGTH || stopWords.has(surface)) return '';
    return stem(americanSpelling(surface));
  };

  const normalize = (raw: string): string => {
    const lower = raw.toLowerCase();
    return NON_ASCII.test(lower) ? lower.normalize('NFD').replace(COMBINING_MARKS, '') : lower;
  };

  const analyzeWord = (match: string): readonly IndexEntry[] => {
    let analyzed = words.get(match);
    if (analyzed === undefined) {
      const word = detach(match);
      const list: IndexEntry[] = [];
      expand(word, (raw) => {
        const surface = normalize(raw);
        const term = termOf(surface);
        if (term) list.push({ term, surface, slot: -1 });
      });
      analyzed = list;
      // The cap only guards against pathological input; a real process-wide vocabulary stays far below it.
      if (words.size >= WORD_CACHE_LIMIT) words.clear();
      words.set(word, analyzed);
    }
    return analyzed;
  };

  const scan = (text: string, visit: (analyzed: IndexEntry) => void): void => {
    // Each rule runs only on text that can match it (the character it needs is there): a replace copies
    // the whole text even when nothing matches, and most chunks have no attribute list, link or URL.
    let cleaned = text;
    if (cleaned.includes('{')) cleaned = cleaned.replace(ATTRIBUTE_LIST, ' ');
    if (cleaned.includes('](')) cleaned = cleaned.replace(LINK_TARGET, ']');
    if (cleaned.includes('http')) cleaned = cleaned.replace(BARE_URL, ' ');
    const ascii = !NON_ASCII.test(cleaned);
    if (cleaned.includes("'") || cleaned.includes('’')) {
      cleaned = cleaned.replace(ascii ? ASCII_CONTRACTION : CONTRACTION, expandContraction);
    }
    // exec() on the module's regex (no match array); `visit` never tokenizes, so nothing re-enters it.
    const word = ascii ? ASCII_WORD : WORD;
    word.lastIndex = 0;
    for (let match = word.exec(cleaned); match !== null; match = word.exec(cleaned)) {
      for (const analyzed of analyzeWord(match[0])) visit(analyzed);
    }
  };

  const tokenizer: CodeTokenizer = {
    language,
    normalizationCache: new Map(),
    fingerprint: `code-${language}-${ANALYSIS_VERSION}`,
    termOf: (surface) => termOf(normalize(surface)),
    releaseCache: () => words.clear(),
    indexTerms(text, visit) {
      let length = 0;
      scan(text, (analyzed) => {
        length++;
        visit(analyzed.surface, analyzed.term);
      });
      return length;
    },
    indexEntries(text, visit) {
      let length = 0;
      scan(text, (entry) => {
        length++;
        visit(entry);
      });
      return length;
    },
    queryTerms(text) {
      const seen = new Map<string, QueryTerm>();
      scan(text, (analyzed) => {
        // a copy: the cache entry also carries an index builder's slot
        if (!seen.has(analyzed.term)) seen.set(analyzed.term, { term: analyzed.term, surface: analyzed.surface });
      });
      return [...seen.values()];
    },
    // Orama's own entry point (used by its generic code paths): distinct terms, like a query.
    tokenize(raw) {
      return tokenizer.queryTerms(raw).map((q) => q.term);
    },
  };
  return tokenizer;
}
