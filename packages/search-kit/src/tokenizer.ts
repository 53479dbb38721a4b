import { NonProseScanner, replaceSpans } from './non-prose.js';
import { porterStem } from './porter.js';
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

/** The tokenizer shape Orama takes (`Tokenizer` of `@orama/orama`), declared here: the analysis needs no Orama. */
export interface OramaTokenizerShape {
  language: string;
  normalizationCache: Map<string, string>;
  tokenize: (raw: string, language?: string, prop?: string, withCache?: boolean) => string[];
}

/**
 * Orama's tokenizer interface plus what the custom index needs: index-time terms with duplicates (real
 * term frequencies) and query terms that keep the typed form.
 */
export interface CodeTokenizer extends OramaTokenizerShape {
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
  /**
   * The words of `text` that {@link CodeTokenizer.indexEntries} would analyse, in order, each as `text[start..end)`
   * with its hash (32-bit FNV-1a of the UTF-16 units), for an indexer that caches the analysis of words itself
   * (see {@link CodeTokenizer.analyzeWord}). `text` may be a cleaned copy of the argument. Returns the sum of what
   * `visit` returns (the field length when it returns the number of terms of the word).
   */
  indexWords(text: string, visit: (text: string, start: number, end: number, hash: number) => number): number;
  /**
   * The indexed terms of one word of {@link CodeTokenizer.indexWords}, in the order `indexEntries` visits them
   * (not cached: fresh objects each time).
   */
  analyzeWord(word: string): QueryTerm[];
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
// A word: letters, digits and `_`, optionally joined by `.` or `-` (`httpx.AsyncClient`, `app.get`, `x-api-key`),
// what `/[\p{L}\p{N}_]+(?:[.-][\p{L}\p{N}_]+)*/gu` matches; the scanner below finds it on character codes.
// Markdown link targets and bare URLs: their path segments would make every page that links somewhere
// match that somewhere's words.
// (`](url "title")`, found by NonProseScanner in linear time: issue #25)
const BARE_URL = /\bhttps?:\/\/[^\s)>\]]+/g;
// MkDocs attribute lists (`## Title { #anchor .class }`) repeat the heading's words and lengthen the field.
// (found by NonProseScanner: `{ #anchor }` up to the first `}` on its line)
// English contractions (`isn't`, `Pydantic's`, `you're`): the apostrophe would otherwise cut them into a
// word and a suffix (`re`, `ll` and `ve` are long enough to be indexed, and `re` is also a Python module).
// `n't` becomes ` not` (`isn't` → `is not`), the other suffixes are dropped. What
// `/(?<!\p{L})(\p{L}+)['’](t|s|re|ve|ll|d|m)(?![\p{L}\p{N}_])/giu` matches (in ASCII text the same without the
// `u` flag, `\p{L}` being `[A-Za-z]` there) is replaced by `expandContraction` (see replaceContractions).
// The word before `n't` when it is not the word itself (`can't`, `won't`, `shan't`, `ain't`).
const IRREGULAR_NOT: Readonly<Record<string, string>> = { ca: 'can', wo: 'will', sha: 'shall', ai: 'is' };
const expandContraction = (_match: string, word: string, suffix: string): string => {
  if (suffix.toLowerCase() !== 't' || !/n$/i.test(word)) return word;
  const base = word.slice(0, -1);
  return `${IRREGULAR_NOT[base.toLowerCase()] ?? base} not`;
};
const CAMEL_BOUNDARY = /[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/;
const CAMEL_SPLIT = /(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;
const NON_ASCII = /[\u0080-\uffff]/;
const COMBINING_MARKS = /[\u0300-\u036f]/g;
/** Words the tokenizer's cache holds by default before it starts over (see {@link TokenizerOptions.cacheWords}). */
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

// Character classes of the word scanner (it finds exactly what WORD finds): 1 for `[A-Za-z0-9_]` below 128;
// above, `[\p{L}\p{N}]` decided once per UTF-16 unit (0 = not yet known, 1 = yes, 2 = no).
const WORD_UNIT = new Uint8Array(0x10000);
for (let c = 0; c < 128; c++) WORD_UNIT[c] = /[A-Za-z0-9_]/.test(String.fromCharCode(c)) ? 1 : 2;
const LETTER_OR_NUMBER = /^[\p{L}\p{N}]$/u;
/** 1 for `[A-Za-z0-9_]`, by character code below 128: the scanner's fast path, whatever V8 inlines. */
const ASCII_WORD = WORD_UNIT.map((known, c) => (c < 128 && known === 1 ? 1 : 0)).subarray(0, 128);
const DOT = 0x2e;
const HYPHEN = 0x2d;

/**
 * UTF-16 units of the word character (`[\p{L}\p{N}_]`) starting at `i` of `s`, 0 if there is none (a
 * surrogate pair is one character of two units, a lone surrogate is no word character).
 */
function wordCharAt(s: string, i: number): number {
  if (i >= s.length) return 0;
  const c = s.charCodeAt(i);
  let known = WORD_UNIT[c]!;
  if (known === 0) {
    if (c >= 0xd800 && c <= 0xdfff) {
      // a pair: an astral letter or digit (rare, not cached); anything else is not a word character
      const d = c <= 0xdbff && i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      return d >= 0xdc00 && d <= 0xdfff && LETTER_OR_NUMBER.test(s.slice(i, i + 2)) ? 2 : 0;
    }
    known = LETTER_OR_NUMBER.test(String.fromCharCode(c)) ? 1 : 2;
    WORD_UNIT[c] = known;
  }
  return known === 1 ? 1 : 0;
}

/**
 * The tokenizer's word cache: the analysis of each distinct word, looked up by a slice of the text being
 * scanned without cutting the word out of it (a string per word occurrence was most of the indexing time's
 * allocations). Open addressing on a 32-bit FNV-1a hash of the UTF-16 units; a slot holds the hash and the
 * word's number side by side, so a probe reads one cache line before it compares characters.
 */
class WordCache {
  private readonly words: string[] = [];
  private readonly values: (readonly IndexEntry[])[] = [];
  /** Per slot: the hash, then the word's number + 1 (0: empty). */
  private slots = new Int32Array(2 << 12);

  get size(): number {
    return this.words.length;
  }

  /** The entry of `text[start..end)` (whose hash is `hash`), or undefined. */
  get(text: string, start: number, end: number, hash: number): readonly IndexEntry[] | undefined {
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    const length = end - start;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const id = slots[2 * at + 1]! - 1;
      if (id < 0) return undefined;
      if (slots[2 * at] === hash) {
        const key = this.words[id]!;
        if (key.length === length && text.startsWith(key, start)) return this.values[id];
      }
    }
  }

  /** Adds `word` (not present) with its hash. */
  set(word: string, hash: number, value: readonly IndexEntry[]): void {
    if ((this.words.length + 1) * 2 > this.slots.length >> 1) this.resize(this.slots.length * 2);
    this.insert(hash, this.words.length);
    this.words.push(word);
    this.values.push(value);
  }

  clear(): void {
    this.words.length = 0;
    this.values.length = 0;
    this.slots = new Int32Array(2 << 12);
  }

  private insert(hash: number, id: number): void {
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    let at = hash & mask;
    while (slots[2 * at + 1] !== 0) at = (at + 1) & mask;
    slots[2 * at] = hash;
    slots[2 * at + 1] = id + 1;
  }

  private resize(length: number): void {
    const old = this.slots;
    this.slots = new Int32Array(length);
    for (let at = 0; at < old.length; at += 2) if (old[at + 1] !== 0) this.insert(old[at]!, old[at + 1]! - 1);
  }
}

const CONTRACTION_SUFFIXES = ['t', 's', 're', 've', 'll', 'd', 'm'];
const LETTER = /^\p{L}$/u;
const LETTER_UNIT = new Uint8Array(0x10000);

/** Whether the UTF-16 unit `c` (not a surrogate) is a letter (`\p{L}`). */
function isLetterUnit(c: number): boolean {
  let known = LETTER_UNIT[c]!;
  if (known === 0) {
    known = LETTER.test(String.fromCharCode(c)) ? 1 : 2;
    LETTER_UNIT[c] = known;
  }
  return known === 1;
}

/** Units of the letter (`\p{L}`; `[A-Za-z]` in ASCII text) ending just before `end` of `s`, 0 if none. */
function letterBefore(s: string, end: number, floor: number): number {
  if (end <= floor) return 0;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xdc00 && c <= 0xdfff) {
    const h = end - 2 >= floor ? s.charCodeAt(end - 2) : 0;
    return h >= 0xd800 && h <= 0xdbff && LETTER.test(s.slice(end - 2, end)) ? 2 : 0;
  }
  if (c >= 0xd800 && c <= 0xdbff) return 0;
  return isLetterUnit(c) ? 1 : 0;
}

