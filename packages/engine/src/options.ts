import { z } from '@pro-context/kernel';

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
});

/** Engine options after validation. */
export type EngineOptions = z.output<typeof engineOptionsSchema>;
