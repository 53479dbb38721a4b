import { randomUUID } from 'node:crypto';
import {
  type CacheStore,
  type FetchContext,
  type Freshness,
  type LibraryDescriptor,
  type Logger,
  ProContextError,
  type SearchBackend,
  Slicer,
  type TocResult,
} from '@pro-context/kernel';
import { ChunkingPool, indexableChunk, type PageLimits, TermIndex } from '@pro-context/markdown';
import { SourceChain } from '../versions/sources.js';
import { IndexingBuild } from './indexing-build.js';
import { answerKeyPrefix, ns, versionKey } from './keys.js';
import {
  type BlockSource,
  blockPrefix,
  type DocsManifest,
  type DocsRecord,
  isManifest,
  isRecord,
  type LoadedDocs,
  type StoredChunk,
  StoredDocsTable,
  skippedNotes,
  toManifest,
} from './stored-docs.js';

export type { DocsManifest, DocsMeta, DocsRecord, LoadedDocs, StoredChunk, StoredPage } from './stored-docs.js';

/** Cache namespace of chunk blocks and term indexes. */
const CHUNKS_NS = 'chunks';
/**
 * Parsed blocks kept at hand (hot chunks), across libraries: 1024 blocks of ~8 K characters, ~8 M characters in
 * all. Blocks are read past the cache's memory tier, so a block not kept here is read from SQLite and parsed
 * again: the nine corpora of `pnpm bench` have ~760 blocks, and with 512 kept search-docs over them read blocks on
 * most calls (p50/p99 2.3/17 ms; 1024: 1.8/7 ms; server peak RSS the same, ~250 MB).
 */
const HOT_BLOCKS = 1024;

/** The outcome of {@link DocStore.load}. */
export interface LoadResult {
  docs: LoadedDocs;
  /** Served from what was already indexed or cached (no fetch in this call). */
  cached: boolean;
  /** The docs are past their TTL (a refresh runs in the background). */
  stale: boolean;
}

/** A TOC and the adapter that produced it. */
export interface TocRecord {
  toc: TocResult;
  adapterId: string;
  /** Why the sources tried before {@link adapterId} did not serve (`llms-txt: …`), when one did not. */
  passedOver?: string[];
}

const SNAPSHOT_TTL_NEVER = 0;
/** Least time between two progress reports of one library's indexing, ms (a phase's first report always goes). */
const PROGRESS_EVERY_MS = 100;
/** Pages chunked at which a streamed download's progress is half of its share ({@link DocStore}'s fetchAndIndex). */
const STREAMED_HALF_PAGES = 2000;
const MB = 1024 * 1024;
/** How long an indexing lease ({@link ns.indexing}) lasts unless renewed, and how often a running build renews it. */
const LEASE_MS = 60_000;
const LEASE_RENEW_MS = 20_000;
/**
 * A local source's freshness check that took this long (ms) or longer is not made again for
 * {@link LOCAL_CHECK_SPACING} times as long; a quicker one is made on every call.
 */
const LOCAL_CHECK_QUICK_MS = 20;
const LOCAL_CHECK_SPACING = 10;
/** What to do when a clear is refused because the library is being indexed. */
const CLEAR_LATER =
  'Clear once the indexing has finished (a process that stopped while indexing holds it for a minute at most).';

/** `value` as an ISO 8601 UTC date-time; the current time when it is not a date at all. */
function isoDateTime(value: string): string {
  const time = Date.parse(value);
  return Number.isNaN(time) ? new Date().toISOString() : new Date(time).toISOString();
}

/** A library version being indexed ({@link DocStore.indexingNow}). */
export interface IndexingNow {
  /** `libraryId@version`. */
  key: string;
  /** The process indexing it. */
  pid: number;
  /** Indexed by this engine (else by another sharing the cache). */
  here: boolean;
}

/** A build of one library version and the callers waiting for it ({@link DocStore.load}). */
interface SharedBuild {
  promise: Promise<LoadResult>;
  /** The progress callbacks of the callers waiting. */
  listeners: Set<NonNullable<FetchContext['progress']>>;
  /** The last progress report, for a caller who joins later. */
  last?: [number, number, string];
  /** Callers waiting who have not cancelled (a caller without a signal never does). */
  waiting: number;
  controller: AbortController;
}

/**
 * Waits for `build` as one more caller: hears its progress (its last report at once), and leaves it when its own
 * signal aborts, rejecting with that abort's reason; the build is aborted when its last caller leaves, whose call
 * ends once the build has stopped.
 */
function joinBuild(build: SharedBuild, context: FetchContext): Promise<LoadResult> {
  const { signal, progress } = context;
  if (signal?.aborted) return Promise.reject(signal.reason);
  build.waiting++;
  if (progress) {
    build.listeners.add(progress);
    if (build.last) progress(...build.last);
  }
  if (!signal) return build.promise;
  return new Promise<LoadResult>((resolve, reject) => {
    let left = false;
    const leave = () => {
      left = true;
      if (progress) build.listeners.delete(progress);
      if (--build.waiting > 0) return reject(signal.reason);
      // the last caller: the build stops, and the call ends once it has (nothing of it is left in the cache)
      build.controller.abort(signal.reason);
      const rejected = () => reject(signal.reason);
      build.promise.then(rejected, rejected);
    };
    signal.addEventListener('abort', leave, { once: true });
    build.promise
      .then(
        (result) => left || resolve(result),
        (error: unknown) => left || reject(error),
      )
      .finally(() => signal.removeEventListener('abort', leave));
  });
}

