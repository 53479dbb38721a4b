import { definePlugin, sourceAdapterToken } from '@pro-context/kernel';
import { SiteCrawlSourceAdapter } from './adapter.js';
import {
  type SiteCrawlPluginOptions,
  type SiteCrawlPluginOptionsInput,
  siteCrawlOptionsToken,
  siteCrawlPluginOptionsSchema,
} from './options.js';
import { siteLibrarySettings } from './settings.js';

/**
 * The site-crawl plugin: binds {@link SiteCrawlSourceAdapter} as a source adapter (id `site`, priority 25: after
 * llms.txt and GitHub). Options come from the `sources.site` config section or `kernel.use(siteCrawlPlugin, options)`.
 */
export const siteCrawlPlugin = definePlugin<SiteCrawlPluginOptions, SiteCrawlPluginOptionsInput>({
  id: 'site-crawl',
  version: '0.1.0',
  description: 'Documentation from websites without llms.txt, by a bounded crawl',
  kernel: '^0.1.0',
  configKey: 'sources.site',
  optionsSchema: siteCrawlPluginOptionsSchema,
  librarySettings: siteLibrarySettings,
  register(context, options) {
    // Disabled: bind nothing, so the adapter does not even appear among the sources.
    if (!options.enabled) return;
    context.bindValue(siteCrawlOptionsToken, options);
    context.bindClass(sourceAdapterToken, SiteCrawlSourceAdapter);
  },
});

export default siteCrawlPlugin;
