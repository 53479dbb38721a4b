import { defineErrors, type HttpClient, type ProContextError } from '@pro-context/kernel';
import {
  defineMessages,
  missingKeyMessage,
  postRemote,
  type RetryPolicy,
  remoteEndpoint,
  withoutKey,
} from '@pro-context/plugin-kit';
import { GEMINI_API_KEY_ENV } from './options.js';

/** The exact answer of every ground.* tool when the key is missing (seed 003). */
export const MISSING_KEY_MESSAGE = missingKeyMessage(GEMINI_API_KEY_ENV);

/** The grounding plugin's own error codes. */
export const groundingErrors = defineErrors({
  GROUNDING_KEY_MISSING: {
    recoverable: false,
    message: MISSING_KEY_MESSAGE,
    suggestion: `Set ${GEMINI_API_KEY_ENV} to a Gemini API key in the server's environment and restart it.`,
  },
  GROUNDING_KEY_REJECTED: {
    recoverable: false,
    message: 'Gemini refused the API key (HTTP {status}{statusText}): {detail}',
    suggestion: `Check ${GEMINI_API_KEY_ENV}: the key must be a valid Gemini API key with the Generative Language API enabled.`,
  },
  GROUNDING_REQUEST_INVALID: {
    recoverable: true,
    message: 'Gemini refused the request (HTTP {status}{statusText}): {detail}',
    suggestion: 'Check the model name (for example gemini-2.5-flash) and the query, then call the tool again.',
  },
});

/** The sentences of Gemini's failures under the kernel's codes (the plugin's message catalog). */
export const geminiMessages = defineMessages({
  TIMED_OUT: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'Gemini did not answer within {seconds} s.',
    suggestion: 'Try again later, or raise grounding.timeoutSeconds.',
  },
  UNREACHABLE: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'Gemini could not be reached: {detail}',
    suggestion: 'Try again later, or raise grounding.timeoutSeconds.',
  },
  NOT_JSON: { code: 'SOURCE_UNAVAILABLE', message: 'Gemini answered with something that is not JSON ({host}).' },
  NO_ANSWER: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'Gemini returned no answer ({why}).',
    suggestion: 'Rephrase the query, or try again.',
  },
  RATE_LIMITED: {
    code: 'RATE_LIMITED',
    message: 'Gemini rate limit reached (HTTP 429{statusText}): {detail}',
    suggestion: 'Try again after {retryAfter} seconds.',
  },
  UNAVAILABLE: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'Gemini is unavailable (HTTP {status}{statusText}): {detail}',
    suggestion: 'Try again later.',
  },
});

/** One cited web page. */
export interface GroundingSource {
  title: string;
  url: string;
}

/** A grounded answer, as Gemini gave it. */
export interface GroundedAnswer {
  /** The model's answer text. */
  answer: string;
  /** The cited pages, de-duplicated by URL, in first-cited order. */
  sources: GroundingSource[];
  /** The Google searches the model ran. */
  searchQueries: string[];
  /** Whether the response carried grounding metadata (the model searched). */
  grounded: boolean;
  /** The model that answered (`modelVersion`, else the one asked for). */
  model: string;
}

/** What `generateContent` answers (the fields read here). */
interface GenerateContentResponse {
  candidates?: {
    content?: { parts?: { text?: string; thought?: boolean }[] };
    finishReason?: string;
    groundingMetadata?: {
      webSearchQueries?: string[];
      groundingChunks?: { web?: { uri?: string; title?: string } }[];
    };
  }[];
  promptFeedback?: { blockReason?: string };
  modelVersion?: string;
}

/** Google's JSON error shape. */
interface GoogleError {
  error?: { code?: number; message?: string; status?: string };
}

/** The sources of a response: every web chunk, de-duplicated by URL (first title kept). */
export function sourcesOf(
  chunks: readonly { web?: { uri?: string; title?: string } }[] | undefined,
): GroundingSource[] {
  const seen = new Map<string, GroundingSource>();
  for (const chunk of chunks ?? []) {
    const url = chunk.web?.uri?.trim();
    if (!url || seen.has(url)) continue;
    seen.set(url, { url, title: chunk.web?.title?.trim() || url });
  }
  return [...seen.values()];
}

