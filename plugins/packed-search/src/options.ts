import { z } from '@pro-context/kernel';

const weight = (fallback: number, what: string) =>
  z.number().positive().max(100).default(fallback).describe(`Weight of a match in ${what}.`);

/**
 * Options of the `packed-search` plugin: the `search` section of `pro-context.config.yaml` (the options of
 * `orama-search`, plus `maxMemoryMB` and `worker`). Strict, so a misspelt key is an error rather than a
 * silent default.
 */
export const packedSearchPluginOptionsSchema = z.strictObject({
  tolerance: z
    .number()
    .int()
    .min(0)
    .max(2)
    .default(1)
    .describe(
      'Typo tolerance: edits allowed in a query word the index does not contain (a swap of two letters is one ' +
        'edit). Words under 5 letters never get one, two edits need 9 letters or more. 0 turns typos off.',
    ),
  boost: z
    .strictObject({
      title: weight(1, 'the page title'),
      section: weight(1, "the chunk's own heading"),
      headings: weight(1, "the headings between the page title and the chunk's own heading"),
      body: weight(1, 'the chunk text'),
    })
    .prefault({})
    .describe(
      'Field weights of the BM25 part of the score (0.3 of it; the rest is the share of query words a chunk ' +
        'contains, weighted by rarity, wherever they are). Equal by default: measured, heading boosts ranked worse.',
    ),
  maxMemoryMB: z
    .number()
    .positive()
    .max(1_000_000)
    .default(128)
    .describe(
      'Memory the loaded search indexes may hold, in MB; beyond it the least recently used ones are dropped and ' +
        'restored from their cached snapshots when next searched. 128 MB holds about 170 MB of markdown.',
    ),
  maxLoadedIndexes: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(256)
    .describe('Library versions whose index stays in memory at most (maxMemoryMB is the bound that matters).'),
  language: z.enum(['english']).default('english').describe('Language of the stemmer and stop words.'),
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
