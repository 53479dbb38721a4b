import type { LookupFunction } from 'node:net';
import type { Logger } from '../contracts/logger.js';

/** Options of one request. */
export interface HttpRequestOptions {
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  /** Request body (POST). Objects are sent as JSON. */
  body?: string | Uint8Array | Record<string, unknown>;
  /** Overall deadline for this request including retries and redirects, ms (default: client's `timeoutMs`). */
  timeoutMs?: number;
  /** Response size cap in bytes (default: client's `maxBodyBytes`). Bigger bodies fail with `INVALID_CONTENT`. */
  maxBodyBytes?: number;
  /** Redirect cap (default: client's `maxRedirects`). */
  maxRedirects?: number;
  /** Retries on network errors, 5xx and 429 (default: client's `retries`). `0` disables. */
  retries?: number;
  /** Sends `If-None-Match`; a `304` comes back with `notModified: true`. */
  etag?: string;
  /** Sends `If-Modified-Since`. */
  lastModified?: string;
  signal?: AbortSignal;
  /**
   * Called with every redirect target before it is fetched (not with the first URL, which the caller
   * checks itself); throwing refuses the hop and fails the request. A catalog error is passed through as
   * is; any other error becomes `URL_NOT_ALLOWED` naming the redirect. Lets a caller hold every hop to
   * its own policy (`read-page`'s allowlist) on top of the client's network-address guard. `hop` tells the
   * redirect's status and the URL it came from (a POST turned into a GET by a 301/302/303 can be refused).
   */
  allowUrl?: (url: URL, hop: { status: number; from: URL }) => void;
}

/** A response whose body was read completely (within the size cap). */
export interface HttpResponse {
  /** The URL the body was read from, after redirects. */
  url: string;
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body: Uint8Array;
  /** `status === 304` after a conditional request. */
  notModified: boolean;
  /** How many redirects were followed. */
  redirects: number;
  /**
   * Seconds the server asked to wait (`Retry-After` on a `429` or `503`), when it came back after
   * retries, or at once because the wait exceeded `maxRetryAfterMs`. Copy it into an error's `retryAfter`.
   */
  retryAfter?: number;
  /** The body as UTF-8 text. */
  text(): string;
  /** The body parsed as JSON. Throws `INVALID_CONTENT` on malformed JSON. */
  json<T = unknown>(): T;
}

/**
 * A response whose body is read as it arrives ({@link HttpClient.stream}): status and headers are known, the body is
 * not read yet. Read `body` once, to its end, or call `cancel()`; either frees the connection.
 */
export interface HttpStreamResponse extends Omit<HttpResponse, 'body' | 'text' | 'json'> {
  /**
   * The body chunk by chunk, counted against the size cap as it arrives (the read fails with `INVALID_CONTENT` once
   * it passes it). Reading pauses the download (backpressure). A stall longer than the client's `bodyTimeoutMs`, a
   * reset connection or the caller's abort fail the read with the same catalog errors as `request`.
   */
  body: AsyncIterable<Uint8Array>;
  /** Stops reading: the rest of the body is dropped and the connection closed. Safe to call more than once. */
  cancel(): void;
}

/** Options of the guarded HTTP client (config section `http`, plus `security.allowPrivateNetwork`). */
export interface HttpClientOptions {
  /** Overall deadline per request, ms. Default 30 000. */
  timeoutMs?: number;
  /** TCP/TLS connect timeout, ms. Default 10 000. */
  connectTimeoutMs?: number;
  /** Time to first response headers, ms. Default 15 000. */
  headersTimeoutMs?: number;
  /** Maximum idle time between body chunks, ms. Default 30 000. */
  bodyTimeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  retries?: number;
  /** Backoff before each retry, ms. Default `[1000, 3000]` (the last value repeats). */
  retryDelaysMs?: number[];
  /**
   * Longest `Retry-After` honoured, ms; with a longer one the `429`/`503` response is returned at once,
   * with `retryAfter` set. Default 60 000.
   */
  maxRetryAfterMs?: number;
  /** Response size cap, bytes. Default 10 MiB. */
  maxBodyBytes?: number;
  /** Redirect cap. Default 5. */
  maxRedirects?: number;
  userAgent?: string;
  /**
   * Loopback/private/CGNAT targets let through: `true` all, or only these host names (`*.corp.example`) and ranges
   * (`10.1.0.0/16`). Default `false`: those and link-local, multicast, reserved, unspecified addresses are refused
   * with `URL_NOT_ALLOWED`, at connect time, after DNS resolution, on every redirect hop (link-local always).
   */
  allowPrivateNetwork?: boolean | readonly string[];
  /** Proxy URL; default from `HTTPS_PROXY`/`https_proxy` (and `HTTP_PROXY` for http URLs), honouring `NO_PROXY`. */
  proxy?: string | false;
  /** DNS lookup used when connecting (tests inject a resolver; default `dns.lookup`). */
  lookup?: LookupFunction;
}

/**
 * The only way any plugin reaches the network. Requests are guarded against SSRF, bounded in time and
 * size, retried with backoff and logged (secrets redacted).
 */
export interface HttpClient {
  /** Sends a request. Non-2xx statuses are returned, not thrown; transport failures throw catalog errors. */
  request(url: string | URL, options?: HttpRequestOptions): Promise<HttpResponse>;
  get(url: string | URL, options?: Omit<HttpRequestOptions, 'method' | 'body'>): Promise<HttpResponse>;
  /**
   * GET whose body is handed over as it arrives instead of being read whole, for files too large to hold (a big
   * llms-full.txt). Same guards as `request` (address checks on every hop, `allowUrl`, redirects, retries and
   * backoff before the first body byte, size cap counted as bytes arrive, logging). The overall deadline
   * (`timeoutMs`) runs until the response headers; the body is then bounded by the client's `bodyTimeoutMs`
   * between chunks (not while the reader pauses) and by `signal`.
   */
  stream(url: string | URL, options?: Omit<HttpRequestOptions, 'method' | 'body'>): Promise<HttpStreamResponse>;
  /** Closes pooled connections. */
  close(): Promise<void>;
}

/**
 * Builds the HTTP client from the options the kernel assembled from the `http` and `security` config (and
 * `KernelOptions.httpOptions`). `createHttpClient` of `@pro-context/http` is the one to pass.
 */
export type HttpClientFactory = (options: HttpClientOptions, logger: Logger) => HttpClient;
