import { createHash } from 'node:crypto';
import type { Embedder } from '@pro-context/engine/api';
import {
  type HttpClient,
  type HttpResponse,
  isProContextError,
  type Logger,
  ProContextError,
} from '@pro-context/kernel';
import {
  describeUpstreamFailure,
  parseRetryAfterMs,
  postWithRetries,
  type RetryPolicy,
  TtlMemo,
  upstreamFailureOf,
  withoutKey,
} from '@pro-context/plugin-kit';
import { credentialsRefusal, NEVER_FETCHED, notAllowed, PRIVATE_NETWORK, REDIRECTED_AWAY } from './checks.js';
import { embeddingsErrors } from './errors.js';
import type { EnabledEmbeddingsOptions } from './options.js';

/** A vector's values as the cache keeps them (4 bytes each). */
type Vector = Float32Array;

/** How long a vector stays in the cache: as long as the count bound allows (a model's vector of a text never changes). */
const VECTOR_TTL_MS = 7 * 24 * 3600 * 1000;
/** Longest upstream message quoted in an error. */
const MAX_DETAIL_CHARS = 200;
/** Longest vector accepted from a server. */
const MAX_DIMENSIONS = 16_384;
/** Redirects after which a client sends the POST again as a GET (no body): the model never gets the texts. */
const METHOD_CHANGING_REDIRECTS = new Set([301, 302, 303]);

/** `n` and the word, singular for one: `1 vector`, `2 vectors`. */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/**
 * An {@link Embedder} over an OpenAI-compatible `POST {baseUrl}/embeddings` (`{ model, input }` →
 * `{ data: [{ embedding, index }], model, usage }`), through the kernel's `HttpClient` (SSRF guard, size cap,
 * logging with secrets masked). Texts are sent `batchSize` at a time, each cut to `maxInputChars`; vectors are
 * kept in memory by a hash of model, dimensions and text (at most `cacheEntries`), so a section is embedded once.
 * Every failure is a catalog error naming its cause: a fixed sentence and the upstream's status, never the server's
 * URL nor its own text (those go to the log, the key masked), since the note reaches remote clients.
 */
export class OpenAiEmbedder implements Embedder {
  readonly id = 'openai-embeddings';
  readonly model: string;
  private learnt: number | undefined;
  private readonly endpoint: string;
  /** The server as the log names it: its origin (no path, no user-info); errors and notes never do. */
  private readonly server: string;
  private readonly cache: TtlMemo<Vector> | undefined;

  constructor(
    private readonly http: HttpClient,
    private readonly options: EnabledEmbeddingsOptions,
    private readonly retry: RetryPolicy,
    private readonly logger: Logger,
  ) {
    this.model = options.model;
    let base = options.baseUrl;
    while (base.endsWith('/')) base = base.slice(0, -1);
    this.endpoint = `${base}/embeddings`;
    this.server = new URL(options.baseUrl).origin;
    this.cache =
      options.cacheEntries > 0 ? new TtlMemo<Vector>({ ttlMs: VECTOR_TTL_MS, max: options.cacheEntries }) : undefined;
  }

  get dimensions(): number | undefined {
    return this.options.dimensions ?? this.learnt;
  }

  async embed(texts: readonly string[], signal: AbortSignal): Promise<number[][]> {
    return (await this.vectors(texts, signal)).map((v) => Array.from(v));
  }

  /** One vector per text (from the cache, else asked in batches within `timeoutMs`). */
  async vectors(texts: readonly string[], signal: AbortSignal): Promise<Vector[]> {
    const cut = texts.map((t) => t.slice(0, this.options.maxInputChars));
    const keys = cut.map((t) => this.keyOf(t));
    const found = new Map<string, Vector>();
    const missing = new Map<string, string>();
    keys.forEach((key, i) => {
      const cached = this.cache?.get(key);
      if (cached !== undefined) found.set(key, cached);
      else missing.set(key, cut[i] as string);
    });
    if (missing.size > 0) {
      // a user name or password in baseUrl: never sent, so nothing is asked
      const refusal = credentialsRefusal(this.options.baseUrl);
      if (refusal) throw refusal;
      const deadline = Date.now() + this.options.timeoutMs;
      const entries = [...missing];
      for (let at = 0; at < entries.length; at += this.options.batchSize) {
        const batch = entries.slice(at, at + this.options.batchSize);
        const vectors = await this.request(
          batch.map(([, text]) => text),
          signal,
          deadline,
        );
        batch.forEach(([key], i) => {
          const vector = vectors[i] as Vector;
          found.set(key, vector);
          this.cache?.set(key, vector);
        });
      }
      this.logger.debug('embedded', { model: this.model, texts: texts.length, asked: missing.size });
    }
    return keys.map((key) => found.get(key) as Vector);
  }

  private keyOf(text: string): string {
    return createHash('sha256')
      .update(`${this.model}\u0000${this.options.dimensions ?? ''}\u0000${text}`)
      .digest('base64url');
  }

