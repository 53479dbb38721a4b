import { CHARS_PER_TOKEN, charsForTokens, type SearchHit } from '@pro-context/kernel';
import { walkLines } from '@pro-context/markdown';
import type { StoredChunk } from '../indexing/doc-store.js';

const STOP_WORDS = new Set(
  'a an and are as at be by can do does for from how i in into is it its of on or should that the their then there these this to use used using what when where which while why with you your vs via'.split(
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
function stem(term: string): string {
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
function lowerCoverage(terms: readonly string[], lower: string): number {
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

/** A search hit joined with its stored chunk. */
export interface RankedChunk {
  chunk: StoredChunk;
  score: number;
  /** Fraction of query terms in the chunk's headings and body. */
  coverage: number;
}

/** Joins backend hits with their chunks (dropping ids the store no longer has). */
const chunkLowerTexts = new WeakMap<StoredChunk, string>();

/** {@link termCoverage} of a chunk's headings and body (their lower-cased text is kept per chunk). */
function chunkCoverage(terms: readonly string[], chunk: StoredChunk): number {
  if (terms.length === 0) return 0;
  let lower = chunkLowerTexts.get(chunk);
  if (lower === undefined) {
    lower = `${chunk.headings.join(' ')} ${chunk.body}`.toLowerCase();
    chunkLowerTexts.set(chunk, lower);
  }
  return lowerCoverage(terms, lower);
}

export function joinHits(
  hits: readonly SearchHit[],
  chunks: Map<string, StoredChunk>,
  terms: readonly string[],
): RankedChunk[] {
  const out: RankedChunk[] = [];
  for (const hit of hits) {
    const chunk = chunks.get(hit.id);
    if (!chunk) continue;
    out.push({ chunk, score: hit.score, coverage: chunkCoverage(terms, chunk) });
  }
  return out;
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

/**
 * The chunk's URL with its heading anchor. A page URL that already has a fragment (a section of a single
 * llms.txt or llms-full.txt file is a "page" named by its anchor) gets the chunk's anchor in its place: a
 * URL has one fragment, and the chunk's is the more precise one.
 */
export function chunkUrl(chunk: StoredChunk): string {
  if (!chunk.anchor) return chunk.url;
  const hash = chunk.url.indexOf('#');
  return `${hash === -1 ? chunk.url : chunk.url.slice(0, hash)}#${chunk.anchor}`;
}

/**
 * The heading of the section {@link chunkUrl}'s anchor names: the first heading of the chunk's body. It is
 * not always the deepest heading of the chunk's path: a section with a short introduction is served joined
 * to its first subsection, under the subsection's heading path but with the parent's anchor (where the
 * body starts). Falls back to the deepest heading, then the page title.
 */
export function chunkTitle(chunk: StoredChunk): string {
  const deepest = chunk.headings[chunk.headings.length - 1] ?? chunk.pageTitle;
  if (!chunk.anchor) return deepest;
  let title = deepest;
  walkLines(chunk.body.split('\n'), (line, _index, _heading, inCode) => {
    const text = inCode ? undefined : headingText(line);
    if (text === undefined) return true;
    // the chunker writes heading lines as `#… <text>` with the path's own text, so a match is exact
    if (chunk.headings.includes(text) || text === chunk.pageTitle) title = text;
    return false;
  });
  return title;
}

/** A section path for display: the headings below the page title. */
export function sectionPath(chunk: StoredChunk): string {
  const path = chunk.headings[0] === chunk.pageTitle ? chunk.headings.slice(1) : chunk.headings;
  return [chunk.pageTitle, ...path].join(' › ');
}

/**
 * The heading path of the text a chunk's body starts with, for display: {@link sectionPath} down to
 * {@link chunkTitle} (a short intro served joined to its first subsection starts at the intro's heading).
 */
function labelPath(chunk: StoredChunk): string {
  const title = chunkTitle(chunk);
  const at = chunk.headings.lastIndexOf(title);
  return sectionPath(at >= 0 ? { ...chunk, headings: chunk.headings.slice(0, at + 1) } : chunk);
}

/** A later part's body as it reads after the part before it: without the repeated heading line. */
const withoutHeadingLine = (body: string): string => body.replace(/^#{1,6}[ \t].*\n+/, '');

/** A later part's body shown without the part before it: its heading line says it continues. */
export const continuedHeading = (body: string): string =>
  body.replace(
    /^(#{1,6}[ \t])(.*)$/m,
    (_line, marker: string, rest: string) => `${marker}${trimEndBlanks(rest)} (continued)`,
  );

/** The spaces and tabs a heading line may end with. */
const isBlank = (c: number): boolean => c === 32 || c === 9;

/** `text` without trailing spaces and tabs (a scan: `[ \t]*$` after a lazy run was quadratic, issue #25). */
function trimEndBlanks(text: string): string {
  let end = text.length;
  while (end > 0 && isBlank(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end);
}

/**
 * The text of an ATX heading line, or undefined: what
 * `/^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*$/` captured, with the blanks around the text trimmed in code so the match is
 * linear (issue #25).
 */
export function headingText(line: string): string | undefined {
  const rest = /^ {0,3}#{1,6}[ \t](.*)$/.exec(line)?.[1];
  if (rest === undefined) return undefined;
  let start = 0;
  while (start < rest.length && isBlank(rest.charCodeAt(start))) start++;
  return trimEndBlanks(rest.slice(start));
}

/** Cuts markdown to at most `tokens` estimated tokens at a paragraph (else line) boundary, outside code fences. */
export function cutAtBoundary(markdown: string, tokens: number): string {
  const limit = charsForTokens(tokens);
  if (markdown.length <= limit) return markdown;
  const lines = markdown.split('\n');
  let out = '';
  let inFence = false;
  let lastSafe = 0;
  for (const line of lines) {
    if (out.length + line.length + 1 > limit) break;
    out += `${line}\n`;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (!inFence && (line.trim() === '' || /^#{1,6}\s/.test(line))) lastSafe = out.length;
  }
  if (lastSafe > 0) return out.slice(0, lastSafe).trimEnd();
  // no paragraph boundary fits: keep the lines that do, and close a code fence left open
  return inFence ? `${out.trimEnd()}\n\`\`\`` : out.trimEnd();
}

/**
 * Share of a chunk's score given to the other parts of its section. The chunker cuts a long section into
 * parts (a code block longer than the limit becomes a part of its own), and the part that matches the
 * query best is often not the one that explains it: `You can start multiple workers with:` is a part
 * apart from the console session it introduces. Just below the part's own score, so the rest of a
 * section comes right after it unless another chunk matched better.
 */
const SECTION_PART_SHARE = 0.95;

const sectionKey = (chunk: StoredChunk): string => `${chunk.url}\u0000${chunk.headings.join('\u0001')}`;
const sectionIndexes = new WeakMap<ReadonlyMap<string, StoredChunk>, Map<string, StoredChunk[]>>();

/** Indexes the sections of a chunk map (as {@link withSectionParts} does), so {@link fillBudget} knows each chunk's parts. */
export function indexSections(chunks: ReadonlyMap<string, StoredChunk>): void {
  sectionParts(chunks);
}

/** The section parts each chunk belongs to (set when {@link sectionParts} indexes its chunk map). */
const partsOf = new WeakMap<StoredChunk, StoredChunk[]>();

/** The parts of `chunk`'s section in page order (just the chunk when its map was never indexed). */
function sectionOf(chunk: StoredChunk): StoredChunk[] {
  return partsOf.get(chunk) ?? [chunk];
}

/** The parts of each section (same page, same heading path), in page order; built once per chunk map. */
function sectionParts(chunks: ReadonlyMap<string, StoredChunk>): Map<string, StoredChunk[]> {
  let index = sectionIndexes.get(chunks);
  if (index === undefined) {
    index = new Map();
    for (const chunk of chunks.values()) {
      const key = sectionKey(chunk);
      const parts = index.get(key);
      if (parts === undefined) index.set(key, [chunk]);
      else parts.push(chunk);
    }
    for (const parts of index.values()) {
      if (parts.length > 1) parts.sort((a, b) => a.order - b.order);
      for (const part of parts) partsOf.set(part, parts);
    }
    sectionIndexes.set(chunks, index);
  }
  return index;
}

/**
 * `ranked` plus the other parts of the ranked chunks' sections, each scored {@link SECTION_PART_SHARE} of
 * its best ranked part, best first (ties keep their order).
 */
export function withSectionParts(
  ranked: readonly RankedChunk[],
  chunks: ReadonlyMap<string, StoredChunk>,
  terms: readonly string[],
): RankedChunk[] {
  const index = sectionParts(chunks);
  const byId = new Map<string, RankedChunk>(ranked.map((item) => [item.chunk.id, item]));
  const out = [...ranked];
  for (const item of ranked) {
    for (const part of index.get(sectionKey(item.chunk)) ?? []) {
      const score = item.score * SECTION_PART_SHARE;
      const known = byId.get(part.id);
      if (known === undefined) {
        const added = { chunk: part, score, coverage: chunkCoverage(terms, part) };
        byId.set(part.id, added);
        out.push(added);
      } else if (known.score < score) {
        known.score = score;
      }
    }
  }
  return out.sort((a, b) => b.score - a.score);
}

/** A chunk's text without its heading lines, whitespace collapsed: equal for a repeated section body. */
const contentKey = (chunk: StoredChunk): string =>
  chunk.body
    .replace(/^#{1,6}\s.*$/gm, '')
    .replace(/\s+/g, ' ')
    .trim();

/** What separates two chunks in a get-docs answer. */
const CHUNK_SEPARATOR = '\n\n---\n\n';

/**
 * Fills a token budget with the best chunks, best first (the parts of one section together, in page order),
 * each labelled with its section and URL. A chunk
 * whose text (headings aside) was already given is skipped: documentation repeats a whole example file
 * under each of the sections that discuss a line of it, and the second copy would only cost budget.
 * `estimateTokens(content)` never exceeds `maxTokens`: labels, separators and a truncation note are counted.
 */
export function fillBudget(
  ranked: readonly RankedChunk[],
  maxTokens: number,
): { content: string; used: RankedChunk[] } {
  // counted in characters, the unit estimateTokens divides, so rounding cannot add up past the budget
  const limit = charsForTokens(maxTokens);
  const parts: string[] = [];
  const used: RankedChunk[] = [];
  const given = new Set<string>();
  let spent = 0;
  for (const item of ranked) {
    const key = contentKey(item.chunk);
    if (given.has(key)) continue;
    // room for the longer of the two labels the part may get (its own, or one saying it continues)
    const label = `<!-- ${labelPath(item.chunk)} (continued) — ${chunkUrl(item.chunk)} -->\n`;
    const body = item.chunk.body.trim();
    const cost = (parts.length > 0 ? CHUNK_SEPARATOR.length : 0) + label.length + body.length;
    if (spent + cost <= limit) {
      parts.push(body);
      used.push(item);
      given.add(key);
      spent += cost;
    } else if (used.length === 0) {
      const note = `\n\n[Section truncated to fit maxTokens. Use read-page on ${chunkUrl(item.chunk)} for all of it.]`;
      // one token spare for the fence cutAtBoundary may close
      const room = Math.floor((limit - label.length - note.length) / CHARS_PER_TOKEN) - 1;
      const cut = room > 0 ? cutAtBoundary(body, room) : '';
      if (cut) {
        parts.push(`${cut}${note}`);
        used.push(item);
        given.add(key);
        spent = limit;
      }
    }
    if (limit - spent < charsForTokens(60)) break;
  }
  // The parts of one section read in page order, together, where its best part ranked (an intro that
  // matched less than its example still comes before it). Which chunks are given does not change, nor
  // `used`, best first.
  const order = new Map<string, number>();
  const placed = used.map((item, rank) => {
    const key = sectionKey(item.chunk);
    if (!order.has(key)) order.set(key, rank);
    return { text: parts[rank] as string, item, group: order.get(key) as number };
  });
  placed.sort((a, b) => a.group - b.group || a.item.chunk.order - b.item.chunk.order);
  // Each heading labels the text under it: parts of one section that follow each other read as one text
  // under one heading and label; a later part shown without the part before it says it continues.
  const blocks: string[] = [];
  let previous: StoredChunk | undefined;
  for (const { text, item } of placed) {
    const chunk = item.chunk;
    const siblings = sectionOf(chunk);
    const index = siblings.findIndex((c) => c.id === chunk.id);
    const follows = previous !== undefined && index > 0 && siblings[index - 1]?.id === previous.id;
    if (follows) blocks[blocks.length - 1] += `\n\n${withoutHeadingLine(text)}`;
    else if (index > 0)
      blocks.push(`<!-- ${labelPath(chunk)} (continued) — ${chunkUrl(chunk)} -->\n${continuedHeading(text)}`);
    else blocks.push(`<!-- ${labelPath(chunk)} — ${chunkUrl(chunk)} -->\n${text}`);
    previous = chunk;
  }
  return { content: blocks.join(CHUNK_SEPARATOR), used };
}

/** A chunk's body as snippets are cut from it (without its first heading line, whitespace collapsed), per chunk. */
const snippetTexts = new WeakMap<StoredChunk, string>();

/** A ~100-token excerpt of a chunk around the densest run of query terms. */
export function snippetOf(chunk: StoredChunk, terms: readonly string[], tokens = 100): string {
  let text = snippetTexts.get(chunk);
  if (text === undefined) {
    text = chunk.body
      .replace(/^#{1,6}\s+.*$/m, '')
      .replace(/\s+/g, ' ')
      .trim();
    snippetTexts.set(chunk, text);
  }
  const width = charsForTokens(tokens);
  if (text.length <= width) return text;
  const lower = text.toLowerCase();
  let bestStart = 0;
  let bestHits = -1;
  const step = Math.max(20, Math.floor(width / 4));
  // where each term's stem occurs (every occurrence, overlapping ones too): a window holds the term when one of
  // them lies wholly inside it, as `window.includes(stem)` would find — without slicing a window per step
  const occurrences = terms.map((term) => {
    const needle = stem(term);
    const at: number[] = [];
    if (needle !== '') for (let i = lower.indexOf(needle); i !== -1; i = lower.indexOf(needle, i + 1)) at.push(i);
    // (an empty stem is in every window)
    return { length: needle.length, at, next: 0, always: needle === '' };
  });
  for (let start = 0; start < text.length; start += step) {
    const end = Math.min(start + width, lower.length);
    let hits = 0;
    for (const term of occurrences) {
      if (term.always) {
        hits += 1;
        continue;
      }
      // occurrences before this window never count again (windows only move forward)
      while (term.next < term.at.length && (term.at[term.next] as number) < start) term.next += 1;
      const first = term.at[term.next];
      if (first !== undefined && first + term.length <= end) hits += 1;
    }
    if (hits > bestHits) {
      bestHits = hits;
      bestStart = start;
    }
  }
  const start = bestStart === 0 ? 0 : Math.max(0, text.lastIndexOf(' ', bestStart) + 1);
  const excerpt = text.slice(start, start + width);
  const end = excerpt.length < width ? excerpt.length : Math.max(excerpt.lastIndexOf(' '), width - 20);
  return `${start > 0 ? '…' : ''}${excerpt.slice(0, end).trim()}${start + end < text.length ? '…' : ''}`;
}

/** The parameters of get-docs' relevance cut-off ({@link selectRelevant}); see {@link DEFAULT_CUTOFF}. */
export interface CutoffParams {
  enabled: boolean;
  /** Estimated tokens of the best-ranked sections given whatever their score, before the shares apply. */
  floorTokens: number;
  /** Past the floor, a section of another page is kept while it scores at least this share of the best. */
  ratio: number;
  /** Past the floor, a section of the best section's own page is kept down to this share of the best score. */
  pageRatio: number;
  /** A section scoring at least this share of the best that the answer does not give counts as left out. */
  leftOutRatio: number;
}

/**
 * get-docs' cut-off, measured on the dev questions (`bench/src/cutoff-lab.ts`, odd and even ids apart):
 * - the answer is in the best-ranked ~1,500 tokens for 9 questions in 10 (answer-bearing at 2,000 tokens
 *   is within 3 to 6 points of 5,000), so those are always given: below that floor, scores are too close to
 *   tell an answer from its neighbours (one is the 5th section, at 0.83 of the best);
 * - past it, a section is worth its tokens only while it scores near the best: a flat score list says the
 *   ranking could not tell the sections apart (give more), a steep one that the first sections are the answer.
 * On the 216 dev questions (FastAPI, Pydantic, ESLint, Instructor, React, Vitest) the tokens returned at the
 * default 5,000 fell from a median of ~4,900 to ~2,300 with no question's answer lost at any budget. The odd
 * half does not tell the shares apart; on the even half 0.72 or more loses answers ranked 6th to 15th at
 * 0.70-0.75 of the best, a floor of 1,200 one more. Keeping the best section's own page down to a lower share
 * (its neighbours) saved no answer and cost ~300 tokens a question, so the page gets no favour
 * (`pageRatio` = `ratio`).
 */
export const DEFAULT_CUTOFF: CutoffParams = {
  enabled: true,
  floorTokens: 1500,
  ratio: 0.7,
  pageRatio: 0.7,
  leftOutRatio: 0.5,
};

const pageOf = (chunk: StoredChunk): string => chunk.url.split('#')[0] as string;

/**
 * get-docs' relevance cut-off: the candidates (best first) worth giving, so that `maxTokens` is a ceiling,
 * not a quota ({@link DEFAULT_CUTOFF} says why these rules).
 */
export function selectRelevant(
  candidates: readonly RankedChunk[],
  params: CutoffParams = DEFAULT_CUTOFF,
): RankedChunk[] {
  const best = candidates[0];
  if (!params.enabled || best === undefined || best.score <= 0) return [...candidates];
  const bestPage = pageOf(best.chunk);
  const kept: RankedChunk[] = [];
  let tokens = 0;
  for (const item of candidates) {
    const share = item.score / best.score;
    if (tokens < params.floorTokens || share >= (pageOf(item.chunk) === bestPage ? params.pageRatio : params.ratio)) {
      kept.push(item);
      tokens += item.chunk.tokens;
    }
  }
  return kept;
}

/**
 * How many sections of `candidates` scoring at least `leftOutRatio` of the best one an answer giving `used`
 * left out (cut off, or past `maxTokens`): what the agent may still ask for.
 */
export function sectionsLeftOut(
  candidates: readonly RankedChunk[],
  used: readonly RankedChunk[],
  params: CutoffParams = DEFAULT_CUTOFF,
): number {
  const best = candidates[0];
  if (best === undefined || best.score <= 0) return 0;
  const given = new Set(used.map((item) => sectionKey(item.chunk)));
  const left = new Set<string>();
  for (const item of candidates) {
    const key = sectionKey(item.chunk);
    if (item.score >= params.leftOutRatio * best.score && !given.has(key)) left.add(key);
  }
  return left.size;
}

/**
 * What a documentation page is, from the path and title conventions of MkDocs, VitePress, Docusaurus, Sphinx
 * and Mintlify sites: `blog` (posts, "Announcing v5"), `changelog` (changelog, history, changes),
 * `release-notes` (release notes, releases, what's new), `migration` (migration and upgrade guides),
 * `troubleshooting` (troubleshooting, FAQ, error pages), `reference` (API, config and rule references), else
 * `guide`.
 */
export type PageKind = 'guide' | 'reference' | 'troubleshooting' | 'migration' | 'release-notes' | 'changelog' | 'blog';

const KIND_RULES: { kind: PageKind; path: RegExp; title: RegExp }[] = [
  {
    kind: 'release-notes',
    path: /(?:^|\/)(?:release[-_]?notes?|releases?|what-?s-?new|whatsnew)(?:[./]|$)/,
    title: /^(?:release notes|releases?\b|what'?s new)|\brelease notes\b/i,
  },
  {
    kind: 'changelog',
    path: /(?:^|\/)(?:change-?log|changes|history|news)(?:[./]|$)/,
    title: /^(?:change-?log|changes\b|history\b|version history|news\b)/i,
  },
  {
    kind: 'blog',
    path: /(?:^|\/)(?:blog|posts|articles)(?:[./]|$)|(?:^|\/)announcing[-_]/,
    title: /^announcing\b|^introducing .*\bv?\d+(?:\.\d+)*\b/i,
  },
  {
    kind: 'migration',
    path: /(?:^|\/)(?:migrat\w*|upgrad\w*)(?:[./]|$)/,
    title: /^(?:migrat|upgrad)\w*\b|\bmigration guide\b/i,
  },
  {
    kind: 'troubleshooting',
    path: /(?:^|\/)(?:troubleshoot\w*|faqs?|errors?|\w+[-_]errors|common[-_](?:issues|errors|problems)|known[-_]issues|debugging)(?:[./]|$)/,
    title:
      /^(?:troubleshoot\w*|faqs?\b|frequently asked|common (?:issues|errors|problems)|known issues|errors?\b|\w+ errors$)/i,
  },
  {
    kind: 'reference',
    path: /(?:^|\/)(?:api|api[-_]reference|reference|references|config|configuration|rules)(?:[./]|$)/,
    title: /^(?:api\b|reference\b|\w+ reference$|configuration$)/i,
  },
];

/** The {@link PageKind} of the page at `url` titled `title`. */
export function pageKind(url: string, title: string): PageKind {
  // asked for every ranked chunk of every query, for the same few pages: kept (bounded like the other memos)
  const key = `${url}\u0001${title}`;
  let kind = pageKinds.get(key);
  if (kind === undefined) {
    kind = kindOfPage(url, title);
    remember(pageKinds, key, kind);
  }
  return kind;
}

const pageKinds = new Map<string, PageKind>();

function kindOfPage(url: string, title: string): PageKind {
  let path = url.split('#')[0] as string;
  if (URL.canParse(path)) path = new URL(path).pathname;
  path = path.toLowerCase().replace(/\/index(?:\.\w+)?$|\/$/, '');
  for (const rule of KIND_RULES) if (rule.path.test(path) || rule.title.test(title.trim())) return rule.kind;
  return 'guide';
}

/** Kinds about the library's history: below guides and reference pages unless the query asks about versions. */
const HISTORY_KINDS = new Set<PageKind>(['blog', 'changelog', 'release-notes']);

/** A query about versions, changes, releases or news (`what's new in v5`, `breaking changes`, `deprecated`). */
export function asksAboutVersions(query: string): boolean {
  return /\bv\d+(?:\.\d+)*\b|\b\d+\.\d+(?:\.\d+)?\b|\b(?:in|since|from|to|before|after) v?\d{1,2}\b|\b(?:versions?|releases?|released|release notes|change-?logs?|changes|changed|what(?:'?s| is| are) new|new in|news|announc\w*|deprecat\w*|upgrad\w*|migrat\w*|breaking|history|blog)\b/i.test(
    query,
  );
}

/**
 * API identifiers a query names: words shaped like code (`setupFiles`, `model_validator`, `expect.poll`,
 * `useEffect()`, `@field_validator`, `no-unused-vars`, `TypeAdapter`), without a call's parentheses or a
 * decorator's `@`. Plain words (`Query`, `validators`) are not identifiers.
 */
export function queryIdentifiers(query: string): string[] {
  const out = new Set<string>();
  for (const raw of query.match(/[@$]?[A-Za-z_$][\w$]*(?:[.:-][A-Za-z_$][\w$]*)*(?:\(\))?/g) ?? []) {
    const word = raw.replace(/^@/, '').replace(/\(\)$/, '');
    const shaped =
      /[a-z0-9][_.][A-Za-z]|[A-Za-z][_.][a-z0-9]/.test(word) || // snake_case, dotted
      /^[a-z$]+[A-Z]/.test(word) || // camelCase
      // PascalCase of two words or more (`TypeAdapter`, `HTMLResponse`; not a product name like `OpenAPI`)
      (/^[A-Z][A-Za-z0-9]*$/.test(word) && /[a-z][A-Z][a-z]|[A-Z]{2}[a-z]/.test(word)) ||
      /^[a-z]+(?:-[a-z0-9]+){2,}$/.test(word) || // rule-like-names (two hyphens at least)
      raw.endsWith('()') ||
      raw.startsWith('@');
    // a product named like a file (`Node.js`, `Vue.js`) is not an API
    if (shaped && word.length > 2 && !/^[A-Z][a-z]+\.js$/.test(word)) out.add(word);
  }
  return [...out];
}

/** A heading as the identifier it names: no markup, anchor, call arguments, type parameters or ` | Section` suffix. */
export function headingIdentifier(heading: string): string {
  let name = headingIdentifiers.get(heading);
  if (name === undefined) {
    name = identifierOfHeading(heading);
    remember(headingIdentifiers, heading, name);
  }
  return name;
}

/** Results of the two functions below by their input: re-ranking asks for the same headings on every query. */
const headingIdentifiers = new Map<string, string>();
const wordForms = new Map<string, string>();
const MEMO_ENTRIES = 50_000;

function remember<V>(memo: Map<string, V>, key: string, value: V, limit = MEMO_ENTRIES): void {
  if (memo.size >= limit) memo.clear();
  memo.set(key, value);
}

function identifierOfHeading(heading: string): string {
  const name = withoutSectionSuffix(withoutAttributesAndComments(heading).replace(/[`*]/g, ''))
    .replace(/^@/, '')
    .replace(/^(?:new|class|def|function|async|const|interface|type)\s+/, '')
    .replace(/^[^\w@$]+/, '');
  return withoutCallOrTypeArguments(name).trim().toLowerCase();
}

// issue #25: the three scans below give what these regexes gave on a heading, in linear time (each was retried from
// every opener of a long run): `/\{#[^}]*\}|\{\/\*.*?\*\/\}/g`, `/\s+\|\s+.*$/` and `/(?:\s*\(|(?<=\S)<).*$/`.

const isWhitespace = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);
const isLineBreak = (c: string): boolean => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';

function lastLineBreak(text: string): number {
  return Math.max(
    text.lastIndexOf('\n'),
    text.lastIndexOf('\r'),
    text.lastIndexOf('\u2028'),
    text.lastIndexOf('\u2029'),
  );
}

/** Without `{#anchor}` attributes and `{/* comments *\/}` (MDX), as `/\{#[^}]*\}|\{\/\*.*?\*\/\}/g` removed them. */
export function withoutAttributesAndComments(text: string): string {
  let out = '';
  let kept = 0;
  // the next `}`, `*\/}` and line break at or after a position, remembered (positions only grow): linear
  let brace = -2;
  let closer = -2;
  let lineBreak = -2;
  const next = (memo: number, from: number, find: (from: number) => number): number =>
    memo === -1 || (memo >= from && memo !== -2) ? memo : find(from);
  const nextLineBreak = (from: number): number => {
    for (let i = from; i < text.length; i++) if (isLineBreak(text[i] as string)) return i;
    return -1;
  };
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '{') continue;
    let end = -1;
    if (text[i + 1] === '#') {
      brace = next(brace, i + 2, (from) => text.indexOf('}', from));
      if (brace >= 0) end = brace + 1;
    } else if (text[i + 1] === '/' && text[i + 2] === '*') {
      closer = next(closer, i + 3, (from) => text.indexOf('*/}', from));
      lineBreak = next(lineBreak, i + 3, nextLineBreak);
      if (closer >= 0 && (lineBreak < 0 || lineBreak > closer)) end = closer + 3;
    }
    if (end < 0) continue;
    out += text.slice(kept, i);
    kept = end;
    i = end - 1;
  }
  return out + text.slice(kept);
}

/** Without a ` | Section` suffix, as `/\s+\|\s+.*$/` removed it (from the first `|` with blanks on both sides). */
export function withoutSectionSuffix(text: string): string {
  const lastBreak = lastLineBreak(text);
  for (let q = text.indexOf('|', 1); q > 0; q = text.indexOf('|', q + 1)) {
    if (!isWhitespace(text[q - 1]) || !isWhitespace(text[q + 1])) continue;
    // `\s+` after the bar may cross line breaks; `.*` after it may not
    let after = q + 1;
    while (isWhitespace(text[after])) after++;
    if (lastBreak >= after) continue;
    let start = q - 1;
    while (start > 0 && isWhitespace(text[start - 1])) start--;
    return text.slice(0, start);
  }
  return text;
}

/** Without call arguments or type parameters, as `/(?:\s*\(|(?<=\S)<).*$/` removed them (from the first `(` or `<`). */
export function withoutCallOrTypeArguments(text: string): string {
  for (let q = lastLineBreak(text) + 1; q < text.length; q++) {
    const c = text[q];
    if (c === '(') {
      let start = q;
      while (start > 0 && isWhitespace(text[start - 1])) start--;
      return text.slice(0, start);
    }
    if (c === '<' && q > 0 && !isWhitespace(text[q - 1])) return text.slice(0, q);
  }
  return text;
}

/** The words of an identifier or heading, lower-cased, a plural `s` off (`model_validator` ~ `Model validators`). */
function wordForm(text: string): string {
  let form = wordForms.get(text);
  if (form === undefined) {
    form = wordFormOf(text);
    remember(wordForms, text, form);
  }
  return form;
}

function wordFormOf(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((w) => (w.length > 3 ? w.replace(/s$/, '') : w))
    .join(' ');
}

/**
 * How a chunk's headings name an identifier: its page's title exactly (3: the API's own page, every section of
 * it, in the backend's order), its own section's heading exactly on another page (2: `poll` on the page
 * `expect` names `expect.poll`), its own heading in words (1: `Model validators` for `model_validator`), or not
 * at all (0).
 */
function titleMatch(chunk: StoredChunk, identifier: string): number {
  const wanted = identifier.toLowerCase();
  const top = chunk.headings[0] ?? chunk.pageTitle;
  if (headingIdentifier(chunk.pageTitle) === wanted || headingIdentifier(top) === wanted) return 3;
  const inWords = (heading: string) => /[_\-.]/.test(identifier) && wordForm(heading) === wordForm(identifier);
  if (chunk.headings.length <= 1) return inWords(top) ? 1 : 0;
  // a heading the chunk's text holds counts too (a short section is served joined to its first subsection)
  if (bodyHeadings(chunk).some((h) => h !== top && h !== chunk.pageTitle && headingIdentifier(h) === wanted)) return 2;
  const own = chunk.headings[chunk.headings.length - 1] as string;
  const parent = chunk.headings[chunk.headings.length - 2] as string;
  const name = headingIdentifier(own);
  if (name === wanted || `${headingIdentifier(parent)}.${name}` === wanted) return 2;
  return inWords(own) ? 1 : 0;
}

const bodyHeadingLists = new WeakMap<StoredChunk, string[]>();

/** The heading lines of a chunk's text, outside code (kept per chunk). */
function bodyHeadings(chunk: StoredChunk): string[] {
  let list = bodyHeadingLists.get(chunk);
  if (list === undefined) {
    const found: string[] = [];
    // most chunks hold no heading of their own (the chunker splits at headings): one scan says so
    if (/^ {0,3}#{1,6}[ \t]/m.test(chunk.body))
      walkLines(chunk.body.split('\n'), (line, _index, _heading, inCode) => {
        const text = inCode ? undefined : headingText(line);
        if (text !== undefined) found.push(text);
        return true;
      });
    list = found;
    bodyHeadingLists.set(chunk, list);
  }
  return list;
}

const titleKeyLists = new WeakMap<StoredChunk, string[]>();

/** The identifiers and the word form a chunk's own heading names (kept per chunk: chunks outlive one query's map). */
function titleKeys(chunk: StoredChunk): string[] {
  let keys = titleKeyLists.get(chunk);
  if (keys === undefined) {
    const own = chunk.headings[chunk.headings.length - 1] ?? chunk.pageTitle;
    const parent = chunk.headings.length > 1 ? (chunk.headings[chunk.headings.length - 2] as string) : chunk.pageTitle;
    const name = headingIdentifier(own);
    const held = bodyHeadings(chunk).map(headingIdentifier);
    keys = [...new Set([name, ...held, `${headingIdentifier(parent)}.${name}`, `~${wordForm(own)}`])];
    titleKeyLists.set(chunk, keys);
  }
  return keys;
}

/**
 * For each of `keys`, the first `limit` chunks of a map whose own heading names it (see {@link titleKeys}), in
 * the map's order. One pass over the map per query (it is the query's own): indexing every key of every chunk
 * cost more than looking for the few keys asked.
 */
function titledChunks(
  chunks: ReadonlyMap<string, StoredChunk>,
  keys: readonly string[],
  limit: number,
): Map<string, StoredChunk[]> {
  const found = new Map<string, StoredChunk[]>(keys.map((key) => [key, []]));
  let open = found.size;
  for (const chunk of chunks.values()) {
    if (open === 0) break;
    for (const key of titleKeys(chunk)) {
      const list = found.get(key);
      if (list === undefined || list.length >= limit) continue;
      list.push(chunk);
      if (list.length === limit) open -= 1;
    }
  }
  return found;
}

/** Lower-case runs of `[a-z0-9_.$@-]` in `text` (the term index's words). */
const termRuns = (text: string): string[] => text.toLowerCase().match(/[a-z0-9_.$@-]+/g) ?? [];

/**
 * What {@link rerank} looks for beyond the backend's hits, as lists of words a chunk's text must all contain:
 * each identifier the query names (whole, its last dotted part, its words) and the first words of each error
 * message it quotes. The engine reads the chunks the term index finds for them and hands them to `rerank`.
 */
export function rerankLookups(query: string): string[][] {
  const out: string[][] = [];
  for (const identifier of queryIdentifiers(query)) {
    out.push(termRuns(identifier));
    const last = identifier.split('.').at(-1) as string;
    if (last !== identifier) out.push(termRuns(last));
    if (/[_\-.]/.test(identifier)) out.push(wordForm(identifier).split(' '));
  }
  for (const phrase of errorPhrases(query)) out.push(termRuns(phrase).slice(0, 3));
  const seen = new Set<string>();
  return out.filter((words) => {
    const key = words.join(' ');
    if (words.length === 0 || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * An error message or status a query quotes (`422 Unprocessable Entity`, `Failed to resolve import`,
 * `Cannot find module`, `TypeError: x is not a function`): the phrases to look for verbatim, longest first.
 * None when the query does not look like an error.
 */
export function errorPhrases(query: string): string[] {
  const out: string[] = [];
  const status = /\b([45]\d\d)(\s+[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)?/.exec(query);
  if (status && (status[2] || /\b(?:error|status|response|code)\b/i.test(query)))
    out.push(`${status[1]}${status[2] ?? ''}`.trim());
  const cue =
    /\b((?:\w+(?:Error|Exception):\s*)?(?:failed to|cannot|can't|could not|couldn't|unable to|is not (?:defined|a function|a constructor|allowed|supported)|no such|no module named|has no attribute|unexpected (?:token|keyword)|not found|not fully defined|not installed|is required|undefined is not|maximum call stack)\b[^.?!,;:()"]*)/i.exec(
      query,
    );
  if (cue?.[1]) out.push((cue[1].trim().split(/\s+/).slice(0, 8) as string[]).join(' '));
  return out;
}

const plainTexts = new WeakMap<StoredChunk, string>();

/** A chunk's headings and body, lower-cased, without inline markup, whitespace collapsed (kept per chunk). */
function plainText(chunk: StoredChunk): string {
  let text = plainTexts.get(chunk);
  if (text === undefined) {
    text = `${chunk.headings.join(' ')} ${chunk.body}`.toLowerCase().replace(/[`*_]/g, '').replace(/\s+/g, ' ');
    plainTexts.set(chunk, text);
  }
  return text;
}

/**
 * The error phrases as the docs quote them: each phrase of two words or more, else its longest beginning of
 * three words or more that some chunk contains (`Failed to resolve import` is quoted as `Failed to resolve
 * "foo"`). Lower-cased.
 */
function quotedPhrases(phrases: readonly string[], chunks: ReadonlyMap<string, StoredChunk>): string[] {
  const out: string[] = [];
  for (const phrase of phrases) {
    const words = phrase.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length < 2) continue;
    for (let k = words.length; k >= Math.min(3, words.length); k--) {
      const prefix = words.slice(0, k).join(' ');
      if (k === words.length && k < 3) {
        out.push(prefix);
        break;
      }
      let seen = false;
      for (const chunk of chunks.values()) {
        if (plainText(chunk).includes(prefix)) {
          seen = true;
          break;
        }
      }
      if (seen) {
        out.push(prefix);
        break;
      }
    }
  }
  return out;
}

/** Weight of a section titled in words by an identifier the query names (`Model validators`, `model_validator`). */
const WORD_TITLE_BOOST = 1.15;
/** Weight of a history page (blog, changelog, release notes) for a query that does not ask about versions. */
const HISTORY_SHARE = 0.6;
/** Weight of a troubleshooting page, and of a section quoting the query's error message, for an error query. */
const ERROR_BOOST = 1.5;

/**
 * Re-ranks the search backend's candidates (best first) for the shapes of documentation its text score
 * misses, and adds the chunks it did not return that these rules call for:
 * - a section or page titled by an API identifier the query names (`setupFiles`, `useEffect`,
 *   `model_validator`, `expect.poll`) ranks first, ahead of pages that merely mention it;
 * - blog posts, changelogs and release notes weigh {@link HISTORY_SHARE} of their score unless the query asks
 *   about versions, changes, releases or news ({@link asksAboutVersions}): they repeat every feature's name;
 * - for a query quoting an error message or status ({@link errorPhrases}), troubleshooting and error pages and
 *   the sections quoting that message weigh {@link ERROR_BOOST} times more.
 */
export function rerank(
  ranked: readonly RankedChunk[],
  query: string,
  chunks: ReadonlyMap<string, StoredChunk>,
  terms: readonly string[],
): RankedChunk[] {
  const top = ranked[0]?.score ?? 0;
  if (top <= 0) return [...ranked];
  const out = new Map<string, RankedChunk>(ranked.map((item) => [item.chunk.id, { ...item }]));
  const coverageOf = (chunk: StoredChunk) => chunkCoverage(terms, chunk);
  const add = (chunk: StoredChunk, score: number) => {
    if (!out.has(chunk.id)) out.set(chunk.id, { chunk, score, coverage: coverageOf(chunk) });
  };
  // sections quoting the error message, where the backend's words did not reach them
  const phrases = errorPhrases(query);
  const quoted = quotedPhrases(phrases, chunks);
  const quoting = (chunk: StoredChunk): boolean => {
    const text = plainText(chunk);
    return quoted.some((phrase) => text.includes(phrase));
  };
  if (quoted.length > 0) {
    let found = 0;
    for (const chunk of chunks.values()) {
      if (found >= 20) break;
      if (!out.has(chunk.id) && quoting(chunk)) {
        add(chunk, top * 0.8);
        found += 1;
      }
    }
  }
  // chunks titled by a named identifier, wherever the backend ranked them
  const identifiers = queryIdentifiers(query);
  const keysOf = (identifier: string) => [identifier.toLowerCase(), `~${wordForm(identifier)}`];
  const titled = titledChunks(chunks, identifiers.flatMap(keysOf), 20);
  for (const identifier of identifiers) {
    for (const chunk of keysOf(identifier)
      .flatMap((key) => titled.get(key) ?? [])
      .slice(0, 20))
      add(chunk, top * 0.5);
  }
  const history = !asksAboutVersions(query);
  const error = phrases.length > 0;
  let best = 0;
  for (const item of out.values()) {
    const kind = pageKind(item.chunk.url, item.chunk.pageTitle);
    if (history && HISTORY_KINDS.has(kind)) item.score *= HISTORY_SHARE;
    if (error && kind === 'troubleshooting') item.score *= ERROR_BOOST;
    if (quoted.length > 0 && quoting(item.chunk)) item.score *= ERROR_BOOST;
    best = Math.max(best, item.score);
  }
  if (identifiers.length > 0) {
    for (const item of out.values()) {
      const titled = Math.max(0, ...identifiers.map((identifier) => titleMatch(item.chunk, identifier)));
      // titled exactly: first (the sections of a page so titled, then sections so titled elsewhere), in their
      // own order, just above the best of the rest, so that the scores of what follows keep their meaning (get-docs'
      // cut-off compares them with the best)
      if (titled >= 2) item.score = best * (titled === 3 ? 1.04 : 1.02) + item.score * 0.01;
      // titled in words (`Model validators` for `model_validator`): a heading, not necessarily the API's own
      else if (titled === 1) item.score *= WORD_TITLE_BOOST;
    }
  }
  return [...out.values()].sort((a, b) => b.score - a.score);
}
