import type { DocsResult, FetchContext, Freshness, LibraryDescriptor, PageResult, TocResult } from './library.js';
import { createToken } from './token.js';

/**
 * A source of documentation (llms.txt, GitHub, a local folder, an internal site).
 *
 * The engine asks adapters in `priority` order (lowest first) and uses the first that `canHandle` the
 * library and succeeds; failures fall through to the next adapter, then to the stale cache.
 * Adapters throw {@link ProContextError}s from the catalog: `SOURCE_UNAVAILABLE` when the origin cannot
 * be reached, `INVALID_CONTENT` when what it serves is not documentation, `PAGE_NOT_FOUND` for a 404.
 * Every network request goes through the kernel's `HttpClient`.
 */
export interface SourceAdapter {
  /** Stable id, equal to the plugin id (`'llms-txt'`, `'github'`). Shown to agents in `sources`. */
  readonly id: string;
  /** Lower runs first. llms-txt is 10, github 20, custom and local sources 30. */
  readonly priority: number;
  /** Whether this adapter can serve this library at all (cheap; no I/O). */
  canHandle(library: LibraryDescriptor): boolean;
  /** The library's table of contents at this version. */
  fetchToc(library: LibraryDescriptor, version: string, context?: FetchContext): Promise<TocResult>;
  /** The library's documentation at this version, as markdown pages, for chunking and indexing. */
  fetchDocs(library: LibraryDescriptor, version: string, context?: FetchContext): Promise<DocsResult>;
  /** Whether `read-page` should ask this adapter for this URL rather than fetch it generically. */
  ownsUrl?(url: URL): boolean;
  /** Fetch one page for `read-page`. Only called when {@link SourceAdapter.ownsUrl} said yes. */
  fetchPage?(url: URL, context?: FetchContext): Promise<PageResult>;
  /**
   * Whether cached content is still current: `'fresh'` (unchanged), `'changed'`, or `'unknown'` (the origin
   * cannot tell cheaply; the cache TTL decides).
   */
  checkFreshness(
    library: LibraryDescriptor,
    version: string,
    cached: Freshness,
    context?: FetchContext,
  ): Promise<'fresh' | 'changed' | 'unknown'>;
}

/** Plural contract: every installed source adapter. */
export const sourceAdapterToken = createToken<SourceAdapter>('kernel.sourceAdapter', { multiple: true });
