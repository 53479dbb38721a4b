/**
 * @pro-context/plugin-openai-embeddings: an `Embedder` over an OpenAI-compatible `/v1/embeddings` server (Ollama,
 * vLLM, LM Studio, OpenAI) and a `Reranker` built on it, for the engine's get-docs (issue #28, deliverable 7).
 *
 * Every export here is public API; named exports only (and the plugin as `default`).
 */
export { embeddingsConfigurationWarnings } from './checks.js';
export { OpenAiEmbedder } from './embedder.js';
export { embeddingsErrors } from './errors.js';
export type { EmbeddingsOptions, EmbeddingsOptionsInput, EnabledEmbeddingsOptions } from './options.js';
export {
  EMBEDDINGS_API_KEY_ENV,
  EMBEDDINGS_CONFIG_KEY,
  EMBEDDINGS_MODEL_ENV,
  EMBEDDINGS_URL_ENV,
  embeddingsOptionsSchema,
} from './options.js';
export { default, openAiEmbeddingsPlugin, openAiEmbeddingsPlugin as plugin } from './plugin.js';
export { cosine, EmbeddingReranker } from './reranker.js';
