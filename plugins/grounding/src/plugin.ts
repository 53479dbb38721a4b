import { defineRemoteToolPlugin } from '@pro-context/plugin-kit';
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
import { GROUNDING_CACHE_NAMESPACE, GroundingTools } from './tools.js';

type ValidatedOptions = Omit<GroundingPluginOptions, 'url' | 'retry'> & { url?: string };

/**
 * The grounding plugin: the `ground.search`, `ground.dev`, `ground.docs` and `ground.reddit` tools over
 * Gemini with Google Search grounding. Options come from the `grounding` config section;
 * `PRO_CONTEXT_GEMINI_URL` sets `grounding.url` and `OT_GEMINI_API_KEY` sets `grounding.apiKey` (a secret:
 * never printed or logged). Without a key the tools are still listed and answer with the seed's message.
 * Built on `@pro-context/plugin-kit`'s remote-tool scaffolding (the missing-key rule: a blank key is no key).
 */
export const groundingPlugin = defineRemoteToolPlugin<
  ValidatedOptions,
  GroundingPluginOptionsInput,
  GroundingPluginOptions
>({
  id: 'grounding',
  version: '0.1.0',
  description:
    'Web search grounded by Gemini with Google Search (ground.search, ground.dev, ground.docs, ground.reddit)',
  configKey: 'grounding',
  optionsSchema: groundingPluginOptionsSchema,
  urlVariable: GEMINI_URL_ENV,
  keyVariable: GEMINI_API_KEY_ENV,
  defaultUrl: DEFAULT_GEMINI_URL,
  errors: groundingErrors.errors,
  optionsToken: groundingOptionsToken,
  // the kernel's `http.retries` (Gemini's POST is safe to repeat)
  retries: (_options, http) => http.retries,
  cacheNamespace: GROUNDING_CACHE_NAMESPACE,
  missingKey: () => groundingErrors.create('GROUNDING_KEY_MISSING', {}),
  tools: GroundingTools,
});

export default groundingPlugin;