/**
 * Fetches, chunks, indexes and persists library documentation, one library version at a time, and
 * restores it after a restart from the cache (chunks + index snapshot) without fetching or chunking
 * again. Concurrent requests for the same library share one build.
 */
export class DocStore {
  private readonly loaded = new Map<string, StoredDocsTable>();
  /** Recently read blocks, parsed, by cache key (revision included, so never of other content). */
  private readonly hot = new Map<string, StoredChunk[]>();
  private readonly blocks: BlockSource = {
    block: async (key) => {
      const known = this.hot.get(key);
      if (known !== undefined) {
        this.hot.delete(key);
        this.hot.set(key, known);
        return known;
      }
      // (parsed here, in `hot`: the cache's memory tier would only hold a second copy, as text)
      const stored = (await this.cache.get<StoredChunk[] | Uint8Array>(CHUNKS_NS, key, { memory: false }))?.value;
      // a block prepared in a chunking worker was written as its JSON in UTF-8 (see `IndexingBuild`)
      const value = stored instanceof Uint8Array ? parseBlock(stored) : stored;
      if (!Array.isArray(value)) return undefined;
      this.hot.set(key, value);
      if (this.hot.size > HOT_BLOCKS) this.hot.delete(this.hot.keys().next().value as string);
      return value;
    },
    terms: async (key) => {
      const value = (await this.cache.get<Uint8Array>(CHUNKS_NS, key, { memory: false }))?.value;
      return value instanceof Uint8Array ? value : undefined;
    },
    missing: (docs) => {
      const key = versionKey(docs.key.libraryId, docs.key.version);
      if (this.loaded.get(key) !== docs) return;
      this.logger.warn('cached docs are incomplete (blocks evicted); they are indexed again on the next call', {
        libraryId: docs.key.libraryId,
        version: docs.key.version,
      });
      this.forget(key);
      this.track(this.cache.delete(ns.docs, key));
    },
    resized: (docs) => this.account(versionKey(docs.key.libraryId, docs.key.version), docs),
  };
  /** Builds under way, shared by every caller who asks for the library version meanwhile. */
  private readonly builds = new Map<string, SharedBuild>();
  /** Local freshness checks under way, and those whose "fresh" is still good ({@link changedLocally}). */
  private readonly localChecks = new Map<string, { pending: Promise<boolean> | undefined; freshUntil: number }>();
  private readonly refreshing = new Set<string>();
  private readonly background = new Set<Promise<unknown>>();
  /** Persisting indexed docs, one library at a time: each encodes megabytes, and together they set peak memory. */
  private persisting: Promise<unknown> = Promise.resolve();
  /** Approximate bytes each library version in {@link loaded} holds (ids, pages, term index, unwritten chunks). */
  private readonly loadedBytes = new Map<string, number>();
  private totalLoadedBytes = 0;

  constructor(
    private readonly cache: CacheStore,
    private readonly backend: SearchBackend,
    private readonly sources: SourceChain,
    private readonly logger: Logger,
    private readonly options: {
      maxChunkTokens: number;
      maxLoadedLibraries: number;
      maxLoadedMB?: number;
      pageLimits?: Partial<PageLimits>;
      /**
       * Called whenever the docs an answer may come from change: a revision loaded (restored, built, refreshed,
       * replaced), a library version let go or cleared (the engine bumps the kernel's `AnswerRevisions`).
       */
      onChange?: (reason: string) => void;
    },
    /** Where pages are converted and chunked: worker threads, so that answers never wait behind it. */
    private readonly pool: ChunkingPool = new ChunkingPool({ size: 0 }),
  ) {}

  /** Whether this library version can be searched right now (loaded or restorable without fetching). */
  state(libraryId: string, version: string): 'ready' | 'building' | 'absent' {
    const key = versionKey(libraryId, version);
    if (this.loaded.has(key)) return 'ready';
    if (this.builds.has(key)) return 'building';
    return 'absent';
  }

  /** Library versions loaded in memory. */
  loadedKeys(): string[] {
    return [...this.loaded.keys()];
  }

  /** Per-page limits of the builds (the engine's `engine.pages`). */
  get pageLimits(): Partial<PageLimits> | undefined {
    return this.options.pageLimits;
  }

