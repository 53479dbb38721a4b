import type { AnswerRevisions, FetchContext, LibraryDescriptor, UrlAllowlist } from '@pro-context/kernel';
import { ChunkingPool, sharedPageConverter } from '@pro-context/markdown';
import { settingsDeclarations } from '@pro-context/plugin-kit';
import type { DocsEngineDeps, EngineParts } from './engine-parts.js';
import type { DocsAnswer, DocsRequest, DocsResult } from './get-docs/answer.js';
import { answerDocs } from './get-docs/get-docs.js';
import { DocStore, type IndexingNow, type LoadResult } from './indexing/doc-store.js';
import { ProviderAdoption } from './libraries/adoption.js';
import { type CatalogMatch, LibraryCatalog } from './libraries/catalog.js';
import { Libraries } from './libraries/libraries.js';
import { type LibrarySummary, type ListFilters, listLibraries } from './libraries/list-libraries.js';
import { PageReader, type PageSlice } from './read-page/pages.js';
import { readPage, tocTitleOf } from './read-page/read-page.js';
import type { ResolveOptions } from './resolve-library/matches.js';
import { type ResolveResult, resolveLibrary } from './resolve-library/resolve.js';
import { libraryToc } from './resolve-library/toc.js';
import { type SearchAnswer, searchDocs } from './search-docs/search.js';
import { renderResolveNote } from './tools/render-notes.js';
import { renderTocMarkdown, tocEntryLine } from './tools/render-toc.js';
import { type ServedVersion, servedVersion } from './versions/served-version.js';
import { SourceChain } from './versions/sources.js';

export type { DocsEngineDeps } from './engine-parts.js';

/**
 * The docs engine: the five tools' behaviour, independent of MCP. A façade: each use case lives in a module of
 * its own (`libraries/`, `versions/`, `resolve-library/`, `get-docs/`, `search-docs/`, `read-page/`,
 * `indexing/`, `deadlines/`), over the parts built here.
 */
export class DocsEngine {
  /** The adapter chain; its `status` feeds `pro-context://health`. */
  readonly sources: SourceChain;
  readonly startedAt = Date.now();
  /** Bumped whenever what an answer may come from changes (see `DocsEngineDeps.revisions`). */
  readonly revisions: AnswerRevisions;
  private readonly parts: EngineParts;
  /** Worker threads that chunk fetched pages (started on first use). */
  private readonly chunking: ChunkingPool;
  private readonly adoption: ProviderAdoption;

  constructor(deps: DocsEngineDeps) {
    const { revisions } = deps;
    const changed = (reason: string) => revisions.bump(reason);
    // read on first use; then every library's docs hosts join the allowlist (`libraries` is set below by then)
    const catalog = new LibraryCatalog(
      deps.providers,
      settingsDeclarations(deps.adapters),
      deps.logger,
      changed,
      (all) => {
        for (const library of all) libraries.allowDocsDomains(library);
      },
    );
    const sources = new SourceChain(deps.adapters, deps.logger);
    this.chunking = new ChunkingPool(
      deps.options.chunkWorkers === undefined ? {} : { size: deps.options.chunkWorkers },
    );
    // every page the engine and the source plugins convert goes through the one page worker, within these limits
    if (deps.options.pages) sharedPageConverter().configure(deps.options.pages);
    const store = new DocStore(
      deps.cache,
      deps.search,
      sources,
      deps.logger,
      {
        maxChunkTokens: deps.options.maxChunkTokens,
        maxLoadedLibraries: deps.options.maxLoadedLibraries,
        maxLoadedMB: deps.options.maxLoadedMB,
        ...(deps.options.pages ? { pageLimits: deps.options.pages } : {}),
        onChange: changed,
        replicas: { leases: deps.leases, events: deps.replicaEvents },
      },
      this.chunking,
    );
    const pages = new PageReader(
      deps.http,
      deps.cache,
      allowlistAfter(catalog, deps.allowlist),
      sources,
      deps.logger,
      (url) => tocTitleOf(store, url),
    );
    const libraries = new Libraries(catalog, sources, deps.allowlist);
    this.sources = sources;
    this.revisions = revisions;
    this.parts = { deps, catalog, libraries, sources, store, pages, revisions, resolved: new Map() };
    // providers whose libraries arrive later (project detection): adopted, then resolved in the background
    this.adoption = new ProviderAdoption(deps.providers, {
      catalog,
      libraries,
      sources,
      logger: deps.logger,
      preResolve: deps.options.preResolveDetected !== false,
      resolve: (libraryId, context) => this.resolve(libraryId, { libraryId }, context),
    });
  }

