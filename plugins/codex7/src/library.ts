import type { DocsEngine } from '@pro-context/engine/api';
import type { TocEntry } from '@pro-context/kernel';

/** A document of a local library, as `resolve-library-id` lists it and `get-library-docs` `path` takes it. */
export interface LocalDocument {
  path: string;
  title: string;
}

/** Category name of TOC entries without a section. */
export const GENERAL_TOPIC = 'general';

/** The engine's id of a Codex7 library ID (`/pydantic` and `pydantic` name the same local library). */
export function localIdOf(libraryId: string): string {
  return libraryId.trim().replace(/^\/+/, '');
}

/** Whether the docs engine serves `libraryId` (it is configured, curated or was discovered). */
export function isLocalLibrary(engine: DocsEngine, libraryId: string): boolean {
  const id = localIdOf(libraryId).toLowerCase();
  return engine.libraries().some((library) => library.id.toLowerCase() === id);
}

/** The topic hierarchy of a TOC: its sections, each with the titles of its pages (seed 002, "Local Library"). */
export function topicsOf(toc: readonly TocEntry[]): Record<string, string[]> {
  const topics: Record<string, string[]> = {};
  for (const entry of toc) {
    const section = entry.section?.trim() || GENERAL_TOPIC;
    const titles = topics[section] ?? [];
    titles.push(entry.title);
    topics[section] = titles;
  }
  return topics;
}

/**
 * The URL without its fragment: what `url.replace(/#.*$/, '')` gave (from the first `#` after the last line break to
 * the end), as a linear scan — the regex retried `.*$` from every `#`, quadratic on a long run of them (issue #25).
 */
export function pageOf(url: string): string {
  const lastBreak = Math.max(
    url.lastIndexOf('\n'),
    url.lastIndexOf('\r'),
    url.lastIndexOf('\u2028'),
    url.lastIndexOf('\u2029'),
  );
  const hash = url.indexOf('#', lastBreak + 1);
  return hash < 0 ? url : url.slice(0, hash);
}

/** The directory every TOC page lives under (their longest common URL prefix ending in `/`). */
function baseOf(urls: readonly string[]): string {
  if (urls.length === 0) return '';
  let base = (urls[0] as string).slice(0, (urls[0] as string).lastIndexOf('/') + 1);
  for (const url of urls) {
    while (base && !url.startsWith(base)) base = base.slice(0, base.slice(0, -1).lastIndexOf('/') + 1);
  }
  return /^[a-z]+:\/\/[^/]+\/$|^[a-z]+:\/\/[^/]+\/.+/i.test(base) ? base : '';
}

/** The documents of a TOC: each page's path relative to the docs root (the part every page URL shares). */
export function documentsOf(toc: readonly TocEntry[]): (LocalDocument & { url: string })[] {
  const seen = new Set<string>();
  const pages = toc.filter((e) => {
    const page = pageOf(e.url);
    if (seen.has(page)) return false;
    seen.add(page);
    return true;
  });
  const base = baseOf(pages.map((e) => pageOf(e.url)));
  return pages.map((e) => {
    const page = pageOf(e.url);
    const path = (base && page.startsWith(base) ? page.slice(base.length) : page) || page;
    return { path, title: e.title, url: e.url };
  });
}
