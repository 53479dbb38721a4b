import { z } from '@pro-context/kernel';
// the options entry, not the package's: that one is loaded by the index worker, which must not load the kernel's zod
import { rankingOptionsShape } from '@pro-context/search-kit/options';

/**
 * Options of the `packed-search` plugin: the `search` section of `pro-context.config.yaml` (the options of
 * `orama-search`, plus `maxMemoryMB` and `worker`). Strict, so a misspelt key is an error rather than a
 * silent default.
 */
export const packedSearchPluginOptionsSchema = z.strictObject({
  tolerance: rankingOptionsShape.tolerance,
  boost: rankingOptionsShape.boost,
  maxMemoryMB: z
    .number()
    .positive()
    .max(1_000_000)
    .default(48)
    .describe(
      'Memory the loaded search indexes may hold, in MB; beyond it the least recently used ones are dropped and ' +
        'restored from their cached snapshots when next searched. 48 MB holds about 64 MB of markdown.',
    ),
  maxLoadedIndexes: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(256)
    .describe('Library versions whose index stays in memory at most (maxMemoryMB is the bound that matters).'),
  language: rankingOptionsShape.language,
  worker: z
    .boolean()
    .default(true)
    .describe(
      'Build indexes in a worker thread, so searches of other libraries are answered meanwhile. false builds ' +
        'on the main thread, in slices.',
    ),
  workers: z
    .number()
    .int()
    .min(1)
    .max(16)
    .default(1)
    .describe(
      'Worker threads building indexes (at most the cores). With more than one, a large library is split ' +
        'between them and the parts merged; on a busy 2-core machine one was as fast, for less CPU and memory.',
    ),
});

/** Validated options of the `packed-search` plugin (defaults applied). */
export type PackedSearchPluginOptions = z.output<typeof packedSearchPluginOptionsSchema>;

/** Options as a user writes them (every key optional). */
export type PackedSearchPluginInput = z.input<typeof packedSearchPluginOptionsSchema>;