  /**
   * Reads the library catalog now if nothing has yet (it is read on first use: start-up does not wait for it);
   * the engine plugin's background phase calls it once the first answers are out.
   */
  loadCatalog(): void {
    this.parts.catalog.load();
  }

  /** Every known library. */
  libraries(): LibraryDescriptor[] {
    return this.parts.catalog.all();
  }

  /** Known libraries ranked by how well they match a free-text query, best first (no provider lookup). */
  matchLibraries(query: string, language?: string): CatalogMatch[] {
    return this.parts.catalog.match(query, language);
  }

  /** The library a name means (id, name or alias, a close match, else a provider's lookup); `undefined` if none. */
  findLibrary(name: string, context?: FetchContext): Promise<LibraryDescriptor | undefined> {
    return this.parts.libraries.findLibrary(name, context);
  }

  /** Known libraries whose documentation is read from `url`'s host. */
  librariesAt(url: URL): LibraryDescriptor[] {
    return this.parts.libraries.librariesAt(url);
  }

  /**
   * Removes a library's cached documentation, every version (`DocStore.clear`): the next call fetches and
   * indexes it again. `name` is an id as cached, else what {@link findLibrary} makes of it. Returns the id and how
   * many cache entries went (0: nothing of it was cached).
   */
  async clearCache(name: string): Promise<{ libraryId: string; removed: number }> {
    const { store, resolved } = this.parts;
    const cached = new Set((await store.cachedVersions()).map((v) => v.libraryId));
    const libraryId = cached.has(name) ? name : ((await this.findLibrary(name))?.id ?? name);
    const removed = await store.clear(libraryId);
    resolved.delete(libraryId);
    this.revisions.bump(`docs of ${libraryId} cleared`);
    return { libraryId, removed };
  }

  /**
   * Removes everything cached (`DocStore.clearAll`); refused with `INDEXING_IN_PROGRESS` while any library is
   * being indexed, by this process or another sharing the cache. Returns how many cache entries went.
   */
  async clearAllCaches(): Promise<number> {
    const removed = await this.parts.store.clearAll();
    this.parts.resolved.clear();
    this.revisions.bump('every cached docs cleared');
    return removed;
  }

  /**
   * Library versions being indexed right now (`libraryId@version`), by this process or another sharing the
   * cache, and the id of the process indexing each: clearing them would undo a build under way.
   */
  indexingNow(): Promise<IndexingNow[]> {
    return this.parts.store.indexingNow();
  }

  /** The library versions the cache holds documentation of (a TOC or indexed docs). */
  cachedLibraryVersions(): Promise<{ libraryId: string; version: string }[]> {
    return this.parts.store.cachedVersions();
  }

  /** Libraries resolved in this process (their TOCs are listed as resources): id → version. */
  resolvedLibraries(): ReadonlyMap<string, string> {
    return new Map([...this.parts.resolved].map(([id, served]) => [id, served.version]));
  }

  /** Fetches and indexes a library version now, waiting for it (the CLI, benchmarks); the version as `version()` picks it. */
  async loadDocs(libraryId: string, version?: string, context: FetchContext = {}): Promise<LoadResult> {
    const library = await this.parts.libraries.library(libraryId, context);
    const served = await this.version(library, version, context);
    return this.parts.store.load(library, served.version, context, served.documenting);
  }

  /**
   * The version to serve (`VERSION_NOT_FOUND` lists what exists) and the adapters that document it (`documenting`,
   * when only some do). Without side effects.
   */
  version(library: LibraryDescriptor, spec?: string, context?: FetchContext): Promise<ServedVersion> {
    return servedVersion(this.parts, library, spec, context);
  }

