import { createToken, z } from '@pro-context/kernel';
import { type RemoteToolOptions, remoteToolCacheMinutes, remoteToolOptionsShape } from '@pro-context/plugin-kit';

/** The environment variable holding the Gemini API key (seed 003). */
export const GEMINI_API_KEY_ENV = 'OT_GEMINI_API_KEY';

/** The environment variable that sets the Gemini API's root URL when the `url` option is not given. */
export const GEMINI_URL_ENV = 'PRO_CONTEXT_GEMINI_URL';

/** Google's Generative Language API, used when neither the `url` option nor {@link GEMINI_URL_ENV} is set. */
export const DEFAULT_GEMINI_URL = 'https://generativelanguage.googleapis.com';

/** The model used when a call names none and the configuration sets none. */
export const DEFAULT_GEMINI_MODEL = 'gemini-2.5-flash';

/** Gemini model names as the REST path takes them (`gemini-2.5-flash`, `gemini-3.0-flash`, `models/…` without the prefix). */
export const geminiModelSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'A Gemini model name such as gemini-2.5-flash');

/**
 * Options of the grounding plugin (config section `grounding`). A strict object: a misspelt key is an
 * error, not a silent no-op.
 */
export const groundingPluginOptionsSchema = z.strictObject({
  ...remoteToolOptionsShape({
    enabled: 'Offer the ground.* tools (Gemini with Google Search grounding).',
    url: `Root of the Gemini API ({url}/v1beta/models/{model}:generateContent). Default: ${GEMINI_URL_ENV}, else ${DEFAULT_GEMINI_URL}.`,
    apiKey: `Gemini API key. Set it with the ${GEMINI_API_KEY_ENV} environment variable rather than in a file.`,
  }),
  model: geminiModelSchema.default(DEFAULT_GEMINI_MODEL).describe('Gemini model used when a call names none.'),
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(300)
    .default(60)
    .describe('Deadline of one Gemini request, seconds (a grounded answer searches first, so it takes a while).'),
  cacheMinutes: remoteToolCacheMinutes('an answer'),
});

/** Options of the grounding plugin as a user writes them (every key optional). */
export type GroundingPluginOptionsInput = z.input<typeof groundingPluginOptionsSchema>;

/**
 * Options of the grounding plugin after validation, defaults and the environment: `url` is always set, and
 * `retry` comes from the kernel's `http` section (retries and backoff; Gemini's POST is safe to repeat).
 */
export type GroundingPluginOptions = RemoteToolOptions<typeof groundingPluginOptionsSchema>;

/** The resolved options, bound by the plugin for the tools. */
export const groundingOptionsToken = createToken<GroundingPluginOptions>('grounding.options');
