import { definePlugin, toolPluginToken } from '@pro-context/kernel';
import { groundingErrors } from './gemini.js';
import {
  DEFAULT_GEMINI_URL,
  GEMINI_API_KEY_ENV,
  GEMINI_URL_ENV,
  type GroundingPluginOptions,
  type GroundingPluginOptionsInput,
  groundingOptionsToken,
  groundingPluginOptionsSchema,
} from './options.js';
import { GroundingTools } from './tools.js';

/** The options with a blank key (whitespace only, as an empty `export OT_GEMINI_API_KEY=" "` leaves it) removed: no key. */
function withoutBlankKey(options: ValidatedOptions): ValidatedOptions {
  const { apiKey, ...rest } = options;
  return apiKey?.trim() ? { ...rest, apiKey: apiKey.trim() } : rest;
}

type ValidatedOptions = Omit<GroundingPluginOptions, 'url' | 'retry'> & { url?: string };

/**
 * The grounding plugin: the `ground.search`, `ground.dev`, `ground.docs` and `ground.reddit` tools over
 * Gemini with Google Search grounding. Options come from the `grounding` config section;
 * `PRO_CONTEXT_GEMINI_URL` sets `grounding.url` and `OT_GEMINI_API_KEY` sets `grounding.apiKey` (a secret:
 * never printed or logged). Without a key the tools are still listed and answer with the seed's message.
 */
export const groundingPlugin = definePlugin<ValidatedOptions, GroundingPluginOptionsInput>({
  id: 'grounding',
  version: '0.1.0',
  description:
    'Web search grounded by Gemini with Google Search (ground.search, ground.dev, ground.docs, ground.reddit)',
  kernel: '^0.1.0',
  configKey: 'grounding',
  optionsSchema: groundingPluginOptionsSchema,
  environment: [
    { variable: GEMINI_URL_ENV, key: 'grounding.url' },
    { variable: GEMINI_API_KEY_ENV, key: 'grounding.apiKey', secret: true },
  ],
  errors: groundingErrors.errors,
  register(context, options) {
    if (!options.enabled) return;
    const { retries, retryDelaysMs } = context.config.http;
    context.bindValue(groundingOptionsToken, {
      ...withoutBlankKey(options),
      url: options.url ?? DEFAULT_GEMINI_URL,
      retry: { retries, retryDelaysMs, maxRetryAfterMs: 60_000 },
    });
    context.bindClass(toolPluginToken, GroundingTools);
  },
});

export default groundingPlugin;
