import { defineErrors } from '@pro-context/kernel';
import { EMBEDDINGS_API_KEY_ENV, EMBEDDINGS_URL_ENV } from './options.js';

/**
 * The plugin's error codes: each names the cause of a failed request to the embeddings server. get-docs never
 * fails with them: it answers with the lexical ranking and a note starting with the code.
 *
 * A note reaches the MCP client (over HTTP, a remote one): its message is a fixed sentence with the upstream's
 * status at most, never the server's URL nor its own text (a 401 may echo part of the key, or its base64). The
 * server's origin and message go to pro-context's log (secrets masked), which only the operator reads.
 */
export const embeddingsErrors = defineErrors({
  EMBEDDINGS_NOT_ALLOWED: {
    recoverable: false,
    message: 'the embeddings server is {where}, which the network guard refuses',
    suggestion:
      'A server on this machine or a private network (Ollama, vLLM, LM Studio) needs security.allowPrivateNetwork in the configuration: a list with its host ([localhost], [gpu.corp.example]) or true.',
  },
  EMBEDDINGS_URL_CREDENTIALS: {
    recoverable: false,
    message:
      'embeddings.baseUrl holds a user name or password (user:pass@ before the host), which pro-context never sends: nothing was asked of the embeddings server',
    suggestion: `Remove user:pass@ from embeddings.baseUrl (or ${EMBEDDINGS_URL_ENV}); a key goes in ${EMBEDDINGS_API_KEY_ENV}, sent as Authorization: Bearer.`,
  },
  EMBEDDINGS_UNREACHABLE: {
    recoverable: true,
    message: 'the embeddings server could not be reached: {detail}',
    suggestion: 'Start the embeddings server, or check embeddings.baseUrl.',
  },
  EMBEDDINGS_TIMEOUT: {
    recoverable: true,
    message: 'the embeddings server did not answer within {ms} ms',
    suggestion: 'Raise embeddings.timeoutMs for a slow model, or use a smaller one.',
  },
  EMBEDDINGS_KEY_REJECTED: {
    recoverable: false,
    message: 'the embeddings server refused the API key (HTTP {status})',
    suggestion: `Check ${EMBEDDINGS_API_KEY_ENV} (embeddings.apiKey).`,
  },
  EMBEDDINGS_REQUEST_REFUSED: {
    recoverable: false,
    message: 'the embeddings server refused the request (HTTP {status})',
    suggestion:
      "Check embeddings.model (a model the server has: `ollama pull <model>`) and embeddings.dimensions; the server's own message is in pro-context's log.",
  },
  EMBEDDINGS_UNAVAILABLE: {
    recoverable: true,
    message: 'the embeddings server failed (HTTP {status})',
    suggestion: 'Try again later.',
  },
  EMBEDDINGS_REDIRECTED: {
    recoverable: false,
    message:
      'the embeddings server answered HTTP {status}, a redirect that turns the POST into a GET, which an OpenAI-compatible API does not send',
    suggestion:
      'Set embeddings.baseUrl to the address the server redirects to (often https:// instead of http://, or another path), so that no redirect is needed.',
  },
  EMBEDDINGS_BAD_RESPONSE: {
    recoverable: true,
    message: 'the embeddings server answered in an unexpected shape: {detail}',
    suggestion:
      'Check that embeddings.baseUrl is an OpenAI-compatible API root ending in /v1: a POST to its /embeddings must answer data: [{ embedding, index }].',
  },
});