  /** The notes of a loaded library version's skipped pages (see `skippedNotes`), none when it is not loaded. */
  loadedNotes(libraryId: string, version: string): string[] {
    const docs = this.loaded.get(versionKey(libraryId, version));
    return docs ? skippedNotes(docs.record) : [];
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

  /** TOC refreshes running behind a stale TOC, one per entry. */
  private readonly tocRefreshes = new Map<string, Promise<void>>();
  /** First TOC fetches under way, shared by concurrent callers. */
  private readonly tocFetches = new Map<string, Promise<TocRecord>>();

  private track<T>(promise: Promise<T>): Promise<T> {
    this.background.add(promise);
    void promise.finally(() => this.background.delete(promise)).catch(() => undefined);
    return promise;
  }

  /**
   * The library version's docs, ready to search: from memory, else restored from the cache, else
   * fetched through the adapter chain, chunked and indexed. Stale docs are served and refreshed behind.
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
    const inMemory = loaded && !(await this.changedLocally(library, version, loaded.record)) ? loaded : undefined;
    if (inMemory) {
      this.touch(key, inMemory);
      await this.ensureIndexed(inMemory);
      const stale = inMemory.expiresAt !== null && inMemory.expiresAt <= Date.now();
      if (stale) this.refreshInBackground(library, version, inMemory, documenting);
      return { docs: inMemory, cached: true, stale };
    }
    let shared = this.builds.get(key);
    if (!shared) {
      // the build is the callers', not the first one's: it goes on while one of them still waits for it, every
      // one of them hears its progress, and it stops when the last one cancels
      const controller = new AbortController();
      const build = { listeners: new Set(), waiting: 0, controller } as SharedBuild;
      const { signal: _signal, progress: _progress, ...rest } = context;
      build.promise = this.loadOrBuild(
        library,
        version,
        {
          ...rest,
          signal: controller.signal,
          progress: (done, total, message) => {
            build.last = [done, total, message];
            for (const listener of build.listeners) listener(done, total, message);
          },
        },
        loaded !== undefined,
        documenting,
      ).finally(() => {
        if (this.builds.get(key) === build) this.builds.delete(key);
      });
      // a build nobody waits for any more fails with the last caller's abort; it is nobody's to join
      build.promise.catch(() => undefined);
      controller.signal.addEventListener(
        'abort',
        () => {
          if (this.builds.get(key) === build) this.builds.delete(key);
        },
        { once: true },
      );
      this.builds.set(key, build);
      this.leaseWhile(key, build.promise);
      shared = build;
    }
    return joinBuild(shared, context);
  }

  /**
   * Holds the indexing lease of `key` in the cache until `work` settles, renewing it, so that another process
   * sharing the cache (`pro-context cache clear`) sees the library is being indexed. A lease that cannot be
   * written is logged: the build goes on.
   */
  private leaseWhile(key: string, work: Promise<unknown>): void {
    const lease = { pid: process.pid, startedAt: new Date().toISOString(), build: randomUUID() };
    const write = () =>
      this.cache
        .set(ns.indexing, key, lease, { ttlMs: LEASE_MS, memory: false })
        .catch((error: unknown) => this.logger.warn('could not record an indexing lease', { key, error }));
    void write();
    const renew = setInterval(write, LEASE_RENEW_MS);
    renew.unref();
    // the lease goes with its build: a build of the same library started meanwhile (this one was cancelled) keeps its own
    const release = async () => {
      const held = await this.cache.get<typeof lease>(ns.indexing, key, { memory: false });
      if (held?.value.build === lease.build) await this.cache.delete(ns.indexing, key);
    };
    void work
      .catch(() => undefined)
      .finally(() => {
        clearInterval(renew);
        this.track(release().catch(() => undefined));
      });
  }

  /**
   * Library versions (`libraryId@version`) being indexed right now, by this engine or another sharing the cache
   * (its lease).
   */
  async indexingNow(): Promise<IndexingNow[]> {
    const found: IndexingNow[] = [...this.builds.keys()].map((key) => ({ key, pid: process.pid, here: true }));
    for (const key of await this.cache.keys(ns.indexing)) {
      if (this.builds.has(key)) continue;
      // (past the memory tier: another process writes and deletes leases)
      const lease = await this.cache.get<{ pid: number }>(ns.indexing, key, { memory: false });
      if (lease) found.push({ key, pid: lease.value.pid, here: false });
    }
    return found;
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
    const key = versionKey(library.id, version);
    // (a manifest is held parsed while its docs are loaded: the cache's memory tier would keep a second copy, as text)
    const cached = changed
      ? undefined
      : await this.cache.get<unknown>(ns.docs, key, { allowStale: true, memory: false });
    const restored = cached && (await this.restore(library, version, cached.value, cached.expiresAt));
    if (cached && restored) {
      await this.ensureIndexed(restored);
      if (cached.stale) this.refreshInBackground(library, version, restored, documenting);
      return { docs: restored, cached: true, stale: cached.stale };
    }
    const docs = await this.fetchAndIndex(library, version, context, documenting);
    return { docs, cached: false, stale: false };
  }

  /**
   * Docs from a cached `docs` value: a manifest whose blocks are all in the cache, or a record of the first
   * format (every chunk inside), rewritten as a manifest and blocks behind the answer. `undefined` when the value
   * is neither, its blocks are incomplete, or a local source's files changed since: the docs are built again.
   */
  private async restore(
    library: LibraryDescriptor,
    version: string,
    value: unknown,
    expiresAt: number | null,
  ): Promise<StoredDocsTable | undefined> {
    if (isManifest(value)) {
      const present = await this.cache.keys(CHUNKS_NS, blockPrefix(value));
      if (present.length < value.blockStarts.length + 1) {
        this.logger.info('cached docs are incomplete; indexing them again', { libraryId: library.id, version });
        return undefined;
      }
      if (await this.changedLocally(library, version, value)) return undefined;
      return this.remember(value, expiresAt);
    }
    if (isRecord(value)) {
      if (await this.changedLocally(library, version, value)) return undefined;
      const { chunks, ...meta } = value;
      const { manifest, blocks } = toManifest(meta, chunks);
      const docs = this.remember(manifest, expiresAt, chunks);
      const ttl = expiresAt === null ? { ttlMs: 0 } : { ttlMs: Math.max(1, expiresAt - Date.now()) };
      this.persistInOrder(library.id, () => this.writeDocs(docs, manifest, blocks, undefined, ttl));
      return docs;
    }
    return undefined;
  }

  /**
   * Whether content a local adapter (`SourceAdapter.local`: files on disk, a cheap freshness check) produced has
   * changed since: asked on every load, so an edited file is answered at once. Other adapters: `false` (their
   * content is checked when the TTL expires).
   */
  private async changedLocally(
    library: LibraryDescriptor,
    version: string,
    record: { adapterId: string; freshness: Freshness },
  ): Promise<boolean> {
    const adapter = this.sources.for(library).find((a) => a.id === record.adapterId);
    if (!adapter?.local) return false;
    const key = `${versionKey(library.id, version)}\0${adapter.id}\0${JSON.stringify(record.freshness)}`;
    const known = this.localChecks.get(key);
    if (known && (known.pending || known.freshUntil > performance.now())) return known.pending ?? false;
    const started = performance.now();
    const pending = adapter
      .checkFreshness(library, version, record.freshness)
      .then((verdict) => verdict === 'changed')
      .catch((error: unknown) => {
        this.logger.debug('local freshness check failed', { libraryId: library.id, error: String(error) });
        return false;
      });
    const entry = { pending: pending as Promise<boolean> | undefined, freshUntil: 0 };
    this.localChecks.set(key, entry);
    const changed = await pending;
    entry.pending = undefined;
    const took = performance.now() - started;
    // calls at the same time share one check; a check that takes a while (thousands of files to stat) is not
    // repeated for ten times as long, so that it costs at most a tenth of the time (a quick one is made every call)
    if (changed || took < LOCAL_CHECK_QUICK_MS) this.localChecks.delete(key);
    else entry.freshUntil = performance.now() + LOCAL_CHECK_SPACING * took;
    if (this.localChecks.size > 256) this.localChecks.delete(this.localChecks.keys().next().value as string);
    return changed;
  }

  private touch(key: string, docs: StoredDocsTable): void {
    this.loaded.delete(key);
    this.loaded.set(key, docs);
  }

  /** Approximate MB the loaded library versions hold in memory (for health and tests). */
  loadedMegabytes(): number {
    return this.totalLoadedBytes / MB;
  }

  /**
   * Makes `manifest`'s docs the loaded ones (with their chunks in memory until written, when `pending`), then lets
   * the least recently used library versions go (see {@link account}).
   */
  private remember(
    manifest: DocsManifest,
    expiresAt: number | null,
    pending?: readonly StoredChunk[],
    terms?: TermIndex,
  ): StoredDocsTable {
    const docs = new StoredDocsTable(manifest, expiresAt, this.blocks, pending, terms);
    const key = versionKey(manifest.libraryId, manifest.version);
    this.touch(key, docs);
    this.options.onChange?.(`docs ${key} loaded`);
    this.account(key, docs);
    return docs;
  }

  /**
   * Records what `docs` holds, then lets the least recently used library versions go until at most
   * `maxLoadedLibraries` are loaded and they hold at most `maxLoadedMB` (the most recent always stays): the
   * cache restores them on demand. Their search indexes go with them.
   */
  private account(key: string, docs: StoredDocsTable): void {
    if (this.loaded.get(key) !== docs) return;
    this.totalLoadedBytes -= this.loadedBytes.get(key) ?? 0;
    const bytes = docs.bytes;
    this.loadedBytes.set(key, bytes);
    this.totalLoadedBytes += bytes;
    const maxBytes = (this.options.maxLoadedMB ?? Number.POSITIVE_INFINITY) * MB;
    while (
      this.loaded.size > 1 &&
      (this.loaded.size > this.options.maxLoadedLibraries || this.totalLoadedBytes > maxBytes)
    ) {
      const oldest = this.loaded.keys().next().value as string;
      const evicted = this.loaded.get(oldest);
      this.forget(oldest);
      if (evicted) void this.backend.drop(evicted.key);
    }
  }

  private forget(key: string): void {
    if (this.loaded.delete(key)) this.options.onChange?.(`docs ${key} dropped`);
    this.totalLoadedBytes -= this.loadedBytes.get(key) ?? 0;
    this.loadedBytes.delete(key);
  }

  /** Makes sure the backend holds the index: restores the snapshot, or rebuilds it from stored chunks. */
  private async ensureIndexed(docs: LoadedDocs): Promise<void> {
    if (await this.backend.has(docs.key)) return;
    const snapshotKey = `${versionKey(docs.key.libraryId, docs.key.version)}@${this.backend.id}`;
    const snapshot = await this.cache.get<Uint8Array>(ns.index, snapshotKey, { memory: false });
    if (snapshot?.meta?.revision === docs.record.revision && snapshot.value instanceof Uint8Array) {
      if (await this.backend.restore(docs.key, snapshot.value)) return;
    }
    const chunks = await docs.all();
    await this.backend.index(docs.key, chunks.map(indexableChunk));
    this.track(this.saveSnapshot(docs));
  }

  private async saveSnapshot(docs: LoadedDocs): Promise<void> {
    const snapshot = await this.backend.snapshot(docs.key);
    if (!snapshot) return;
    await this.cache.set(ns.index, `${versionKey(docs.key.libraryId, docs.key.version)}@${this.backend.id}`, snapshot, {
      ttlMs: SNAPSHOT_TTL_NEVER,
      meta: { revision: docs.record.revision },
      // the backend holds the index itself; the snapshot is read again only once it has let it go
      memory: false,
    });
  }

  private async fetchAndIndex(
    library: LibraryDescriptor,
    version: string,
    context: FetchContext,
    documenting?: readonly string[],
  ): Promise<LoadedDocs> {
    return this.logger.span('engine.index', { libraryId: library.id, version }, async (span) => {
      const fetchStarted = performance.now();
      const key = { libraryId: library.id, version };
      // progress in percent: the adapter's fetch is the first 80 %, chunking and indexing the rest. A streamed
      // library reports every batch: at most one report every PROGRESS_EVERY_MS goes out (each phase's first always),
      // and none once the call is cancelled.
      let lastReport = Number.NEGATIVE_INFINITY;
      const report = (percent: number, message: string, phaseStart = false) => {
        if (context.signal?.aborted) return;
        const now = performance.now();
        if (!phaseStart && now - lastReport < PROGRESS_EVERY_MS) return;
        lastReport = now;
        context.progress?.(Math.round(percent), 100, message);
      };
      report(0, `Fetching the ${library.name} ${version} documentation`, true);
      // each adapter tried builds afresh: pages it hands over while it reads (`FetchContext.pages`) are chunked,
      // indexed and written at once; a failed attempt's partial build is dropped before the next source is tried
      let build: IndexingBuild | undefined;
      const { value: fetched, adapter } = await this.sources.first(
        library,
        'fetch the documentation',
        async (a, ctx) => {
          let attempt: IndexingBuild | undefined;
          const open = () => {
            attempt ??= new IndexingBuild(this, key, this.options.maxChunkTokens, context.signal);
            return attempt;
          };
          try {
            const result = await a.fetchDocs(library, version, {
              ...ctx,
              pages: async (batch) => {
                // chunked while it downloads: how many pages are chunked of those received so far
                // how far a download of unknown length has got is unknown: a share of the fetch's 80 % that keeps
                // growing with the pages chunked (half of it at STREAMED_HALF_PAGES), never reaching the next phase
                await open().add(batch, (done, received) =>
                  report(5 + (74 * done) / (done + STREAMED_HALF_PAGES), `Chunking ${received} pages (${done} done)`),
                );
              },
            });
            build = attempt;
            // pages handed over mean a full library (never set aside as condensed); the result's own pages (all
            // of them, from an adapter that does not stream) go through the same build below
            return attempt === undefined
              ? { ...result, streamed: false }
              : { ...result, condensed: undefined, streamed: true };
          } catch (error) {
            await attempt?.abandon();
            throw error;
          }
        },
        {
          ...context,
          progress: (done, total, message) => report(total > 0 ? (80 * done) / total : 0, message, done === 0),
        },
        documenting,
      );
      const chunkStarted = performance.now();
      const current = build ?? new IndexingBuild(this, key, this.options.maxChunkTokens, context.signal);
      let terms: Uint8Array;
      let manifest: DocsManifest;
      let kept: StoredChunk[] | undefined;
      try {
        // (the result's pages leave `fetched` as they go to the build: once chunked they can be let go)
        const pages = fetched.pages;
        fetched.pages = [];
        const total = pages.length;
        report(80, total > 0 ? `Chunking ${total} pages` : 'Chunking the last pages read', true);
        await current.addAll(pages, total, (done) =>
          report(80 + (10 * done) / Math.max(1, total), `Chunking ${total} pages (${done} done)`),
        );
        const chunkCount = await current.chunkCount();
        if (chunkCount === 0) {
          throw new ProContextError(
            'INVALID_CONTENT',
            `${adapter.id} found no documentation content for ${library.name}.`,
            {
              suggestion: `Check the documentation settings of ${library.id} (${
                [
                  ...Object.entries(library.sources ?? {}).flatMap(([bag, settings]) =>
                    Object.keys(settings).map((key) => `sources.${bag}.${key}`),
                  ),
                  ...(['docsUrl', 'repository', 'localPath'] as const).filter((key) => library[key]),
                ].join(', ') || 'source'
              }): ${adapter.id} read no page with content from them.`,
            },
          );
        }
        report(90, `Indexing ${chunkCount} chunks`, true);
        // pages the source itself refused over a per-page limit (a crawl converts as it goes) are noted like the
        // build's own
        for (const skip of fetched.skipped ?? []) {
          if (skip.code === 'PAGE_TOO_LARGE' || skip.code === 'PAGE_TOO_COMPLEX') {
            current.skipped.push({ url: skip.url, reason: skip.reason, code: skip.code });
          }
        }
        const finished = await current.finish({
          libraryId: library.id,
          version,
          adapterId: adapter.id,
          sourceUrl: fetched.sourceUrl,
          // one form whatever an adapter wrote (get-docs' output schema says date-time)
          fetchedAt: isoDateTime(fetched.fetchedAt),
          freshness: fetched.freshness,
        });
        manifest = finished.manifest;
        terms = finished.terms;
        kept = finished.chunks;
      } catch (error) {
        await current.abandon();
        throw error;
      }
      report(100, `Indexed ${library.name} ${version}`, true);
      // where a first answer's time goes (the benchmark reads these): fetch, chunk, index (a library handed over
      // in batches is chunked and indexed while it downloads: its fetch span includes theirs)
      const ms = (from: number, to: number) => Math.round(to - from);
      span.set({
        adapter: adapter.id,
        pages: manifest.pages.length,
        chunks: manifest.ids.length,
        skipped: fetched.skipped?.length ?? 0,
        streamed: fetched.streamed,
        fetchMs: ms(fetchStarted, chunkStarted),
        chunkMs: Math.round(current.chunkMs),
        indexMs: Math.round(current.indexMs),
      });
      const ttlMs = library.ttlHours ? library.ttlHours * 3_600_000 : undefined;
      // (a small library's chunks stay at hand until persisted: its first answers read no block back)
      const docs = this.remember(manifest, ttlMs ? Date.now() + ttlMs : null, kept, TermIndex.read(terms));
      const toc = fetched.toc;
      const pageUrls = new Set([
        ...manifest.pages.map((p) => p.url),
        ...(toc?.entries.map((e) => e.url.split('#')[0] as string) ?? []),
      ]);
      // persisting (term index, manifest, index snapshot; the chunk blocks are written already) happens after the
      // answer, not before it, after any other
      this.persistInOrder(library.id, async () => {
        try {
          // answers computed from an earlier revision of these docs go
          const answerPrefix = answerKeyPrefix(library.id, version);
          // (a delete is a synchronous write: thousands of pages are one long stall without turns between them)
          const slicer = new Slicer();
          for (const key of await this.cache.keys(ns.answers, answerPrefix)) {
            await slicer.turn();
            await this.cache.delete(ns.answers, key);
          }
          // and so do read-page's copies of its pages: the next read fetches the page as it is now
          for (const url of pageUrls) {
            await slicer.turn();
            await this.cache.delete(ns.pages, url);
          }
          await this.writeDocs(docs, manifest, [], terms, ttlMs ? { ttlMs } : {});
        } finally {
          this.building.delete(blockPrefix(manifest));
        }
        if (toc) {
          await this.cache.set<TocRecord>(
            ns.toc,
            versionKey(library.id, version),
            { toc, adapterId: adapter.id },
            ttlMs ? { ttlMs } : {},
          );
        }
        await this.saveSnapshot(docs);
      });
      return docs;
    });
  }

  /**
   * When the `docs` entry of a library version expires (`null`: never; `undefined`: no entry), read without its
   * value where the cache can (a big library's manifest is megabytes of JSON: reading it back cost them again).
   */
  private async expiresAt(key: string): Promise<number | null | undefined> {
    if (this.cache.expiresAt) return this.cache.expiresAt(ns.docs, key);
    return (await this.cache.get<unknown>(ns.docs, key, { allowStale: true, memory: false }))?.expiresAt;
  }

  /** Block prefixes of builds under way or not yet persisted: an older build's clean-up leaves them be. */
  readonly building = new Set<string>();

  /** Writes a chunk block (a build's). */
  async writeBlock(key: string, block: readonly StoredChunk[] | Uint8Array): Promise<void> {
    await this.cache.set(CHUNKS_NS, key, block, { ttlMs: 0, memory: false });
  }

  /** Deletes chunk blocks (an abandoned build's). */
  async deleteBlocks(keys: readonly string[]): Promise<void> {
    for (const key of keys) await this.cache.delete(CHUNKS_NS, key);
  }

  /** Where a build chunks its pages. */
  get chunking(): ChunkingPool {
    return this.pool;
  }

  /** Where a build indexes its chunks. */
  get search(): SearchBackend {
    return this.backend;
  }

  /** Runs `persist` after every persistence started before it (each writes megabytes; together they set peak memory). */
  private persistInOrder(libraryId: string, persist: () => Promise<void>): void {
    this.persisting = this.persisting
      .then(persist)
      .catch((error: unknown) => this.logger.warn('could not persist indexed docs', { libraryId, error }));
    this.track(this.persisting);
  }

  /**
   * Writes docs as blocks, term index and manifest (last: a manifest names blocks that exist), lets the chunks
   * leave memory, and removes the blocks of the library version's earlier revisions. `ttl`: the manifest's (none:
   * the namespace's default); blocks never expire on their own, the manifest says when the docs do.
   */
  private async writeDocs(
    docs: StoredDocsTable,
    manifest: DocsManifest,
    blocks: readonly StoredChunk[][],
    terms: Uint8Array | undefined,
    ttl: { ttlMs?: number },
  ): Promise<void> {
    const key = versionKey(manifest.libraryId, manifest.version);
    const prefix = blockPrefix(manifest);
    const previous = (await this.cache.get<unknown>(ns.docs, key, { allowStale: true, memory: false }))?.value;
    if (
      manifest.blocks !== undefined &&
      isManifest(previous) &&
      previous.revision === manifest.revision &&
      blockPrefix(previous) !== prefix &&
      (await this.cache.keys(CHUNKS_NS, blockPrefix(previous))).length >= previous.blockStarts.length + 1
    ) {
      // the same content is stored already (another process sharing the cache built it at the same time): its
      // blocks serve, ours go (the blocks are the same: same chunks, same cuts)
      if (this.loaded.get(key) === docs) this.remember(previous, docs.expiresAt);
      for (const mine of await this.cache.keys(CHUNKS_NS, prefix)) await this.cache.delete(CHUNKS_NS, mine);
      return;
    }
    // (synchronous writes, a few ms each: answers to other calls get a turn every few ms)
    const slicer = new Slicer();
    for (const [n, block] of blocks.entries()) {
      await slicer.turn();
      await this.cache.set(CHUNKS_NS, `${prefix}${n}`, block, { ttlMs: 0, memory: false });
    }
    const termBytes = terms ?? (await docs.termIndexBytes());
    await this.cache.set(CHUNKS_NS, `${prefix}terms`, termBytes, { ttlMs: 0, memory: false });
    await this.cache.set(ns.docs, key, manifest, { ...ttl, memory: false });
    const expiresAt = await this.expiresAt(key);
    if (expiresAt !== undefined) docs.expiresAt = expiresAt;
    docs.settle();
    // the blocks of the docs replaced go, and those of the first format's revisions; a build's blocks (`@b…#`)
    // only when they are the replaced docs' (another process sharing the cache may be writing its own)
    const replaced = isManifest(previous) ? blockPrefix(previous) : undefined;
    const building = [...this.building].filter((p) => p !== prefix);
    for (const old of await this.cache.keys(CHUNKS_NS, `${key}@`)) {
      if (old.startsWith(prefix) || building.some((p) => old.startsWith(p))) continue;
      const tagged = /^b[0-9a-z]+#/.test(old.slice(key.length + 1));
      if (!tagged || (replaced !== undefined && old.startsWith(replaced))) await this.cache.delete(CHUNKS_NS, old);
    }
  }

  private refreshInBackground(
    library: LibraryDescriptor,
    version: string,
    docs: LoadedDocs,
    documenting?: readonly string[],
  ): void {
    const key = versionKey(library.id, version);
    if (this.refreshing.has(key)) return;
    this.refreshing.add(key);
    this.track(
      this.logger
        .span('engine.refresh', { libraryId: library.id, version }, async (span) => {
          const adapter = this.sources.for(library).find((a) => a.id === docs.record.adapterId);
          const verdict = adapter ? await adapter.checkFreshness(library, version, docs.record.freshness) : 'unknown';
          span.set('verdict', verdict);
          if (verdict === 'fresh') {
            const stored = await this.cache.get<DocsRecord>(ns.docs, key, { allowStale: true, memory: false });
            if (stored) {
              const ttlMs = library.ttlHours ? library.ttlHours * 3_600_000 : undefined;
              await this.cache.set(ns.docs, key, stored.value, { ...(ttlMs ? { ttlMs } : {}), memory: false });
              docs.expiresAt = (await this.expiresAt(key)) ?? null;
            }
            return;
          }
          // the stale docs keep answering while the new ones are fetched and indexed; the backend installs
          // the new index when it is complete, and the new chunks replace the old in the same tick
          await this.fetchAndIndex(library, version, {}, documenting);
        })
        .catch((error: unknown) => {
          // the origin is down: keep serving the stale docs (they were never taken out), and say so in health
          if (SourceChain.unreachable(error)) this.sources.record(docs.record.adapterId, error);
          this.logger.warn('refresh failed; serving stale docs', { libraryId: library.id, error });
        })
        .finally(() => this.refreshing.delete(key)),
    );
  }

  /**
   * The library's TOC: cached, else from the first adapter that has one. An expired TOC answers at once (marked
   * stale) while one refresh per entry runs behind it (stale-while-revalidate); when the refresh fails, the
   * expired TOC goes on answering.
   */
  async toc(
    library: LibraryDescriptor,
    version: string,
    context: FetchContext = {},
    documenting?: readonly string[],
  ): Promise<TocRecord & { cached: boolean; stale: boolean }> {
    const key = versionKey(library.id, version);
    const cached = await this.cache.get<TocRecord>(ns.toc, key, { allowStale: true });
    // a local source's files changed since: fetched again now (a local read is quick), not served stale
    const changed =
      cached !== undefined &&
      (await this.changedLocally(library, version, {
        adapterId: cached.value.adapterId,
        freshness: cached.value.toc.freshness,
      }));
    if (cached && !cached.stale && !changed) return { ...cached.value, cached: true, stale: false };
    if (cached && !changed) {
      if (!this.tocRefreshes.has(key)) {
        const refresh = this.fetchToc(library, version, {}, documenting)
          .then(() => undefined)
          .catch((error: unknown) => {
            this.logger.warn('TOC refresh failed; serving the stale TOC', { libraryId: library.id, error });
          })
          .finally(() => this.tocRefreshes.delete(key));
        this.tocRefreshes.set(key, refresh);
        this.track(refresh);
      }
      return { ...cached.value, cached: true, stale: true };
    }
    // concurrent first calls share one fetch
    const running = this.tocFetches.get(key);
    if (running) return { ...(await running), cached: false, stale: false };
    const fetching = this.fetchToc(library, version, context, documenting).finally(() => this.tocFetches.delete(key));
    this.tocFetches.set(key, fetching);
    try {
      return { ...(await fetching), cached: false, stale: false };
    } catch (error) {
      if (!cached) throw error;
      this.logger.warn('TOC refresh failed; serving the stale TOC', { libraryId: library.id, error });
      return { ...cached.value, cached: true, stale: true };
    }
  }

  private async fetchToc(
    library: LibraryDescriptor,
    version: string,
    context: FetchContext,
    documenting?: readonly string[],
  ): Promise<TocRecord> {
    const {
      value: toc,
      adapter,
      passedOver,
    } = await this.sources.first(
      library,
      'fetch the table of contents',
      (a, ctx) => a.fetchToc(library, version, ctx),
      context,
      documenting,
    );
    const ttlMs = library.ttlHours ? library.ttlHours * 3_600_000 : undefined;
    const record: TocRecord = { toc, adapterId: adapter.id, ...(passedOver ? { passedOver } : {}) };
    await this.cache.set(ns.toc, versionKey(library.id, version), record, ttlMs ? { ttlMs } : {});
    return record;
  }

  /**
   * Removes everything cached of a library, every version: its TOC, docs manifest, chunk blocks and term index,
   * search index snapshots, stored answers and `read-page`'s copies of the pages its TOC lists; lets it go from
   * memory and from the search backend. The next call fetches and indexes it again. Returns how many cache entries
   * went. A library being indexed right now is refused (`INDEXING_IN_PROGRESS`): its build would write it back.
   */
  async clear(libraryId: string): Promise<number> {
    const prefix = `${libraryId}@`;
    const building = (await this.indexingNow()).find((b) => b.key.startsWith(prefix));
    if (building) {
      const where = building.here ? '' : ` by another server sharing the cache (process ${building.pid})`;
      throw new ProContextError('INDEXING_IN_PROGRESS', `${libraryId} is being indexed right now${where}.`, {
        suggestion: CLEAR_LATER,
        retryAfter: 5,
      });
    }
    let removed = 0;
    // (each delete is a synchronous write: a large library's thousands of blocks take turns with other work)
    const slicer = new Slicer();
    const remove = async (namespace: string, key: string) => {
      await slicer.turn();
      if (await this.cache.delete(namespace, key)) removed++;
    };
    const versions = (await this.cachedVersions()).filter((v) => v.libraryId === libraryId).map((v) => v.version);
    for (const version of versions) {
      const key = versionKey(libraryId, version);
      const toc = await this.cachedToc(libraryId, version);
      for (const url of new Set(toc?.toc.entries.map((e) => e.url.split('#')[0] as string) ?? [])) {
        await remove(ns.pages, url);
      }
      for (const answer of await this.cache.keys(ns.answers, answerKeyPrefix(libraryId, version))) {
        await remove(ns.answers, answer);
      }
      this.forget(key);
      await this.backend.drop({ libraryId, version });
    }
    for (const namespace of [ns.toc, ns.docs, ns.index, CHUNKS_NS]) {
      for (const key of await this.cache.keys(namespace, prefix)) await remove(namespace, key);
    }
    for (const key of [...this.hot.keys()]) if (key.startsWith(prefix)) this.hot.delete(key);
    return removed;
  }

  /**
   * Removes everything cached, every namespace, and lets every library go from memory and the search backend.
   * Refused (`INDEXING_IN_PROGRESS`) while any library is being indexed, here or by another server sharing the
   * cache: its build would be left without its blocks. Returns how many cache entries went.
   */
  async clearAll(): Promise<number> {
    const building = await this.indexingNow();
    if (building.length > 0) {
      throw new ProContextError(
        'INDEXING_IN_PROGRESS',
        `${building.map((b) => `${b.key} (pid ${b.pid})`).join(', ')} ${building.length === 1 ? 'is' : 'are'} being indexed right now.`,
        { suggestion: CLEAR_LATER, retryAfter: 5 },
      );
    }
    for (const key of [...this.loaded.keys()]) {
      const docs = this.loaded.get(key);
      this.forget(key);
      if (docs) await this.backend.drop(docs.key);
    }
    this.hot.clear();
    return this.cache.clear();
  }

  /** A TOC already known (cached or loaded), without any fetch. */
  async cachedToc(libraryId: string, version: string): Promise<TocRecord | undefined> {
    return (await this.cache.get<TocRecord>(ns.toc, versionKey(libraryId, version), { allowStale: true }))?.value;
  }

  /** Library versions with a cached TOC or docs (for list-libraries). */
  async cachedVersions(): Promise<{ libraryId: string; version: string }[]> {
    const keys = new Set([...(await this.cache.keys(ns.toc)), ...(await this.cache.keys(ns.docs))]);
    return [...keys].map((k) => {
      const at = k.lastIndexOf('@');
      return { libraryId: k.slice(0, at), version: k.slice(at + 1) };
    });
  }
}

/** A block written as JSON bytes; `undefined` when they are not a JSON array. */
function parseBlock(bytes: Uint8Array): StoredChunk[] | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    return Array.isArray(value) ? (value as StoredChunk[]) : undefined;
  } catch {
    return undefined;
  }
}
