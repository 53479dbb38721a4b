import type { FetchContext, HttpClient, HttpResponse, ProContextError } from '@pro-context/kernel';
import { githubMessages } from './messages.js';
import type { GithubPluginOptions } from './options.js';

/** The API rate limit as GitHub last reported it (`x-ratelimit-*` headers). */
export interface RateLimit {
  limit: number;
  remaining: number;
  /** Epoch seconds when the window resets. */
  reset: number;
  used?: number;
}

/** A JSON answer of the API and the ETag it came with. */
interface Revalidated {
  etag: string;
  value: unknown;
}

const API_HEADERS = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };
/** ETag'd answers kept for revalidation (`If-None-Match` → `304`, which costs no rate limit). */
const MAX_REVALIDATED = 500;

/**
 * The GitHub REST API through the kernel's HttpClient: the token as a bearer header (never logged: the client
 * redacts it), the rate limit read from every answer and refused locally while exhausted, and every JSON
 * answer revalidated with its ETag the next time it is asked for.
 */
export class GithubApi {
  rate: RateLimit | undefined;
  /** Requests sent to the API (not the raw host), for tests and health. */
  requests = 0;
  private readonly etags = new Map<string, Revalidated>();

  constructor(
    private readonly options: GithubPluginOptions,
    private readonly http: HttpClient,
  ) {}

  /** Headers of an API request. */
  private headers(): Record<string, string> {
    return { ...API_HEADERS, ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}) };
  }

  /** The rate limit reached: refuse before sending (the answer would be a 403 that costs time). */
  private checkBudget(): void {
    const rate = this.rate;
    if (!rate || rate.remaining > 0) return;
    const wait = rate.reset - Math.floor(Date.now() / 1000);
    if (wait <= 0) return;
    throw this.rateLimited(wait);
  }

  private rateLimited(retryAfter: number): ProContextError {
    const at = this.rate ? new Date(this.rate.reset * 1000).toISOString() : undefined;
    const seconds = Math.max(1, retryAfter);
    return githubMessages.create(
      this.options.token ? 'RATE_LIMITED' : 'RATE_LIMITED_WITHOUT_TOKEN',
      { limit: this.rate?.limit ?? '?', resets: at ? `, resets at ${at}` : '', seconds },
      { retryAfter: seconds, details: { limit: this.rate?.limit, reset: at } },
    );
  }

  private readRate(response: HttpResponse): void {
    const h = response.headers;
    const remaining = Number(h['x-ratelimit-remaining']);
    const reset = Number(h['x-ratelimit-reset']);
    if (h['x-ratelimit-remaining'] === undefined || !Number.isFinite(remaining) || !Number.isFinite(reset)) return;
    const limit = Number(h['x-ratelimit-limit']);
    const used = Number(h['x-ratelimit-used']);
    this.rate = {
      limit: Number.isFinite(limit) ? limit : (this.rate?.limit ?? 0),
      remaining,
      reset,
      ...(Number.isFinite(used) ? { used } : {}),
    };
  }

  /** Throws the catalog error an unsuccessful API answer means. */
  private fail(response: HttpResponse, what: string): never {
    const status = response.status;
    const retryAfter = Number(response.headers['retry-after']);
    if (
      (status === 403 || status === 429) &&
      (response.headers['x-ratelimit-remaining'] === '0' || Number.isFinite(retryAfter))
    ) {
      const wait = Number.isFinite(retryAfter)
        ? retryAfter
        : (this.rate?.reset ?? Math.floor(Date.now() / 1000) + 60) - Math.floor(Date.now() / 1000);
      throw this.rateLimited(wait);
    }
    if (status === 404) {
      throw githubMessages.create(
        this.options.token ? 'NOT_FOUND' : 'NOT_FOUND_WITHOUT_TOKEN',
        { what },
        { details: { status } },
      );
    }
    if (status === 401 || status === 403) {
      throw githubMessages.create('REFUSED', { what, status }, { details: { status } });
    }
    throw githubMessages.create(
      'HTTP_STATUS',
      { status, what },
      { details: { status }, ...(response.retryAfter ? { retryAfter: response.retryAfter } : {}) },
    );
  }

  /** GET an API path (`/repos/o/r`), revalidating a previous answer with its ETag. */
  async json<T>(
    path: string,
    what: string,
    context: FetchContext = {},
  ): Promise<{ value: T; etag?: string; headers: Record<string, string> }> {
    const url = `${this.options.apiUrl}${path}`;
    const known = this.etags.get(url);
    this.checkBudget();
    this.requests += 1;
    const response = await this.http.get(url, {
      headers: this.headers(),
      ...(known ? { etag: known.etag } : {}),
      ...(context.signal ? { signal: context.signal } : {}),
    });
    this.readRate(response);
    if ((response.notModified || response.status === 304) && known) {
      return { value: known.value as T, etag: known.etag, headers: response.headers };
    }
    if (response.status < 200 || response.status >= 300) this.fail(response, what);
    const value = response.json<T>();
    const etag = response.headers.etag;
    if (etag) {
      this.etags.delete(url);
      this.etags.set(url, { etag, value });
      if (this.etags.size > MAX_REVALIDATED) this.etags.delete(this.etags.keys().next().value as string);
    }
    return { value, ...(etag ? { etag } : {}), headers: response.headers };
  }

  /** A conditional GET: `'not-modified'` for a 304, else the answer's ETag and body. */
  async revalidate<T>(
    path: string,
    etag: string,
    what: string,
    context: FetchContext = {},
  ): Promise<'not-modified' | { value: T; etag?: string }> {
    const url = `${this.options.apiUrl}${path}`;
    this.checkBudget();
    this.requests += 1;
    const response = await this.http.get(url, {
      headers: this.headers(),
      etag,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    this.readRate(response);
    if (response.notModified || response.status === 304) return 'not-modified';
    if (response.status < 200 || response.status >= 300) this.fail(response, what);
    return { value: response.json<T>(), ...(response.headers.etag ? { etag: response.headers.etag } : {}) };
  }

  /** GET a binary API answer (a tarball, after its redirect to the download host). */
  async binary(path: string, what: string, maxBodyBytes: number, context: FetchContext = {}): Promise<Uint8Array> {
    this.checkBudget();
    this.requests += 1;
    const response = await this.http.get(`${this.options.apiUrl}${path}`, {
      headers: { ...this.headers(), accept: 'application/vnd.github+json, application/x-gzip;q=0.9, */*;q=0.5' },
      maxBodyBytes,
      timeoutMs: 120_000,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    this.readRate(response);
    if (response.status < 200 || response.status >= 300) this.fail(response, what);
    return response.body;
  }

  /** A raw file (`{rawUrl}/o/r/ref/path`): its text, or `undefined` for a 404. Not rate limited. */
  async raw(url: string, context: FetchContext = {}): Promise<{ text: string; etag?: string } | undefined> {
    const response = await this.http.get(url, {
      headers: this.options.token ? { authorization: `Bearer ${this.options.token}` } : {},
      ...(context.signal ? { signal: context.signal } : {}),
      ...(context.allowUrl ? { allowUrl: context.allowUrl } : {}),
    });
    if (response.status === 404) return undefined;
    if (response.status < 200 || response.status >= 300) {
      throw githubMessages.create(
        'HTTP_STATUS',
        { status: response.status, what: url },
        { details: { status: response.status, url } },
      );
    }
    return { text: response.text(), ...(response.headers.etag ? { etag: response.headers.etag } : {}) };
  }
}
