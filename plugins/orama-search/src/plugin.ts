import { createRequire } from 'node:module';
import { definePlugin, type PluginDefinition, searchBackendToken } from '@pro-context/kernel';
import { OramaSearchBackend } from './backend.js';
import {
  type OramaSearchPluginInput,
  type OramaSearchPluginOptions,
  oramaSearchPluginOptionsSchema,
} from './options.js';

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
  configKey: 'search',
  optionsSchema: oramaSearchPluginOptionsSchema,
  register(context, options) {
    const logger = context.logger;
    context.bindFactory(searchBackendToken, () => new OramaSearchBackend(options, logger));
  },
});

export default oramaSearchPlugin;
