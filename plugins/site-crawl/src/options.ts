import { createToken, z } from '@pro-context/kernel';

/**
 * Options of the site-crawl plugin (config section `sources.site`). A strict object: a misspelt key is an
 * error, not a silent no-op. Every cap bounds one crawl of one library version.
 */
export const siteCrawlPluginOptionsSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe('Crawl documentation websites that publish no llms.txt (tried after llms.txt and GitHub).'),
  maxPages: z
    .number()
    .int()
    .positive()
    .max(5_000)
    .default(300)
    .describe('Most pages read in one crawl of a library (its sitemap order, else breadth first).'),
  maxDepth: z
    .number()
    .int()
    .min(0)
    .max(20)
    .default(4)
    .describe('Most links followed from the docs URL when the site has no sitemap (0: the docs URL only).'),
  maxBytes: z
    .number()
    .int()
    .positive()
    .default(50 * 1024 * 1024)
    .describe('Most bytes downloaded in one crawl (pages, markdown twins, sitemaps); the crawl stops there.'),
  concurrency: z.number().int().min(1).max(16).default(4).describe('Pages fetched at the same time.'),
  pageTimeoutSeconds: z
    .number()
    .min(1)
    .max(600)
    .default(10)
    .describe(
      "Longest one page may take to arrive, its markdown twin's attempts included, seconds: a page not arrived by then (a host that accepts and never answers, a body that trickles) is skipped, so the crawl ends without it. Keep it under engine.interactiveTimeoutMs (15 s), the time a tool call waits without a page arriving.",
    ),
  useSitemap: z
    .boolean()
    .default(true)
    .describe("Read the site's sitemap.xml (and sitemap indexes, and those robots.txt names) before following links."),
  respectRobotsTxt: z
    .boolean()
    .default(true)
    .describe("Honour the site's robots.txt: disallowed pages are not fetched."),
  preferMarkdownTwins: z
    .boolean()
    .default(true)
    .describe(
      "Try each page's markdown twin first ({url}.md, or index.md for a folder URL) and use it when it is markdown.",
    ),
  reuseSeconds: z
    .number()
    .int()
    .min(0)
    .max(86_400)
    .default(600)
    .describe(
      'Seconds a crawl is reused for the same library, so get-docs right after resolve-library does not crawl again (0: off).',
    ),
});

/** Options of the site-crawl plugin after validation and defaults. */
export type SiteCrawlPluginOptions = z.output<typeof siteCrawlPluginOptionsSchema>;

/** Options of the site-crawl plugin as a user writes them (every key optional). */
export type SiteCrawlPluginOptionsInput = z.input<typeof siteCrawlPluginOptionsSchema>;

/** The validated options, bound by the plugin for the adapter's constructor. */
export const siteCrawlOptionsToken = createToken<SiteCrawlPluginOptions>('site-crawl.options');
