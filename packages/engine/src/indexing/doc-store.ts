import type { CacheStore, FetchContext, LibraryDescriptor, Logger, SearchBackend } from '@pro-context/kernel';
import { ChunkingPool, type PageLimits, type TermIndex } from '@pro-context/markdown';
import type { SourceChain } from '../versions/sources.js';
import { ChunkBlocks } from './blocks.js';
import { type ClearDeps, clearEverything, clearLibrary } from './clearing.js';
import { fetchAndIndex, type IndexingDeps } from './fetch-and-index.js';
import type { BuildTarget } from './indexing-build.js';
import { ns, versionKey } from './keys.js';
import { LoadedDocsSet } from './loaded-docs.js';
import { LocalFreshness } from './local-freshness.js';
import { DocsPersistence } from './persistence.js';
import { StaleRefresh } from './refresh.js';
import { type Lease, type ReplicaContracts, ReplicaCoordination } from './replicas.js';
import { ensureIndexed, type RestoreDeps, restoreDocs } from './restore.js';
import { type IndexingNow, SharedBuilds } from './shared-builds.js';
import {
  type BlockSource,
  type DocsManifest,
  type LoadedDocs,
  type SkippedPages,
  type StoredChunk,
  StoredDocsTable,
} from './stored-docs.js';
import { type TocRecord, TocStore } from './toc-store.js';

export type { IndexingNow } from './shared-builds.js';
export type {
  DocsManifest,
  DocsMeta,
  DocsRecord,
  LoadedDocs,
  SkippedPages,
  StoredChunk,
  StoredPage,
} from './stored-docs.js';
export type { TocRecord } from './toc-store.js';

/** The outcome of {@link DocStore.load}. */
export interface LoadResult {
  docs: LoadedDocs;
  /** Served from what was already indexed or cached (no fetch in this call). */
  cached: boolean;
  /** The docs are past their TTL (a refresh runs in the background). */
  stale: boolean;
}

/** The doc store's settings. */
export interface DocStoreOptions {
  maxChunkTokens: number;
  maxLoadedLibraries: number;
  maxLoadedMB?: number;
  pageLimits?: Partial<PageLimits>;
  /**
   * Called whenever the docs an answer may come from change: a revision loaded (restored, built, refreshed,
   * replaced), a library version let go or cleared (the engine bumps the kernel's `AnswerRevisions`).
   */
  onChange?: (reason: string) => void;
  /** Replicas sharing the store (`indexLeaseToken`, `replicaEventsToken`): none, one process. */
  replicas?: ReplicaContracts;
}

/**
 * Fetches, chunks, indexes and persists library documentation, one library version at a time, and
 * restores it after a restart from the cache (chunks + index snapshot) without fetching or chunking
 * again. Concurrent requests for the same library share one build. The library versions loaded are held in
 * memory up to `maxLoadedLibraries` / `maxLoadedMB`, least recently used first out.
 */
export class DocStore implements BuildTarget {
  private readonly loaded: LoadedDocsSet;
  private readonly blocks: ChunkBlocks;
  private readonly blockSource: BlockSource;
  private readonly builds: SharedBuilds<LoadResult>;
  private readonly local: LocalFreshness;
  private readonly tocs: TocStore;
  private readonly persistence: DocsPersistence;
  private readonly indexing: IndexingDeps;
  private readonly refresh: StaleRefresh;
  private readonly restoring: RestoreDeps;
  private readonly replicas: ReplicaCoordination;
  private readonly unfollow: () => void;
  private readonly background = new Set<Promise<unknown>>();
  /** Block prefixes of builds under way or not yet persisted: an older build's clean-up leaves them be. */
  readonly building = new Set<string>();

