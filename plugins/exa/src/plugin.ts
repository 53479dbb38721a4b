import { defineRemoteToolPlugin } from '@pro-context/plugin-kit';
import { exaErrors } from './exa.js';
import {
  DEFAULT_EXA_URL,
  EXA_API_KEY_ENV,
  EXA_URL_ENV,
  type ExaPluginOptions,
  type ExaPluginOptionsInput,
  exaOptionsToken,
  exaPluginOptionsSchema,
} from './options.js';
import { EXA_CACHE_NAMESPACE, ExaTools } from './tools.js';

type ValidatedOptions = Omit<ExaPluginOptions, 'url' | 'retry'> & { url?: string };

/**
 * The exa plugin: the `web_search` and `find_similar_content` tools over Exa's REST API. Options come from
 * the `exa` config section; `PRO_CONTEXT_EXA_URL` sets `exa.url` and `EXA_API_KEY` sets `exa.apiKey` (a
 * secret: never printed or logged). Without a key the tools are still listed and answer that it is missing.
 * Built on `@pro-context/plugin-kit`'s remote-tool scaffolding (the missing-key rule: a blank key is no key).
 */
export const exaPlugin = defineRemoteToolPlugin<ValidatedOptions, ExaPluginOptionsInput, ExaPluginOptions>({
  id: 'exa',
  version: '0.1.0',
  description: 'Web search with Exa (web_search, find_similar_content)',
  configKey: 'exa',
  optionsSchema: exaPluginOptionsSchema,
  urlVariable: EXA_URL_ENV,
  keyVariable: EXA_API_KEY_ENV,
  defaultUrl: DEFAULT_EXA_URL,
  errors: exaErrors.errors,
  optionsToken: exaOptionsToken,
  // the plugin's own `retries` (seed 004: a 5 s call with retries)
  retries: (options) => options.retries,
  cacheNamespace: EXA_CACHE_NAMESPACE,
  missingKey: () => exaErrors.create('EXA_KEY_MISSING', {}),
  tools: ExaTools,
});

export default exaPlugin;
