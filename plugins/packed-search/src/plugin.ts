import { createRequire } from 'node:module';
import {
  definePlugin,
  type IndexableChunk,
  type IndexBuild,
  type IndexKey,
  type Logger,
  type PluginDefinition,
  type SearchBackend,
  type SearchOptions,
  type SearchResults,
  searchBackendToken,
} from '@pro-context/kernel';
import type { PackedSearchBackend } from './backend.js';
import { packedSearchErrors } from './errors.js';
import {
  type PackedSearchPluginInput,
  type PackedSearchPluginOptions,
  packedSearchPluginOptionsSchema,
} from './options.js';

// src/ and dist/ are both one level below the package root, so this works from either.
const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

/**
 * The backend, loaded on first use rather than at start-up (a stdio server should answer `tools/list`
 * before it needs a search index); its worker thread starts with the first build.
 */
class LazyPackedSearchBackend implements SearchBackend {
  readonly id = 'packed-search';
  private backend: Promise<PackedSearchBackend> | undefined;

  constructor(
    private readonly options: PackedSearchPluginOptions,
    private readonly logger: Logger,
  ) {}

  private load(): Promise<PackedSearchBackend> {
    this.backend ??= import('./backend.js').then(
      ({ PackedSearchBackend }) => new PackedSearchBackend(this.options, this.logger),
    );
    return this.backend;
  }

  async index(key: IndexKey, chunks: IndexableChunk[]): Promise<void> {
    return (await this.load()).index(key, chunks);
  }
  indexer(key: IndexKey): IndexBuild {
    const build = this.load().then((backend) => backend.indexer(key));
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
  async close(): Promise<void> {
    if (this.backend) await (await this.backend).close();
  }
}

/**
 * Provides `searchBackendToken` with a {@link PackedSearchBackend}, configured by the `search` config
 * section. Indexes live in memory within `maxMemoryMB`; the engine persists them through their snapshots.
 */
export const packedSearchPlugin: PluginDefinition<PackedSearchPluginOptions, PackedSearchPluginInput> = definePlugin<
  PackedSearchPluginOptions,
  PackedSearchPluginInput
>({
  id: 'packed-search',
  version: pkg.version,
  description:
    'SearchBackend on a packed inverted index: built in a worker thread, memory-bounded, ranks like orama-search.',
  kernel: '^0.1.0',
  provides: [searchBackendToken],
  configKey: 'search',
  optionsSchema: packedSearchPluginOptionsSchema,
  errors: packedSearchErrors.errors,
  register(context, options) {
    const logger = context.logger;
    context.bindFactory(searchBackendToken, () => new LazyPackedSearchBackend(options, logger));
  },
  async stop(context) {
    // the worker is unreferenced (it never holds the process open); stopping the kernel still ends it
    const backend = context.resolve(searchBackendToken);
    if (backend instanceof LazyPackedSearchBackend) await backend.close();
  },
});

export default packedSearchPlugin;
