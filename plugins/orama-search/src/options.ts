import { z } from '@pro-context/kernel';
import { rankingOptionsShape } from '@pro-context/search-kit/options';

// the options of the ranking itself, shared with packed-search (re-exported for those who import them from here)
export { rankingOptionsShape };

/**
 * Options of the `orama-search` plugin: the `search` section of `pro-context.config.yaml`.
 * Strict, so a misspelt key is an error rather than a silent default.
 */
export const oramaSearchPluginOptionsSchema = z.strictObject({
  tolerance: rankingOptionsShape.tolerance,
  boost: rankingOptionsShape.boost,
  maxLoadedIndexes: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(16)
    .describe(
      'Library versions whose index stays in memory; beyond this the least recently used one is dropped and ' +
        'restored from its cached snapshot when next searched.',
    ),
  language: rankingOptionsShape.language,
});

/** Validated options of the `orama-search` plugin (defaults applied). */
export type OramaSearchPluginOptions = z.output<typeof oramaSearchPluginOptionsSchema>;

/** Options as a user writes them (every key optional). */
export type OramaSearchPluginInput = z.input<typeof oramaSearchPluginOptionsSchema>;
