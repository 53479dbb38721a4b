import type {
  IndexableChunk,
  IndexBuild,
  IndexKey,
  SearchBackend,
  SearchOptions,
  SearchResults,
} from '@pro-context/kernel';

/** A search backend that may own resources to release (a worker thread). */
export type ClosableSearchBackend = SearchBackend & { close?(): Promise<void> };

/**
 * A `SearchBackend` whose implementation is loaded on first use rather than at start-up (a stdio server should
 * answer `tools/list` before it needs a search index): `load` runs once, on the first call that needs an index.
 * Until then `has` is false, `snapshot` null and `drop` a no-op. `indexer` is offered when the loaded backend
 * has one (give `streaming: true`).
 */
export class LazySearchBackend<B extends ClosableSearchBackend = ClosableSearchBackend> implements SearchBackend {
  private backend: Promise<B> | undefined;
  /** The streaming indexer, when the backend has one. */
  readonly indexer?: (key: IndexKey) => IndexBuild;

  constructor(
    readonly id: string,
    private readonly loader: () => Promise<B>,
    options: { streaming?: boolean } = {},
  ) {
    if (options.streaming) this.indexer = (key) => this.streamingIndexer(key);
  }

  /** The backend, loaded on the first call. */
  load(): Promise<B> {
    this.backend ??= this.loader();
    return this.backend;
  }

  async index(key: IndexKey, chunks: IndexableChunk[]): Promise<void> {
    return (await this.load()).index(key, chunks);
  }
  async search(key: IndexKey, query: string, options?: SearchOptions): Promise<SearchResults> {
    return (await this.load()).search(key, query, options);
  }
  async has(key: IndexKey): Promise<boolean> {
    return this.backend ? (await this.backend).has(key) : false;
  }
  async drop(key: IndexKey): Promise<void> {
    if (this.backend) await (await this.backend).drop(key);
  }
  async snapshot(key: IndexKey): Promise<Uint8Array | null> {
    return this.backend ? (await this.backend).snapshot(key) : null;
  }
  async restore(key: IndexKey, snapshot: Uint8Array): Promise<boolean> {
    return (await this.load()).restore(key, snapshot);
  }
  /** Releases the loaded backend's resources, if it was loaded. */
  async close(): Promise<void> {
    if (this.backend) await (await this.backend).close?.();
  }

  private streamingIndexer(key: IndexKey): IndexBuild {
    const build = this.load().then((backend) => {
      if (!backend.indexer) throw new Error(`${this.id} has no streaming indexer.`);
      return backend.indexer(key);
    });
    build.catch(() => undefined);
    return {
      add: async (chunks) => (await build).add(chunks),
      finish: async () => (await build).finish(),
      cancel: () => {
        void build.then((b) => b.cancel()).catch(() => undefined);
      },
      channel: async () => (await build).channel?.(),
    };
  }
}
