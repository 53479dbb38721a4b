import type { StoredChunk } from '../../indexing/doc-store.js';
import type { RankedChunk } from './chunks.js';
import { type PageKind, pageKind } from './kinds.js';
import type { QueryAnalysis } from './query.js';
import { stem } from './terms.js';

/**
 * Weight of the query's terms found in a chunk's page title and headings (issue #28): the backend's scores of
 * a plain-language question are flat (the top 40 within a few percent), and a section whose headings name what
 * is asked (`Field validators` for "field validators") answers it more often than one that only mentions it.
 */
const HEADING_SHARE = 0.2;
/** Weight of a pointer section (a line that only links elsewhere): below the section it points to. */
const POINTER_SHARE = 0.5;
/** Weight of a troubleshooting page or section for a question about a failure. */
const TROUBLE_BOOST = 1.2;
/** Weight of a section whose headings name a subject of a comparison, and of one that compares. */
const SUBJECT_BOOST = 1.1;
/**
 * Weight of an overview page (titled "… Concepts", "… Overview") for a question asking how to do something: the
 * page that explains the ideas ranks below the one that shows how (FastAPI's "Deployments Concepts" ›
 * "Multiple Processes - Workers" below "Server Workers" › "Multiple Workers").
 */
const OVERVIEW_SHARE = 0.95;
/** Titles of overview pages. */
const OVERVIEW_TITLE = /\b(?:concepts?|overview)\b/i;
const COMPARING_BOOST = 1.15;

const headingTexts = new WeakMap<StoredChunk, string>();

/** A chunk's page title and heading path, lower-cased (kept per chunk). */
function headingText(chunk: StoredChunk): string {
  let text = headingTexts.get(chunk);
  if (text === undefined) {
    text = `${chunk.pageTitle} ${chunk.headings.join(' ')}`.toLowerCase().replace(/[`*_]/g, ' ');
    headingTexts.set(chunk, text);
  }
  return text;
}

/** Share of `terms` whose stem the chunk's headings hold. */
export function headingCoverage(chunk: StoredChunk, terms: readonly string[]): number {
  if (terms.length === 0) return 0;
  const text = headingText(chunk);
  let found = 0;
  for (const term of terms) if (text.includes(stem(term))) found += 1;
  return found / terms.length;
}

const pointers = new WeakMap<StoredChunk, boolean>();

/**
 * Whether a chunk is a pointer: a short section whose text, headings aside, is a sentence or two that links
 * elsewhere ("If you encounter issues when setting up proxies, please refer to our [Troubleshooting guide]").
 */
export function isPointer(chunk: StoredChunk): boolean {
  let pointer = pointers.get(chunk);
  if (pointer === undefined) {
    const text = chunk.body.replace(/^ {0,3}#{1,6}[ \t].*$/gm, '').trim();
    pointer =
      text.length > 0 &&
      text.length <= 400 &&
      !text.includes('```') &&
      /\]\([^)]*\)|\]\[[^\]]*\]/.test(text) &&
      text.replace(/\]\([^)]*\)/g, ']').split(/\s+/).length <= 45;
    pointers.set(chunk, pointer);
  }
  return pointer;
}

/** Headings of troubleshooting sections within other pages (React's `Troubleshooting`, `Common errors`, FAQs). */
const TROUBLE_HEADING =
  /\b(?:troubleshoot\w*|common (?:errors|issues|problems|pitfalls|mistakes)|faqs?|known issues|gotchas)\b/;
/** Headings that compare (`vs` too, not the editor's name: "VS Code"). */
const COMPARING_HEADING = /\b(?:vs\b\.?(?!\s*code\b)|versus|differences?|compar\w*|alternatives?|migrat\w+ from)\b/;

/** The weight {@link steer} gives one chunk. */
function weightOf(chunk: StoredChunk, kind: PageKind, analysis: QueryAnalysis, terms: readonly string[]): number {
  let weight = 1 + HEADING_SHARE * headingCoverage(chunk, terms);
  if (isPointer(chunk)) weight *= POINTER_SHARE;
  const headings = headingText(chunk);
  if (analysis.intent === 'troubleshooting' && (kind === 'troubleshooting' || TROUBLE_HEADING.test(headings)))
    weight *= TROUBLE_BOOST;
  if (analysis.intent === 'howto' && OVERVIEW_TITLE.test(chunk.pageTitle)) weight *= OVERVIEW_SHARE;
  if (analysis.intent === 'comparison') {
    for (const subject of analysis.subjects) {
      const words = subject.toLowerCase().match(/[a-z0-9_]+/g) ?? [];
      if (words.length > 0 && words.every((w) => headings.includes(stem(w)))) weight *= SUBJECT_BOOST;
    }
    if (COMPARING_HEADING.test(headings)) weight *= COMPARING_BOOST;
  }
  return weight;
}

/**
 * Steers the scores of re-ranked chunks by what the question asks (issue #28): the query's terms in a chunk's
 * headings weigh up to {@link HEADING_SHARE} more, pointer sections half; a question about a failure favours
 * troubleshooting pages and sections, a comparison the sections naming its subjects and the ones that compare.
 */
export function steer(items: Iterable<RankedChunk>, analysis: QueryAnalysis, terms: readonly string[]): void {
  for (const item of items) {
    item.score *= weightOf(item.chunk, pageKind(item.chunk.url, item.chunk.pageTitle), analysis, terms);
  }
}
