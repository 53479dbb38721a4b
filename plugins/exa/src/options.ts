import { createToken, z } from '@pro-context/kernel';
import { type RemoteToolOptions, remoteToolCacheMinutes, remoteToolOptionsShape } from '@pro-context/plugin-kit';

/** The environment variable holding the Exa API key. */
export const EXA_API_KEY_ENV = 'EXA_API_KEY';

/** The environment variable that sets Exa's root URL when the `url` option is not given. */
export const EXA_URL_ENV = 'PRO_CONTEXT_EXA_URL';

/** Exa's API, used when neither the `url` option nor {@link EXA_URL_ENV} is set. */
export const DEFAULT_EXA_URL = 'https://api.exa.ai';

/**
 * Options of the exa plugin (config section `exa`). A strict object: a misspelt key is an error, not a
 * silent no-op.
 */
export const exaPluginOptionsSchema = z.strictObject({
  ...remoteToolOptionsShape({
    enabled: 'Offer the web_search and find_similar_content tools (Exa).',
    url: `Root of Exa's API ({url}/search, {url}/findSimilar). Default: ${EXA_URL_ENV}, else ${DEFAULT_EXA_URL}.`,
    apiKey: `Exa API key. Set it with the ${EXA_API_KEY_ENV} environment variable rather than in a file.`,
  }),
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(120)
    .default(5)
    .describe(
      "Deadline of one tool call against Exa, retries included, seconds (seed 004: 5 s, with retries). It is also each request's headers and body timeout.",
    ),
  retries: z
    .number()
    .int()
    .min(0)
    .max(5)
    .default(2)
    .describe("Retries on 5xx, 429 (after its Retry-After) and network failures, within the call's deadline."),
  maxContentCharacters: z
    .number()
    .int()
    .min(200)
    .max(100_000)
    .default(3000)
    .describe('Characters of page text fetched per result when includeContent is true.'),
  cacheMinutes: remoteToolCacheMinutes('a result'),
});

/** Options of the exa plugin as a user writes them (every key optional). */
export type ExaPluginOptionsInput = z.input<typeof exaPluginOptionsSchema>;

/**
 * Options of the exa plugin after validation, defaults and the environment: `url` is always set, and
 * `retry` holds `retries` with the kernel's `http` backoff.
 */
export type ExaPluginOptions = RemoteToolOptions<typeof exaPluginOptionsSchema>;

/** The resolved options, bound by the plugin for the tools. */
export const exaOptionsToken = createToken<ExaPluginOptions>('exa.options');