  constructor(
    private readonly cache: CacheStore,
    private readonly backend: SearchBackend,
    sources: SourceChain,
    private readonly logger: Logger,
    private readonly options: DocStoreOptions,
    /** Where pages are converted and chunked: worker threads, so that answers never wait behind it. */
    private readonly pool: ChunkingPool = new ChunkingPool({ size: 0 }),
  ) {
    const track = (work: Promise<unknown>) => void this.track(work);
    this.loaded = new LoadedDocsSet(options, backend, options.onChange);
    this.blocks = new ChunkBlocks(cache);
    this.blockSource = {
      block: (key) => this.blocks.block(key),
      terms: (key) => this.blocks.terms(key),
      missing: (docs) => this.incomplete(docs),
      resized: (docs) => this.loaded.account(versionKey(docs.key.libraryId, docs.key.version), docs),
    };
    this.builds = new SharedBuilds(cache, logger, track);
    this.local = new LocalFreshness(sources, logger);
    this.tocs = new TocStore(cache, sources, logger, this.local, track);
    this.persistence = new DocsPersistence({
      cache,
      backend,
      logger,
      track,
      building: this.building,
      replaceLoaded: (docs, manifest) => {
        const key = versionKey(manifest.libraryId, manifest.version);
        if (this.loaded.get(key) === docs) this.remember(manifest, docs.expiresAt);
      },
    });
    this.indexing = {
      cache,
      sources,
      logger,
      maxChunkTokens: options.maxChunkTokens,
      target: this,
      persistence: this.persistence,
      remember: (manifest, expiresAt, pending, terms) => this.remember(manifest, expiresAt, pending, terms),
    };
    this.restoring = {
      cache,
      backend,
      logger,
      local: this.local,
      persistence: this.persistence,
      track,
      remember: (manifest, expiresAt, pending) => this.remember(manifest, expiresAt, pending),
    };
    this.replicas = new ReplicaCoordination(options.replicas ?? {}, logger);
    this.refresh = new StaleRefresh(this.indexing, this.replicas, track);
    this.unfollow = this.replicas.follow((libraryId, reason) => void this.track(this.drop(libraryId, reason)));
  }

  /**
   * Lets go the library's docs held in memory (every version whose stored revision is another or gone) and their
   * search indexes, because another replica changed them (`reason`): the next call loads them from the store again.
   */
  private async drop(libraryId: string, reason: string): Promise<void> {
    // (docs this replica loaded from the store after the change are the ones stored: they stay)
    const stored = (key: string) =>
      this.cache.get<{ revision?: unknown }>(ns.docs, key, { allowStale: true, memory: false });
    const unchanged = async (key: string, docs: LoadedDocs) =>
      (await stored(key))?.value.revision === docs.record.revision;
    if ((await this.loaded.forgetLibrary(libraryId, unchanged)) > 0) this.blocks.forget(`${libraryId}@`);
    this.options.onChange?.(`docs of ${libraryId} ${reason} by another replica`);
  }

  /** Stops following the other replicas' changes (the engine's `close`). */
  close(): void {
    this.unfollow();
  }

  /** Loaded docs whose blocks the cache no longer holds: let go, indexed again on the next call. */
  private incomplete(docs: StoredDocsTable): void {
    const key = versionKey(docs.key.libraryId, docs.key.version);
    if (this.loaded.get(key) !== docs) return;
    this.logger.warn('cached docs are incomplete (blocks evicted); they are indexed again on the next call', {
      libraryId: docs.key.libraryId,
      version: docs.key.version,
    });
    this.loaded.forget(key);
    this.track(this.cache.delete(ns.docs, key));
  }

  /** Whether this library version can be searched right now (loaded or restorable without fetching). */
  state(libraryId: string, version: string): 'ready' | 'building' | 'absent' {
    const key = versionKey(libraryId, version);
    if (this.loaded.has(key)) return 'ready';
    if (this.builds.has(key)) return 'building';
    return 'absent';
  }

  /** Library versions loaded in memory. */
  loadedKeys(): string[] {
    return this.loaded.keys();
  }

  /** Per-page limits of the builds (the engine's `engine.pages`). */
  get pageLimits(): Partial<PageLimits> | undefined {
    return this.options.pageLimits;
  }

  /** The pages a loaded library version left out of its index (see `SkippedPages`); none when it is not loaded. */
  loadedSkipped(libraryId: string, version: string): SkippedPages | undefined {
    const skipped = this.loaded.get(versionKey(libraryId, version))?.record.skipped;
    return skipped && skipped.count > 0 ? skipped : undefined;
  }

