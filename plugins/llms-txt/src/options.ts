import { createToken, z } from '@pro-context/kernel';

/**
 * Options of the llms-txt plugin (config section `sources.llmsTxt`). A strict object: a misspelt key is an
 * error, not a silent no-op.
 */
export const llmsTxtPluginOptionsSchema = z.strictObject({
  enabled: z.boolean().default(true).describe('Use llms.txt files as a documentation source.'),
  preferFullTxt: z
    .boolean()
    .default(false)
    .describe(
      'Use llms-full.txt whenever the site has one (within maxFullTxtMB). When false, it is used only within maxFullTxtTokens; otherwise the pages listed in llms.txt are fetched one by one.',
    ),
  maxFullTxtMB: z
    .number()
    .int()
    .positive()
    .max(4096)
    .default(256)
    .describe(
      'Largest llms-full.txt read, in MB. It is read as it downloads and its pages go to the index in batches (never held whole), so http.maxBodyBytes, the cap of bodies held whole, does not apply to it.',
    ),
  maxFullTxtTokens: z
    .number()
    .int()
    .positive()
    .default(100_000)
    .describe('Largest llms-full.txt (estimated tokens) used for indexing when preferFullTxt is false.'),
  maxPages: z
    .number()
    .int()
    .positive()
    .max(20_000)
    .default(500)
    .describe('Most pages fetched one by one for one library version; pages of the Optional section go last.'),
  concurrency: z
    .number()
    .int()
    .min(1)
    .max(64)
    .default(8)
    .describe('Pages fetched at the same time when an llms.txt lists pages rather than shipping them.'),
  pageTimeoutSeconds: z
    .number()
    .min(1)
    .max(600)
    .default(10)
    .describe(
      'Longest one listed page may take to arrive, markdown twin included, seconds: a page that has not arrived by then (a host that accepts and never answers, a body that trickles) is skipped, so the library indexes without it. Keep it under engine.interactiveTimeoutMs (15 s), the time a tool call waits without a page arriving.',
    ),
  discoverPages: z
    .boolean()
    .default(true)
    .describe(
      "Also index the site's pages that its llms.txt does not list, found in the sitemap.xml beside it (within maxPages, after the listed ones).",
    ),
  reuseTocSeconds: z
    .number()
    .int()
    .min(0)
    .max(86_400)
    .default(600)
    .describe(
      "Seconds a fetched llms.txt (or, on a site without one, llms-full.txt) is reused for the same library version, so get-docs right after resolve-library does not download it again. A library's ttlHours caps it, a freshness check that finds it changed ends it, and 0 turns reuse off.",
    ),
  preferMarkdownVariant: z
    .boolean()
    .default(true)
    .describe(
      'Try the markdown twin of a page listed in a TOC first ({url}.md, or index.md for a folder URL, as Mintlify and the llms.txt proposal publish them), then the URL itself.',
    ),
});

/** Options of the llms-txt plugin after validation and defaults. */
export type LlmsTxtPluginOptions = z.output<typeof llmsTxtPluginOptionsSchema>;

/** Options of the llms-txt plugin as a user writes them (every key optional). */
export type LlmsTxtPluginOptionsInput = z.input<typeof llmsTxtPluginOptionsSchema>;

/** The validated options, bound by the plugin for {@link LlmsTxtSourceAdapter}'s constructor. */
export const llmsTxtOptionsToken = createToken<LlmsTxtPluginOptions>('llms-txt.options');
