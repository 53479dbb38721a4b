import { definePlugin, toolPluginToken } from '@pro-context/kernel';
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
import { ExaTools } from './tools.js';

/** The options with a blank key (whitespace only, as an empty `export EXA_API_KEY=" "` leaves it) removed: no key. */
function withoutBlankKey(options: ValidatedOptions): ValidatedOptions {
  const { apiKey, ...rest } = options;
  return apiKey?.trim() ? { ...rest, apiKey: apiKey.trim() } : rest;
}

type ValidatedOptions = Omit<ExaPluginOptions, 'url' | 'retry'> & { url?: string };

/**
 * The exa plugin: the `web_search` and `find_similar_content` tools over Exa's REST API. Options come from
 * the `exa` config section; `PRO_CONTEXT_EXA_URL` sets `exa.url` and `EXA_API_KEY` sets `exa.apiKey` (a
 * secret: never printed or logged). Without a key the tools are still listed and answer that it is missing.
 */
export const exaPlugin = definePlugin<ValidatedOptions, ExaPluginOptionsInput>({
  id: 'exa',
  version: '0.1.0',
  description: 'Web search with Exa (web_search, find_similar_content)',
  kernel: '^0.1.0',
  configKey: 'exa',
  optionsSchema: exaPluginOptionsSchema,
  environment: [
    { variable: EXA_URL_ENV, key: 'exa.url' },
    { variable: EXA_API_KEY_ENV, key: 'exa.apiKey', secret: true },
  ],
  errors: exaErrors.errors,
  register(context, options) {
    if (!options.enabled) return;
    context.bindValue(exaOptionsToken, {
      ...withoutBlankKey(options),
      url: options.url ?? DEFAULT_EXA_URL,
      retry: { retries: options.retries, retryDelaysMs: context.config.http.retryDelaysMs, maxRetryAfterMs: 60_000 },
    });
    context.bindClass(toolPluginToken, ExaTools);
  },
});

export default exaPlugin;
