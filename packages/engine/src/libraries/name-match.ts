import type { LibraryDescriptor } from '@pro-context/kernel';
import { distance } from 'fastest-levenshtein';
import { withinOneEdit } from '../core/ranking.js';

/** A catalog match: the library, and how the query reached it. */
export interface CatalogMatch {
  library: LibraryDescriptor;
  matchedBy: 'id' | 'name' | 'alias' | 'fuzzy';
  /** Edit distance for fuzzy matches (0 otherwise). */
  distance: number;
  /**
   * A version written right after the library's name in the query, a range as written ("pydantic v2" → `'2'`,
   * "zod@^3.22" → `'^3.22'`, "pydantic>=2" → `'>=2'`), if any.
   */
  versionHint?: string;
}

/** Words agents put around a library name that are never the name themselves (unless they are the whole query). */
const STOP_WORDS = new Set([
  'python',
  'javascript',
  'typescript',
  'js',
  'ts',
  'node',
  'library',
  'package',
  'doc',
  'docs',
  'documentation',
  'the',
  'for',
  'lib',
]);

const VERSION_TOKEN = /^v?(\d+(?:\.\d+)*(?:\.[x*])?)$/i;

/**
 * A version requirement written onto a name, as package managers spell it: `zod@3`, `zod@^3.22`,
 * `pydantic==2.5`, `pydantic >= 2`, `typer~=0.15`, `zod^3`. Its version is read like "pydantic v2".
 */
// `@(?:\s*[\^~])?\s*` rather than `@\s*[\^~]?\s*`: one way to match the blanks after `@` keeps it linear (issue #25)
const VERSION_OPERATOR = /(?<=[a-z0-9_\])-])\s*(?:@(?:\s*[\^~])?|={1,3}|>=|~=|~>|\^|~)\s*(?=v?\d)/gi;
/** Bounds that name no version to serve (`pydantic<2`, `httpx != 0.28`, `zod>3`): dropped, never read as a hint. */
const VERSION_EXCLUSION = /(?<=[a-z0-9_\])-])\s*(?:<=?|!=|>(?!=))\s*v?\d[\w.*]*/gi;

/**
 * The query with version requirements spaced off the name: "zod@3" → "zod 3", "pydantic<2" → "pydantic".
 * With `keepOperators`, a range's operator stays on its version ("zod@^3.22" → "zod ^3.22", "pydantic>=2" →
 * "pydantic >=2"), so the hint is the range as written; an npm-style `@` alone is dropped ("zod@3" → "zod 3").
 */
function spaceVersions(query: string, keepOperators = false): string {
  return query
    .replace(VERSION_EXCLUSION, ' ')
    .replace(VERSION_OPERATOR, (operator) => (keepOperators ? ` ${operator.replace(/[@\s]/g, '')}` : ' '));
}

/** The operator a word of a query starts with (`^`, `~`, `==`, `>=`, `~=`), kept as written in a version hint. */
const LEADING_OPERATOR = /^(?:[<>=!~]=|={2,3}|~>|[\^~=])/;

/** Word endings of English inflections ("types", "typed", "typer", "settings", "streaming"). */
const INFLECTIONS = ['s', 'es', 'd', 'ed', 'r', 'er', 'ing'];

/**
 * Whether two words are forms of one English word ("types"/"typer", "typed"/"types") rather than a typo of
 * each other: a sentence saying "types" is about types, not about Typer.
 */
function inflections(a: string, b: string): boolean {
  const stems = (w: string) =>
    new Set([
      w,
      ...INFLECTIONS.filter((e) => w.endsWith(e) && w.length > e.length + 2).map((e) => w.slice(0, -e.length)),
    ]);
  const of = stems(a);
  return [...stems(b)].some((s) => of.has(s));
}

/**
 * Whether a word (or words) of a sentence is a misspelling of a name. Held far stricter than a query that
 * is just a name, because most words one edit from a short name are English words ("types" is not Typer,
 * "stream" is not Streamlit): 6 letters or more, one edit, and not an inflection of the name.
 */
function sentenceTypo(name: string, text: string, words: number): boolean {
  if (text.length < 6 || text === name || !withinOneEdit(name, text)) return false;
  return words > 1 || !inflections(name, text);
}

/** Lower-cases and strips what agents add around a library name ("python fastapi", "pydantic v2", "the httpx docs"). */
export function normalizeQuery(query: string): string {
  return queryTokens(spaceVersions(query))
    .filter((t) => !STOP_WORDS.has(t) && !VERSION_TOKEN.test(t))
    .join('-');
}

/**
 * The words of a query, lower-cased, with `_` as `-` (PyPI's spelling rule) and the punctuation of prose
 * trimmed ("langgraph's", "zod?"). Hyphenated and dotted names stay one word ("pydantic-settings", "next.js").
 */
function queryTokens(query: string): string[] {
  return queryWords(query).map((w) => w.token);
}

