import {
  type CacheStore,
  type HttpClient,
  type HttpResponse,
  isProContextError,
  type ProContextError,
} from '@pro-context/kernel';
import { errorText } from '@pro-context/plugin-kit';
import { context7Errors } from './errors.js';
import { normalizeLibraryKey } from './normalize.js';
import type { Context7PluginOptions } from './options.js';

/** One library of `GET /v2/libs/search`. */
export interface Context7Library {
  id: string;
  title: string;
  description: string;
  totalSnippets?: number;
  trustScore?: number;
  stars?: number;
  versions?: string[];
}

/** A code example of `GET /v2/context?type=json`. */
export interface Context7CodeSnippet {
  codeTitle: string;
  codeDescription: string;
  codeLanguage: string;
  codeId: string;
  pageTitle: string;
  codeList: { language: string; code: string }[];
}

/** A piece of prose of `GET /v2/context?type=json`. */
export interface Context7InfoSnippet {
  pageId?: string;
  breadcrumb?: string;
  content: string;
}

/** The snippets Context7 returns for a library and a query. */
export interface Context7Snippets {
  codeSnippets: Context7CodeSnippet[];
  infoSnippets: Context7InfoSnippet[];
}

/** A library key after normalization, and how it was found. */
export interface ResolvedLibraryKey {
  /** `org/repo`. */
  key: string;
  /** `'key'` when the input named it, `'search'` when a shorthand was resolved through Context7's search. */
  resolvedBy: 'key' | 'search';
}

const NAMESPACE = 'context7';

/**
 * Context7's current REST API (`/v2/libs/search`, `/v2/context`) through the kernel's guarded HTTP client:
 * the key travels only in `Authorization`, answers are cached in the `CacheStore` (errors never), identical
 * concurrent requests share one upstream request, and every failure is a coded error whose message is the
 * text the tools answer.
 */
