import type {
  IndexableChunk,
  IndexBuild,
  IndexKey,
  Logger,
  SearchBackend,
  SearchOptions,
  SearchResults,
} from '@pro-context/kernel';
import {
  type CodeTokenizer,
  createCodeTokenizer,
  englishSynonymGroups,
  LoadedIndexes,
  type SearchLanguage,
  synonymIndex,
} from '@pro-context/search-kit';
import { packedSearchErrors } from './errors.js';
import { type ChunkField, PackedIndex, PackedIndexBuilder, type PackedIndexData } from './packed-index.js';
import { toPacked } from './protocol.js';
import { decodeSnapshot, encodeSnapshot } from './snapshot.js';
import { type BuildSession, WorkerBuildError, WorkerIndexBuilder } from './worker-builder.js';

/** Settings of {@link PackedSearchBackend} (the plugin's options, with defaults applied). */
export interface PackedSearchBackendOptions {
  /** Default typo tolerance (maximum edits per query word); `SearchOptions.tolerance` overrides it. */
  tolerance: number;
  /** Weight of a match in each field. */
  boost: Record<ChunkField, number>;
  /** Indexes kept in memory at most; the least recently used one is dropped beyond this. */
  maxLoadedIndexes: number;
  /** Memory of the loaded indexes at most (MB); the least recently used ones are dropped beyond this. */
  maxMemoryMB: number;
  /** Language of the stemmer and stop words. */
  language: SearchLanguage;
  /** Build indexes in a worker thread (`true`), or on the main thread in slices (`false`). */
  worker: boolean;
  /** Worker threads building at most (with more than one, a large library is split between them); default 1. */
  workers?: number;
  /** Heap limit of each build worker in MB (Node's default when absent). */
  workerMaxHeapMB?: number;
  /** An idle build worker ends after this long (ms), giving its memory back; default 10 s. */
  workerIdleMs?: number;
}

/** What {@link PackedSearchBackend}'s constructor takes: any setting may be left out, field weights included. */
export type PackedSearchBackendInput = Partial<Omit<PackedSearchBackendOptions, 'boost'>> & {
  boost?: Partial<Record<ChunkField, number>>;
};

/** Defaults of {@link PackedSearchBackendOptions}. */
export const defaultPackedSearchBackendOptions: Readonly<PackedSearchBackendOptions> = Object.freeze({
  tolerance: 1,
  boost: Object.freeze({ title: 1, section: 1, headings: 1, body: 1 }),
  maxLoadedIndexes: 256,
  maxMemoryMB: 48,
  language: 'english',
  worker: true,
});

const MB = 1024 * 1024;
const DEFAULT_LIMIT = 10;
// Chunks indexed between two yields to the event loop when building on the main thread.
const INSERT_SLICE = 512;

const keyOf = (key: IndexKey): string => JSON.stringify([key.libraryId, key.version]);
const describe = (key: IndexKey): string => `${key.libraryId}@${key.version}`;
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * {@link SearchBackend} on a packed inverted index: one per (library, exact version), in typed arrays.
 * It ranks exactly as `orama-search` does (same analysis, same scoring; a test compares them), builds
 * several times faster, in a worker thread, and keeps loaded indexes within `maxMemoryMB` (least
 * recently used first out; the engine restores an evicted one from its snapshot when next asked).
 */
export class PackedSearchBackend implements SearchBackend {
  /** The plugin id. */
  readonly id = 'packed-search';
  private readonly options: PackedSearchBackendOptions;
  private readonly tokenizer: CodeTokenizer;
  private readonly synonyms: ReadonlyMap<string, readonly string[]>;
  private readonly logger: Logger | undefined;
  private builder: WorkerIndexBuilder | undefined;
  /**
   * Loaded indexes in least-recently-used order with the bytes they hold, and the generation of each key (bumped
   * by every index/restore/drop of a key, so a slow build cannot resurrect a dropped index).
   */
  private readonly loaded: LoadedIndexes<PackedIndex>;

