import type { StoredChunk } from '../../indexing/doc-store.js';
import { remember } from './memo.js';
import type { RankedChunk } from './types.js';

const STOP_WORDS = new Set(
  'a an and are as at be by can do does for from how i in into is it its of on or should that the their then there these this to use used using what when where which while why with you your vs via e.g i.e etc'.split(
    ' ',
  ),
);

/** Lower-cased query terms, identifiers also split into their parts, stop words dropped. */
export function queryTerms(text: string): string[] {
  const out = new Set<string>();
  for (const raw of text.match(/[A-Za-z0-9_.$@-]+/g) ?? []) {
    // the trailing run is tried only where it starts: linear (issue #25)
    const whole = raw.replace(/^[._@$-]+|(?<![._@$-])[._@$-]+$/g, '').toLowerCase();
    if (whole.length > 1 && !STOP_WORDS.has(whole)) out.add(whole);
    for (const part of raw
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .split(/[^A-Za-z0-9]+/)
      .map((p) => p.toLowerCase())) {
      if (part.length > 1 && !STOP_WORDS.has(part)) out.add(part);
    }
  }
  return [...out];
}

/** A crude English stem for matching query terms in text (plural and -ing/-ed forms). */
export function stem(term: string): string {
  if (term.length <= 4) return term;
  // asked for every chunk a query reads, for the same few terms
  let stemmed = termStems.get(term);
  if (stemmed === undefined) {
    stemmed = term.replace(/(ies|es|s|ing|ed)$/, '');
    remember(termStems, term, stemmed, 10_000);
  }
  return stemmed;
}

const termStems = new Map<string, string>();

/** Fraction of the query's terms that occur in `text` (stem prefix match). */
export function termCoverage(terms: readonly string[], text: string): number {
  return lowerCoverage(terms, text.toLowerCase());
}

/** {@link termCoverage} of a text already lower-cased. */
export function lowerCoverage(terms: readonly string[], lower: string): number {
  if (terms.length === 0) return 0;
  let found = 0;
  for (const term of terms) if (lower.includes(stem(term))) found += 1;
  return found / terms.length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `query` without the library's own name: in its own documentation every chunk is about the library, so
 * the name says nothing about which chunk answers, while the chunks that happen to spell it out (and,
 * for a name like `FastAPI`, its parts `fast` and `api`) would outrank the ones that answer. Only the
 * name as a word of its own goes (`pydantic-settings`, `fastapi.Depends` stay); a query that is nothing
 * but the name is kept whole.
 */
export function withoutLibraryName(query: string, names: readonly string[]): string {
  let out = query;
  for (const name of new Set(names.map((n) => n.trim()).filter((n) => n.length > 1))) {
    out = out.replace(namePattern(name), ' ');
  }
  return /[\p{L}\p{N}]/u.test(out) ? out.replace(/\s+/g, ' ').trim() : query;
}

const namePatterns = new Map<string, RegExp>();

/** The pattern of a library name as a word of its own (compiled once per name: every query asks for it). */
function namePattern(name: string): RegExp {
  let pattern = namePatterns.get(name);
  if (pattern === undefined) {
    const phrase = name.split(/\s+/).map(escapeRegExp).join('\\s+');
    // Not inside an identifier, path or URL: no word character, `.`, `-`, `/`, `@` or `_` on either side.
    // A possessive goes with it (`FastAPI's`).
    pattern = new RegExp(
      `(?<![\\p{L}\\p{N}_.\\-/@])${phrase}(?:['’]s)?(?![\\p{L}\\p{N}_\\-/@]|\\.[\\p{L}\\p{N}_])`,
      'giu',
    );
    remember(namePatterns, name, pattern, 10_000);
  }
  // a global pattern remembers where it stopped: each use starts from the beginning
  pattern.lastIndex = 0;
  return pattern;
}

/** Whether `a` and `b` are at most one edit apart (insertion, deletion, substitution or adjacent swap). */
export function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (i === a.length && i === b.length) return true;
  // the rest after one substitution, insertion, deletion or swap
  return (
    a.slice(i + 1) === b.slice(i + 1) ||
    a.slice(i + 1) === b.slice(i) ||
    a.slice(i) === b.slice(i + 1) ||
    (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2))
  );
}

