import { defineErrors, type HttpClient, type HttpResponse, type ProContextError } from '@pro-context/kernel';
import {
  defineMessages,
  missingKeyMessage,
  postRemote,
  type RetryPolicy,
  remoteEndpoint,
  withoutKey,
} from '@pro-context/plugin-kit';
import { EXA_API_KEY_ENV } from './options.js';

/** The answer of both Exa tools when the key is missing (worded as seed 003 words Gemini's). */
export const EXA_MISSING_KEY_MESSAGE = missingKeyMessage(EXA_API_KEY_ENV);

/**
 * The exa plugin's own error codes. Every failure of a search reads as seed 004's executor words it,
 * `Exa search failed: <what went wrong>`; the missing key keeps seed 003's wording (see the README).
 */
export const exaErrors = defineErrors({
  EXA_KEY_MISSING: {
    recoverable: false,
    message: EXA_MISSING_KEY_MESSAGE,
    suggestion: `Set ${EXA_API_KEY_ENV} to an Exa API key in the server's environment and restart it.`,
  },
  EXA_KEY_REJECTED: {
    recoverable: false,
    message: 'Exa search failed: {detail} (HTTP {status}: the API key was refused)',
    suggestion: `Check ${EXA_API_KEY_ENV}: it must be a valid Exa API key.`,
  },
  EXA_REQUEST_INVALID: {
    recoverable: true,
    message: 'Exa search failed: {detail} (HTTP {status})',
    suggestion: 'Fix the named argument and call the tool again.',
  },
});

/** The sentences of Exa's failures under the kernel's codes (the plugin's message catalog). */
export const exaMessages = defineMessages({
  TIMED_OUT: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'Exa search failed: no answer within {seconds} s.',
    suggestion: 'Try again later, or raise exa.timeoutSeconds.',
  },
  UNREACHABLE: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'Exa search failed: Exa could not be reached: {detail}',
    suggestion: 'Try again later, or raise exa.timeoutSeconds.',
  },
  NOT_JSON: { code: 'SOURCE_UNAVAILABLE', message: 'Exa search failed: the answer is not JSON.' },
  RATE_LIMITED: {
    code: 'RATE_LIMITED',
    message: 'Exa search failed: rate limit reached (HTTP 429): {detail}',
    suggestion: 'Try again after {retryAfter} seconds.',
  },
  UNAVAILABLE: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'Exa search failed: {detail} (HTTP {status})',
    suggestion: 'Try again later.',
  },
});

/** One result as Exa answers it (the fields read here). */
export interface ExaResult {
  id?: string;
  url: string;
  title?: string | null;
  publishedDate?: string | null;
  author?: string | null;
  score?: number | null;
  text?: string | null;
  highlights?: string[] | null;
  summary?: string | null;
}

/** Exa's `/search` and `/findSimilar` response (the fields read here). */
export interface ExaSearchResponse {
  requestId?: string;
  resolvedSearchType?: string;
  results?: ExaResult[];
  searchTime?: number;
}

/** Options of one Exa request. */
export interface ExaRequestOptions {
  url: string;
  apiKey: string;
  timeoutMs: number;
  retry: RetryPolicy;
  signal?: AbortSignal;
}

/**
 * POSTs `body` to `{url}{path}` with `x-api-key`, retried on 5xx, 429 and network failures within the
 * deadline; answers the parsed body and the round-trip time. Failures are catalog errors without the key.
 */
export async function exaPost(
  http: HttpClient,
  path: '/search' | '/findSimilar',
  body: Record<string, unknown>,
  options: ExaRequestOptions,
): Promise<{ response: ExaSearchResponse; elapsedMs: number }> {
  const started = performance.now();
  const response = await postRemote(
    http,
    remoteEndpoint(options.url, path),
    {
      headers: { 'x-api-key': options.apiKey, 'content-type': 'application/json', accept: 'application/json' },
      body,
      ...(options.signal ? { signal: options.signal } : {}),
    },
    options,
    {
      timedOut: (seconds, cause) => exaMessages.create('TIMED_OUT', { seconds }, { cause }),
      unreachable: (detail, cause) => exaMessages.create('UNREACHABLE', { detail }, { cause }),
    },
  );
  if (response.status < 200 || response.status >= 300) throw statusError(response, options.apiKey);
  try {
    return { response: response.json<ExaSearchResponse>(), elapsedMs: Math.round(performance.now() - started) };
  } catch {
    throw exaMessages.create('NOT_JSON', {});
  }
}

function statusError(response: HttpResponse, apiKey: string): ProContextError {
  let detail: string;
  try {
    const parsed = response.json<{ error?: string; message?: string }>();
    detail = [parsed.error, parsed.message].filter(Boolean).join(': ');
  } catch {
    // a gateway's HTML page, as exa-js reports it
    detail = `Request failed with status ${response.status}`;
  }
  detail = withoutKey(detail.trim() || 'no details', apiKey).slice(0, 500);
  const status = response.status;
  if (status === 429) {
    const retryAfter = response.retryAfter ?? 60;
    return exaMessages.create('RATE_LIMITED', { detail, retryAfter }, { retryAfter });
  }
  if (status === 401 || status === 403) return exaErrors.create('EXA_KEY_REJECTED', { status, detail });
  if (status >= 400 && status < 500) return exaErrors.create('EXA_REQUEST_INVALID', { status, detail });
  return exaMessages.create('UNAVAILABLE', { detail, status }, { details: { status } });
}
