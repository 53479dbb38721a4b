import type { LookupFunction } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  HttpClient,
  HttpClientOptions,
  HttpRequestOptions,
  HttpResponse,
  HttpStreamResponse,
} from '@pro-context/kernel';
import { createNullLogger, isProContextError, type Logger, ProContextError } from '@pro-context/kernel';
import { errorText, parseRetryAfterMs, type UpstreamFailure, upstreamFailureOfStatus } from '@pro-context/plugin-kit';
import type { Agent, Dispatcher, ProxyAgent } from 'undici';
import { decodeBody } from './decode.js';
import {
  type AddressPolicy,
  checkUrlShape,
  createGuardedConnector,
  findBlocked,
  literalRefusal,
  lookupAll,
  resolvedRefusal,
  systemLookup,
  toUrlNotAllowed,
} from './guard.js';
import { createProxySelector, type ProxySelector } from './proxy.js';

type Method = NonNullable<HttpRequestOptions['method']>;

interface Settings {
  timeoutMs: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  retries: number;
  retryDelaysMs: number[];
  maxRetryAfterMs: number;
  maxBodyBytes: number;
  maxRedirects: number;
  userAgent: string;
}

const MiB = 1024 * 1024;
const redirectStatuses = new Set([301, 302, 303, 307, 308]);
const idempotentMethods = new Set<Method>(['GET', 'HEAD']);
/**
 * Transient transport failures worth another attempt; DNS misses, TLS and protocol errors are not, nor a refused
 * connection (nothing listens: retrying it only makes an interactive tool wait seconds for the same answer).
 */
const retryableCodes = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

const isRetryableStatus = (status: number) => status === 429 || (status >= 500 && status <= 599);

/** The transport error code, looking through `cause` and the AggregateError of Happy Eyeballs. */
function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const inner = (current as { errors?: unknown[] }).errors;
    current = Array.isArray(inner) && inner.length > 0 ? inner[0] : (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The transport error codes of each {@link UpstreamFailure} (the rest are `network`). */
const failureOfCode: Record<string, UpstreamFailure> = {
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_NONAME: 'dns',
  EAI_FAIL: 'dns',
  EAI_NODATA: 'dns',
  ECONNREFUSED: 'connection-refused',
  ECONNRESET: 'connection-reset',
  ECONNABORTED: 'connection-reset',
  EPIPE: 'connection-reset',
  UND_ERR_SOCKET: 'connection-reset',
  UND_ERR_CLOSED: 'connection-reset',
  ENETUNREACH: 'network-unreachable',
  ENETDOWN: 'network-unreachable',
  EHOSTUNREACH: 'network-unreachable',
  EHOSTDOWN: 'network-unreachable',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  EPROTO: 'tls',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'tls',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'tls',
  SELF_SIGNED_CERT_IN_CHAIN: 'tls',
  CERT_HAS_EXPIRED: 'tls',
  ERR_TLS_CERT_ALTNAME_INVALID: 'tls',
};

/** The {@link UpstreamFailure} of a transport error code. */
export function failureOfErrorCode(code: string | undefined): UpstreamFailure {
  if (!code) return 'network';
  return failureOfCode[code] ?? (/^(ERR_TLS_|ERR_SSL_|CERT_)/.test(code) ? 'tls' : 'network');
}

/** `promise`, or a rejection with the signal's reason once it aborts (for work that takes no signal). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function formatBytes(bytes: number): string {
  if (bytes >= MiB) return `${Math.round((bytes / MiB) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${bytes}-byte`;
}

function tooLarge(url: URL, limit: number): ProContextError {
  return new ProContextError(
    'INVALID_CONTENT',
    `Response from ${url.host} is larger than the ${formatBytes(limit)} limit.`,
    {
      details: { host: url.host, maxBodyBytes: limit, failure: 'too-large' satisfies UpstreamFailure },
    },
  );
}

/** Closes a body nobody will read. Destroying emits an AbortError nobody else listens for: swallowed, not a crash. */
function discardBody(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined).destroy();
}

/** Refuses, before reading any of it, a body whose declared length is over the size cap (a HEAD has none). */
function refuseDeclaredOversize(response: Dispatcher.ResponseData, url: URL, exchange: Exchange): void {
  const declared = Number(response.headers['content-length']);
  if (exchange.method !== 'HEAD' && Number.isFinite(declared) && declared > exchange.maxBodyBytes) {
    discardBody(response.body);
    throw tooLarge(url, exchange.maxBodyBytes);
  }
}

