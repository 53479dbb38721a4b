import type * as z from 'zod';
import type { DocsResult, FetchContext, Freshness, LibraryDescriptor, PageResult, TocResult } from './library.js';
import { createToken } from './token.js';

/**
 * Which versions of a library an adapter has documentation for:
 * - `latest`: only the latest stable release (a site whose URLs name no version); the default;
 * - `any`: any released version (a URL with a `{version}` placeholder);
 * - `list`: exactly these versions (git tags, installed versions, a versioned docs site's switcher).
 */
export type DocVersions = { kind: 'latest' } | { kind: 'any' } | { kind: 'list'; versions: readonly string[] };

/**
 * The per-library settings an adapter reads, kept in the library's `sources` bag under `key`
 * (`libraries[].sources.llmsTxt`), validated by `schema` when the configuration is read.
 */
export interface LibrarySettingsDeclaration {
  /** Key of the bag in `LibraryDescriptor.sources`, the camelCase of the config section (`'llmsTxt'`, `'github'`). */
  readonly key: string;
  /** zod schema of the bag (a strict object, so a misspelt key is reported with its path). */
  readonly schema: z.ZodType;
  /**
   * Top-level `LibraryDescriptor` keys this adapter used to read before the bag existed. The engine still reads
   * them, moving each into the bag with a deprecation warning naming the new key.
   */
  readonly legacyKeys?: readonly string[];
}

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
  /**
   * The adapter reads the local disk only (no network): its {@link SourceAdapter.checkFreshness} is cheap, so the
   * engine asks it on every load of cached docs, TOC or page and re-reads what changed at once, rather than when
   * the cache TTL expires; and a library only such adapters can serve is still offered to the library providers'
   * lookups (docs discovery), whose remote sources come first in the chain.
   */
  readonly local?: boolean;
  /** The per-library settings this adapter reads from `library.sources[key]`, if any. */
  readonly librarySettings?: LibrarySettingsDeclaration;
  /** Whether this adapter can serve this library at all (cheap; no I/O). */
  canHandle(library: LibraryDescriptor): boolean;
  /**
   * Which versions of the library this adapter has documentation for. Absent: only the latest stable
   * release (`{ kind: 'latest' }`). The engine refuses another version with `VERSION_NOT_FOUND` rather than
   * label the latest documentation with it.
   */
  docVersions?(library: LibraryDescriptor, context?: FetchContext): Promise<DocVersions>;
  /**
   * URLs this adapter reads the library's documentation from, known without I/O (its llms.txt, its site):
   * their hosts are allowed for `read-page` from start-up.
   */
  docsUrls?(library: LibraryDescriptor): string[];
  /** The library's table of contents at this version. */
  fetchToc(library: LibraryDescriptor, version: string, context?: FetchContext): Promise<TocResult>;
  /** The library's documentation at this version, as markdown pages, for chunking and indexing. */
  fetchDocs(library: LibraryDescriptor, version: string, context?: FetchContext): Promise<DocsResult>;
  /** Whether `read-page` should ask this adapter for this URL rather than fetch it generically. */
  ownsUrl?(url: URL): boolean;
  /** Fetch one page for `read-page`. Only called when {@link SourceAdapter.ownsUrl} said yes. */
  fetchPage?(url: URL, context?: FetchContext): Promise<PageResult>;
  /**
   * What this adapter wants shown in `pro-context://health` under its id (a rate limit's remaining budget, the
   * origin it reads): plain JSON, never a secret. Cheap; no I/O.
   */
  health?(): Record<string, unknown>;
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