/** The words of {@link queryTokens}, each with the operator it was written with (`^3.22` → `^`). */
function queryWords(query: string): { token: string; operator: string }[] {
  return query
    .toLowerCase()
    .split(/[\s,;:!?()[\]{}"`]+/)
    .map((t) => ({
      token: trimToken(t.replace(/['\u2019]s$/, '').replace(/_/g, '-')),
      operator: LEADING_OPERATOR.exec(t)?.[0] ?? '',
    }))
    .filter((w) => w.token);
}

const isAlphanumeric = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);

/**
 * A word without leading punctuation other than `@` and without trailing punctuation: what
 * `/^[^a-z0-9@]+|[^a-z0-9]+$/g` removed, as a scan (the regex retried its trailing run from every position, issue #25).
 */
export function trimToken(word: string): string {
  let start = 0;
  while (start < word.length && !isAlphanumeric(word.charCodeAt(start)) && word[start] !== '@') start++;
  let end = word.length;
  while (end > start && !isAlphanumeric(word.charCodeAt(end - 1))) end--;
  return word.slice(start, end);
}

/** A name as compared: lower-case, words joined by `-` ("Pydantic Settings" → `pydantic-settings`). */
export const canonical = (name: string) =>
  name
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');

/**
 * Splits a version-ish suffix off a query, a range as written ("pydantic v2" → "2", "fastapi 0.110" →
 * "0.110", "zod@3" → "3", "zod@^3.22" → "^3.22", "pydantic==2.5" → "==2.5", "pydantic >= 2" → ">=2").
 * Tokenizing only: the range is evaluated by the registry or the engine's version matching.
 */
export function versionHint(query: string): string | undefined {
  const found = /(?:^|\s)((?:[<>=!~]=|={2,3}|~>|[\^~=])?)v?(\d+(?:\.\d+)*(?:\.x)?)\s*$/i.exec(
    spaceVersions(query, true).trim(),
  );
  return found ? `${found[1]}${found[2]}` : undefined;
}

/** How one name of a library met the query; lower tiers rank first. */
interface NameHit {
  tier: 0 | 1 | 2;
  /** Characters of the name matched (longer names are more specific: "pydantic settings" over "pydantic"). */
  length: number;
  distance: number;
  by: CatalogMatch['matchedBy'];
  /** Index of the query word after the match, for its version hint. */
  after?: number;
}

/** Words that announce the version after them ("zod version 3.25", "zod ver 3"). */
const VERSION_WORDS = new Set(['version', 'ver', 'v']);

/**
 * The version written right after the words at `after` ("zod v3", "zod version 3.25", "pydantic==2.5
 * validators" → "==2.5"), with its operator, if any.
 */
function versionAfter(
  words: readonly { token: string; operator: string }[],
  after: number | undefined,
): string | undefined {
  if (after === undefined) return undefined;
  const next = VERSION_WORDS.has(words[after]?.token ?? '') ? words[after + 1] : words[after];
  const version = next ? VERSION_TOKEN.exec(next.token)?.[1] : undefined;
  return version === undefined ? undefined : `${next?.operator ?? ''}${version}`;
}

/** Between equally good hits, a library whose id the query is comes first, then by name, then by alias. */
const BY_RANK: Record<CatalogMatch['matchedBy'], number> = { id: 0, name: 1, alias: 2, fuzzy: 3 };

const better = (a: NameHit, b: NameHit | undefined) =>
  !b ||
  a.tier < b.tier ||
  (a.tier === b.tier && (a.length > b.length || (a.length === b.length && a.distance < b.distance)));

/** A query as the name matching reads it. */
interface QueryShape {
  query: string;
  tokens: string[];
  /** The same words, each with the range operator written before it ("zod@^3.22" → `^`). */
  words: { token: string; operator: string }[];
  whole: string;
  raw: string;
  /** A query of more than one word (a version aside) is a sentence, held to the stricter spelling rule. */
  sentence: boolean;
  strict: boolean;
}

const isWord = (t: string) => !STOP_WORDS.has(t) && !VERSION_TOKEN.test(t);

function shapeOf(query: string, mode: 'match' | 'suggest'): QueryShape {
  const spaced = spaceVersions(query);
  const tokens = queryTokens(spaced);
  return {
    query,
    tokens,
    words: queryWords(spaceVersions(query, true)),
    whole: normalizeQuery(spaced),
    raw: canonical(spaced.trim()),
    sentence: tokens.filter((t) => !VERSION_TOKEN.test(t) && !VERSION_WORDS.has(t)).length > 1,
    strict: mode === 'match',
  };
}

/** The better of `best` and how one name meets the query as a whole or as consecutive words of it (tiers 0, 1). */
function exactHit(
  full: string,
  tail: string,
  by: CatalogMatch['matchedBy'],
  q: QueryShape,
  best: NameHit | undefined,
): NameHit | undefined {
  const forms = new Set([full, tail]);
  const { tokens, raw, whole } = q;
  // 1. the whole query is the name (a library called "Lib" is found by "lib" although "lib" is a stop word)
  if (forms.has(raw) || (whole && forms.has(whole))) {
    // a scoped name met by its tail ("@ai-sdk/openai" by "openai") is as specific as the tail, and ranks
    // after a name met whole ("openai")
    const met = forms.has(raw) ? raw : whole;
    const length = full === met ? met.length : met.length - 0.5;
    const hit: NameHit = { tier: 0, length, distance: 0, by, after: tokens.length };
    return better(hit, best) ? hit : best;
  }
  // 2. some consecutive words of the query are the name: "pydantic settings", "lang graph", "langgraph's"
  const parts = tail.split('-').length;
  for (let size = 1; size <= Math.min(tokens.length, Math.max(parts, 2)); size++) {
    for (let start = 0; start + size <= tokens.length; start++) {
      const window = tokens.slice(start, start + size);
      if (!window.some(isWord)) continue;
      const hyphenated = window.join('-');
      const joined = size > 1 && window.join('') === tail.replace(/-/g, '');
      if (forms.has(hyphenated) || joined) {
        const hit: NameHit = { tier: 1, length: tail.length, distance: 0, by, after: start + size };
        if (better(hit, best)) best = hit;
      }
    }
  }
  return best;
}

/** The better of `best` and a close spelling of the whole query, or of a word (or words) of it (tier 2). */
function fuzzyHit(full: string, tail: string, q: QueryShape, best: NameHit | undefined): NameHit | undefined {
  const { tokens, whole, strict } = q;
  if (whole) {
    const d = Math.min(distance(full, whole), distance(tail, whole));
    // a suggestion reaches the seed's distance (Levenshtein ≤ 3: "pydan" → pydantic) unless the query is
    // too short for it to mean anything ("abc" is 3 edits from every three-letter name)
    const limit = strict
      ? Math.min(3, Math.max(1, Math.floor(whole.length / 3)))
      : Math.min(3, Math.max(1, whole.length - 2));
    // "http" is a word, not a typo of httpx: a short query only suggests a name
    const close = !strict
      ? d <= limit
      : q.sentence
        ? sentenceTypo(tail, whole, whole.split('-').length) || sentenceTypo(full, whole, whole.split('-').length)
        : whole.length >= 5 && d <= limit;
    if (close) {
      const hit: NameHit = { tier: 2, length: tail.length, distance: d, by: 'fuzzy', after: tokens.length };
      if (better(hit, best)) best = hit;
    }
  }
  if (tokens.length > 1) {
    const parts = tail.split('-').length;
    for (let start = 0; start + parts <= tokens.length; start++) {
      const window = tokens.slice(start, start + parts);
      if (!window.every(isWord)) continue;
      const text = window.join('-');
      const limit = text.length < 5 ? 0 : Math.min(2, Math.floor(text.length / 4));
      const d = distance(tail, text);
      if (strict ? sentenceTypo(tail, text, parts) : d > 0 && d <= limit) {
        const hit: NameHit = { tier: 2, length: tail.length, distance: d, by: 'fuzzy', after: start + parts };
        if (better(hit, best)) best = hit;
      }
    }
  }
  return best;
}

/** How the best of a library's names (id, name, package name, aliases) meets the query, if one does. */
function libraryHit(library: LibraryDescriptor, q: QueryShape): NameHit | undefined {
  let best: NameHit | undefined;
  const names: [string | undefined, CatalogMatch['matchedBy']][] = [
    [library.id, 'id'],
    [library.name, 'name'],
    [library.packageName, 'alias'],
    ...(library.aliases ?? []).map((a): [string, CatalogMatch['matchedBy']] => [a, 'alias']),
  ];
  for (const [name, by] of names) {
    if (!name) continue;
    const full = canonical(name);
    const tail = full.slice(full.lastIndexOf('/') + 1);
    const forms = new Set([full, tail]);
    best = exactHit(full, tail, by, q, best);
    if (forms.has(q.raw) || (q.whole && forms.has(q.whole))) continue;
    if (best && best.tier < 2) continue;
    best = fuzzyHit(full, tail, q, best);
  }
  return best;
}

/**
 * Libraries ranked by how well one of their names (id, name, package name, aliases) meets a query: the whole
 * query, then consecutive words of it, then a close spelling; `'match'` holds close spellings to the strict
 * rule a resolution needs, `'suggest'` to the looser one of a "did you mean".
 */
export function rankByName(
  candidates: readonly LibraryDescriptor[],
  query: string,
  mode: 'match' | 'suggest',
): CatalogMatch[] {
  const q = shapeOf(query, mode);
  const ranked: { rank: NameHit; match: CatalogMatch }[] = [];
  for (const library of candidates) {
    const best = libraryHit(library, q);
    if (!best) continue;
    const hint = best.tier === 0 ? versionHint(query) : versionAfter(q.words, best.after);
    ranked.push({
      rank: best,
      match: {
        library,
        matchedBy: best.tier === 2 ? 'fuzzy' : best.by,
        distance: best.distance,
        ...(hint ? { versionHint: hint } : {}),
      },
    });
  }
  return ranked
    .sort(
      (a, b) =>
        a.rank.tier - b.rank.tier ||
        b.rank.length - a.rank.length ||
        BY_RANK[a.rank.by] - BY_RANK[b.rank.by] ||
        a.rank.distance - b.rank.distance ||
        a.match.library.id.localeCompare(b.match.library.id),
    )
    .map((r) => r.match);
}
