import { type LibraryDescriptor, type LibrarySettingsDeclaration, z } from '@pro-context/kernel';

/**
 * site-crawl's settings of one library, in its `sources.site` bag:
 * `libraries: [{ id: acme, name: Acme, docsUrl: …, sources: { site: { maxPages: 50 } } }]`.
 */
export const siteLibrarySettingsSchema = z.strictObject({
  enabled: z.boolean().optional().describe("Crawl this library's docs site (default: the plugin's `enabled`)."),
  url: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Where to start the crawl, when it is not the docsUrl; pages are read under its folder.'),
  maxPages: z.number().int().positive().max(5_000).optional().describe('Cap of pages for this library.'),
  maxDepth: z.number().int().min(0).max(20).optional().describe('Cap of link depth for this library.'),
});

/** A library's site-crawl settings. */
export type SiteLibrarySettings = z.output<typeof siteLibrarySettingsSchema>;

/** What the adapter declares: its bag key and schema. */
export const siteLibrarySettings: LibrarySettingsDeclaration = {
  key: 'site',
  schema: siteLibrarySettingsSchema,
};

/** A library's `sources.site` bag (validated by the engine when the library became known). */
export function siteSettingsOf(library: LibraryDescriptor): SiteLibrarySettings {
  return (library.sources?.site ?? {}) as SiteLibrarySettings;
}

/** Where a library's crawl starts: `sources.site.url`, else its `docsUrl`. */
export function startUrlOf(library: LibraryDescriptor): string | undefined {
  return siteSettingsOf(library).url ?? library.docsUrl;
}
