import { z } from '@pro-context/kernel';

const weight = (fallback: number, what: string) =>
  z.number().positive().max(100).default(fallback).describe(`BM25 weight of a match in ${what}.`);

/**
 * Options of the `sqlite-search` plugin: the `search` section of `pro-context.config.yaml` (it replaces
 * `orama-search`, which reads the same section). Strict, so a misspelt key is an error.
 */
export const sqliteSearchPluginOptionsSchema = z.strictObject({
  directory: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Directory of search.db (created if missing; "~" is your home). Defaults to cache.directory, else ' +
        '~/.pro-context/cache. ":memory:" keeps the indexes in memory (tests).',
    ),
  boost: z
    .strictObject({
      title: weight(1, 'the page title'),
      headings: weight(1, "the chunk's heading path"),
      body: weight(1, 'the chunk text'),
    })
    .prefault({})
    .describe('Column weights of bm25().'),
  rank: z
    .enum(['coverage', 'bm25'])
    .default('coverage')
    .describe(
      "Ranking: 'coverage' reorders the best bm25() candidates by the rarity-weighted share of the query's " +
        "words they contain (as orama-search ranks; one posting lookup per query word); 'bm25' by bm25() alone.",
    ),
  cacheSizeMB: z
    .number()
    .positive()
    .max(4096)
    .default(16)
    .describe("SQLite's page cache, MB: the only part of the indexes held in memory."),
  busyTimeoutMs: z
    .number()
    .int()
    .min(0)
    .default(5000)
    .describe('How long to wait for another process writing the database, ms.'),
});

/** Validated options of the `sqlite-search` plugin (defaults applied). */
export type SqliteSearchPluginOptions = z.output<typeof sqliteSearchPluginOptionsSchema>;

/** Options as a user writes them (every key optional). */
export type SqliteSearchPluginInput = z.input<typeof sqliteSearchPluginOptionsSchema>;
