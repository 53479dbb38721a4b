import { embedderToken, rerankerToken } from '@pro-context/engine/api';
import { definePlugin, kernelTokens } from '@pro-context/kernel';
import { effectiveTimeoutMs, embeddingsConfigurationWarnings, interactiveTimeoutOf } from './checks.js';
import { OpenAiEmbedder } from './embedder.js';
import { embeddingsErrors } from './errors.js';
import {
  EMBEDDINGS_API_KEY_ENV,
  EMBEDDINGS_CONFIG_KEY,
  EMBEDDINGS_MODEL_ENV,
  EMBEDDINGS_URL_ENV,
  type EmbeddingsOptions,
  type EmbeddingsOptionsInput,
  type EnabledEmbeddingsOptions,
  embeddingsOptionsSchema,
} from './options.js';
import { EmbeddingReranker } from './reranker.js';

/**
 * The openai-embeddings plugin: an {@link OpenAiEmbedder} over an OpenAI-compatible `/v1/embeddings` server and a
 * reranker built on it, bound to the engine's `embedderToken` and `rerankerToken` (get-docs then reranks its best
 * sections with the model). Config section `embeddings`; `baseUrl` and `model` are required, the key optional
 * (`PRO_CONTEXT_EMBEDDINGS_API_KEY`, a secret). `enabled: false` binds nothing (and needs neither).
 */
export const openAiEmbeddingsPlugin = definePlugin<EmbeddingsOptions, EmbeddingsOptionsInput>({
  id: 'openai-embeddings',
  version: '0.1.0',
  description: "Reranks get-docs' best sections with an OpenAI-compatible embeddings model (Ollama, vLLM, OpenAI).",
  kernel: '^0.1.0',
  configKey: EMBEDDINGS_CONFIG_KEY,
  optionsSchema: embeddingsOptionsSchema,
  environment: [
    { variable: EMBEDDINGS_URL_ENV, key: `${EMBEDDINGS_CONFIG_KEY}.baseUrl` },
    { variable: EMBEDDINGS_MODEL_ENV, key: `${EMBEDDINGS_CONFIG_KEY}.model` },
    { variable: EMBEDDINGS_API_KEY_ENV, key: `${EMBEDDINGS_CONFIG_KEY}.apiKey`, secret: true },
  ],
  errors: embeddingsErrors.errors,
  provides: [embedderToken, rerankerToken],
  register(context, options) {
    if (!options.enabled || options.baseUrl === undefined || options.model === undefined) return;
    const apiKey = options.apiKey?.trim();
    // a wait past the engine's cap would be cut by the engine: the plugin gives up just before, with its own code
    const timeoutMs = effectiveTimeoutMs(options.timeoutMs, interactiveTimeoutOf(context.config));
    const resolved: EnabledEmbeddingsOptions = {
      ...options,
      baseUrl: options.baseUrl,
      model: options.model,
      timeoutMs,
      ...(apiKey ? { apiKey } : { apiKey: undefined }),
    };
    const retry = {
      retries: options.retries,
      retryDelaysMs: context.config.http.retryDelaysMs,
      maxRetryAfterMs: timeoutMs,
    };
    context.bindFactory(
      embedderToken,
      (resolver) =>
        new OpenAiEmbedder(
          resolver.resolve(kernelTokens.http),
          resolved,
          retry,
          resolver.resolve(kernelTokens.logger).child({ component: 'openai-embeddings' }),
        ),
    );
    context.bindFactory(
      rerankerToken,
      (resolver) => new EmbeddingReranker(resolver.resolve(embedderToken) as OpenAiEmbedder, options.weight, timeoutMs),
    );
  },
  start(context, options) {
    // what the configuration alone shows to be wrong, worded as the first get-docs call's note will say it
    for (const warning of embeddingsConfigurationWarnings(options, context.config)) context.logger.warn(warning);
  },
});

export default openAiEmbeddingsPlugin;
