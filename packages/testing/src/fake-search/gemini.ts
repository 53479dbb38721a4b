import http from 'node:http';
import { type FakeApi, type FakeApiAnswer, type FakeApiRequest, startFakeApi } from './server.js';

/** One cited page of a fake grounded answer. */
export interface FakeGeminiSource {
  uri: string;
  title: string;
}

/** What the fake answers to one prompt. */
export interface FakeGeminiAnswer {
  /** The answer text. */
  text: string;
  /**
   * The grounding chunks, in order (repeat a URI to play a duplicate citation). `null`: the response carries
   * no `groundingMetadata` at all (the model chose not to search).
   */
  sources: FakeGeminiSource[] | null;
  /** `webSearchQueries` (default: the prompt's first line). */
  searchQueries?: string[];
}

/** Options of {@link startFakeGemini}. */
export interface FakeGeminiOptions {
  /** The key the fake accepts in `x-goog-api-key` (or `?key=`). Default `fake-gemini-key`. */
  apiKey?: string;
  /** Models that exist (others are 404 NOT_FOUND). Default: any name starting with `gemini-`. */
  models?: string[];
  /** Answers a prompt (default {@link defaultFakeGeminiAnswer}). */
  answer?: (prompt: string, model: string) => FakeGeminiAnswer;
}

/** A loopback fake of Gemini's `generateContent` with Google Search grounding. */
export interface FakeGemini extends FakeApi {
  /** The key the fake accepts. */
  apiKey: string;
  /** The prompt text of each `generateContent` request, in order. */
  prompts(): string[];
  /** The model of each `generateContent` request, in order. */
  models(): string[];
  /** Replaces how prompts are answered. */
  setAnswer(answer: (prompt: string, model: string) => FakeGeminiAnswer): void;
}

/** Google's JSON error shape for a status. */
export function googleErrorBody(code: number, message?: string): unknown {
  const status =
    code === 400
      ? 'INVALID_ARGUMENT'
      : code === 401
        ? 'UNAUTHENTICATED'
        : code === 403
          ? 'PERMISSION_DENIED'
          : code === 404
            ? 'NOT_FOUND'
            : code === 429
              ? 'RESOURCE_EXHAUSTED'
              : code === 503
                ? 'UNAVAILABLE'
                : code >= 500
                  ? 'INTERNAL'
                  : 'FAILED_PRECONDITION';
  const text =
    message ??
    (code === 429
      ? 'Resource has been exhausted (e.g. check quota).'
      : code === 503
        ? 'The model is overloaded. Please try again later.'
        : (http.STATUS_CODES[code] ?? 'Error'));
  return {
    error: {
      code,
      message: text,
      status,
      details:
        code === 429
          ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' }]
          : [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: status, domain: 'googleapis.com' }],
    },
  };
}

/**
 * The default answer: a text naming the prompt's first line, grounded in three chunks of which two cite the
 * same page (so a client must de-duplicate), with the prompt's first line as the search query.
 */
export function defaultFakeGeminiAnswer(prompt: string): FakeGeminiAnswer {
  const first = prompt.split('\n')[0] ?? prompt;
  const slug = first
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
  return {
    text: `Grounded answer for "${first}". The first source explains it; the second confirms it.`,
    sources: [
      { uri: `https://vertexaisearch.cloud.google.com/grounding-api-redirect/${slug}-a`, title: 'docs.example.com' },
      { uri: `https://vertexaisearch.cloud.google.com/grounding-api-redirect/${slug}-b`, title: 'stackoverflow.com' },
      { uri: `https://vertexaisearch.cloud.google.com/grounding-api-redirect/${slug}-a`, title: 'docs.example.com' },
    ],
    searchQueries: [first],
  };
}

const promptOf = (body: unknown): string => {
  const contents = (body as { contents?: { parts?: { text?: string }[] }[] } | undefined)?.contents ?? [];
  return contents
    .flatMap((c) => c.parts ?? [])
    .map((p) => p.text ?? '')
    .join('\n');
};

