import { z } from '@pro-context/kernel';

/** The config section of the plugin. */
export const EMBEDDINGS_CONFIG_KEY = 'embeddings';
/** The variable setting `embeddings.baseUrl`. */
export const EMBEDDINGS_URL_ENV = 'PRO_CONTEXT_EMBEDDINGS_URL';
/** The variable setting `embeddings.model`. */
export const EMBEDDINGS_MODEL_ENV = 'PRO_CONTEXT_EMBEDDINGS_MODEL';
/** The variable holding the key (a secret: never printed, logged or put in an answer). */
export const EMBEDDINGS_API_KEY_ENV = 'PRO_CONTEXT_EMBEDDINGS_API_KEY';

/** What a missing `baseUrl` says: what it is and the two ways to set it (the variable first: it may be the only source). */
const BASE_URL_REQUIRED = `required: the root of an OpenAI-compatible API, /v1 included (http://localhost:11434/v1 for Ollama, https://api.openai.com/v1). Set ${EMBEDDINGS_URL_ENV} or embeddings.baseUrl, or embeddings.enabled: false`;
/** What a missing `model` says (the section may come from PRO_CONTEXT_EMBEDDINGS_URL alone: the variable first). */
const MODEL_REQUIRED = `required: the embedding model as the server names it (nomic-embed-text, text-embedding-3-small). Set ${EMBEDDINGS_MODEL_ENV} or embeddings.model, or embeddings.enabled: false`;

/**
 * Options of the openai-embeddings plugin (config section `embeddings`). A strict object: a misspelt key is an
 * error, not a silent no-op. `baseUrl` and `model` have no default and are required unless `enabled: false` (the
 * section kept, binding nothing); a missing one says "required" and names its environment variable.
 */
export const embeddingsOptionsSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe('Rerank get-docs answers with the model (false keeps the section but turns reranking off).'),
    baseUrl: z
      .url({
        protocol: /^https?$/,
        error: 'expected an http:// or https:// URL: the API root, /v1 included (http://localhost:11434/v1)',
      })
      .optional()
      .describe(
        `Root of an OpenAI-compatible API, /v1 included ({baseUrl}/embeddings): http://localhost:11434/v1 (Ollama), http://localhost:8000/v1 (vLLM), http://localhost:1234/v1 (LM Studio), https://api.openai.com/v1. A server on this machine or a private network also needs security.allowPrivateNetwork (a list with its host, or true). ${EMBEDDINGS_URL_ENV} sets it.`,
      ),
    model: z
      .string({ error: 'expected a text: the model as the server names it (nomic-embed-text)' })
      .trim()
      .min(1, 'must not be blank: the model as the server names it (nomic-embed-text), or remove the key')
      .optional()
      .describe(
        `The embedding model as the server names it (nomic-embed-text, BAAI/bge-small-en-v1.5, text-embedding-3-small). ${EMBEDDINGS_MODEL_ENV} sets it.`,
      ),
    apiKey: z
      .string({ error: 'expected a text: the API key' })
      .min(1, `must not be empty: leave it out for a server that needs no key (or set ${EMBEDDINGS_API_KEY_ENV})`)
      .optional()
      .describe(
        `Sent as Authorization: Bearer (OpenAI; a local server needs none). Set it with ${EMBEDDINGS_API_KEY_ENV} rather than in a file.`,
      ),
    dimensions: z
      .number()
      .int()
      .min(1)
      .max(16_384)
      .optional()
      .describe(
        'Vector length asked of the model (OpenAI text-embedding-3 models shorten theirs); answers must have it.',
      ),
    batchSize: z.number().int().min(1).max(2048).default(32).describe('Texts sent in one request, at most.'),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(3000)
      .describe(
        'How long one get-docs call waits for the model (every request of it, retries included), ms; past it the answer is the lexical one with a note. Never more than engine.interactiveTimeoutMs.',
      ),
    retries: z
      .number()
      .int()
      .min(0)
      .max(3)
      .default(1)
      .describe('Retries on 5xx, 429 (after a Retry-After that fits) and network failures, within timeoutMs.'),
    weight: z
      .number()
      .min(0)
      .max(1)
      .default(0.5)
      .describe("The model's share of a section's blended score (0: the lexical order; 1: the model's order)."),
    maxInputChars: z
      .number()
      .int()
      .min(100)
      .max(100_000)
      .default(4000)
      .describe('Characters of one text sent to the model, at most (the engine sends sections of at most 2,000).'),
    cacheEntries: z
      .number()
      .int()
      .min(0)
      .max(200_000)
      .default(5000)
      .describe(
        'Vectors kept in memory, keyed by a hash of model and text (0: none). About 4 bytes per dimension each: 5,000 vectors of 768 dimensions are ~15 MB.',
      ),
  })
  // run whatever else is wrong (a key of the wrong type), so that one check lists every problem
  .superRefine(
    (options, context) => {
      if (options === null || typeof options !== 'object' || options.enabled === false) return;
      if (options.baseUrl === undefined)
        context.addIssue({ code: 'custom', path: ['baseUrl'], message: BASE_URL_REQUIRED });
      if (options.model === undefined) context.addIssue({ code: 'custom', path: ['model'], message: MODEL_REQUIRED });
    },
    { when: () => true },
  );

/** The options as a user writes them. */
export type EmbeddingsOptionsInput = z.input<typeof embeddingsOptionsSchema>;
/** The options after validation and defaults (`baseUrl` and `model` are set unless `enabled` is false). */
export type EmbeddingsOptions = z.output<typeof embeddingsOptionsSchema>;
/** The options of an enabled plugin: `baseUrl` and `model` set. */
export type EnabledEmbeddingsOptions = EmbeddingsOptions & { baseUrl: string; model: string };