  /** resolve-library: fuzzy match, versions, sources and the TOC. */
  async resolve(query: string, options: ResolveOptions = {}, context: FetchContext = {}): Promise<ResolveResult> {
    // the TOC is cut to its budget as the renderer prints it
    const answer = await resolveLibrary(this.parts, query, tocEntryLine, options, context);
    // the notes are data in the use case; their sentences are the renderer's
    return { ...answer, notes: answer.notes.map(renderResolveNote) };
  }

  /**
   * get-docs, as a tool asks it: the answer filled once within `maxTokens` with room for what the caller prints
   * beside it (`request.overhead`), and `reuse` when a host may serve it again.
   */
  answerDocs(request: DocsRequest, context: FetchContext = {}): Promise<DocsResult> {
    return answerDocs(this.parts, request, context);
  }

  /** get-docs' answer alone, its content within `maxTokens` (see {@link answerDocs}). */
  async getDocs(
    libraryId: string,
    topic: string,
    version: string | undefined,
    maxTokens: number,
    context: FetchContext = {},
  ): Promise<DocsAnswer> {
    return (await answerDocs(this.parts, { libraryId, topic, version, maxTokens }, context)).answer;
  }

  /**
   * search-docs: ranked snippets. A library not indexed yet starts indexing; if that takes longer than
   * `searchWaitMs`, the answer is `INDEXING_IN_PROGRESS` with a `retryAfter`.
   */
  search(libraryId: string, query: string, version: string | undefined, maxResults: number): Promise<SearchAnswer> {
    return searchDocs(this.parts, libraryId, query, version, maxResults);
  }

  /** read-page. */
  readPage(url: string, maxTokens: number, offset: number, signal?: AbortSignal): Promise<PageSlice> {
    return readPage(this.parts, url, maxTokens, offset, signal);
  }

  /** list-libraries: known, cached and resolved libraries, filtered; the project's first, then cached ones. */
  listLibraries(filters: ListFilters = {}): Promise<LibrarySummary[]> {
    return listLibraries(this.parts, filters);
  }

  /** The TOC of a resolved (or resolvable) library as markdown, for `library://{libraryId}/toc`. */
  async tocMarkdown(libraryId: string): Promise<string> {
    return renderTocMarkdown(await libraryToc(this.parts, libraryId));
  }

  /** Waits for background work: resolution of libraries delivered after start, persistence of indexes, refreshes. */
  async idle(): Promise<void> {
    await this.adoption.idle();
    return this.parts.store.idle();
  }

  /** Stops watching providers and cancels background resolution (the engine plugin's `stop`). */
  close(): void {
    this.adoption.close();
    this.parts.store.close();
  }

  /** Stops the chunking workers (after {@link idle}: a refresh under way may still chunk). */
  async stopWorkers(): Promise<void> {
    // (the page worker too: a page being converted would otherwise hold the process up to its time budget)
    await Promise.all([this.chunking.close(), sharedPageConverter().close()]);
  }

  /** Status for health. */
  loadedVersions(): string[] {
    return this.parts.store.loadedKeys();
  }
}

export type { DocsAnswer, DocsRequest, DocsResult } from './get-docs/answer.js';
export type { LibrarySummary } from './libraries/list-libraries.js';
export type { PageSlice } from './read-page/pages.js';
export type { ResolveResult } from './resolve-library/resolve.js';
export type { SearchAnswer } from './search-docs/search.js';

/**
 * The allowlist read-page checks, read after the catalog: the catalog puts its libraries' documentation hosts
 * on it when it is first read, which a read-page call may come before.
 */
function allowlistAfter(catalog: LibraryCatalog, allowlist: UrlAllowlist): UrlAllowlist {
  return {
    allow: (entry, reason) => allowlist.allow(entry, reason),
    allowHostsOf: (urls, reason) => allowlist.allowHostsOf(urls, reason),
    isAllowed: (url) => {
      catalog.load();
      return allowlist.isAllowed(url);
    },
    entries: () => {
      catalog.load();
      return allowlist.entries();
    },
  };
}