const ROUTE = /^\/v1beta\/models\/([^/:?]+):generateContent(?:\?.*)?$/;

/**
 * Starts a loopback Gemini API answering `POST /v1beta/models/{model}:generateContent` as the real one does:
 * a candidate with the answer text and `groundingMetadata` (`webSearchQueries`, `searchEntryPoint`,
 * `groundingChunks`, `groundingSupports`) or none, `usageMetadata` and `modelVersion`; 401 UNAUTHENTICATED
 * without a key, 403 PERMISSION_DENIED with a wrong one, 404 for an unknown model, and any fault
 * (429 with `Retry-After`, 5xx, slow answers) in Google's error shape.
 */
export async function startFakeGemini(options: FakeGeminiOptions = {}): Promise<FakeGemini> {
  const apiKey = options.apiKey ?? 'fake-gemini-key';
  let answer = options.answer ?? defaultFakeGeminiAnswer;
  let responses = 0;
  const route = (request: FakeApiRequest): FakeApiAnswer => {
    const match = ROUTE.exec(request.path);
    if (!match || request.method !== 'POST') {
      return { status: 404, body: googleErrorBody(404, `Method not found: ${request.method} ${request.path}.`) };
    }
    const model = decodeURIComponent(match[1] ?? '');
    const sent = request.headers['x-goog-api-key'] ?? new URL(request.path, 'http://x').searchParams.get('key');
    if (!sent) {
      return {
        status: 401,
        body: googleErrorBody(
          401,
          "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
        ),
      };
    }
    if (sent !== apiKey) {
      return {
        status: 403,
        body: googleErrorBody(403, 'Permission denied: Consumer has been suspended or the API key is not valid.'),
      };
    }
    const known = options.models ? options.models.includes(model) : model.startsWith('gemini-');
    if (!known) {
      return {
        status: 404,
        body: googleErrorBody(
          404,
          `models/${model} is not found for API version v1beta, or is not supported for generateContent.`,
        ),
      };
    }
    const prompt = promptOf(request.body);
    if (!prompt)
      return {
        status: 400,
        body: googleErrorBody(400, '* GenerateContentRequest.contents: contents is not specified'),
      };
    const played = answer(prompt, model);
    const firstSentence = played.text.split('. ')[0] ?? played.text;
    const endIndex = Buffer.byteLength(firstSentence, 'utf8');
    const metadata =
      played.sources === null
        ? undefined
        : {
            webSearchQueries: played.searchQueries ?? [prompt.split('\n')[0] ?? prompt],
            searchEntryPoint: { renderedContent: '<style>.container{}</style><div class="container">…</div>' },
            groundingChunks: played.sources.map((s) => ({ web: { uri: s.uri, title: s.title } })),
            groundingSupports:
              played.sources.length === 0
                ? []
                : [
                    {
                      segment: { startIndex: 0, endIndex, text: firstSentence },
                      groundingChunkIndices: played.sources.map((_, i) => i),
                      confidenceScores: played.sources.map(() => 0.9),
                    },
                  ],
            retrievalMetadata: {},
          };
    responses++;
    return {
      status: 200,
      body: {
        candidates: [
          {
            content: { role: 'model', parts: [{ text: played.text }] },
            finishReason: 'STOP',
            ...(metadata ? { groundingMetadata: metadata } : {}),
          },
        ],
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 80, totalTokenCount: 92 },
        modelVersion: model,
        responseId: `fake-${responses}`,
      },
    };
  };
  const api = await startFakeApi(route, (status) => googleErrorBody(status));
  return {
    ...api,
    apiKey,
    prompts: () => api.requests.filter((r) => ROUTE.test(r.path)).map((r) => promptOf(r.body)),
    models: () =>
      api.requests
        .map((r) => ROUTE.exec(r.path)?.[1])
        .filter((m): m is string => m !== undefined)
        .map(decodeURIComponent),
    setAnswer(next) {
      answer = next;
    },
  };
}