  /**
   * @param options - settings; any left out take {@link defaultPackedSearchBackendOptions}.
   * @param logger - receives debug records (index built, snapshot refused, index evicted).
   */
  constructor(options: PackedSearchBackendInput = {}, logger?: Logger) {
    const defaults = defaultPackedSearchBackendOptions;
    this.options = {
      tolerance: options.tolerance ?? defaults.tolerance,
      boost: { ...defaults.boost, ...options.boost },
      maxLoadedIndexes: options.maxLoadedIndexes ?? defaults.maxLoadedIndexes,
      maxMemoryMB: options.maxMemoryMB ?? defaults.maxMemoryMB,
      language: options.language ?? defaults.language,
      worker: options.worker ?? defaults.worker,
      workers: options.workers,
      workerMaxHeapMB: options.workerMaxHeapMB,
      workerIdleMs: options.workerIdleMs,
    };
    if (!Number.isInteger(this.options.maxLoadedIndexes) || this.options.maxLoadedIndexes < 1) {
      throw new RangeError(`maxLoadedIndexes must be a positive integer, got ${this.options.maxLoadedIndexes}.`);
    }
    if (!(this.options.maxMemoryMB > 0)) {
      throw new RangeError(`maxMemoryMB must be positive, got ${this.options.maxMemoryMB}.`);
    }
    this.tokenizer = createCodeTokenizer(this.options.language);
    this.synonyms = synonymIndex(englishSynonymGroups, (word) => this.tokenizer.termOf(word));
    this.logger = logger;
    const { maxLoadedIndexes, maxMemoryMB } = this.options;
    this.loaded = new LoadedIndexes<PackedIndex>({
      sizeOf: (entry) => entry.memoryBytes,
      over: (loaded) => loaded.size > maxLoadedIndexes || loaded.totalBytes > maxMemoryMB * MB,
      evicted: (index, entry) =>
        this.logger?.debug('search index evicted', {
          index,
          bytes: entry.memoryBytes,
          loadedMB: Math.round(this.loaded.totalBytes / MB),
          limitMB: maxMemoryMB,
        }),
    });
  }

  async index(key: IndexKey, chunks: IndexableChunk[]): Promise<void> {
    const id = keyOf(key);
    const seen = new Set<string>();
    for (const chunk of chunks) {
      if (seen.has(chunk.id)) {
        throw new Error(
          `Chunk id ${JSON.stringify(chunk.id)} appears twice in the chunks of ${describe(key)}; ids must be unique within an index.`,
        );
      }
      seen.add(chunk.id);
    }
    const generation = this.loaded.bump(id);
    const superseded = () => !this.loaded.isCurrent(id, generation);
    const started = performance.now();
    let data: PackedIndexData | undefined;
    if (this.options.worker) {
      this.builder ??= new WorkerIndexBuilder(
        { workers: this.options.workers, maxHeapMB: this.options.workerMaxHeapMB, idleMs: this.options.workerIdleMs },
        this.logger,
      );
      try {
        data = await this.builder.build(chunks, toPacked, this.options.language, superseded);
      } catch (error) {
        if (!(error instanceof WorkerBuildError)) throw error;
        if (superseded()) return;
        throw packedSearchErrors.create(
          'PACKED_SEARCH_WORKER_FAILED',
          { library: describe(key), reason: error.message },
          { cause: error },
        );
      }
    } else {
      data = await this.buildHere(chunks, superseded);
    }
    if (data === undefined || superseded()) return;
    this.loaded.install(id, new PackedIndex(data, this.tokenizer));
    this.logger?.debug('search index built', {
      library: describe(key),
      chunks: chunks.length,
      bytes: this.loaded.get(id)?.bytes,
      durationMs: Math.round(performance.now() - started),
    });
  }

