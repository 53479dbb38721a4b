import { isProContextError, type TocEntry, type TocResult } from '@pro-context/kernel';
import { withDeadline } from '../deadlines/with-deadline.js';
import type { EngineParts } from '../engine-parts.js';
import type { DocStore } from '../indexing/doc-store.js';
import type { PageSlice } from './pages.js';

/** read-page: a page within `maxTokens` from `offset`, within the tool deadline. */
export async function readPage(
  parts: EngineParts,
  url: string,
  maxTokens: number,
  offset: number,
  signal?: AbortSignal,
): Promise<PageSlice> {
  try {
    return await withDeadline(
      parts.deps.options.interactiveTimeoutMs,
      () => parts.pages.read(url, maxTokens, offset, signal),
      `${url} could not be read`,
    );
  } catch (error) {
    // A page listed in a TOC fetched before a restart is still allowed: the allowlist lives in memory,
    // the TOCs in the cache.
    if (!(isProContextError(error) && error.code === 'URL_NOT_ALLOWED') || !(await listedInCachedToc(parts, url))) {
      throw error;
    }
    return parts.pages.read(url, maxTokens, offset, signal);
  }
}

/** The title a cached TOC gives the page at `url` (for read-page, when the page itself names none). */
export async function tocTitleOf(store: DocStore, url: URL): Promise<string | undefined> {
  return (await cachedTocListing(store, url, (entry) => Boolean(entry.title)))?.entry.title;
}

/** Whether `url` is a page of a cached TOC; if so its TOC's hosts join the allowlist again. */
async function listedInCachedToc(parts: EngineParts, raw: string): Promise<boolean> {
  if (!URL.canParse(raw)) return false;
  const listing = await cachedTocListing(parts.store, new URL(raw));
  if (!listing) return false;
  parts.deps.allowlist.allowHostsOf(
    listing.toc.entries.map((e) => e.url),
    `cached toc ${listing.libraryId}`,
  );
  return true;
}

/** The first cached TOC listing the page at `url` (fragments aside) in an entry `accept`s, with that entry. */
async function cachedTocListing(
  store: DocStore,
  url: URL,
  accept: (entry: TocEntry) => boolean = () => true,
): Promise<{ libraryId: string; toc: TocResult; entry: TocEntry } | undefined> {
  const wanted = new URL(url.href);
  wanted.hash = '';
  for (const { libraryId, version } of await store.cachedVersions()) {
    const toc = (await store.cachedToc(libraryId, version))?.toc;
    const entry = toc?.entries.find((e) => e.url.split('#')[0] === wanted.href && accept(e));
    if (toc && entry) return { libraryId, toc, entry };
  }
  return undefined;
}
