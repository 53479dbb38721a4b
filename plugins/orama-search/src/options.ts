import { z } from '@pro-context/kernel';

const weight = (fallback: number, what: string) =>
  z.number().positive().max(100).default(fallback).describe(`Weight of a match in ${what}.`);

/**
 * The options of the ranking itself — typo tolerance, field weights, language — which every search backend that
 * ranks like this one takes (`packed-search` builds its schema on them).
 */
export const rankingOptionsShape = {
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
  language: z.enum(['english']).default('english').describe('Language of the stemmer and stop words.'),
};

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
