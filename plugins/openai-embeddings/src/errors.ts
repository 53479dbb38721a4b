import { defineErrors } from '@pro-context/kernel';
import { EMBEDDINGS_API_KEY_ENV } from './options.js';

/**
 * The plugin's error codes: each names the cause of a failed request to the embeddings server. get-docs never
 * fails with them: it answers with the lexical ranking and a note starting with the code.
 */
export const embeddingsErrors = defineErrors({
  EMBEDDINGS_NOT_ALLOWED: {
    recoverable: false,
    message: 'the embeddings server {server} is on an address the network guard refuses ({detail})',
    suggestion:
      'A server on this machine or a private network (Ollama, vLLM, LM Studio) needs security.allowPrivateNetwork: true in the configuration.',
  },
  EMBEDDINGS_UNREACHABLE: {
    recoverable: true,
    message: 'the embeddings server {server} could not be reached: {detail}',
    suggestion: 'Start the embeddings server, or check embeddings.baseUrl.',
  },
  EMBEDDINGS_TIMEOUT: {
    recoverable: true,
    message: 'the embeddings server {server} did not answer within {ms} ms',
    suggestion: 'Raise embeddings.timeoutMs for a slow model, or use a smaller one.',
  },
  EMBEDDINGS_KEY_REJECTED: {
    recoverable: false,
    message: 'the embeddings server {server} refused the API key (HTTP {status}): {detail}',
    suggestion: `Check ${EMBEDDINGS_API_KEY_ENV} (embeddings.apiKey).`,
  },
  EMBEDDINGS_REQUEST_REFUSED: {
    recoverable: false,
    message: 'the embeddings server {server} refused the request (HTTP {status}): {detail}',
    suggestion: 'Check embeddings.model (a model the server has: `ollama pull <model>`) and embeddings.dimensions.',
  },
  EMBEDDINGS_UNAVAILABLE: {
    recoverable: true,
    message: 'the embeddings server {server} failed (HTTP {status}): {detail}',
    suggestion: 'Try again later.',
  },
  EMBEDDINGS_BAD_RESPONSE: {
    recoverable: true,
    message: 'the embeddings server {server} answered in an unexpected shape: {detail}',
    suggestion:
      'Check that embeddings.baseUrl is an OpenAI-compatible API root ending in /v1: a POST to its /embeddings must answer data: [{ embedding, index }].',
  },
});
