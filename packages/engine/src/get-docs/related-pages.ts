import type { LibraryDescriptor, TocEntry } from '@pro-context/kernel';
import { type RankedChunk, sectionPath, termCoverage } from '../core/ranking.js';
import type { DocsAnswer } from './answer.js';

/**
 * Pages an agent may read next, at most `wanted`, never the page returned (`source`, fragment aside): the
 * pages of the ranked hits in rank order (the same relevance as the answer), then TOC titles matching the topic,
 * then (no topic, or no hit elsewhere) the TOC's first pages, so a low-confidence answer always has somewhere
 * to go (seed 001 §11.3).
 */
export function relatedPages(
  wanted: number,
  toc: readonly TocEntry[],
  ranked: readonly RankedChunk[],
  terms: readonly string[],
  pages: readonly { url: string; title: string }[],
  source?: string,
): DocsAnswer['relatedPages'] {
  const out = new Map<string, DocsAnswer['relatedPages'][number]>();
  const page = (url: string) => url.split('#')[0] as string;
  const returned = source === undefined ? undefined : page(source);
  const describe = (url: string) => toc.find((e) => e.url === url)?.description ?? '';
  const add = (url: string, entry: DocsAnswer['relatedPages'][number]) => {
    if (out.size >= wanted || out.has(page(url)) || page(url) === returned) return;
    out.set(page(url), entry);
  };
  for (const item of ranked) {
    const url = item.chunk.url;
    add(url, { title: item.chunk.pageTitle, url, description: describe(url) || sectionPath(item.chunk) });
  }
  const candidates = toc.length > 0 ? toc : pages.map((p) => ({ title: p.title, url: p.url, description: '' }));
  const scored = candidates
    .map((e) => ({ e, score: termCoverage(terms, `${e.title} ${e.description ?? ''}`) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score);
  for (const { e } of scored) add(e.url, { title: e.title, url: e.url, description: e.description ?? '' });
  if (out.size === 0)
    for (const e of candidates) add(e.url, { title: e.title, url: e.url, description: e.description ?? '' });
  return [...out.values()];
}

/** The page a path topic names (`tutorial/dependencies/index`): its URL ends with the path, extension aside. */
export function pageAt(pages: readonly { url: string }[], path: readonly string[]): string | undefined {
  const wanted = path.join('/').toLowerCase();
  if (!wanted) return undefined;
  const bare = (url: string) =>
    (URL.canParse(url) ? new URL(url).pathname : url)
      .toLowerCase()
      .replace(/\.(?:md|mdx|html?|txt)$/, '')
      .replace(/(?<!\/)\/+$/, '');
  const ends = (url: string, tail: string) => bare(url) === tail || bare(url).endsWith(`/${tail}`);
  const exact = pages.find((p) => ends(p.url, wanted));
  if (exact) return exact.url;
  // `tutorial/dependencies` names the folder's own page (`tutorial/dependencies/index.md`)
  return pages.find((p) => ends(p.url, `${wanted}/index`))?.url;
}

/**
 * The library's overview, for a get-docs without a topic: its introduction page (titled like the library
 * or its TOC, or Introduction, Overview, Getting started, Home, Welcome), else the page nearest the docs'
 * root; TOC order breaks ties.
 */
export function overviewPage(
  library: LibraryDescriptor,
  pages: readonly { url: string; title: string }[],
  toc: readonly TocEntry[],
): string | undefined {
  const names = new Set([library.name, library.id].map((n) => n.trim().toLowerCase()));
  const intro = /^(?:introduction|overview|getting started|get started|home|welcome|about)\b/i;
  const listed = toc.length > 0 ? toc.map((e) => ({ url: e.url, title: e.title })) : pages;
  const known = new Set(pages.map((p) => p.url.split('#')[0]));
  const depth = (url: string) => (URL.canParse(url) ? new URL(url).pathname : url).split('/').filter(Boolean).length;
  const ranked = listed
    .filter((p) => known.has(p.url.split('#')[0]))
    .map((p, order) => ({
      url: p.url,
      named: names.has(p.title.trim().toLowerCase()) || intro.test(p.title.trim()) ? 0 : 1,
      depth: depth(p.url),
      order,
    }))
    .sort((a, b) => a.named - b.named || a.depth - b.depth || a.order - b.order);
  return ranked[0]?.url ?? pages[0]?.url;
}
