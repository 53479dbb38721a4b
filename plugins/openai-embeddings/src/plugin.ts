import { embedderToken, rerankerToken } from '@pro-context/engine/api';
import { definePlugin, kernelTokens } from '@pro-context/kernel';
import { OpenAiEmbedder } from './embedder.js';
import { embeddingsErrors } from './errors.js';
import {
  EMBEDDINGS_API_KEY_ENV,
  EMBEDDINGS_CONFIG_KEY,
  EMBEDDINGS_MODEL_ENV,
  EMBEDDINGS_URL_ENV,
  type EmbeddingsOptions,
  type EmbeddingsOptionsInput,
  embeddingsOptionsSchema,
} from './options.js';
import { EmbeddingReranker } from './reranker.js';

/** Whether a URL's host is written as this machine or a private network (the network guard refuses it unless allowed). */
function isLocalHost(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127\./.test(host) ||
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(host) ||
    host === 'host.docker.internal'
  );
}

/**
 * The openai-embeddings plugin: an {@link OpenAiEmbedder} over an OpenAI-compatible `/v1/embeddings` server and a
 * reranker built on it, bound to the engine's `embedderToken` and `rerankerToken` (get-docs then reranks its best
 * sections with the model). Config section `embeddings`; `baseUrl` and `model` are required, the key optional
 * (`PRO_CONTEXT_EMBEDDINGS_API_KEY`, a secret). `enabled: false` binds nothing.
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
    if (!options.enabled) return;
    const apiKey = options.apiKey?.trim();
    const resolved: EmbeddingsOptions = { ...options, ...(apiKey ? { apiKey } : { apiKey: undefined }) };
    const retry = {
      retries: options.retries,
      retryDelaysMs: context.config.http.retryDelaysMs,
      maxRetryAfterMs: options.timeoutMs,
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
      (resolver) =>
        new EmbeddingReranker(resolver.resolve(embedderToken) as OpenAiEmbedder, options.weight, options.timeoutMs),
    );
  },
  start(context, options) {
    if (!options.enabled) return;
    if (isLocalHost(options.baseUrl) && !context.config.security.allowPrivateNetwork) {
      context.logger.warn(
        `embeddings.baseUrl (${new URL(options.baseUrl).origin}) is on this machine or a private network, which the network guard refuses: get-docs answers lexically (with a note) until security.allowPrivateNetwork is true.`,
      );
    }
  },
});

export default openAiEmbeddingsPlugin;