/**
 * The contraction rule's replace (see `expandContraction`), found from the apostrophes
 * instead of by trying the pattern at every position (that replace was half of the tokenizer's time).
 * A match is a whole run of letters directly before an apostrophe (`’` too in `unicode` mode), then one of
 * the suffixes (any case; in `unicode` mode `ſ` is an `s`, as case folding has it) not followed by a word
 * character.
 */
function replaceContractions(text: string, unicode: boolean): string {
  let out = '';
  let copied = 0;
  const n = text.length;
  // the next apostrophe of each kind at or after where the scan is (-1: none left), found by indexOf: a chunk
  // has a few, and looking at every character for them was most of this function's time
  let straight = -2;
  let curly = unicode ? -2 : -1;
  const quoteFrom = (from: number): number => {
    if (straight !== -1 && straight < from) straight = text.indexOf("'", from);
    if (curly !== -1 && curly < from) curly = text.indexOf('’', from);
    return straight === -1 ? curly : curly === -1 ? straight : Math.min(straight, curly);
  };
  for (let p = quoteFrom(0); p >= 0; p = quoteFrom(p + 1)) {
    // the run of letters before it (no earlier than the end of the last match, as a global regex goes on from there)
    let start = p;
    for (let w = letterBefore(text, start, copied); w > 0; w = letterBefore(text, start, copied)) start -= w;
    if (start === p) continue;
    for (const suffix of CONTRACTION_SUFFIXES) {
      const end = p + 1 + suffix.length;
      if (end > n) continue;
      let k = 0;
      for (; k < suffix.length; k++) {
        const u = text.charCodeAt(p + 1 + k);
        const lower = u >= 0x41 && u <= 0x5a ? u | 0x20 : unicode && u === 0x17f ? 0x73 : u;
        if (lower !== suffix.charCodeAt(k)) break;
      }
      if (k < suffix.length || wordCharAt(text, end) > 0) continue;
      out +=
        text.slice(copied, start) +
        expandContraction(text.slice(start, end), text.slice(start, p), text.slice(p + 1, end));
      copied = end;
      p = end - 1;
      break;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** FNV-1a of UTF-16 units (what {@link WordCache} is keyed by): the hash of no unit, and one unit's step. */
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** Options of {@link createCodeTokenizer}. */
export interface TokenizerOptions {
  /**
   * Distinct words the per-word cache holds before it is cleared and starts over (default 100,000: a process-wide
   * vocabulary stays far below it; the cap guards against pathological input). An index builder with a tokenizer
   * of its own, dropped after the build, may allow more: past the cap every word is analysed again.
   */
  cacheWords?: number;
}

/**
 * Creates the code-aware tokenizer: identifiers are indexed whole and in parts (`field_validator` →
 * `field_validator`, `field`, `validator`; `APIRouter` → `apirouter`, `api`, `router`), everything is
 * lowercased, spelt the American way (`serialise` → `serialize`) and stemmed (English Porter stemmer
 * from `@orama/stemmers`); contractions lose their suffix (`isn't` → `isn`, a stop word), stop words and
 * one-letter tokens are dropped. The same instance serves indexing, queries and restored indexes.
 */
export function createCodeTokenizer(
  language: SearchLanguage = 'english',
  options: TokenizerOptions = {},
): CodeTokenizer {
  const cacheWords = options.cacheWords ?? WORD_CACHE_LIMIT;
  // `@orama/stemmers/english`'s stemmer, made faster (the same stems)
  const stem = porterStem;
  const stopWords = englishStopWords;
  // Word → what it indexes as. Documentation vocabularies are small and Zipf-distributed, so after the
  // first few pages nearly every word is a cache hit (this halves indexing time).
  const words = new WordCache();
  // Lowercased word or identifier part → its indexed form: the parts of identifiers recur in many of them.
  const stems = new Map<string, string>();

  const termOf = (surface: string): string => {
    if (surface.length < MIN_TERM_LENGTH || surface.length > MAX_TERM_LENGTH || stopWords.has(surface)) return '';
    return stem(americanSpelling(surface));
  };

  const normalize = (raw: string): string => {
    const lower = raw.toLowerCase();
    return NON_ASCII.test(lower) ? lower.normalize('NFD').replace(COMBINING_MARKS, '') : lower;
  };

  const stemOf = (surface: string): string => {
    let term = stems.get(surface);
    if (term === undefined) {
      term = termOf(surface);
      // bounded like the word cache (an indexer that caches words itself fills only this one)
      if (stems.size >= cacheWords) stems.clear();
      stems.set(surface, term);
    }
    return term;
  };

  /** The indexed terms of `word` (a string of its own), in order. */
  const analyze = (word: string): IndexEntry[] => {
    const list: IndexEntry[] = [];
    expand(word, (raw) => {
      const surface = normalize(raw);
      const term = stemOf(surface);
      if (term) list.push({ term, surface, slot: -1 });
    });
    return list;
  };

  /** The analysis of the word `text[start..end)` (whose hash is `hash`), from the cache when it was seen before. */
  const analyzeWord = (text: string, start: number, end: number, hash: number): readonly IndexEntry[] => {
    let analyzed = words.get(text, start, end, hash);
    if (analyzed === undefined) {
      const word = detach(text.slice(start, end));
      analyzed = analyze(word);
      // The cap only guards against pathological input; a real process-wide vocabulary stays far below it.
      if (words.size >= cacheWords) {
        words.clear();
        stems.clear();
      }
      words.set(word, hash, analyzed);
    }
    return analyzed;
  };

  /**
   * Visits the words of `text` in order, each with its hash (FNV-1a of its units, computed as the scan reads
   * them); returns the sum of what `visit` returned.
   */
  const scanWords = (
    text: string,
    visit: (text: string, start: number, end: number, hash: number) => number,
  ): number => {
    // Each rule runs only on text that can match it (the character it needs is there): a replace copies
    // the whole text even when nothing matches, and most chunks have no attribute list, link or URL.
    let cleaned = text;
    if (cleaned.includes('{')) {
      const scan = new NonProseScanner(cleaned);
      cleaned = replaceSpans(cleaned, /\{/g, (i) => scan.attributeListEnd(i), ' ');
    }
    if (cleaned.includes('](')) {
      const scan = new NonProseScanner(cleaned);
      cleaned = replaceSpans(cleaned, /\]\(/g, (i) => scan.linkTargetEnd(i), ']');
    }
    if (cleaned.includes('http')) cleaned = cleaned.replace(BARE_URL, ' ');
    if (cleaned.includes("'") || cleaned.includes('’')) {
      cleaned = replaceContractions(cleaned, NON_ASCII.test(cleaned));
    }
    // The words WORD would match, found on character codes (no match objects, no strings for known words).
    const n = cleaned.length;
    let visited = 0;
    let i = 0;
    while (i < n) {
      const first = cleaned.charCodeAt(i);
      let w = first < 128 ? ASCII_WORD[first]! : wordCharAt(cleaned, i);
      if (w === 0) {
        i++;
        continue;
      }
      const start = i;
      let hash = FNV_OFFSET;
      for (;;) {
        // a run of word characters (w units at i), then a `.` or `-` joining another, or the word's end
        do {
          hash = Math.imul(hash ^ cleaned.charCodeAt(i), FNV_PRIME);
          if (w === 2) hash = Math.imul(hash ^ cleaned.charCodeAt(i + 1), FNV_PRIME);
          i += w;
          // past the end, charCodeAt is NaN: wordCharAt says 0
          const next = cleaned.charCodeAt(i);
          w = next < 128 ? ASCII_WORD[next]! : wordCharAt(cleaned, i);
        } while (w > 0);
        const c = cleaned.charCodeAt(i);
        if (c !== DOT && c !== HYPHEN) break;
        w = wordCharAt(cleaned, i + 1);
        if (w === 0) break;
        hash = Math.imul(hash ^ c, FNV_PRIME);
        i += 1;
      }
      visited += visit(cleaned, start, i, hash);
    }
    return visited;
  };

  /** Visits the analyzed words of `text` in order; returns how many entries it visited. */
  const scan = (text: string, visit: (analyzed: IndexEntry) => void): number =>
    scanWords(text, (cleaned, start, end, hash) => {
      const analyzed = analyzeWord(cleaned, start, end, hash);
      for (let k = 0; k < analyzed.length; k++) visit(analyzed[k]!);
      return analyzed.length;
    });

  const tokenizer: CodeTokenizer = {
    language,
    normalizationCache: new Map(),
    fingerprint: `code-${language}-${ANALYSIS_VERSION}`,
    termOf: (surface) => termOf(normalize(surface)),
    releaseCache: () => {
      words.clear();
      stems.clear();
    },
    indexTerms(text, visit) {
      return scan(text, (analyzed) => visit(analyzed.surface, analyzed.term));
    },
    indexEntries: scan,
    indexWords: scanWords,
    analyzeWord: (word) => analyze(word).map(({ term, surface }) => ({ term, surface })),
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
