import { linkTarget, markdownLinks, PagePaths, pathKey } from '@pro-context/markdown';
import type { RankedChunk } from './chunks.js';
import { lowerCoverage } from './terms.js';

/**
 * Pages the best candidates link to (issue #28, "the docs' own vocabulary"): when the best sections of several
 * pages link to the same page ("In [Strict Mode](/reference/react/StrictMode), React will call some of your
 * functions twice" in the troubleshooting sections of `useMemo`, `useState`, `useReducer`), that page explains
 * what they have in common, and a question they all answer a part of is about it: its best section among the
 * candidates gains {@link CITED_BOOST}. A sentence that names most of the question and links to a page points to
 * the answer: that page's best section ranks with the section that links to it.
 */

/** Distinct pages, best first, whose sections' links are read. */
const CITING_PAGES = 10;
/** Distinct pages among those that must link to a page for it to gain. */
const MIN_CITERS = 4;
/** Weight of the sections of a page so cited. */
const CITED_BOOST = 1.2;
/** Share of the question's terms the sentence around a link must name for the link to point to the answer. */
const POINTING_COVERAGE = 0.6;
/** Share of the linking section's score the best section of the page a pointing sentence links to gets, at least. */
const POINTED_SHARE = 0.95;
/** Links read from one section, at most. */
const LINKS_PER_SECTION = 40;

/** Resolves a link of a page to one of the library's pages (see {@link pageResolver}). */
export type PageResolver = (target: string, from: string) => string | undefined;

/**
 * A resolver of links to a library's pages: the target resolved against the linking page's URL, matched on the
 * same host by the longest unambiguous end of its path (`@pro-context/markdown`'s `PagePaths`, as its
 * `AnchorCollector` matches them).
 */
export function pageResolver(pages: readonly { url: string }[]): PageResolver {
  const known: { url: string; host: string; segments: string[] }[] = [];
  for (const page of pages) {
    let url: URL;
    try {
      url = new URL(page.url);
    } catch {
      continue;
    }
    known.push({ url: page.url, host: url.host, segments: pathKey(url.pathname) });
  }
  const paths = new PagePaths(known);
  return (target, from) => {
    const url = linkTarget(target, from);
    const found = url && paths.find(url.host, pathKey(url.pathname));
    return found === undefined ? undefined : known[found]?.url;
  };
}

const pageOf = (url: string): string => url.split('#')[0] as string;

/** Characters read on either side of a link for its sentence, at most (a page's line may be long). */
const SENTENCE_WINDOW = 300;

/** `text` without the targets of its links (`[text](target)` → `[text]`), in one pass. */
function withoutTargets(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const k = text.indexOf('](', i);
    if (k < 0) return out + text.slice(i);
    out += text.slice(i, k + 1);
    let j = k + 2;
    while (j < text.length && text[j] !== ')' && text[j] !== ' ' && text[j] !== '\t') j += 1;
    if (text[j] === ')') i = j + 1;
    else {
      out += text.slice(k + 1, j);
      i = j;
    }
  }
  return out;
}

/**
 * The sentence of `body` around the link whose target starts at `at`, within its line and
 * {@link SENTENCE_WINDOW} characters of the link, lower-cased, without link targets.
 */
export function sentenceAround(body: string, at: number): string {
  const start = Math.max(body.lastIndexOf('\n', at) + 1, at - SENTENCE_WINDOW);
  let end = body.indexOf('\n', at);
  if (end < 0 || end > at + SENTENCE_WINDOW) end = Math.min(body.length, at + SENTENCE_WINDOW);
  const line = body.slice(start, end);
  const offset = at - start;
  let from = 0;
  for (const m of line.matchAll(/[.!?]\s/g)) {
    const stop = m.index + 1;
    if (stop > offset) return withoutTargets(line.slice(from, stop)).toLowerCase();
    from = stop;
  }
  return withoutTargets(line.slice(from)).toLowerCase();
}

/**
 * Raises, in place, the best candidate of each page that at least {@link MIN_CITERS} of the best
 * {@link CITING_PAGES} pages link to from their ranked sections (a page's links to itself aside), and the best
 * candidate of each page a sentence naming most of the question's terms links to ("To automatically call this
 * method before each test, enable the [`clearMocks`](/config/clearmocks) setting": the option's page answers
 * "forget recorded calls of every mock before each test automatically") to {@link POINTED_SHARE} of the linking
 * section's score at least.
 */
export function boostCited(items: readonly RankedChunk[], resolve: PageResolver, terms: readonly string[] = []): void {
  const ranked = [...items].sort((a, b) => b.score - a.score);
  const citing = new Map<string, Set<string>>();
  const pointed = new Map<string, number>();
  const seen = new Set<string>();
  for (const item of ranked) {
    const from = pageOf(item.chunk.url);
    if (!seen.has(from)) {
      if (seen.size >= CITING_PAGES) break;
      seen.add(from);
    }
    const body = item.chunk.body;
    for (const link of markdownLinks(body, LINKS_PER_SECTION)) {
      const resolved = resolve(link.target, item.chunk.url);
      if (resolved === undefined || pageOf(resolved) === from) continue;
      const page = pageOf(resolved);
      let by = citing.get(page);
      if (by === undefined) {
        by = new Set();
        citing.set(page, by);
      }
      by.add(from);
      if (terms.length >= 2 && (pointed.get(page) ?? 0) < item.score) {
        const at = body.indexOf(`](${link.target}`);
        if (at >= 0 && lowerCoverage(terms, sentenceAround(body, at)) >= POINTING_COVERAGE)
          pointed.set(page, item.score);
      }
    }
  }
  const cited = new Set([...citing].filter(([, by]) => by.size >= MIN_CITERS).map(([page]) => page));
  // the best section of each cited or pointed-to page gains (its other sections keep their place: the page is
  // the answer, not every part of it)
  const done = new Set<string>();
  for (const item of ranked) {
    const page = pageOf(item.chunk.url);
    if (done.has(page)) continue;
    done.add(page);
    const floor = (pointed.get(page) ?? 0) * POINTED_SHARE;
    if (cited.has(page)) item.score *= CITED_BOOST;
    if (item.score < floor) item.score = floor;
  }
}
