// The types read-page's modules share: pages.ts reads and caches pages, slice.ts cuts them.

/** A page as cached in namespace `pages`. */
export interface PageRecord {
  url: string;
  finalUrl: string;
  title: string;
  /** The page as read-page shows it: normalized (see `readableMarkdown` of @pro-context/markdown). */
  markdown: string;
  fetchedAt: string;
  /** `PAGE_FORMAT` (pages.ts) of the record; records of another format are fetched again. */
  format?: number;
  /**
   * The page's verdict when it was refused over a per-page limit (`PAGE_TOO_LARGE`, `PAGE_TOO_COMPLEX`): asking
   * again answers the same error from the cache at once, without fetching or converting the page again.
   */
  refused?: { code: 'PAGE_TOO_LARGE' | 'PAGE_TOO_COMPLEX'; message: string; details?: Record<string, unknown> };
}

/** Looks up a page's title in a resolved library's TOC, when the page is listed there. */
export type TocTitleLookup = (url: URL) => string | undefined | Promise<string | undefined>;

/** What read-page returns. */
export interface PageSlice {
  content: string;
  title: string;
  url: string;
  /** Estimated tokens of the whole page. */
  contentLength: number;
  truncated: boolean;
  cached: boolean;
  /** Character offset this slice starts at. */
  offset: number;
  /** Offset to pass to read the rest, when truncated. */
  nextOffset?: number;
}
