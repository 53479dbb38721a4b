import { type HttpClient, type HttpRequestOptions, type HttpResponse, isProContextError } from '@pro-context/kernel';
import { parseRetryAfterMs } from './retry-after.js';
import { upstreamFailureOf } from './upstream-failure.js';

/** How {@link postWithRetries} retries (take the values from the kernel's `http` config). */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  /** Backoff before each retry, ms (the last value repeats). */
  retryDelaysMs: readonly number[];
  /** Longest `Retry-After` honoured, ms; a longer one returns the response at once. */
  maxRetryAfterMs: number;
}

const retryable = (status: number) => status === 429 || status >= 500;

/**
 * A POST to a read-only remote API (a search, a grounded answer) through the kernel's `HttpClient`, retried
 * on 5xx, 429 (honouring `Retry-After`) and network failures, all within one deadline (`options.timeoutMs`).
 * The HTTP client itself never retries a POST, since it cannot know that one is safe to repeat; the caller
 * does. Returns the last response (a non-2xx one too); throws the client's error when the last attempt
 * failed in transport or the deadline passed.
 */
export async function postWithRetries(
  http: HttpClient,
  url: string,
  options: HttpRequestOptions & { timeoutMs: number },
  policy: RetryPolicy,
): Promise<HttpResponse> {
  const deadline = Date.now() + options.timeoutMs;
  let timeouts = 0;
  for (let attempt = 0; ; attempt++) {
    const remaining = deadline - Date.now();
    const last = attempt >= policy.retries;
    const backoff = policy.retryDelaysMs[Math.min(attempt, policy.retryDelaysMs.length - 1)] ?? 1000;
    let response: HttpResponse;
    try {
      response = await http.request(url, { ...options, method: 'POST', retries: 0, timeoutMs: Math.max(1, remaining) });
    } catch (error) {
      const deadlinePassed = Date.now() >= deadline;
      const transport = isProContextError(error) && error.code === 'SOURCE_UNAVAILABLE';
      // a billed call that timed out is retried at most once, and only within the deadline
      const timedOutTwice = upstreamFailureOf(error) === 'timeout' && ++timeouts > 1;
      if (
        last ||
        deadlinePassed ||
        !transport ||
        timedOutTwice ||
        options.signal?.aborted ||
        Date.now() + backoff >= deadline
      ) {
        throw error;
      }
      await sleep(backoff, options.signal);
      continue;
    }
    if (last || !retryable(response.status)) return response;
    const asked = parseRetryAfterMs(response.headers['retry-after']);
    if (asked !== undefined && asked > policy.maxRetryAfterMs) {
      return Object.assign(response, { retryAfter: Math.ceil(asked / 1000) });
    }
    const wait = asked ?? backoff;
    if (Date.now() + wait >= deadline) {
      return asked === undefined ? response : Object.assign(response, { retryAfter: Math.ceil(asked / 1000) });
    }
    await sleep(wait, options.signal);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