  /** When the docs of a library version held in memory expire (`null`: never), `undefined` when none are held. */
  loadedExpiresAt(libraryId: string, version: string): number | null | undefined {
    return this.loaded.get(versionKey(libraryId, version))?.expiresAt;
  }

  /** The revision of the library version's docs held in memory, if they are (and not past their TTL). */
  loadedRevision(libraryId: string, version: string): string | undefined {
    const docs = this.loaded.get(versionKey(libraryId, version));
    if (!docs || (docs.expiresAt !== null && docs.expiresAt <= Date.now())) return undefined;
    return docs.record.revision;
  }

  /** Waits for background work (snapshots, refreshes) to finish: for shutdown and tests. */
  async idle(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.background.add(promise);
    void promise.finally(() => this.background.delete(promise)).catch(() => undefined);
    return promise;
  }

  /**
   * The library version's docs, ready to search: from memory, else restored from the cache, else
   * fetched through the adapter chain (the adapters `documenting` the version, when given), chunked and
   * indexed. Stale docs are served and refreshed behind. Concurrent callers share one build.
   */
  async load(
    library: LibraryDescriptor,
    version: string,
    context: FetchContext = {},
    documenting?: readonly string[],
  ): Promise<LoadResult> {
    const key = versionKey(library.id, version);
    const loaded = this.loaded.get(key);
    // docs from a local adapter whose files changed since they were indexed are built again now
    const inMemory = loaded && !(await this.local.changed(library, version, loaded.record)) ? loaded : undefined;
    if (inMemory) {
      this.loaded.touch(key, inMemory);
      await ensureIndexed(this.restoring, inMemory);
      const stale = inMemory.expiresAt !== null && inMemory.expiresAt <= Date.now();
      if (stale) this.refresh.start(library, version, inMemory, documenting);
      return { docs: inMemory, cached: true, stale };
    }
    // the build is the callers', not the first one's: it goes on while one of them still waits for it, every
    // one of them hears its progress, and it stops when the last one cancels
    return this.builds.join(key, context, (ctx) =>
      this.loadOrBuild(library, version, ctx, loaded !== undefined, documenting),
    );
  }

  /** Library versions (`libraryId@version`) being indexed right now, here or by another process sharing the cache. */
  indexingNow(): Promise<IndexingNow[]> {
    return this.builds.indexingNow();
  }

  /** Starts loading in the background (search-docs answers INDEXING_IN_PROGRESS meanwhile). */
  loadInBackground(library: LibraryDescriptor, version: string, documenting?: readonly string[]): Promise<LoadResult> {
    const promise = this.load(library, version, {}, documenting);
    this.track(promise).catch((error: unknown) =>
      this.logger.warn('background indexing failed', { libraryId: library.id, version, error }),
    );
    return promise;
  }

  private async loadOrBuild(
    library: LibraryDescriptor,
    version: string,
    context: FetchContext,
    changed = false,
    documenting?: readonly string[],
  ): Promise<LoadResult> {
    const stored = () => this.fromStore(library, version, documenting);
    const found = changed ? undefined : await stored();
    if (found) return found;
    // fetched and indexed once across replicas sharing the store (the others wait, then load what it stored)
    return this.replicas.once(versionKey(library.id, version), context.signal, stored, async (lease) => {
      try {
        const docs = await fetchAndIndex(this.indexing, library, version, context, documenting);
        this.persisted(library.id, 'indexed', lease);
        return { docs, cached: false, stale: false };
      } catch (error) {
        await this.replicas.release(lease);
        throw error;
      }
    });
  }

  /** Once the docs built here are stored: the other replicas hear of it, then the lease goes. */
  private persisted(libraryId: string, reason: string, lease: Lease): void {
    this.persistence.inOrder(libraryId, async () => {
      this.replicas.changed(libraryId, reason);
      await this.replicas.release(lease);
    });
  }

