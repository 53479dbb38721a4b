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
import { embeddingsErrors } from './errors.js';
import type { EmbeddingsOptions } from './options.js';

/** A vector's values as the cache keeps them (4 bytes each). */
type Vector = Float32Array;

/** How long a vector stays in the cache: as long as the count bound allows (a model's vector of a text never changes). */
const VECTOR_TTL_MS = 7 * 24 * 3600 * 1000;
/** Longest upstream message quoted in an error. */
const MAX_DETAIL_CHARS = 200;
/** Longest vector accepted from a server. */
const MAX_DIMENSIONS = 16_384;

/**
 * An {@link Embedder} over an OpenAI-compatible `POST {baseUrl}/embeddings` (`{ model, input }` →
 * `{ data: [{ embedding, index }], model, usage }`), through the kernel's `HttpClient` (SSRF guard, size cap,
 * logging with secrets masked). Texts are sent `batchSize` at a time, each cut to `maxInputChars`; vectors are
 * kept in memory by a hash of model, dimensions and text (at most `cacheEntries`), so a section is embedded once.
 * Every failure is a catalog error naming its cause, without the key.
 */
export class OpenAiEmbedder implements Embedder {
  readonly id = 'openai-embeddings';
  readonly model: string;
  private learnt: number | undefined;
  private readonly endpoint: string;
  /** The server as errors name it: its origin (no path, no user-info). */
  private readonly server: string;
  private readonly cache: TtlMemo<Vector> | undefined;

  constructor(
    private readonly http: HttpClient,
    private readonly options: EmbeddingsOptions,
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
      { server: this.server, ms: this.options.timeoutMs },
      cause === undefined ? {} : { cause, details: { failure: 'timeout' } },
    );
  }

  /** A transport failure as the code naming its cause. */
  private transportError(error: unknown): ProContextError {
    const failure = upstreamFailureOf(error);
    if (failure === 'timeout') return this.timedOut(error);
    const detail = this.masked(isProContextError(error) ? error.message : String(error));
    // the HTTP client's own pause after a Retry-After: no request was sent
    if (isProContextError(error) && error.retryAfter !== undefined) {
      return error.code === 'RATE_LIMITED'
        ? this.rateLimited(detail, error.retryAfter)
        : embeddingsErrors.create(
            'EMBEDDINGS_UNAVAILABLE',
            { server: this.server, status: 503, detail },
            { cause: error, retryAfter: error.retryAfter },
          );
    }
    // an answer over the size cap, or cut off: what came back is not what was asked for
    if (failure === 'too-large' || failure === 'invalid-body') {
      return embeddingsErrors.create(
        'EMBEDDINGS_BAD_RESPONSE',
        { server: this.server, detail: describeUpstreamFailure(failure) ?? detail },
        { cause: error, details: { failure } },
      );
    }
    if (failure === 'refused-by-policy' || (isProContextError(error) && error.code === 'URL_NOT_ALLOWED')) {
      return embeddingsErrors.create(
        'EMBEDDINGS_NOT_ALLOWED',
        { server: this.server, detail },
        { cause: error, details: { failure: 'refused-by-policy' } },
      );
    }
    return embeddingsErrors.create(
      'EMBEDDINGS_UNREACHABLE',
      { server: this.server, detail: describeUpstreamFailure(failure) ?? detail },
      { cause: error, details: { failure: failure ?? 'network' } },
    );
  }

  /** A failing status as the code naming its cause, with the server's own message (masked, bounded). */
  private statusError(response: HttpResponse): ProContextError {
    const status = response.status;
    const detail = this.masked(upstreamMessage(response) || `HTTP ${status}`);
    if (status === 401 || status === 403) {
      return embeddingsErrors.create('EMBEDDINGS_KEY_REJECTED', { server: this.server, status, detail });
    }
    if (status === 429) {
      const retryAfterMs =
        response.retryAfter !== undefined
          ? response.retryAfter * 1000
          : parseRetryAfterMs(response.headers['retry-after']);
      return this.rateLimited(
        `HTTP 429: ${detail}`,
        retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(retryAfterMs / 1000)),
      );
    }
    if (status >= 500)
      return embeddingsErrors.create('EMBEDDINGS_UNAVAILABLE', { server: this.server, status, detail });
    return embeddingsErrors.create('EMBEDDINGS_REQUEST_REFUSED', { server: this.server, status, detail });
  }

  /** `RATE_LIMITED`, with the server's `Retry-After` when it gave one. */
  private rateLimited(detail: string, retryAfter: number | undefined): ProContextError {
    return new ProContextError(
      'RATE_LIMITED',
      `the embeddings server ${this.server} is rate limiting requests (${detail})`,
      {
        recoverable: true,
        ...(retryAfter === undefined ? {} : { retryAfter }),
        suggestion: 'Try again later, or raise the rate limit of the embeddings account.',
        details: { failure: 'rate-limited' },
      },
    );
  }

  /** The answer's vectors, checked: as many as asked, each index once, finite numbers, one length. */
  private vectorsOf(response: HttpResponse, count: number): Vector[] {
    const bad = (detail: string) =>
      embeddingsErrors.create(
        'EMBEDDINGS_BAD_RESPONSE',
        { server: this.server, detail },
        { details: { failure: 'invalid-body' } },
      );
    let body: unknown;
    try {
      body = response.json();
    } catch {
      throw bad(`not JSON (${response.headers['content-type'] ?? 'no content type'})`);
    }
    const data = (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw bad('no "data" list');
    if (data.length !== count) throw bad(`${data.length} vectors for ${count} texts`);
    const out: (Vector | undefined)[] = new Array(count).fill(undefined);
    const size = this.options.dimensions ?? this.learnt;
    let length: number | undefined;
    data.forEach((item: unknown, position) => {
      const { embedding, index = position } = (item ?? {}) as { embedding?: unknown; index?: unknown };
      if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count) {
        throw bad(`an index out of range (${String(index).slice(0, 20)})`);
      }
      if (out[index as number] !== undefined) throw bad(`index ${String(index)} given twice`);
      if (!Array.isArray(embedding) || embedding.length === 0 || embedding.length > MAX_DIMENSIONS) {
        throw bad(
          `"embedding" ${Array.isArray(embedding) ? `of ${embedding.length} values` : 'is no list of numbers'}`,
        );
      }
      if (!embedding.every((v) => typeof v === 'number' && Number.isFinite(v))) throw bad('a value that is no number');
      length ??= embedding.length;
      if (embedding.length !== length) throw bad(`vectors of ${length} and ${embedding.length} dimensions`);
      if (size !== undefined && embedding.length !== size) {
        throw bad(
          `${embedding.length} dimensions where ${size} were ${this.options.dimensions ? 'configured' : 'given before'}`,
        );
      }
      out[index as number] = Float32Array.from(embedding as number[]);
    });
    this.learnt ??= length;
    return out as Vector[];
  }

  /** A text with the key masked and cut to {@link MAX_DETAIL_CHARS}, on one line. */
  private masked(text: string): string {
    return withoutKey(text, this.options.apiKey).replace(/\s+/g, ' ').trim().slice(0, MAX_DETAIL_CHARS);
  }
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