/**
 * Refuses, before reading any of it, a successful body in a content coding the request did not ask for (`gzip` sent
 * to a client that sends no `Accept-Encoding`): the client never decompresses, so those bytes are no text, and a
 * decompression bomb is never inflated. The error names the coding instead of leaving the page to read as binary.
 */
function refuseUnaskedEncoding(
  response: Dispatcher.ResponseData,
  url: URL,
  requestHeaders: Record<string, string>,
): void {
  const coding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (coding === '' || coding === 'identity' || response.statusCode < 200 || response.statusCode > 299) return;
  if (Object.keys(requestHeaders).some((name) => name.toLowerCase() === 'accept-encoding')) return;
  discardBody(response.body);
  throw new ProContextError(
    'INVALID_CONTENT',
    `${url.host} answered ${url.pathname} with Content-Encoding: ${coding.slice(0, 40)}, which was not asked for: the body is not decompressed.`,
    {
      details: {
        host: url.host,
        contentEncoding: coding.slice(0, 40),
        failure: 'invalid-body' satisfies UpstreamFailure,
      },
    },
  );
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** Runs the caller's hop check on a redirect target; a non-catalog error becomes `URL_NOT_ALLOWED`. */
function checkHop(
  allowUrl: (url: URL, hop: { status: number; from: URL }) => void,
  next: URL,
  from: URL,
  status: number,
): void {
  try {
    allowUrl(next, { status, from });
  } catch (error) {
    if (isProContextError(error)) throw error;
    const reason = error instanceof Error && error.message ? `: ${error.message.replace(/\.$/, '')}` : '';
    throw new ProContextError('URL_NOT_ALLOWED', `Refused the redirect from ${from.host} to ${next.host}${reason}.`, {
      details: { from: from.href, to: next.href, failure: 'refused-by-policy' satisfies UpstreamFailure },
      cause: error,
    });
  }
}

/** One request's mutable state across hops and attempts. */
interface Exchange {
  method: Method;
  signal: AbortSignal;
  /** `performance.now()` value after which the overall deadline has passed. */
  deadlineAt: number;
  /** The overall deadline, ms. */
  timeoutMs: number;
  /**
   * The caller set this request's deadline (`timeoutMs`): the per-attempt headers (and, read whole, body) timeouts
   * follow it instead of the client's defaults, so a remote call given 60 s is not cut after 15 s.
   */
  ownDeadline: boolean;
  maxBodyBytes: number;
  retries: number;
  retriesUsed: number;
  host: string;
  /** The body is handed over unread (`stream`), not read whole. */
  stream: boolean;
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  /** The unread body, for a streamed request. */
  stream?: Dispatcher.ResponseData['body'];
}

/** A request followed to its last hop. */
interface Followed {
  url: URL;
  raw: RawResponse;
  redirects: number;
}

type Undici = typeof import('undici');
let undiciModule: Promise<Undici> | undefined;
/** undici is loaded on the first request, not at start-up: a server answers `tools/list` without it. */
const loadUndici = (): Promise<Undici> => {
  // a bundler may hand back CommonJS exports under `default` only
  undiciModule ??= import('undici').then((m) =>
    typeof m.buildConnector === 'function' ? m : ((m as unknown as { default: Undici }).default ?? m),
  );
  return undiciModule;
};

/** Longest a `Retry-After` keeps a host from being asked again (a hostile or broken header cannot block it for days). */
const MAX_COOLDOWN_MS = 60 * 60_000;

/** A host that answered 429/503 with `Retry-After`: not asked again before `until` (epoch ms). */
interface Cooldown {
  until: number;
  status: number;
}

class GuardedHttpClient implements HttpClient {
  private direct: Promise<Agent> | undefined;
  /** Hosts (`host:port`) that asked, with `Retry-After`, not to be asked again yet. */
  private readonly cooldowns = new Map<string, Cooldown>();
  private readonly proxies = new Map<string, ProxyAgent>();
  private readonly selectProxy: ProxySelector;

  constructor(
    private readonly settings: Settings,
    private readonly policy: AddressPolicy,
    private readonly lookup: LookupFunction,
    proxy: string | false | undefined,
    private readonly logger: Logger,
  ) {
    this.selectProxy = createProxySelector(proxy);
  }

  private directAgent(): Promise<Agent> {
    this.direct ??= loadUndici().then(
      ({ Agent, buildConnector }) =>
        new Agent({
          connect: createGuardedConnector(buildConnector, this.policy, this.lookup, this.settings.connectTimeoutMs),
          headersTimeout: this.settings.headersTimeoutMs,
          bodyTimeout: this.settings.bodyTimeoutMs,
          connections: 16,
        }),
    );
    return this.direct;
  }

  get(url: string | URL, options: Omit<HttpRequestOptions, 'method' | 'body'> = {}): Promise<HttpResponse> {
    return this.request(url, { ...options, method: 'GET' });
  }

  async close(): Promise<void> {
    const direct = this.direct ? [this.direct.then((agent) => agent.close())] : [];
    await Promise.all([...direct, ...[...this.proxies.values()].map((agent) => agent.close())]);
  }

  async request(input: string | URL, options: HttpRequestOptions = {}): Promise<HttpResponse> {
    const { url, raw, redirects } = await this.run(input, options, false);
    return this.toResponse(url, raw, redirects);
  }

  async stream(
    input: string | URL,
    options: Omit<HttpRequestOptions, 'method' | 'body'> = {},
  ): Promise<HttpStreamResponse> {
    const started = performance.now();
    const { url, raw, redirects, exchange } = await this.run(input, { ...options, method: 'GET' }, true);
    const { status, headers } = raw;
    const body = raw.stream;
    const retryAfterMs = status === 429 || status === 503 ? parseRetryAfterMs(headers['retry-after']) : undefined;
    const limit = exchange.maxBodyBytes;
    let bytes = 0;
    let settled = false;
    const discard = () => {
      if (settled || body === undefined) return;
      settled = true;
      discardBody(body);
    };
    const logger = this.logger;
    const self = this;
    async function* chunks(): AsyncGenerator<Uint8Array> {
      if (body === undefined) return;
      try {
        for await (const chunk of body as AsyncIterable<Buffer>) {
          bytes += chunk.byteLength;
          if (bytes > limit) throw tooLarge(url, limit);
          yield chunk;
        }
        settled = true;
        logger.debug('http stream read', { host: url.host, bytes, ms: Math.round(performance.now() - started) });
      } catch (error) {
        const failure = isProContextError(error)
          ? error
          : options.signal?.aborted
            ? (options.signal.reason ?? error)
            : self.unavailable(error, exchange);
        logger.debug('http stream failed', {
          host: url.host,
          bytes,
          errorCode: isProContextError(failure) ? failure.code : errorCode(failure),
          error: errorText(failure),
        });
        throw failure;
      } finally {
        discard();
      }
    }
    return {
      url: url.href,
      status,
      headers,
      notModified: status === 304,
      redirects,
      ...(retryAfterMs === undefined ? {} : { retryAfter: Math.ceil(retryAfterMs / 1000) }),
      body: chunks(),
      cancel: discard,
    };
  }

  /**
   * Sends the request and follows it to its last hop, with every guard; a streamed one comes back with its body
   * unread, and the overall deadline no longer runs (its body is bounded by the body timeout and the signal).
   */
  private async run(
    input: string | URL,
    options: HttpRequestOptions,
    stream: boolean,
  ): Promise<Followed & { exchange: Exchange }> {
    const started = performance.now();
    let url: URL;
    try {
      url = new URL(input instanceof URL ? input.href : input);
    } catch {
      throw new ProContextError('INVALID_INPUT', `"${String(input).slice(0, 200)}" is not a valid URL.`);
    }
    const method = options.method ?? 'GET';
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const exchange: Exchange = {
      method,
      signal: options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal,
      deadlineAt: started + timeoutMs,
      timeoutMs,
      ownDeadline: options.timeoutMs !== undefined,
      maxBodyBytes: options.maxBodyBytes ?? this.settings.maxBodyBytes,
      retries: Math.max(0, options.retries ?? this.settings.retries),
      retriesUsed: 0,
      host: url.host,
      stream,
    };
    const fields = () => ({
      method,
      host: url.host,
      ...(exchange.host === url.host ? {} : { finalHost: exchange.host }),
      ms: Math.round(performance.now() - started),
      retries: exchange.retriesUsed,
    });
    try {
      const followed = await this.follow(url, options, exchange);
      const { status } = followed.raw;
      this.logger.debug('http request', {
        ...fields(),
        status,
        redirects: followed.redirects,
        ...(status === 304 ? { notModified: true } : {}),
        ...(stream ? { stream: true } : {}),
      });
      return { ...followed, exchange };
    } catch (error) {
      const failure = this.finalError(error, exchange, options.signal, timeoutMs);
      this.logger.debug('http request failed', {
        ...fields(),
        errorCode: isProContextError(failure) ? failure.code : errorCode(failure),
        error: errorText(failure),
      });
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Abort-caused errors become a deadline error (or the caller's own abort reason). */
  private finalError(error: unknown, exchange: Exchange, callerSignal: AbortSignal | undefined, timeoutMs: number) {
    if (isProContextError(error)) return error;
    if (callerSignal?.aborted) return callerSignal.reason ?? error;
    if (exchange.signal.aborted) {
      return new ProContextError('SOURCE_UNAVAILABLE', `Request to ${exchange.host} timed out after ${timeoutMs} ms.`, {
        details: { host: exchange.host, timeoutMs, failure: 'timeout' satisfies UpstreamFailure, phase: 'deadline' },
        cause: error,
      });
    }
    return this.unavailable(error, exchange);
  }

  /** Follows redirects by hand so every hop is re-validated (scheme here, address in the connector). */
  private async follow(start: URL, options: HttpRequestOptions, exchange: Exchange): Promise<Followed> {
    const maxRedirects = options.maxRedirects ?? this.settings.maxRedirects;
    const headers: Record<string, string> = { 'user-agent': this.settings.userAgent };
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
    // The target decides Host; a caller-set one could steer a proxy to a different host than the one checked.
    delete headers.host;
    if (options.etag) headers['if-none-match'] = options.etag;
    if (options.lastModified) headers['if-modified-since'] = options.lastModified;
    let body: string | Uint8Array | undefined;
    if (options.body instanceof Uint8Array || typeof options.body === 'string') body = options.body;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }

    let url = start;
    let via: string | undefined;
    for (let redirects = 0; ; redirects++) {
      exchange.host = url.host;
      checkUrlShape(url, via);
      let raw: RawResponse;
      this.refuseWhileCoolingDown(url);
      try {
        const proxy = this.selectProxy(url);
        await this.preflight(url, proxy, exchange.signal);
        raw = await this.attempts(url, headers, body, proxy, exchange);
      } catch (error) {
        const blocked = findBlocked(error);
        throw blocked ? toUrlNotAllowed(blocked, via) : error;
      }
      const location = redirectStatuses.has(raw.status) ? raw.headers.location : undefined;
      if (location === undefined) return { url, raw, redirects };
      if (redirects >= maxRedirects) {
        throw new ProContextError(
          'SOURCE_UNAVAILABLE',
          `Too many redirects from ${start.host}: gave up after ${maxRedirects}.`,
          { details: { host: start.host, maxRedirects, failure: 'redirect-loop' satisfies UpstreamFailure } },
        );
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new ProContextError('SOURCE_UNAVAILABLE', `${url.host} sent an invalid redirect location.`, {
          details: { host: url.host, failure: 'invalid-body' satisfies UpstreamFailure },
        });
      }
      if (options.allowUrl) checkHop(options.allowUrl, next, url, raw.status);
      if (next.origin !== url.origin) {
        // Credentials meant for one origin never travel to another.
        delete headers.authorization;
        delete headers.cookie;
      }
      if ((raw.status === 303 && exchange.method !== 'HEAD') || (raw.status <= 302 && exchange.method === 'POST')) {
        exchange.method = 'GET';
        body = undefined;
        delete headers['content-type'];
        delete headers['content-length'];
      }
      via = url.host;
      url = next;
    }
  }

  /**
   * Checks done before any dispatch. IP literals and `localhost` names are refused here with a clear
   * message (the connector would refuse them too). Through a proxy, the proxy resolves the target and
   * our connector only ever sees the proxy, so the target is resolved here and its addresses checked.
   * Gap, accepted and documented: the proxy resolves again and could get a different answer (DNS
   * rebinding between the two lookups), and names that do not resolve locally (proxy-only DNS) pass
   * unchecked. The proxy is the operator's egress control in that setup.
   */
  private async preflight(url: URL, proxy: URL | undefined, signal: AbortSignal): Promise<void> {
    const literal = literalRefusal(url.hostname, this.policy);
    if (literal) throw literal;
    if (!proxy || this.policy.trustedHosts.has(url.hostname)) return;
    let addresses: Awaited<ReturnType<typeof lookupAll>>;
    try {
      addresses = await abortable(lookupAll(this.lookup, url.hostname), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      return;
    }
    const refused = resolvedRefusal(url.hostname, addresses, this.policy);
    if (refused) throw refused;
  }

  private async dispatcherFor(proxy: URL | undefined): Promise<Dispatcher> {
    if (!proxy) return this.directAgent();
    let agent = this.proxies.get(proxy.href);
    if (!agent) {
      const { ProxyAgent } = await loadUndici();
      const tls = { timeout: this.settings.connectTimeoutMs };
      agent = new ProxyAgent({
        uri: proxy.href,
        // Plain forwarding for http: targets: many proxies only allow CONNECT to port 443.
        proxyTunnel: false,
        proxyTls: tls,
        requestTls: tls,
        headersTimeout: this.settings.headersTimeoutMs,
        bodyTimeout: this.settings.bodyTimeoutMs,
      });
      this.proxies.set(proxy.href, agent);
    }
    return agent;
  }

  /** One hop: the first attempt plus retries (idempotent methods only). */
  private async attempts(
    url: URL,
    headers: Record<string, string>,
    body: string | Uint8Array | undefined,
    proxy: URL | undefined,
    exchange: Exchange,
  ): Promise<RawResponse> {
    const maxRetries = idempotentMethods.has(exchange.method) ? exchange.retries : 0;
    const dispatcher = await this.dispatcherFor(proxy);
    const fits = (delay: number) => performance.now() + delay < exchange.deadlineAt;
    for (let attempt = 0; ; attempt++) {
      const backoff = this.settings.retryDelaysMs[Math.min(attempt, this.settings.retryDelaysMs.length - 1)] ?? 0;
      let delay: number;
      let reason: string;
      try {
        const response = await dispatcher.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: exchange.method,
          // A copy: ProxyAgent writes a `host` entry into the object it is given, which would leak into later hops.
          headers: { ...headers },
          body: body ?? null,
          signal: exchange.signal,
          ...this.attemptTimeouts(exchange),
        });
        const status = response.statusCode;
        const responseHeaders = flattenHeaders(response.headers);
        if (status === 429 || status === 503) this.noteCooldown(url, status, responseHeaders['retry-after']);
        if (attempt < maxRetries && isRetryableStatus(status)) {
          const retryAfterMs = parseRetryAfterMs(responseHeaders['retry-after']);
          const wait = retryAfterMs ?? backoff;
          // A Retry-After beyond the cap or the deadline: hand the response back now, with `retryAfter`.
          if ((retryAfterMs === undefined || retryAfterMs <= this.settings.maxRetryAfterMs) && fits(wait)) {
            await response.body.dump().catch(() => undefined);
            this.noteRetry(exchange, attempt, wait, `status ${status}`);
            await sleep(wait, undefined, { signal: exchange.signal });
            continue;
          }
        }
        if (redirectStatuses.has(status) && responseHeaders.location !== undefined) {
          await response.body.dump().catch(() => undefined);
          return { status, headers: responseHeaders, body: new Uint8Array() };
        }
        refuseUnaskedEncoding(response, url, headers);
        if (exchange.stream) {
          refuseDeclaredOversize(response, url, exchange);
          return { status, headers: responseHeaders, body: new Uint8Array(), stream: response.body };
        }
        return { status, headers: responseHeaders, body: await this.readBody(response, url, exchange) };
      } catch (error) {
        if (isProContextError(error) || findBlocked(error) || exchange.signal.aborted) throw error;
        const code = errorCode(error);
        if (attempt >= maxRetries || !code || !retryableCodes.has(code) || !fits(backoff)) {
          throw this.unavailable(error, exchange);
        }
        delay = backoff;
        reason = code;
      }
      this.noteRetry(exchange, attempt, delay, reason);
      await sleep(delay, undefined, { signal: exchange.signal });
    }
  }

  /**
   * The headers and body timeouts of one attempt: the client's defaults, or, when the caller gave the request its own
   * deadline, what is left of it (a streamed body keeps the idle timeout between chunks: it has no deadline).
   */
  private attemptTimeouts(exchange: Exchange): { headersTimeout: number; bodyTimeout: number } {
    const { headersTimeoutMs, bodyTimeoutMs } = this.settings;
    if (!exchange.ownDeadline) return { headersTimeout: headersTimeoutMs, bodyTimeout: bodyTimeoutMs };
    const left = Math.max(1, Math.ceil(exchange.deadlineAt - performance.now()));
    return { headersTimeout: left, bodyTimeout: exchange.stream ? bodyTimeoutMs : left };
  }

  /** Remembers a host's `Retry-After` (seconds or a date, capped at an hour) so it is not asked again before then. */
  private noteCooldown(url: URL, status: number, header: string | undefined): void {
    const waitMs = parseRetryAfterMs(header);
    if (waitMs === undefined || waitMs <= 0) return;
    const until = Date.now() + Math.min(waitMs, MAX_COOLDOWN_MS);
    const current = this.cooldowns.get(url.host);
    if (!current || current.until < until) this.cooldowns.set(url.host, { until, status });
    this.logger.debug('http cooldown', { host: url.host, status, retryAfter: Math.ceil(waitMs / 1000) });
  }

  /**
   * Refuses, without any network, a request to a host whose `Retry-After` has not passed: `RATE_LIMITED` after a
   * 429, `SOURCE_UNAVAILABLE` after a 503, with `retryAfter` (seconds left). Callers answer from a stale copy.
   */
  private refuseWhileCoolingDown(url: URL): void {
    const cooldown = this.cooldowns.get(url.host);
    if (!cooldown) return;
    const leftMs = cooldown.until - Date.now();
    if (leftMs <= 0) {
      this.cooldowns.delete(url.host);
      return;
    }
    const retryAfter = Math.ceil(leftMs / 1000);
    throw new ProContextError(
      cooldown.status === 429 ? 'RATE_LIMITED' : 'SOURCE_UNAVAILABLE',
      `${url.host} answered ${cooldown.status} with Retry-After: not asked again for ${retryAfter} s.`,
      {
        retryAfter,
        suggestion: `Try again after ${retryAfter} seconds.`,
        // classified like every error of this client (a registry's or source's note names the cause from it)
        details: {
          host: url.host,
          status: cooldown.status,
          retryAfter,
          failure: upstreamFailureOfStatus(cooldown.status),
        },
      },
    );
  }

  private noteRetry(exchange: Exchange, attempt: number, delayMs: number, reason: string): void {
    exchange.retriesUsed++;
    this.logger.debug('http retry', {
      method: exchange.method,
      host: exchange.host,
      attempt: attempt + 1,
      delayMs,
      reason,
    });
  }

  /** Reads the body, refusing it (and closing the connection) once it passes the size cap. */
  private async readBody(response: Dispatcher.ResponseData, url: URL, exchange: Exchange): Promise<Uint8Array> {
    const limit = exchange.maxBodyBytes;
    refuseDeclaredOversize(response, url, exchange);
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      if (total > limit) {
        discardBody(response.body);
        throw tooLarge(url, limit);
      }
      chunks.push(chunk);
    }
    return new Uint8Array(Buffer.concat(chunks, total));
  }

  private unavailable(error: unknown, exchange: Exchange): ProContextError {
    const code = errorCode(error);
    const { connectTimeoutMs } = this.settings;
    const { headersTimeout, bodyTimeout } = exchange.ownDeadline
      ? {
          headersTimeout: exchange.timeoutMs,
          bodyTimeout: exchange.stream ? this.settings.bodyTimeoutMs : exchange.timeoutMs,
        }
      : { headersTimeout: this.settings.headersTimeoutMs, bodyTimeout: this.settings.bodyTimeoutMs };
    const failure = failureOfErrorCode(code);
    const phases: Record<string, { phase: string; timeoutMs: number }> = {
      UND_ERR_CONNECT_TIMEOUT: { phase: 'connect', timeoutMs: connectTimeoutMs },
      UND_ERR_HEADERS_TIMEOUT: { phase: 'headers', timeoutMs: headersTimeout },
      UND_ERR_BODY_TIMEOUT: { phase: 'body', timeoutMs: bodyTimeout },
    };
    const timing = code ? phases[code] : undefined;
    const what: Record<string, string> = {
      UND_ERR_CONNECT_TIMEOUT: `connecting timed out after ${connectTimeoutMs} ms`,
      UND_ERR_HEADERS_TIMEOUT: `no response headers within ${headersTimeout} ms`,
      UND_ERR_BODY_TIMEOUT: `the response body stalled for ${bodyTimeout} ms`,
      ECONNREFUSED: 'the connection was refused',
      ECONNRESET: 'the connection was reset',
      UND_ERR_SOCKET: 'the connection closed unexpectedly',
      ENOTFOUND: 'the host name could not be resolved',
      EAI_AGAIN: 'the host name could not be resolved',
      ECONNABORTED: 'the connection was reset',
      ENETUNREACH: 'the network is unreachable',
      EHOSTUNREACH: 'the host is unreachable',
    };
    const happened =
      (code && what[code]) ?? (error instanceof Error ? error.message : 'the request failed').replace(/\.$/, '');
    const after =
      exchange.retriesUsed > 0
        ? ` (after ${exchange.retriesUsed} ${exchange.retriesUsed === 1 ? 'retry' : 'retries'})`
        : '';
    return new ProContextError('SOURCE_UNAVAILABLE', `Request to ${exchange.host} failed: ${happened}${after}.`, {
      details: {
        host: exchange.host,
        ...(code ? { errorCode: code } : {}),
        failure,
        ...(timing ?? {}),
        retries: exchange.retriesUsed,
      },
      cause: error,
    });
  }

  private toResponse(url: URL, raw: RawResponse, redirects: number): HttpResponse {
    const { status, headers, body } = raw;
    const retryAfterMs = status === 429 || status === 503 ? parseRetryAfterMs(headers['retry-after']) : undefined;
    let text: string | undefined;
    return {
      url: url.href,
      status,
      headers,
      body,
      notModified: status === 304,
      redirects,
      ...(retryAfterMs === undefined ? {} : { retryAfter: Math.ceil(retryAfterMs / 1000) }),
      text() {
        // BOM, declared charset (header, HTML meta), else UTF-8: a UTF-16 llms.txt is text, not "binary"
        text ??= decodeBody(body, headers['content-type']);
        return text;
      },
      json<T = unknown>(): T {
        try {
          return JSON.parse(this.text()) as T;
        } catch (error) {
          throw new ProContextError(
            'INVALID_CONTENT',
            `Response from ${url.host} is not valid JSON: ${(error as Error).message}`,
            { details: { host: url.host, status, failure: 'invalid-body' satisfies UpstreamFailure }, cause: error },
          );
        }
      },
    };
  }
}

function resolveSettings(options: HttpClientOptions): Settings {
  const delays = options.retryDelaysMs?.length ? options.retryDelaysMs : [1000, 3000];
  return {
    timeoutMs: options.timeoutMs ?? 30_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    headersTimeoutMs: options.headersTimeoutMs ?? 15_000,
    bodyTimeoutMs: options.bodyTimeoutMs ?? 30_000,
    retries: Math.max(0, options.retries ?? 2),
    retryDelaysMs: delays.map((delay) => Math.max(0, delay)),
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    maxBodyBytes: options.maxBodyBytes ?? 10 * MiB,
    maxRedirects: Math.max(0, options.maxRedirects ?? 5),
    userAgent: options.userAgent ?? 'pro-context',
  };
}

/**
 * Creates the kernel's HTTP client, the only door to the network for every plugin: SSRF-guarded at
 * connect time (after DNS, on every redirect hop), bounded by connect/headers/body timeouts and an
 * overall deadline, retried with backoff, size-capped, proxy-aware and logged at debug level.
 */
export function createHttpClient(options: HttpClientOptions = {}, logger?: Logger): HttpClient {
  return createHttpClientWithTrustedHosts(options, [], logger);
}

/**
 * Test-only (not exported from the package): like {@link createHttpClient}, but connections to the
 * host names in `trustedHosts` (as written in URLs, e.g. `docs.test`) skip the address check. Lets a
 * strict client (`allowPrivateNetwork: false`) fetch a first hop from a loopback fake while every
 * other host, including redirect targets, stays fully guarded.
 */
export function createHttpClientWithTrustedHosts(
  options: HttpClientOptions,
  trustedHosts: readonly string[],
  logger?: Logger,
): HttpClient {
  const policy: AddressPolicy = {
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    trustedHosts: new Set(trustedHosts.map((host) => host.toLowerCase())),
  };
  return new GuardedHttpClient(
    resolveSettings(options),
    policy,
    options.lookup ?? systemLookup,
    options.proxy,
    logger ?? createNullLogger(),
  );
}
