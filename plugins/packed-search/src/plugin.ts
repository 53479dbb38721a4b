import { createRequire } from 'node:module';
import { definePlugin, type PluginDefinition, searchBackendToken } from '@pro-context/kernel';
import { LazySearchBackend } from '@pro-context/search-kit';
import { packedSearchErrors } from './errors.js';
import {
  type PackedSearchPluginInput,
  type PackedSearchPluginOptions,
  packedSearchPluginOptionsSchema,
} from './options.js';

// src/ and dist/ are both one level below the package root, so this works from either.
const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

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
    // loaded on first use rather than at start-up (a stdio server answers `tools/list` before it needs an index);
    // its worker thread starts with the first build
    context.bindFactory(
      searchBackendToken,
      () =>
        new LazySearchBackend(
          'packed-search',
          () => import('./backend.js').then(({ PackedSearchBackend }) => new PackedSearchBackend(options, logger)),
          { streaming: true },
        ),
    );
  },
  async stop(context) {
    // the worker is unreferenced (it never holds the process open); stopping the kernel still ends it
    const backend = context.resolve(searchBackendToken);
    if (backend instanceof LazySearchBackend) await backend.close();
  },
});

export default packedSearchPlugin;