  /** One request: the vectors of `input`, in order. */
  private async request(input: string[], signal: AbortSignal, deadline: number): Promise<Vector[]> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw this.timedOut();
    const apiKey = this.options.apiKey;
    let response: HttpResponse;
    try {
      response = await postWithRetries(
        this.http,
        this.endpoint,
        {
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
          },
          body: {
            model: this.model,
            input,
            ...(this.options.dimensions === undefined ? {} : { dimensions: this.options.dimensions }),
          },
          timeoutMs: remaining,
          // a float prints in ~20 characters (an indented answer puts each on a line of its own): room for every
          // vector of the batch, and no more
          maxBodyBytes: 64 * 1024 + input.length * (this.dimensions ?? 4096) * 40,
          // a 301/302/303 would send the texts' POST again as a GET without them: refused, naming the status
          allowUrl: (_next, hop) => {
            if (METHOD_CHANGING_REDIRECTS.has(hop.status)) {
              this.logger.warn('the embeddings server redirected the POST', {
                server: this.server,
                status: hop.status,
              });
              throw embeddingsErrors.create(
                'EMBEDDINGS_REDIRECTED',
                { status: hop.status },
                { details: { status: hop.status } },
              );
            }
          },
          signal,
        },
        this.retry,
      );
    } catch (error) {
      throw this.transportError(error);
    }
    if (response.status < 200 || response.status >= 300) throw this.statusError(response);
    return this.vectorsOf(response, input.length);
  }

  private timedOut(cause?: unknown): ProContextError {
    return embeddingsErrors.create(
      'EMBEDDINGS_TIMEOUT',
      { ms: this.options.timeoutMs },
      cause === undefined ? {} : { cause, details: { failure: 'timeout' } },
    );
  }

  /** A transport failure as the code naming its cause. */
  private transportError(error: unknown): ProContextError {
    // refused here (a redirect turning the POST into a GET): already the code naming it
    if (isProContextError(error) && error.code === 'EMBEDDINGS_REDIRECTED') return error;
    const failure = upstreamFailureOf(error);
    if (failure === 'timeout') return this.timedOut(error);
    // the HTTP client's message names the URL: for the log only
    this.logger.debug('the embeddings request failed', {
      server: this.server,
      failure: failure ?? 'network',
      error: this.masked(isProContextError(error) ? error.message : String(error)),
    });
    // the HTTP client's own pause after a Retry-After: no request was sent
    if (isProContextError(error) && error.retryAfter !== undefined) {
      return error.code === 'RATE_LIMITED'
        ? this.rateLimited(error.retryAfter, error)
        : embeddingsErrors.create(
            'EMBEDDINGS_UNAVAILABLE',
            { status: 503 },
            { cause: error, retryAfter: error.retryAfter },
          );
    }
    // an answer over the size cap, or cut off: what came back is not what was asked for
    if (failure === 'too-large' || failure === 'invalid-body') {
      return embeddingsErrors.create(
        'EMBEDDINGS_BAD_RESPONSE',
        { detail: describeUpstreamFailure(failure) ?? 'its answer could not be read' },
        { cause: error, details: { failure } },
      );
    }
    // the HTTP client refused the URL itself, not its address: baseUrl was checked (http(s), no user:pass@), so a
    // redirect named it (`http://user:pass@…`, `ftp://…`); not an address no setting allows
    if (isProContextError(error) && error.code === 'URL_NOT_ALLOWED' && error.details?.reason === undefined) {
      return notAllowed(REDIRECTED_AWAY, error);
    }
    if (failure === 'refused-by-policy' || (isProContextError(error) && error.code === 'URL_NOT_ALLOWED')) {
      // the guard says whether a setting would allow it (a private address) or none would (cloud metadata)
      const privateTarget = !isProContextError(error) || /allowPrivateNetwork/.test(error.suggestion ?? '');
      return notAllowed(privateTarget ? PRIVATE_NETWORK : NEVER_FETCHED, error);
    }
    return embeddingsErrors.create(
      'EMBEDDINGS_UNREACHABLE',
      { detail: describeUpstreamFailure(failure) ?? 'the request failed' },
      { cause: error, details: { failure: failure ?? 'network' } },
    );
  }

  /**
   * A failing status as the code naming its cause and the status; the server's own message goes to the log only
   * (masked and bounded), and not even there for a 401/403, whose message may echo part of the key.
   */
  private statusError(response: HttpResponse): ProContextError {
    const status = response.status;
    if (status === 401 || status === 403) {
      this.logger.warn('the embeddings server refused the API key', { server: this.server, status });
      return embeddingsErrors.create('EMBEDDINGS_KEY_REJECTED', { status }, { details: { status } });
    }
    this.logger.warn('the embeddings server refused a request', {
      server: this.server,
      status,
      message: this.masked(upstreamMessage(response)),
    });
    if (status === 429) {
      const retryAfterMs =
        response.retryAfter !== undefined
          ? response.retryAfter * 1000
          : parseRetryAfterMs(response.headers['retry-after']);
      return this.rateLimited(retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(retryAfterMs / 1000)));
    }
    if (status >= 500) return embeddingsErrors.create('EMBEDDINGS_UNAVAILABLE', { status }, { details: { status } });
    return embeddingsErrors.create('EMBEDDINGS_REQUEST_REFUSED', { status }, { details: { status } });
  }

  /** `RATE_LIMITED`, with the server's `Retry-After` when it gave one. */
  private rateLimited(retryAfter: number | undefined, cause?: unknown): ProContextError {
    return new ProContextError('RATE_LIMITED', 'the embeddings server is rate limiting requests (HTTP 429)', {
      recoverable: true,
      ...(retryAfter === undefined ? {} : { retryAfter }),
      ...(cause === undefined ? {} : { cause }),
      suggestion: 'Try again later, or raise the rate limit of the embeddings account.',
      details: { failure: 'rate-limited', status: 429 },
    });
  }

  /** The answer's vectors, checked: as many as asked, each index once, finite numbers, one length. */
  private vectorsOf(response: HttpResponse, count: number): Vector[] {
    const bad = (detail: string) =>
      embeddingsErrors.create('EMBEDDINGS_BAD_RESPONSE', { detail }, { details: { failure: 'invalid-body' } });
    let body: unknown;
    try {
      body = response.json();
    } catch {
      // the media type only (a header is the server's text)
      const type = /^[\w.+-]{1,60}\/[\w.+-]{1,60}/.exec(response.headers['content-type'] ?? '')?.[0];
      throw bad(`not JSON (${type ?? 'no content type'})`);
    }
    const data = (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw bad('no "data" list');
    if (data.length !== count) throw bad(`${counted(data.length, 'vector')} for ${counted(count, 'text')}`);
    const out: (Vector | undefined)[] = new Array(count).fill(undefined);
    const size = this.options.dimensions ?? this.learnt;
    let length: number | undefined;
    data.forEach((item: unknown, position) => {
      const { embedding, index = position } = (item ?? {}) as { embedding?: unknown; index?: unknown };
      if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count) {
        throw bad(`an index out of range (${Number.isFinite(index) ? String(index) : `a ${typeof index}`})`);
      }
      if (out[index as number] !== undefined) throw bad(`index ${String(index)} given twice`);
      if (!Array.isArray(embedding) || embedding.length === 0 || embedding.length > MAX_DIMENSIONS) {
        throw bad(
          `"embedding" ${Array.isArray(embedding) ? `of ${counted(embedding.length, 'value')}` : 'is no list of numbers'}`,
        );
      }
      if (!embedding.every((v) => typeof v === 'number' && Number.isFinite(v))) throw bad('a value that is no number');
      length ??= embedding.length;
      if (embedding.length !== length) {
        throw bad(`vectors of ${counted(length, 'dimension')} and ${counted(embedding.length, 'dimension')}`);
      }
      if (size !== undefined && embedding.length !== size) {
        throw bad(
          `${counted(embedding.length, 'dimension')} where ${size} ${size === 1 ? 'was' : 'were'} ${this.options.dimensions ? 'configured' : 'given before'}`,
        );
      }
      out[index as number] = Float32Array.from(embedding as number[]);
    });
    this.learnt ??= length;
    return out as Vector[];
  }

  /** A text with the key (and its base64) masked and cut to {@link MAX_DETAIL_CHARS}, on one line. */
  private masked(text: string): string {
    const key = this.options.apiKey;
    let out = withoutKey(text, key);
    if (key) {
      // whole when it stands alone or as `Basic base64(:key)`, else its part at any alignment (`base64(Bearer key)`)
      const whole = [key, `:${key}`].map((text) =>
        Buffer.from(text)
          .toString('base64')
          .replace(/={1,2}$/, ''),
      );
      for (const encoded of [...whole, ...base64Forms(key)]) out = out.split(encoded).join('[REDACTED]');
    }
    return out.replace(/\s+/g, ' ').trim().slice(0, MAX_DETAIL_CHARS);
  }
}

/**
 * What the key looks like inside any base64 text (`Basic base64(user:key)`, `base64(Bearer key)`): its encoding at
 * each of the three byte alignments, without the characters it shares with the bytes before and after it.
 */
function base64Forms(key: string): string[] {
  const bytes = Buffer.from(key);
  const forms: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/={1,2}$/, '');
    // the first group mixes in the bytes before the key; the last one, unless full, the bytes after it
    const start = offset === 0 ? 0 : 4;
    const end = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - ((offset + bytes.length) % 3) - 1;
    const middle = encoded.slice(start, end);
    if (middle.length >= 8) forms.push(middle);
  }
  return forms;
}

/** The server's message in an error answer: OpenAI's `{error: {message}}`, Ollama's `{error: "…"}`, or the text. */
function upstreamMessage(response: HttpResponse): string {
  const text = response.text();
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const error = body?.error;
    if (typeof error === 'string') return error;
    if (error && typeof (error as { message?: unknown }).message === 'string')
      return (error as { message: string }).message;
    if (typeof body?.message === 'string') return body.message;
    if (typeof body?.detail === 'string') return body.detail;
  } catch {
    // not JSON: a gateway's page
  }
  return /<html/i.test(text) ? '' : text;
}
