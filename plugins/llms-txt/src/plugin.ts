import { definePlugin, sourceAdapterToken } from '@pro-context/kernel';
import { LlmsTxtSourceAdapter } from './adapter.js';
import {
  type LlmsTxtPluginOptions,
  type LlmsTxtPluginOptionsInput,
  llmsTxtOptionsToken,
  llmsTxtPluginOptionsSchema,
} from './options.js';
import { llmsTxtLibrarySettings } from './settings.js';

/**
 * The llms-txt plugin: binds {@link LlmsTxtSourceAdapter} as a source adapter (priority 10, tried before
 * GitHub). Options come from the `sources.llmsTxt` config section or `kernel.use(llmsTxtPlugin, options)`.
 */
export const llmsTxtPlugin = definePlugin<LlmsTxtPluginOptions, LlmsTxtPluginOptionsInput>({
  id: 'llms-txt',
  version: '0.1.0',
  description: 'Documentation from llms.txt and llms-full.txt files',
  kernel: '^0.1.0',
  configKey: 'sources.llmsTxt',
  optionsSchema: llmsTxtPluginOptionsSchema,
  librarySettings: llmsTxtLibrarySettings,
  register(context, options) {
    // Disabled: bind nothing, so the adapter does not even appear among the sources.
    if (!options.enabled) return;
    context.bindValue(llmsTxtOptionsToken, options);
    context.bindClass(sourceAdapterToken, LlmsTxtSourceAdapter);
  },
});

export default llmsTxtPlugin;