/** The numbered markdown list of sources, or the note that the answer has none. */
export function renderSources(answer: Pick<GroundedAnswer, 'sources' | 'grounded'>): string {
  if (answer.sources.length === 0) {
    return answer.grounded
      ? '## Sources\n\nNo sources: the search returned no citable pages for this answer.'
      : '## Sources\n\nNo sources: Gemini answered without searching the web (no grounding metadata), so nothing here is cited.';
  }
  const escapeTitle = (title: string) => title.replace(/[[\]\\]/g, (c) => `\\${c}`);
  const escapeUrl = (url: string) => url.replace(/[()\s]/g, (c) => encodeURIComponent(c));
  const lines = answer.sources.map((s, i) => `${i + 1}. [${escapeTitle(s.title)}](${escapeUrl(s.url)})`);
  return `## Sources\n\n${lines.join('\n')}`;
}

/** Options of one `generateContent` call. */
export interface GenerateOptions {
  url: string;
  apiKey: string;
  model: string;
  prompt: string;
  timeoutMs: number;
  retry: RetryPolicy;
  signal?: AbortSignal;
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/**
 * Asks Gemini (`POST {url}/v1beta/models/{model}:generateContent`) with the Google Search tool and reads the
 * answer and its grounding metadata. Failures are catalog errors; none carries the key.
 */
export async function generateGrounded(http: HttpClient, options: GenerateOptions): Promise<GroundedAnswer> {
  const endpoint = remoteEndpoint(options.url, `/v1beta/models/${encodeURIComponent(options.model)}:generateContent`);
  const response = await postRemote(
    http,
    endpoint,
    {
      headers: { 'x-goog-api-key': options.apiKey, 'content-type': 'application/json' },
      body: {
        contents: [{ role: 'user', parts: [{ text: options.prompt }] }],
        tools: [{ google_search: {} }],
      },
      ...(options.signal ? { signal: options.signal } : {}),
    },
    options,
    {
      timedOut: (seconds, cause) => geminiMessages.create('TIMED_OUT', { seconds }, { cause }),
      unreachable: (detail, cause) => geminiMessages.create('UNREACHABLE', { detail }, { cause }),
    },
  );
  if (response.status < 200 || response.status >= 300) throw statusError(response, options);
  let body: GenerateContentResponse;
  try {
    body = response.json<GenerateContentResponse>();
  } catch {
    throw geminiMessages.create('NOT_JSON', { host: hostOf(endpoint) });
  }
  const candidate = body.candidates?.[0];
  const text = (candidate?.content?.parts ?? [])
    .filter((p) => !p.thought && typeof p.text === 'string')
    .map((p) => p.text)
    .join('')
    .trim();
  if (!candidate || text.length === 0) {
    const why = body.promptFeedback?.blockReason ?? candidate?.finishReason ?? 'no candidates';
    throw geminiMessages.create('NO_ANSWER', { why });
  }
  const metadata = candidate.groundingMetadata;
  return {
    answer: text,
    sources: sourcesOf(metadata?.groundingChunks),
    searchQueries: metadata?.webSearchQueries ?? [],
    grounded: metadata !== undefined,
    model: body.modelVersion ?? options.model,
  };
}

function statusError(response: Awaited<ReturnType<HttpClient['request']>>, options: GenerateOptions): ProContextError {
  let detail = '';
  let statusText = '';
  try {
    const parsed = response.json<GoogleError>();
    detail = parsed.error?.message ?? '';
    statusText = parsed.error?.status ?? '';
  } catch {
    detail = response.text().slice(0, 200);
  }
  detail = withoutKey(detail.trim() || 'no details', options.apiKey).slice(0, 500);
  const values = { status: response.status, statusText: statusText ? ` ${statusText}` : '', detail };
  const status = response.status;
  if (status === 429) {
    const retryAfter = response.retryAfter ?? 60;
    return geminiMessages.create('RATE_LIMITED', { statusText: values.statusText, detail, retryAfter }, { retryAfter });
  }
  if (status === 401 || status === 403) return groundingErrors.create('GROUNDING_KEY_REJECTED', values);
  if (status >= 400 && status < 500) return groundingErrors.create('GROUNDING_REQUEST_INVALID', values);
  return geminiMessages.create(
    'UNAVAILABLE',
    { status, statusText: values.statusText, detail },
    { details: { status } },
  );
}
