import {
  type Constructor,
  definePlugin,
  type ErrorTable,
  type PluginDefinition,
  type ProContextError,
  type Token,
  type ToolPlugin,
  toolPluginToken,
  z,
} from '@pro-context/kernel';
import type { RetryPolicy } from './post-with-retries.js';

/**
 * The scaffolding of a remote tool plugin (a hosted API behind an API key: Exa, Gemini grounding, Context7): the
 * missing-key rule, the key kept out of error texts, the plain missing-key answer, the options every such plugin
 * shares, and the plugin definition itself.
 */

/**
 * The missing-key rule: a blank key (whitespace only, as an empty `export EXA_API_KEY=" "` leaves it) is no key;
 * any other is trimmed.
 */
export function withoutBlankKey<T extends { apiKey?: string | undefined }>(
  options: T,
): Omit<T, 'apiKey'> & {
  apiKey?: string;
} {
  const { apiKey, ...rest } = options;
  return apiKey?.trim() ? { ...rest, apiKey: apiKey.trim() } : rest;
}

/** Replaces every occurrence of the key (should an upstream ever echo it) with a placeholder. */
export function withoutKey(text: string, key: string | undefined): string {
  return key ? text.split(key).join('[REDACTED]') : text;
}

/** The seeds' exact answer of a remote tool whose key is missing: `Error: EXA_API_KEY environment variable not set`. */
export function missingKeyMessage(keyVariable: string): string {
  return `Error: ${keyVariable} environment variable not set`;
}

/** The key, or the plugin's missing-key error (the tools stay listed without a key and answer this). */
export function requireKey(apiKey: string | undefined, missing: () => ProContextError): string {
  if (!apiKey) throw missing();
  return apiKey;
}

/** Runs `work`; an error it throws leaves with every occurrence of `apiKey` masked in its message. */
export async function maskingKey<T>(apiKey: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Error) error.message = withoutKey(error.message, apiKey);
    throw error;
  }
}

/**
 * The text of a remote tool's error result: the plain message for the missing key (the seeds' exact
 * `Error: EXA_API_KEY environment variable not set`), else the catalog payload.
 */
export function remoteToolErrorText(
  missingKeyCode: string,
  missingKeyMessage: string,
): (error: ProContextError) => string {
  return (error) => (error.code === missingKeyCode ? missingKeyMessage : JSON.stringify(error.toPayload(), null, 2));
}

/** What {@link remoteToolOptionsShape} describes. */
export interface RemoteToolOptionsSpec {
  /** Description of `enabled`. */
  enabled: string;
  /** Description of `url`. */
  url: string;
  /** Description of `apiKey`. */
  apiKey: string;
}

/** The options every remote tool plugin has: `enabled` (default true), `url` (http/https), `apiKey`. */
export function remoteToolOptionsShape(describe: RemoteToolOptionsSpec) {
  return {
    enabled: z.boolean().default(true).describe(describe.enabled),
    url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe(describe.url),
    apiKey: z.string().min(1).optional().describe(describe.apiKey),
  };
}

/** `cacheMinutes` (0–1440, default 15): how long `what` (`a result`, `an answer`) is reused for an identical call. */
export function remoteToolCacheMinutes(what: string) {
  return z
    .number()
    .min(0)
    .max(24 * 60)
    .default(15)
    .describe(
      `Minutes ${what} is reused for an identical call (0: never stored; concurrent calls still share one request).`,
    );
}

/**
 * A remote tool plugin's options as its tools get them (from its schema's output): `url` always set, `retry` the
 * retries with the kernel's backoff.
 */
export type RemoteToolOptions<S extends z.ZodType> = Omit<z.output<S>, 'url'> & { url: string; retry: RetryPolicy };

/** The options a remote tool plugin validates: at least those of {@link remoteToolOptionsShape}. */
export interface RemoteToolValidatedOptions {
  enabled: boolean;
  url?: string | undefined;
  apiKey?: string | undefined;
}

/** What {@link defineRemoteToolPlugin} builds a plugin from. */
export interface RemoteToolPluginSpec<V extends RemoteToolValidatedOptions, I, R> {
  id: string;
  version: string;
  description: string;
  /** The config section (`exa`): the options schema validates it. */
  configKey: string;
  optionsSchema: z.ZodType<V, I>;
  /** The variable setting `{configKey}.url` (`PRO_CONTEXT_EXA_URL`). */
  urlVariable: string;
  /** The variable holding the key (`EXA_API_KEY`): a secret, never printed or logged. */
  keyVariable: string;
  /** The API's root when neither the option nor the variable sets one. */
  defaultUrl: string;
  /** The plugin's error codes. */
  errors: ErrorTable;
  /** Where the resolved options are bound for the tools. */
  optionsToken: Token<R>;
  /** How many retries, from the options and the kernel's `http` section (the backoff is the kernel's). */
  retries(options: V, http: { retries: number }): number;
  /** The tools, built by the kernel with the options, the HTTP client and the cache injected. */
  tools: Constructor<ToolPlugin>;
}

/**
 * A remote tool plugin: its config section and the two variables (URL, secret key); when enabled, binds the
 * resolved options (the key by the missing-key rule, `url` always set, `retry` with the kernel's backoff) and
 * the tools. Without a key the tools are still listed and answer that it is missing.
 */
export function defineRemoteToolPlugin<V extends RemoteToolValidatedOptions, I, R>(
  spec: RemoteToolPluginSpec<V, I, R>,
): PluginDefinition<V, I> {
  return definePlugin<V, I>({
    id: spec.id,
    version: spec.version,
    description: spec.description,
    kernel: '^0.1.0',
    configKey: spec.configKey,
    optionsSchema: spec.optionsSchema,
    environment: [
      { variable: spec.urlVariable, key: `${spec.configKey}.url` },
      { variable: spec.keyVariable, key: `${spec.configKey}.apiKey`, secret: true },
    ],
    errors: spec.errors,
    register(context, options) {
      if (!options.enabled) return;
      const retry: RetryPolicy = {
        retries: spec.retries(options, context.config.http),
        retryDelaysMs: context.config.http.retryDelaysMs,
        maxRetryAfterMs: 60_000,
      };
      context.bindValue(spec.optionsToken, {
        ...withoutBlankKey(options),
        url: options.url ?? spec.defaultUrl,
        retry,
      } as unknown as R);
      context.bindClass(toolPluginToken, spec.tools);
    },
  });
}
