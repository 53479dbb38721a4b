/**
 * @pro-context/plugin-site-crawl: a SourceAdapter for documentation websites that publish no llms.txt — a
 * bounded crawl under the docs URL (sitemap first, else links), each page's main content as markdown.
 *
 * Every export here is public API.
 */
export { SiteCrawlSourceAdapter } from './adapter.js';
export type { SiteCrawlPluginOptions, SiteCrawlPluginOptionsInput } from './options.js';
export { siteCrawlOptionsToken, siteCrawlPluginOptionsSchema } from './options.js';
export { default, siteCrawlPlugin } from './plugin.js';
export type { SiteLibrarySettings } from './settings.js';
export { siteLibrarySettings, siteLibrarySettingsSchema, siteSettingsOf } from './settings.js';
export type { CrawlScope } from './urls.js';
export { markdownTwins, parseSitemap, scopeOf } from './urls.js';
