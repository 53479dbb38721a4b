import { createRequire } from 'node:module';
import { definePlugin, type PluginDefinition, searchBackendToken } from '@pro-context/kernel';
import { LazySearchBackend } from '@pro-context/search-kit';
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
    // Orama loaded on first use rather than at start-up (a stdio server answers `tools/list` before it needs an index)
    context.bindFactory(
      searchBackendToken,
      () =>
        new LazySearchBackend('orama-search', () =>
          import('./backend.js').then(({ OramaSearchBackend }) => new OramaSearchBackend(options, logger)),
        ),
    );
  },
});

export default oramaSearchPlugin;
