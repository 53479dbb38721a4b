import { markdownLinks, pathKey } from '@pro-context/markdown';
import type { RankedChunk } from './chunks.js';

/**
 * Pages the best candidates link to (issue #28, "the docs' own vocabulary"): when the best sections of several
 * pages link to the same page ("In [Strict Mode](/reference/react/StrictMode), React will call some of your
 * functions twice" in the troubleshooting sections of `useMemo`, `useState`, `useReducer`), that page explains
 * what they have in common, and a question they all answer a part of is about it. Its sections among the
 * candidates gain {@link CITED_BOOST}.
 */

/** Distinct pages, best first, whose sections' links are read. */
const TUNE = (process.env.P5_CITED ?? '').split(',').map(Number);
const CITING_PAGES = TUNE[0] || 10;
/** Distinct pages among those that must link to a page for it to gain. */
const MIN_CITERS = TUNE[1] || 4;
/** Weight of the sections of a page so cited. */
const CITED_BOOST = TUNE[2] || 1.2;
/** Links read from one section, at most. */
const LINKS_PER_SECTION = 40;

/** Resolves a link of a page to one of the library's pages (see {@link pageResolver}). */
export type PageResolver = (target: string, from: string) => string | undefined;

/**
 * A resolver of links to a library's pages: the target resolved against the linking page's URL, matched on the
 * same host by the longest unambiguous end of its path (up to three segments, extensions and `index` aside), as
 * `@pro-context/markdown`'s `AnchorCollector` matches them.
 */
export function pageResolver(pages: readonly { url: string }[]): PageResolver {
  const ends = new Map<string, string | null>();
  for (const page of pages) {
    let url: URL;
    try {
      url = new URL(page.url);
    } catch {
      continue;
    }
    const segments = pathKey(url.pathname);
    for (let len = 1; len <= Math.min(3, segments.length); len++) {
      const key = `${url.host}\u0000${segments.slice(-len).join('/')}`;
      ends.set(key, ends.has(key) ? null : page.url);
    }
  }
  return (target, from) => {
    if (target.startsWith('#') || target.startsWith('mailto:')) return undefined;
    let url: URL;
    try {
      url = new URL(target, from);
    } catch {
      return undefined;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    const segments = pathKey(url.pathname);
    for (let len = Math.min(3, segments.length); len >= 1; len--) {
      const found = ends.get(`${url.host}\u0000${segments.slice(-len).join('/')}`);
      if (found) return found;
    }
    return undefined;
  };
}

const pageOf = (url: string): string => url.split('#')[0] as string;

/**
 * Raises the best candidate of each page that at least {@link MIN_CITERS} of the best {@link CITING_PAGES} pages
 * link to from their ranked sections (a page's links to itself aside), in place.
 */
export function boostCited(items: readonly RankedChunk[], resolve: PageResolver): void {
  const ranked = [...items].sort((a, b) => b.score - a.score);
  const citing = new Map<string, Set<string>>();
  const seen = new Set<string>();
  for (const item of ranked) {
    const from = pageOf(item.chunk.url);
    if (!seen.has(from)) {
      if (seen.size >= CITING_PAGES) break;
      seen.add(from);
    }
    for (const link of markdownLinks(item.chunk.body, LINKS_PER_SECTION)) {
      const page = resolve(link.target, item.chunk.url);
      if (page === undefined || pageOf(page) === from) continue;
      let by = citing.get(pageOf(page));
      if (by === undefined) {
        by = new Set();
        citing.set(pageOf(page), by);
      }
      by.add(from);
    }
  }
  const cited = new Set([...citing].filter(([, by]) => by.size >= MIN_CITERS).map(([page]) => page));
  // the best section of each cited page gains (its other sections keep their place: the page is the answer, not
  // every part of it)
  for (const item of ranked) {
    if (cited.size === 0) break;
    const page = pageOf(item.chunk.url);
    if (!cited.delete(page)) continue;
    item.score *= CITED_BOOST;
  }
}
