import { createToken, z } from '@pro-context/kernel';

/** The environment variable that sets `context7.url`. */
export const CONTEXT7_URL_ENV = 'PRO_CONTEXT_CONTEXT7_URL';
/** The environment variable that sets `context7.apiKey` (a secret: never logged). */
export const CONTEXT7_API_KEY_ENV = 'CONTEXT7_API_KEY';
/** Context7's API, used when neither the `url` option nor {@link CONTEXT7_URL_ENV} is set. */
export const DEFAULT_CONTEXT7_URL = 'https://context7.com/api';

/** Options of the context7 plugin (config section `context7`). A strict object: a misspelt key is an error. */
export const context7PluginOptionsSchema = z.strictObject({
  url: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      `Base URL of Context7's API; requests go to {url}/v2/libs/search and {url}/v2/context. Default: ${CONTEXT7_URL_ENV}, else ${DEFAULT_CONTEXT7_URL}.`,
    ),
  apiKey: z
    .string()
    .min(1)
    .optional()
    .describe(`Context7 API key (ctx7sk-…). Prefer ${CONTEXT7_API_KEY_ENV} in the environment to writing it here.`),
  timeoutMs: z
    .number()
    .int()
    .min(100)
    .max(300_000)
    .default(30_000)
    .describe('How long one Context7 request may take before the tool answers with a timeout message, ms.'),
  cacheTtlSeconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .default(900)
    .describe(
      'How long a Context7 answer is reused from the cache, seconds (0: never cached). Errors are never cached.',
    ),
});

/** Options as a user writes them. */
export type Context7PluginOptionsInput = z.input<typeof context7PluginOptionsSchema>;

/** Options after validation and defaults: `url` is always set. */
export type Context7PluginOptions = Omit<z.output<typeof context7PluginOptionsSchema>, 'url'> & { url: string };

/** The resolved options. */
export const context7OptionsToken = createToken<Context7PluginOptions>('context7.options');