/**
 * Like {@link termCoverage}, but a query word of five letters or more also counts when the text has a word
 * one edit away: the search backend matches `valdiator` to `validator` and `serialise` to `serialize`, and
 * the chunk it found for them does answer.
 */
function approximateCoverage(terms: readonly string[], text: string, weights?: ReadonlyMap<string, number>): number {
  if (terms.length === 0) return 0;
  const lower = text.toLowerCase();
  let words: Set<string> | undefined;
  let found = 0;
  let total = 0;
  for (const term of terms) {
    const weight = weights?.get(term) ?? 1;
    total += weight;
    if (lower.includes(stem(term))) {
      found += weight;
      continue;
    }
    if (term.length < 5) continue;
    words ??= new Set(lower.match(/[a-z0-9_]{4,}/g) ?? []);
    for (const word of words) {
      if (withinOneEdit(term, word)) {
        found += weight;
        break;
      }
    }
  }
  return total > 0 ? found / total : 0;
}

const lowerTexts = new WeakMap<ReadonlyMap<string, StoredChunk>, string[]>();
const documentFrequencies = new WeakMap<ReadonlyMap<string, StoredChunk>, Map<string, number>>();

/**
 * How much each query term says about whether the docs answer the topic: its inverse document frequency
 * over the library's chunks (a term no chunk contains, `kubernetes` in FastAPI's docs, weighs most; one in
 * every other chunk, `model` in Pydantic's, least). Counted once per term and chunk map.
 */
export function termWeights(chunks: ReadonlyMap<string, StoredChunk>, terms: readonly string[]): Map<string, number> {
  let texts = lowerTexts.get(chunks);
  if (texts === undefined) {
    texts = [...chunks.values()].map((c) => `${c.pageTitle} ${c.headings.join(' ')} ${c.body}`.toLowerCase());
    lowerTexts.set(chunks, texts);
  }
  let frequencies = documentFrequencies.get(chunks);
  if (frequencies === undefined) {
    frequencies = new Map();
    documentFrequencies.set(chunks, frequencies);
  }
  const out = new Map<string, number>();
  for (const term of terms) {
    let df = frequencies.get(term);
    if (df === undefined) {
      const needle = stem(term);
      df = 0;
      for (const text of texts) if (text.includes(needle)) df += 1;
      frequencies.set(term, df);
    }
    out.set(term, Math.log(1 + texts.length / (1 + df)));
  }
  return out;
}

/**
 * {@link termWeights} from counts kept elsewhere: `documents` chunks, of which `frequency(needle)` contain the
 * (stemmed, lower-case) needle. The engine's docs count them with a term index instead of the chunks' text.
 */
export function termWeightsFrom(
  terms: readonly string[],
  documents: number,
  frequency: (needle: string) => number,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const term of terms) out.set(term, Math.log(1 + documents / (1 + frequency(stem(term)))));
  return out;
}

/**
 * Confidence in [0, 1] that the best chunk answers the topic: how much of the query it contains (a word
 * one typo away counts), each term weighted by how rare it is in the library's docs ({@link termWeights}:
 * a topic whose distinctive words the docs never use scores low however many common words match), and
 * weighted up when the terms are in its headings.
 */
export function confidenceOf(
  best: RankedChunk | undefined,
  terms: readonly string[],
  weights?: ReadonlyMap<string, number>,
): number {
  if (!best || terms.length === 0) return 0;
  const body = `${best.chunk.headings.join(' ')} ${best.chunk.body}`;
  const coverage = Math.max(weights ? 0 : best.coverage, approximateCoverage(terms, body, weights));
  const headingCoverage = approximateCoverage(
    terms,
    `${best.chunk.pageTitle} ${best.chunk.headings.join(' ')}`,
    weights,
  );
  // convex: half the topic's weight found is far from an even chance that the chunk answers it (measured on
  // the dev questions against unrelated topics: bench/src/confidence.ts)
  return Math.round(Math.min(1, coverage * 0.75 + headingCoverage * 0.25) ** CONFIDENCE_EXPONENT * 100) / 100;
}

/** See {@link confidenceOf}. */
const CONFIDENCE_EXPONENT = 1.5;
