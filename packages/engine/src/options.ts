import { z } from '@pro-context/kernel';

/** Per-page limits of page conversion (`engine.pages`): see `PageLimits` of @pro-context/markdown. */
export const pageLimitsSchema = z.strictObject({
  maxBytes: z
    .number()
    .int()
    .min(10_000)
    .max(200_000_000)
    .default(5_000_000)
    .describe(
      'Largest page converted or indexed, in characters (about bytes): a larger page is refused before parsing (PAGE_TOO_LARGE) and left out of its library with a note.',
    ),
  maxLineLength: z
    .number()
    .int()
    .min(1_000)
    .max(100_000_000)
    .default(100_000)
    .describe(
      'Longest line of a markdown or text page (or of a converted HTML page), characters: a page with a longer one is refused (PAGE_TOO_COMPLEX) and left out of its library.',
    ),
  maxDepth: z
    .number()
    .int()
    .min(16)
    .max(10_000)
    .default(256)
    .describe(
      'Deepest nesting of HTML elements in a page (read by a linear pre-scan of its tags, before parsing): a deeper page is refused (PAGE_TOO_COMPLEX).',
    ),
  maxNodes: z
    .number()
    .int()
    .min(1_000)
    .max(10_000_000)
    .default(30_000)
    .describe(
      'Most HTML elements in a page (tags inside <pre> not counted): a page with more is refused before parsing (PAGE_TOO_COMPLEX). Converting costs some kilobytes per element.',
    ),
  timeBudgetMs: z
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(10_000)
    .describe(
      "Time one page's conversion may take in the page worker, ms: past it the worker is stopped, the page refused (PAGE_TOO_COMPLEX) and a fresh worker takes the next page.",
    ),
});

/** Options of the docs engine (config section `engine`). */
export const engineOptionsSchema = z.strictObject({
  searchWaitMs: z
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(1500)
    .describe(
      'How long search-docs waits for a first index build before answering INDEXING_IN_PROGRESS (the build goes on).',
    ),
  maxChunkTokens: z
    .number()
    .int()
    .min(100)
    .max(4000)
    .default(800)
    .describe('Largest chunk indexed, in estimated tokens.'),
  relatedPages: z.number().int().min(0).max(20).default(5).describe('How many relatedPages get-docs returns.'),
  tocLimit: z
    .number()
    .int()
    .min(10)
    .max(5000)
    .default(1000)
    .describe('Most TOC entries in a resolve-library answer (the full TOC stays in the library://…/toc resource).'),
  tocMaxTokens: z
    .number()
    .int()
    .min(1000)
    .max(100_000)
    .default(10_000)
    .describe(
      'Most estimated tokens of TOC entries in a resolve-library answer: the whole TOC of a typical llms.txt (seed D2: under 10K tokens), a Mintlify-size list cut with tocTruncated.',
    ),
  versionsTtlSeconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .default(3600)
    .describe(
      "How long a package registry's version list is reused before asking the registry again, seconds (an unreachable registry is answered from the last list, marked stale).",
    ),
  interactiveTimeoutMs: z
    .number()
    .int()
    .min(1000)
    .max(300_000)
    .default(15_000)
    .describe(
      'How long a tool call waits on documentation sources, ms: past it resolve-library answers without a TOC and says the source timed out, get-docs and read-page answer SOURCE_UNAVAILABLE (timed out). A fetch under way goes on in the background, so the next call can find it done.',
    ),
  preResolveDetected: z
    .boolean()
    .default(true)
    .describe(
      "Resolve the project's detected libraries in the background as they arrive (their TOCs become resources). The CLI's one-shot commands turn it off: they answer one call and touch the network only for it.",
    ),
  maxLoadedLibraries: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(16)
    .describe(
      'Library versions kept loaded in memory with their search index (others are restored from the cache on demand, in milliseconds).',
    ),
  maxLoadedMB: z
    .number()
    .min(1)
    .max(65_536)
    .default(32)
    .describe(
      "Memory the loaded libraries' chunks may take, MB (approximate); the least recently used library versions leave memory first and are restored from the cache on demand.",
    ),
  chunkWorkers: z
    .number()
    .int()
    .min(0)
    .max(16)
    .optional()
    .describe(
      'Worker threads that convert and chunk fetched pages, so that a library being indexed never delays answers about the others (started on first use). Default: the cores but one, 1 to 4; 0 chunks on the main thread.',
    ),
  pages: pageLimitsSchema
    .prefault({})
    .describe(
      'Per-page limits of page conversion (HTML to markdown, cleanup, chunking): a page over one is left out of its library with a note naming the page, the limit and this setting, and read-page answers PAGE_TOO_LARGE or PAGE_TOO_COMPLEX.',
    ),
});

/** Engine options after validation. */
export type EngineOptions = z.output<typeof engineOptionsSchema>;
