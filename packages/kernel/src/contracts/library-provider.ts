import type { FetchContext, LibraryDescriptor } from './library.js';
import { createToken } from './token.js';

/**
 * A way libraries become known to the engine: the config file (the engine binds that one, priority 0), and
 * later the curated registry, package-registry discovery, project detection and local docs.
 *
 * Merging: providers are read in `priority` order, lowest first, and the lowest-priority number wins. When
 * two providers describe the same library id, the winner's defined fields override the other's field by
 * field (a field it leaves `undefined` keeps the other's value); `sources` bags merge one level deeper (per
 * adapter key, field by field). So config (0) overriding the curated registry (100) changes only the keys
 * it writes. {@link LibraryProvider.overrides} patches then apply to the merged list, highest priority number
 * first, so config's `project.libraryOverrides` wins over everything.
 */
export interface LibraryProvider {
  /** Stable id, equal to the plugin id (`'config'` for the engine's own, `'known-libraries'`, `'pypi'`). */
  readonly id: string;
  /** Lower wins a field-by-field merge. Config is 0; the curated registry 100; discovery and detection 200+. */
  readonly priority: number;
  /** The libraries this provider knows up front (cheap: no network). Read once, when the engine starts. */
  libraries(): readonly LibraryDescriptor[];
  /**
   * Partial settings for libraries other providers describe, keyed by id, name, alias or package name
   * (config's `project.libraryOverrides`). A key no library matches becomes a library of its own when the
   * patch says where its documentation lives.
   */
  overrides?(): Readonly<Record<string, Partial<LibraryDescriptor>>>;
  /**
   * Finds a library no provider listed (a PyPI or npm package name, a folder): asked, in priority order,
   * before the engine answers `LIBRARY_NOT_FOUND`. Returns `null` when this provider does not know the name.
   * A provider that fails (an unreachable registry) is logged and skipped: the next provider is asked, and
   * with none finding the name the answer stays `LIBRARY_NOT_FOUND`. `hints` says what the caller knows
   * besides the name (resolve-library's `language` filter), so a name several registries know is looked up
   * where the caller wants it.
   */
  lookup?(name: string, context?: FetchContext, hints?: LibraryLookupHints): Promise<LibraryDescriptor | null>;
  /**
   * For a provider whose libraries arrive after start (project detection scans in the background, so
   * readiness never waits on it): the engine calls `watch` once, and each time `onChange` is called it reads
   * {@link libraries} again and adds what is new. A library delivered this way that another provider already
   * describes (same id, name, alias, or package name in the same ecosystem) keeps every field it has: only the
   * fields it leaves `undefined` are filled in (`installedVersion`, `detectedFrom`). Returns an unsubscribe.
   */
  watch?(onChange: () => void): () => void;
  /**
   * For a provider whose libraries arrive late ({@link watch}): resolves when the work under way has ended and
   * its libraries were announced (never rejects). A one-shot command (the CLI) waits for it, bounded, so that it
   * answers with the project's libraries as a long-running server would.
   */
  settled?(): Promise<void>;
}

/** What a caller of {@link LibraryProvider.lookup} knows besides the name. */
export interface LibraryLookupHints {
  /** The language the library must be in (`'python'`, `'javascript'`), as resolve-library's filter gives it. */
  language?: string;
}

/** Plural contract: every installed library provider. */
export const libraryProviderToken = createToken<LibraryProvider>('kernel.libraryProvider', { multiple: true });
