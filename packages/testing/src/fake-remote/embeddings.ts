import { type FakeApi, type FakeApiAnswer, type FakeApiRequest, startFakeApi } from '../fake-search/server.js';

/** Options of {@link startFakeEmbeddings}. */
export interface FakeEmbeddingsOptions {
  /**
   * When set, a request must carry `Authorization: Bearer <apiKey>` (else 401 `invalid_api_key`, whose message
   * echoes the key it was given, as a careless server would: the client under test must mask it). Unset: any
   * request is served (Ollama, a local vLLM).
   */
  apiKey?: string;
  /** Models served (default `['fake-embed']`); another is 404 `model_not_found`. */
  models?: readonly string[];
  /** Length of the vectors (default 64), unless the request asks for `dimensions`. */
  dimensions?: number;
  /**
   * Words folded onto one concept before hashing (`{ upload: ['multipart', 'files'] }`): texts sharing a concept
   * come out close, as a real model's paraphrases do. Keys and words lower-case.
   */
  synonyms?: Readonly<Record<string, readonly string[]>>;
  /** Replaces the hashed bag of words: the vector of a text (any length; the fake does not normalise it). */
  vector?: (text: string, dimensions: number) => number[];
  /** Most inputs in one request (default 2048, OpenAI's); more is 400. */
  maxInputs?: number;
}

/** A loopback fake of an OpenAI-compatible embeddings server (`POST /v1/embeddings`). */
export interface FakeEmbeddings extends FakeApi {
  /** `{url}/v1`: the base URL to configure a client with (OpenAI's convention, Ollama's and vLLM's too). */
  baseUrl: string;
  apiKey: string | undefined;
  dimensions: number;
  /** Every text embedded so far, in order (a request that failed embeds nothing). */
  inputs: string[];
  /** The vector the fake gives `text` (the same every time). */
  vectorOf(text: string, dimensions?: number): number[];
}

/** An error body in OpenAI's shape. */
export function openAiErrorBody(message: string, type: string, code: string | null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

/** FNV-1a of a string, 32 bits. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * Starts a fake of the embeddings endpoint OpenAI, Ollama, vLLM and LM Studio share: `POST /v1/embeddings` with
 * `{ model, input: string | string[], dimensions? }` answers `{ object: 'list', data: [{ object: 'embedding',
 * index, embedding }], model, usage: { prompt_tokens, total_tokens } }`. Vectors are deterministic: a hashed bag
 * of words (each lower-cased word, or its concept in `synonyms`, adds 1 to a dimension chosen by its hash), L2
 * normalised. Errors in OpenAI's shape: 401 without the key, 404 for an unknown model, 400 for a bad input; faults
 * (`fault({ status: 429, retryAfter })`, `delayMs`, `hang`, `json` for an answer of the wrong shape) and `refuse()`
 * (connection refused) as every fake API of this package.
 */
export async function startFakeEmbeddings(options: FakeEmbeddingsOptions = {}): Promise<FakeEmbeddings> {
  const models = options.models ?? ['fake-embed'];
  const dimensions = options.dimensions ?? 64;
  const maxInputs = options.maxInputs ?? 2048;
  const concept = new Map<string, string>();
  for (const [root, words] of Object.entries(options.synonyms ?? {})) {
    concept.set(root, root);
    for (const word of words) concept.set(word, root);
  }
  const inputs: string[] = [];
  const vectorOf = (text: string, size = dimensions): number[] => {
    if (options.vector) return options.vector(text, size);
    const vector = new Array<number>(size).fill(0);
    for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
      const at = fnv1a(concept.get(word) ?? word) % size;
      vector[at] = (vector[at] ?? 0) + 1;
    }
    const norm = Math.hypot(...vector);
    // an empty text still gets a vector (a real model gives one)
    if (norm === 0) return vector.map((_, i) => (i === 0 ? 1 : 0));
    return vector.map((v) => v / norm);
  };
  const route = (request: FakeApiRequest): FakeApiAnswer => {
    const path = request.path.split('?')[0];
    if (request.method !== 'POST' || path !== '/v1/embeddings') {
      return {
        status: 404,
        body: openAiErrorBody(`Invalid URL (${request.method} ${path})`, 'invalid_request_error', null),
      };
    }
    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      const given = request.headers.authorization?.replace(/^Bearer\s+/i, '') ?? '';
      return {
        status: 401,
        body: openAiErrorBody(
          `Incorrect API key provided: ${given || '(none)'}. You can find your API key in your account settings.`,
          'invalid_request_error',
          'invalid_api_key',
        ),
      };
    }
    const body = (request.body ?? {}) as { model?: unknown; input?: unknown; dimensions?: unknown };
    if (typeof body.model !== 'string' || !models.includes(body.model)) {
      return {
        status: 404,
        body: openAiErrorBody(
          `The model \`${String(body.model)}\` does not exist or you do not have access to it.`,
          'invalid_request_error',
          'model_not_found',
        ),
      };
    }
    const texts = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === 'string')) {
      return {
        status: 400,
        body: openAiErrorBody(
          "'input' must be a string or a non-empty array of strings",
          'invalid_request_error',
          null,
          'input',
        ),
      };
    }
    if (texts.length > maxInputs) {
      return {
        status: 400,
        body: openAiErrorBody(
          `'input' holds ${texts.length} items; at most ${maxInputs}`,
          'invalid_request_error',
          null,
          'input',
        ),
      };
    }
    const size = typeof body.dimensions === 'number' ? body.dimensions : dimensions;
    inputs.push(...(texts as string[]));
    const tokens = (texts as string[]).reduce((sum, t) => sum + Math.ceil(t.length / 4), 0);
    return {
      status: 200,
      body: {
        object: 'list',
        data: (texts as string[]).map((text, index) => ({
          object: 'embedding',
          index,
          embedding: vectorOf(text, size),
        })),
        model: body.model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      },
    };
  };
  const api = await startFakeApi(route, (status) =>
    status === 429
      ? openAiErrorBody('Rate limit reached for requests. Please try again later.', 'requests', 'rate_limit_exceeded')
      : status === 401
        ? openAiErrorBody('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key')
        : openAiErrorBody(`The server had an error while processing your request (${status}).`, 'server_error', null),
  );
  return { ...api, baseUrl: `${api.url}/v1`, apiKey: options.apiKey, dimensions, inputs, vectorOf };
}