export class Context7Client {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly options: Context7PluginOptions,
    private readonly http: HttpClient,
    private readonly cache: CacheStore,
  ) {}

  /** Whether an API key is configured (a blank key is no key). */
  get configured(): boolean {
    return Boolean(this.options.apiKey?.trim());
  }

  /** The base URL requests go to (`{url}/v2/…`). */
  get url(): string {
    return this.options.url;
  }

  /** Libraries matching `name` (`GET /v2/libs/search?libraryName=&query=`). */
  async searchLibraries(name: string, query: string = name): Promise<Context7Library[]> {
    const params = { libraryName: name.slice(0, 500), query: query.slice(0, 500) };
    const body = await this.cached('search', params, async (response) =>
      response.json<{ results?: Context7Library[] }>(),
    );
    return (body.results ?? []).map((r) => ({
      id: r.id,
      title: r.title,
      description: r.description ?? '',
      ...(typeof r.totalSnippets === 'number' && r.totalSnippets >= 0 ? { totalSnippets: r.totalSnippets } : {}),
      ...(typeof r.trustScore === 'number' ? { trustScore: r.trustScore } : {}),
      ...(typeof r.stars === 'number' ? { stars: r.stars } : {}),
      ...(Array.isArray(r.versions) ? { versions: r.versions } : {}),
    }));
  }

  /** Code and prose snippets of `libraryId` (`/org/repo[/tag]`) for `query` (`GET /v2/context?type=json`). */
  async snippets(libraryId: string, query: string): Promise<Context7Snippets> {
    const params = { libraryId, query: query.slice(0, 500), type: 'json' };
    return this.cached('context', params, async (response) => {
      if (response.body.byteLength === 0) return { codeSnippets: [], infoSnippets: [] };
      const body = response.json<Partial<Context7Snippets>>();
      return { codeSnippets: body.codeSnippets ?? [], infoSnippets: body.infoSnippets ?? [] };
    });
  }

  /** Context7's own markdown for `libraryId` and `query` (`GET /v2/context?type=txt`), as its MCP server shows it. */
  async text(libraryId: string, query: string): Promise<string> {
    const params = { libraryId, query: query.slice(0, 500), type: 'txt' };
    return this.cached('context', params, async (response) => response.text());
  }

  /** `org/repo` for any key form of seed 000; a shorthand is resolved through Context7's search (its best match). */
  async resolveKey(raw: string): Promise<ResolvedLibraryKey> {
    const normalized = normalizeLibraryKey(raw);
    if (normalized.kind === 'key') return { key: normalized.key, resolvedBy: 'key' };
    if (!normalized.name) throw context7Errors.create('CONTEXT7_LIBRARY_NOT_FOUND', { name: raw.slice(0, 100) });
    const [best] = await this.searchLibraries(normalized.name);
    if (!best) throw context7Errors.create('CONTEXT7_LIBRARY_NOT_FOUND', { name: normalized.name.slice(0, 100) });
    return { key: best.id.replace(/^\/+/, ''), resolvedBy: 'search' };
  }

  /** A cached GET of `{url}/v2/{endpoint}`; concurrent identical calls share one request; failures are not cached. */
  private async cached<T>(
    endpoint: 'search' | 'context',
    params: Record<string, string>,
    parse: (response: HttpResponse) => Promise<T> | T,
  ): Promise<T> {
    if (!this.configured) throw context7Errors.create('CONTEXT7_KEY_MISSING', {});
    const key = `${this.options.url}|${endpoint}|${JSON.stringify(params)}`;
    const ttlMs = this.options.cacheTtlSeconds * 1000;
    if (ttlMs > 0) {
      const hit = await this.cache.get<T>(NAMESPACE, key);
      if (hit) return hit.value;
    }
    const pending = this.inFlight.get(key) as Promise<T> | undefined;
    if (pending) return pending;
    const request = (async () => {
      const path = endpoint === 'search' ? '/v2/libs/search' : '/v2/context';
      const value = await parse(await this.get(path, params));
      if (ttlMs > 0) await this.cache.set(NAMESPACE, key, value, { ttlMs });
      return value;
    })().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, request);
    return request;
  }

  private async get(path: string, params: Record<string, string>): Promise<HttpResponse> {
    const apiKey = this.options.apiKey as string;
    const url = new URL(`${this.options.url.replace(/(?<!\/)\/+$/, '')}${path}`);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const { timeoutMs } = this.options;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const started = Date.now();
    const timedOut = () =>
      context7Errors.create('CONTEXT7_TIMEOUT', {
        seconds: Math.round((deadline.signal.aborted ? timeoutMs : Date.now() - started) / 100) / 10,
      });
    let response: HttpResponse;
    try {
      response = await this.http.get(url, {
        headers: {
          authorization: `Bearer ${apiKey}`,
          accept: 'application/json, text/plain',
          'x-context7-source': 'pro-context',
        },
        // our own deadline decides (its message is the seed's); the client's is only a backstop
        timeoutMs: timeoutMs + 5_000,
        // a billed call: retried at most once (a 5xx, a reset), never after the deadline
        retries: 1,
        signal: deadline.signal,
      });
    } catch (error) {
      if (deadline.signal.aborted) throw timedOut();
      const code = isProContextError(error) ? String((error as ProContextError).details?.errorCode ?? '') : '';
      if (/TIMEOUT/.test(code)) throw timedOut();
      let detail = errorText(error);
      // a refused address says which setting opens it (a mirror or proxy on a private address)
      if (isProContextError(error) && error.code === 'URL_NOT_ALLOWED' && error.suggestion) {
        detail = `${detail.replace(/\.$/, '')}. ${error.suggestion}`;
      }
      // the HTTP client holds Context7 back while its Retry-After runs: the wait goes with the error
      const retryAfter = isProContextError(error) ? error.retryAfter : undefined;
      throw context7Errors.create(
        'CONTEXT7_UNAVAILABLE',
        { detail: this.scrub(detail).replace(/\.$/, '') },
        retryAfter === undefined ? {} : { retryAfter },
      );
    } finally {
      clearTimeout(timer);
    }
    if (response.status >= 200 && response.status < 300 && response.status !== 202) return response;
    throw this.httpError(response);
  }

  private httpError(response: HttpResponse): ProContextError {
    let detail = '';
    try {
      const body = response.json<{ error?: string; message?: string }>();
      detail = [body.error, body.message].filter(Boolean).join(': ');
    } catch {
      detail = response.text().slice(0, 300);
    }
    const retryAfter = response.retryAfter ?? secondsOf(response.headers['retry-after']);
    return context7Errors.create(
      'CONTEXT7_HTTP_ERROR',
      { status: response.status, detail: this.scrub(detail || `HTTP ${response.status}`) },
      {
        recoverable: response.status === 429 || response.status >= 500 || response.status === 202,
        ...(retryAfter === undefined ? {} : { retryAfter }),
        details: { status: response.status },
      },
    );
  }

  /** Upstream text with the key taken out, should a server ever echo it. */
  private scrub(text: string): string {
    const key = this.options.apiKey;
    return key ? text.split(key).join('[REDACTED]') : text;
  }
}

function secondsOf(header: string | undefined): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
