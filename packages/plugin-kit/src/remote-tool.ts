import {
  type CacheStore,
  cacheStoreToken,
  definePlugin,
  type ErrorTable,
  type HttpClient,
  type HttpRequestOptions,
  type HttpResponse,
  isProContextError,
  kernelTokens,
  type PluginDefinition,
  type ProContextError,
  type Token,
  type ToolDefinition,
  type ToolPlugin,
  toolPluginToken,
  z,
} from '@pro-context/kernel';
import { type CachedResult, cachedResult } from './cached-result.js';
import { postWithRetries, type RetryPolicy } from './post-with-retries.js';

/**
 * The scaffolding of a remote tool plugin (a hosted API behind an API key: Exa, Gemini grounding, Context7): the
 * missing-key rule, the key kept out of error texts, the plain missing-key answer, the options every such plugin
 * shares, the base of its tools ({@link RemoteTools}), and the plugin definition itself.
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

/** What every remote tool plugin's tools read of their options (a {@link RemoteToolOptions} has them all). */
export interface RemoteToolSettings {
  url: string;
  apiKey?: string | undefined;
  /** Deadline of one call, seconds. */
  timeoutSeconds: number;
  /** How long an identical call's result is reused, minutes (see {@link remoteToolCacheMinutes}). */
  cacheMinutes: number;
  retry: RetryPolicy;
}

/** What {@link defineRemoteToolPlugin} builds a plugin's tools with. */
export interface RemoteToolDeps<O> {
  /** The plugin's id: the tools' `id`. */
  id: string;
  /** The resolved options (the key by the missing-key rule, `url` always set, `retry` with the kernel's backoff). */
  options: O;
  http: HttpClient;
  cache: CacheStore;
  /** Where results are kept (a cache namespace of the plugin's own). */
  cacheNamespace: string;
  /** The error a call answers without a key; its message is the whole answer (see {@link remoteToolErrorText}). */
  missingKey(): ProContextError;
}

/** What one call to a remote API takes: the key, and the options of its requests. */
export interface RemoteConnection {
  url: string;
  apiKey: string;
  timeoutMs: number;
  retry: RetryPolicy;
}

/** `{url}{path}`, the URL's trailing slashes left out. */
export function remoteEndpoint(url: string, path: string): string {
  return `${url.replace(/(?<!\/)\/+$/, '')}${path}`;
}

/** How a remote tool plugin words a request that got no answer (the client's `SOURCE_UNAVAILABLE`). */
export interface NoAnswerErrors {
  /** The call's deadline (`seconds`) passed. */
  timedOut(seconds: number, cause: ProContextError): ProContextError;
  /** The API could not be reached; `detail` is the client's message, the key masked out. */
  unreachable(detail: string, cause: ProContextError): ProContextError;
}

/**
 * A POST to a remote API within the call's deadline and retries (`postWithRetries` with `connection`'s
 * `timeoutMs` and `retry`): the response, a non-2xx one too; a request that got no answer is the plugin's own
 * error (`noAnswer`), never carrying the key. Send the key in `request.headers`, as the API wants it.
 */
export async function postRemote(
  http: HttpClient,
  endpoint: string,
  request: Pick<HttpRequestOptions, 'headers' | 'body' | 'signal'>,
  connection: Pick<RemoteConnection, 'apiKey' | 'timeoutMs' | 'retry'>,
  noAnswer: NoAnswerErrors,
): Promise<HttpResponse> {
  try {
    return await postWithRetries(http, endpoint, { ...request, timeoutMs: connection.timeoutMs }, connection.retry);
  } catch (error) {
    if (isProContextError(error) && error.code === 'SOURCE_UNAVAILABLE') {
      const timedOut = typeof (error.details as { timeoutMs?: unknown } | undefined)?.timeoutMs === 'number';
      throw timedOut
        ? noAnswer.timedOut(Math.round(connection.timeoutMs / 1000), error)
        : noAnswer.unreachable(withoutKey(error.message, connection.apiKey), error);
    }
    throw error;
  }
}

/** Every remote tool reads, reaches the open web and answers an identical call alike. */
const REMOTE_TOOL_ANNOTATIONS = { readOnlyHint: true, openWorldHint: true, idempotentHint: true } as const;

/**
 * The tools of a remote tool plugin (built by {@link defineRemoteToolPlugin}, which passes the deps): a subclass
 * lists its tools with {@link tool} and, in each handler, takes the key and request options from
 * {@link connection} and reuses results through {@link cached}.
 */
export abstract class RemoteTools<O extends RemoteToolSettings> implements ToolPlugin {
  readonly id: string;
  protected readonly options: O;
  protected readonly http: HttpClient;
  private readonly deps: RemoteToolDeps<O>;
  private readonly renderError: (error: ProContextError) => string;

  constructor(deps: RemoteToolDeps<O>) {
    this.deps = deps;
    this.id = deps.id;
    this.options = deps.options;
    this.http = deps.http;
    const missing = deps.missingKey();
    this.renderError = remoteToolErrorText(missing.code, missing.message);
  }

  abstract tools(): ToolDefinition[];

  /** One of the plugin's tools: read-only, open-world, idempotent, answering the plain message without a key. */
  protected tool<I extends z.ZodObject, Out extends z.ZodObject>(
    definition: Omit<ToolDefinition<I, Out>, 'annotations' | 'renderError'>,
  ): ToolDefinition {
    return {
      ...definition,
      annotations: REMOTE_TOOL_ANNOTATIONS,
      renderError: this.renderError,
    } as unknown as ToolDefinition;
  }

  /** The key (else the plugin's missing-key error, see {@link requireKey}) and the options of a request. */
  protected connection(): RemoteConnection {
    const { options } = this;
    const apiKey = requireKey(options.apiKey, () => this.deps.missingKey());
    return { url: options.url, apiKey, timeoutMs: options.timeoutSeconds * 1000, retry: options.retry };
  }

  /**
   * `load`'s result, kept `cacheMinutes` under `key` in the plugin's namespace (concurrent identical calls share
   * one load); an error leaves with every occurrence of `apiKey` masked in its message.
   */
  protected cached<T>(apiKey: string, key: string, load: () => Promise<T>): Promise<CachedResult<T>> {
    const ttlMs = Math.round(this.options.cacheMinutes * 60_000);
    return maskingKey(apiKey, () => cachedResult(this.deps.cache, this.deps.cacheNamespace, key, { ttlMs }, load));
  }
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
  /** Cache namespace of the tools' results. */
  cacheNamespace: string;
  /** The error a tool call answers without a key (one of `errors`, its message the plain answer). */
  missingKey(): ProContextError;
  /** The tools (a {@link RemoteTools}), built once, on first use, with the options, the HTTP client and the cache. */
  tools: new (
    deps: RemoteToolDeps<R>,
  ) => ToolPlugin;
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
      const resolved = { ...withoutBlankKey(options), url: options.url ?? spec.defaultUrl, retry } as unknown as R;
      context.bindValue(spec.optionsToken, resolved);
      context.bindFactory(
        toolPluginToken,
        (resolver) =>
          new spec.tools({
            id: spec.id,
            options: resolved,
            http: resolver.resolve(kernelTokens.http),
            cache: resolver.resolve(cacheStoreToken),
            cacheNamespace: spec.cacheNamespace,
            missingKey: spec.missingKey,
          }),
      );
    },
  });
}