  /**
   * An index built from batches as they come (a streamed library): in the build worker when `worker` is on,
   * each batch handed over as it arrives, so no thread holds all the chunks. The same index {@link index}
   * builds from the same chunks.
   */
  indexer(key: IndexKey): IndexBuild {
    const id = keyOf(key);
    const seen = new Set<string>();
    const generation = this.loaded.bump(id);
    const superseded = () => !this.loaded.isCurrent(id, generation);
    const started = performance.now();
    let count = 0;
    const failed = (error: unknown): never => {
      if (!(error instanceof WorkerBuildError)) throw error;
      throw packedSearchErrors.create(
        'PACKED_SEARCH_WORKER_FAILED',
        { library: describe(key), reason: error.message },
        { cause: error },
      );
    };
    let session: BuildSession | undefined;
    let here: PackedIndexBuilder | undefined;
    if (this.options.worker) {
      this.builder ??= new WorkerIndexBuilder(
        { workers: this.options.workers, maxHeapMB: this.options.workerMaxHeapMB, idleMs: this.options.workerIdleMs },
        this.logger,
      );
      session = this.builder.session(this.options.language, superseded);
    } else here = new PackedIndexBuilder(this.options.language);
    return {
      add: async (chunks) => {
        for (const chunk of chunks) {
          if (seen.has(chunk.id)) {
            throw new Error(
              `Chunk id ${JSON.stringify(chunk.id)} appears twice in the chunks of ${describe(key)}; ids must be unique within an index.`,
            );
          }
          seen.add(chunk.id);
        }
        count += chunks.length;
        if (session) {
          await session.add(chunks.map(toPacked)).catch(failed);
          return;
        }
        for (let i = 0; i < chunks.length; i++) {
          if (i > 0 && i % INSERT_SLICE === 0) await yieldToEventLoop();
          here?.add(toPacked(chunks[i]!));
        }
        await yieldToEventLoop();
      },
      finish: async () => {
        const data = session ? await session.finish().catch(failed) : here?.finish();
        seen.clear();
        if (data === undefined || superseded()) return;
        this.loaded.install(id, new PackedIndex(data, this.tokenizer));
        this.logger?.debug('search index built', {
          library: describe(key),
          chunks: count,
          bytes: this.loaded.get(id)?.bytes,
          durationMs: Math.round(performance.now() - started),
        });
      },
      cancel: () => {
        seen.clear();
        session?.cancel();
        here = undefined;
      },
      // fed by a chunking worker straight into the build worker (the chunks never reach this thread)
      channel: async () => {
        if (session === undefined) return undefined;
        const channel = session.channel();
        return { port: channel.port, taken: (seq) => channel.taken(seq).catch(failed) };
      },
    };
  }

  async search(key: IndexKey, query: string, options: SearchOptions = {}): Promise<SearchResults> {
    const entry = this.loaded.touch(keyOf(key));
    const limit = Math.max(0, Math.floor(options.limit ?? DEFAULT_LIMIT));
    const tolerance = Math.max(0, Math.floor(options.tolerance ?? this.options.tolerance));
    if (entry === undefined || query.trim() === '') return { hits: [], total: 0 };
    const before = entry.memoryBytes;
    const results = entry.search(query, { boost: this.options.boost, tolerance, limit, synonyms: this.synonyms });
    // a misspelt query loads the index's typo vocabulary: it counts from then on
    if (entry.memoryBytes !== before) {
      this.loaded.resized(keyOf(key), entry.memoryBytes - before);
    }
    return results;
  }

  async has(key: IndexKey): Promise<boolean> {
    return this.loaded.has(keyOf(key));
  }

  async drop(key: IndexKey): Promise<void> {
    const id = keyOf(key);
    this.loaded.bump(id);
    this.loaded.remove(id);
  }

  async snapshot(key: IndexKey): Promise<Uint8Array | null> {
    const entry = this.loaded.get(keyOf(key));
    if (entry === undefined) return null;
    return encodeSnapshot(entry.data, this.tokenizer.fingerprint);
  }

  async restore(key: IndexKey, snapshot: Uint8Array): Promise<boolean> {
    const id = keyOf(key);
    const generation = this.loaded.generation(id);
    const decoded = decodeSnapshot(snapshot, this.tokenizer.fingerprint);
    if (!decoded.ok) {
      this.logger?.debug('search snapshot refused', { library: describe(key), reason: decoded.reason });
      return false;
    }
    if (!this.loaded.isCurrent(id, generation)) return false;
    this.loaded.bump(id);
    this.loaded.install(id, new PackedIndex(decoded.data, this.tokenizer));
    return true;
  }

  /** Keys of the loaded indexes, least recently used first (for health reports and tests). */
  loadedKeys(): IndexKey[] {
    return [...this.loaded.keys()].map((id) => {
      const [libraryId, version] = JSON.parse(id) as [string, string];
      return { libraryId, version };
    });
  }

  /** Bytes held by the loaded indexes. */
  get memoryBytes(): number {
    return this.loaded.totalBytes;
  }

  /** Stops the build worker, if one was started (builds under way fail). */
  async close(): Promise<void> {
    await this.builder?.close();
  }

  private async buildHere(
    chunks: readonly IndexableChunk[],
    superseded: () => boolean,
  ): Promise<PackedIndexData | undefined> {
    const builder = new PackedIndexBuilder(this.options.language);
    for (let i = 0; i < chunks.length; i++) {
      if (i > 0 && i % INSERT_SLICE === 0) {
        await yieldToEventLoop();
        if (superseded()) return undefined;
      }
      builder.add(toPacked(chunks[i]!));
    }
    return builder.finish();
  }
}