  /** The docs as stored (see `restore`), indexed; `undefined` when the store has none that serve. */
  private async fromStore(
    library: LibraryDescriptor,
    version: string,
    documenting?: readonly string[],
  ): Promise<LoadResult | undefined> {
    const key = versionKey(library.id, version);
    // (a manifest is held parsed while its docs are loaded: the cache's memory tier would keep a second copy, as text)
    const cached = await this.cache.get<unknown>(ns.docs, key, { allowStale: true, memory: false });
    const restored = cached && (await restoreDocs(this.restoring, library, version, cached.value, cached.expiresAt));
    if (!cached || !restored) return undefined;
    await ensureIndexed(this.restoring, restored);
    if (cached.stale) this.refresh.start(library, version, restored, documenting);
    return { docs: restored, cached: true, stale: cached.stale };
  }

  /** Approximate MB the loaded library versions hold in memory (for health and tests). */
  loadedMegabytes(): number {
    return this.loaded.megabytes();
  }

  /**
   * Makes `manifest`'s docs the loaded ones (with their chunks in memory until written, when `pending`), then lets
   * the least recently used library versions go (see `LoadedDocsSet`).
   */
  private remember(
    manifest: DocsManifest,
    expiresAt: number | null,
    pending?: readonly StoredChunk[],
    terms?: TermIndex,
  ): StoredDocsTable {
    const docs = new StoredDocsTable(manifest, expiresAt, this.blockSource, pending, terms);
    this.loaded.add(docs);
    return docs;
  }

  /** Writes a chunk block (a build's). */
  writeBlock(key: string, block: readonly StoredChunk[] | Uint8Array): Promise<void> {
    return this.blocks.write(key, block);
  }

  /** Deletes chunk blocks (an abandoned build's). */
  deleteBlocks(keys: readonly string[]): Promise<void> {
    return this.blocks.delete(keys);
  }

  /** Where a build chunks its pages. */
  get chunking(): ChunkingPool {
    return this.pool;
  }

  /** Where a build indexes its chunks. */
  get search(): SearchBackend {
    return this.backend;
  }

  /** The library's TOC (see `TocStore.toc`). */
  toc(
    library: LibraryDescriptor,
    version: string,
    context: FetchContext = {},
    documenting?: readonly string[],
  ): Promise<TocRecord & { cached: boolean; stale: boolean }> {
    return this.tocs.toc(library, version, context, documenting);
  }

  /** A TOC already known (cached or loaded), without any fetch. */
  cachedToc(libraryId: string, version: string): Promise<TocRecord | undefined> {
    return this.tocs.cached(libraryId, version);
  }

  /** Library versions with a cached TOC or docs (for list-libraries). */
  async cachedVersions(): Promise<{ libraryId: string; version: string }[]> {
    const keys = new Set([...(await this.cache.keys(ns.toc)), ...(await this.cache.keys(ns.docs))]);
    return [...keys].map((k) => {
      const at = k.lastIndexOf('@');
      return { libraryId: k.slice(0, at), version: k.slice(at + 1) };
    });
  }

  /** What clearing works with. */
  private clearing(): ClearDeps {
    return {
      cache: this.cache,
      backend: this.backend,
      indexingNow: () => this.indexingNow(),
      cachedVersions: () => this.cachedVersions(),
      cachedToc: (libraryId, version) => this.cachedToc(libraryId, version),
      forget: async (key) => {
        if (key !== undefined) return this.loaded.forget(key);
        for (const each of this.loaded.keys()) {
          const docs = this.loaded.get(each);
          this.loaded.forget(each);
          if (docs) await this.backend.drop(docs.key);
        }
      },
      forgetBlocks: (prefix) => this.blocks.forget(prefix),
      loadedKeys: () => this.loaded.keys(),
      cleared: (libraryId) => this.replicas.changed(libraryId, 'cleared'),
    };
  }

  /**
   * Removes everything cached of a library, every version (see `clearLibrary`); refused with
   * `INDEXING_IN_PROGRESS` while it is being indexed. Returns how many cache entries went.
   */
  clear(libraryId: string): Promise<number> {
    return clearLibrary(this.clearing(), libraryId);
  }

  /** Removes everything cached (see `clearEverything`). Returns how many cache entries went. */
  clearAll(): Promise<number> {
    return clearEverything(this.clearing());
  }
}
