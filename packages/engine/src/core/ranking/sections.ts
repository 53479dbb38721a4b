import { CHARS_PER_TOKEN, charsForTokens } from '@pro-context/kernel';
import type { StoredChunk } from '../../indexing/doc-store.js';
import { chunkCoverage, type RankedChunk } from './chunks.js';
import { chunkUrl, continuedHeading, cutAtBoundary, labelPath, withoutHeadingLine } from './labels.js';
import { stem } from './terms.js';

/**
 * Share of a chunk's score given to the other parts of its section. The chunker cuts a long section into
 * parts (a code block longer than the limit becomes a part of its own), and the part that matches the
 * query best is often not the one that explains it: `You can start multiple workers with:` is a part
 * apart from the console session it introduces. Just below the part's own score, so the rest of a
 * section comes right after it unless another chunk matched better.
 */
const SECTION_PART_SHARE = 0.95;

export const sectionKey = (chunk: StoredChunk): string => `${chunk.url}\u0000${chunk.headings.join('\u0001')}`;
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
  const candidates = new Candidates(ranked);
  for (const item of ranked) {
    for (const part of index.get(sectionKey(item.chunk)) ?? []) {
      candidates.join(part, item.score * SECTION_PART_SHARE, () => chunkCoverage(terms, part));
    }
  }
  return candidates.out.sort((a, b) => b.score - a.score);
}

/** Ranked candidates that chunks are joined to, each once: a new one is added, a known one's score raised. */
class Candidates {
  readonly out: RankedChunk[];
  private readonly byId: Map<string, RankedChunk>;

  constructor(ranked: readonly RankedChunk[]) {
    this.out = [...ranked];
    this.byId = new Map(ranked.map((item) => [item.chunk.id, item]));
  }

  /**
   * `chunk` at `score` (joined: the ranking did not return it itself; `coverage` is asked only then), or a known
   * candidate's score raised to `score`; `introOf` set either way when given. Whether anything changed.
   */
  join(chunk: StoredChunk, score: number, coverage: () => number, introOf?: string): boolean {
    const known = this.byId.get(chunk.id);
    if (known === undefined) {
      const added: RankedChunk = { chunk, score, coverage: coverage(), joined: true, ...(introOf ? { introOf } : {}) };
      this.byId.set(chunk.id, added);
      this.out.push(added);
      return true;
    }
    if (known.score >= score) return false;
    known.score = score;
    if (introOf) known.introOf = introOf;
    return true;
  }
}

/** Best sections whose parent's introduction is given with them ({@link withParentIntros}). */
const PARENT_INTRO_SECTIONS = 2;
/** A parent's introduction longer than this (characters, ~600 tokens) is a section of its own, not context. */
const PARENT_INTRO_MAX_CHARS = 2400;

/**
 * `ranked` with the introduction of the parent section of each of the best {@link PARENT_INTRO_SECTIONS}
 * sections (`Self-referencing Models` for its subsection `Cyclic references`) scored as a part of that section
 * ({@link SECTION_PART_SHARE} of its score), when the introduction is short, names a word of the query, and
 * was read with the candidates (issue #28, section integrity). A subsection often ranks first through the words
 * of its parent's heading, which its own text takes for granted: the answer then opened on a detail (cyclic
 * references) without what the parent says first (models may reference themselves). Page titles are no parent
 * here: their introduction is an overview, not the context of one subsection. Ranked best first.
 */
export function withParentIntros(
  ranked: readonly RankedChunk[],
  chunks: ReadonlyMap<string, StoredChunk>,
  terms: readonly string[],
): RankedChunk[] {
  const index = sectionParts(chunks);
  const candidates = new Candidates(ranked);
  const sections = new Set<string>();
  let changed = false;
  for (const item of ranked) {
    const key = sectionKey(item.chunk);
    if (sections.has(key)) continue;
    sections.add(key);
    if (sections.size > PARENT_INTRO_SECTIONS) break;
    const path = item.chunk.headings;
    // a parent below the page title: the path holds the title, the parent and the section itself
    if (path.length < 3) continue;
    const parentKey = `${item.chunk.url}\u0000${path.slice(0, -1).join('\u0001')}`;
    const intro = index.get(parentKey)?.[0];
    if (intro === undefined || intro.body.length > PARENT_INTRO_MAX_CHARS) continue;
    const coverage = chunkCoverage(terms, intro);
    if (coverage === 0) continue;
    if (candidates.join(intro, item.score * SECTION_PART_SHARE, () => coverage, key)) changed = true;
  }
  return changed ? candidates.out.sort((a, b) => b.score - a.score) : candidates.out;
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
  for (const item of headsFirst(ranked)) {
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
    // a parent's introduction given for a section reads just before it (page order), where the section ranked
    const group = item.introOf !== undefined ? order.get(item.introOf) : undefined;
    return { text: parts[rank] as string, item, group: group ?? (order.get(key) as number) };
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
  // `used` best first, as ranked (a section's beginning given before its better part is not the best match)
  const rank = new Map(ranked.map((item, i) => [item.chunk.id, i]));
  const best = [...used].sort((a, b) => (rank.get(a.chunk.id) ?? 0) - (rank.get(b.chunk.id) ?? 0));
  return { content: blocks.join(CHUNK_SEPARATOR), used: best };
}

/**
 * `ranked` with the first part of each section moved just before a later part of it that ranked higher (issue #28):
 * an answer never opens with a section's "(continued)" part while the section's beginning is among the candidates
 * (the beginning says what the section is about; the later part's words matched the query better).
 */
function headsFirst(ranked: readonly RankedChunk[]): RankedChunk[] {
  const byId = new Map(ranked.map((item) => [item.chunk.id, item]));
  const placed = new Set<string>();
  const out: RankedChunk[] = [];
  for (const item of ranked) {
    if (placed.has(item.chunk.id)) continue;
    const head = sectionOf(item.chunk)[0];
    const headItem = head && head.id !== item.chunk.id ? byId.get(head.id) : undefined;
    if (headItem && !placed.has(headItem.chunk.id)) {
      out.push(headItem);
      placed.add(headItem.chunk.id);
    }
    out.push(item);
    placed.add(item.chunk.id);
  }
  return out;
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
