import { createRequire } from 'node:module';
import {
  definePlugin,
  type IndexableChunk,
  type IndexKey,
  type Logger,
  type PluginDefinition,
  type SearchBackend,
  type SearchOptions,
  type SearchResults,
  searchBackendToken,
} from '@pro-context/kernel';
import type { OramaSearchBackend } from './backend.js';
import {
  type OramaSearchPluginInput,
  type OramaSearchPluginOptions,
  oramaSearchPluginOptionsSchema,
} from './options.js';

/** The ranking options (tolerance, boost, language) every backend ranking like this one takes, for its schema. */
export { rankingOptionsShape } from './options.js';

// src/ and dist/ are both one level below the package root, so this works from either.
const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

/**
 * The backend, with Orama loaded on first use rather than at start-up (a stdio server should answer
 * `tools/list` before it needs a search index).
 */
class LazyOramaSearchBackend implements SearchBackend {
  readonly id = 'orama-search';
  private backend: Promise<OramaSearchBackend> | undefined;

  constructor(
    private readonly options: OramaSearchPluginOptions,
    private readonly logger: Logger,
  ) {}

  private load(): Promise<OramaSearchBackend> {
    this.backend ??= import('./backend.js').then(
      ({ OramaSearchBackend }) => new OramaSearchBackend(this.options, this.logger),
    );
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
}

/**
 * Provides `searchBackendToken` with an {@link OramaSearchBackend}, configured by the `search` config
 * section. Indexes live in memory only; the engine persists them through their snapshots.
 */
export const oramaSearchPlugin: PluginDefinition<OramaSearchPluginOptions, OramaSearchPluginInput> = definePlugin<
  OramaSearchPluginOptions,
  OramaSearchPluginInput
>({
  id: 'orama-search',
  version: pkg.version,
  description: 'SearchBackend on Orama BM25: one index per library version, code-aware tokenizer, typo tolerance.',
  kernel: '^0.1.0',
  provides: [searchBackendToken],
  configKey: 'search',
  optionsSchema: oramaSearchPluginOptionsSchema,
  register(context, options) {
    const logger = context.logger;
    context.bindFactory(searchBackendToken, () => new LazyOramaSearchBackend(options, logger));
  },
});

export default oramaSearchPlugin;
