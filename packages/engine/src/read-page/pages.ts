import { isIP } from 'node:net';
import {
  type CacheStore,
  type HttpClient,
  type HttpResponse,
  isProContextError,
  kernelErrors,
  type Logger,
  type SourceAdapter,
  type UrlAllowlist,
} from '@pro-context/kernel';
import {
  type ConvertedPage,
  oversizeBody,
  type PageWork,
  type ReadablePage,
  readableMarkdown,
  sectionOffset,
  sharedPageConverter,
} from '@pro-context/markdown';
import { ns } from '../indexing/keys.js';
import { engineMessages, recordedRefusal } from '../tools/render-errors.js';
import type { SourceChain } from '../versions/sources.js';
import { slicePage } from './slice.js';
import type { PageRecord, PageSlice, TocTitleLookup } from './types.js';

export { truncationNote } from './slice.js';
export type { PageRecord, PageSlice, TocTitleLookup } from './types.js';

/**
 * Version of what a cached {@link PageRecord} holds. 2: markdown normalized for reading, better titles.
 * Bumped when either changes, so pages cached before are refetched rather than served in the old form.
 */
const PAGE_FORMAT = 2;

const MARKDOWN_TYPES = /^(text\/(markdown|x-markdown|plain)|application\/(markdown|x-markdown))\b/i;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;

/** The markdown read-page returns (see `readableMarkdown` of @pro-context/markdown, made in the page worker). */
export { readableMarkdown };

/** A readable title from a URL's path: its last meaningful segment (never `index`), else the host name. */
function titleFromUrl(url: URL): string {
  const segments = url.pathname
    .split('/')
    .filter(Boolean)
    .map((segment) => segment.replace(/\.(md|mdx|markdown|txt|html?)$/i, ''));
  while (segments.length > 0 && /^(index|readme|_index)?$/i.test(segments[segments.length - 1] as string)) {
    segments.pop();
  }
  const last = segments.pop();
  if (!last) return url.hostname;
  let text = last;
  try {
    text = decodeURIComponent(last);
  } catch {
    // a malformed escape: keep the segment as written
  }
  text = text.replace(/[-_+]+/g, ' ').trim();
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : url.hostname;
}

/** Candidate URLs for a page: the `.md` variant first (Mintlify pattern), then the URL itself. */
export function markdownVariants(url: URL): URL[] {
  const path = url.pathname;
  if (/\.(md|mdx|txt|markdown)$/i.test(path)) return [url];
  const variant = new URL(url.href);
  if (path.endsWith('/')) variant.pathname = `${path}index.md`;
  else if (/\.html?$/i.test(path)) variant.pathname = path.replace(/\.html?$/i, '.md');
  else variant.pathname = `${path}.md`;
  return [variant, url];
}

/**
 * Whether a body is binary, judged on its text as the HTTP client decoded it (BOM, declared charset, else UTF-8):
 * a UTF-16 page is full of NUL bytes but is text once decoded.
 */
function looksBinary(text: string): boolean {
  const sample = text.slice(0, 2048);
  let control = 0;
  for (let i = 0; i < sample.length; i += 1) {
    const c = sample.charCodeAt(i);
    if (c === 0) return true;
    if (c < 9 || (c > 13 && c < 32)) control += 1;
  }
  return sample.length > 0 && control / sample.length > 0.1;
}

/**
 * read-page (seed 001 §5.4): allowlist, cache, the owning adapter or a generic fetch with the `.md`
 * variant first, HTML converted to markdown of the main content, truncation at a section boundary and an
 * offset to continue.
 */
export class PageReader {
  constructor(
    private readonly http: HttpClient,
    private readonly cache: CacheStore,
    private readonly allowlist: UrlAllowlist,
    private readonly sources: SourceChain,
    private readonly logger: Logger,
    /** Titles from resolved libraries' TOCs, for pages whose markdown has no H1 or front matter title. */
    private readonly tocTitle?: TocTitleLookup,
  ) {}

  /** Whether read-page may fetch this URL. */
  isAllowed(url: URL): boolean {
    return this.sources.owner(url) !== undefined || this.allowlist.isAllowed(url);
  }

  /** Parses and checks a URL given by an agent. */
  checkUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw engineMessages.create('NOT_A_URL', { raw });
    }
    url.hash = '';
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw engineMessages.create('NOT_HTTP', { protocol: url.protocol });
    }
    if (!this.isAllowed(url)) {
      // "add the domain to your config" cannot help an address (169.254.169.254, 10.0.0.1): the network guard
      // refuses those whatever the allowlist says
      if (isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) {
        throw engineMessages.create('ADDRESS_NOT_ALLOWED', { host: url.host }, { details: { url: url.href } });
      }
      throw kernelErrors.create('URL_NOT_ALLOWED', { host: url.host }, { details: { url: url.href } });
    }
    return url;
  }

  /** The page (from cache or fetched), sliced from `offset` to at most `maxTokens`. */
  async read(raw: string, maxTokens: number, offset = 0, signal?: AbortSignal): Promise<PageSlice> {
    const url = this.checkUrl(raw);
    // a local adapter's page (a file on disk) is read again each time: cheap, and never stale
    const local = this.sources.owner(url)?.local === true;
    const entry = local ? undefined : await this.cache.get<PageRecord>(ns.pages, url.href);
    const cached = entry?.value.format === PAGE_FORMAT ? entry.value : undefined;
    if (cached?.refused) {
      throw recordedRefusal(cached.refused);
    }
    let record = cached;
    let stale = false;
    if (!record) {
      try {
        record = await this.fetch(url, signal);
      } catch (error) {
        // a page over a per-page limit is refused the same way next time, from the cache
        if (
          !local &&
          isProContextError(error) &&
          (error.code === 'PAGE_TOO_LARGE' || error.code === 'PAGE_TOO_COMPLEX')
        ) {
          const refused: PageRecord = {
            url: url.href,
            finalUrl: url.href,
            title: '',
            markdown: '',
            fetchedAt: new Date().toISOString(),
            format: PAGE_FORMAT,
            refused: {
              code: error.code as 'PAGE_TOO_LARGE' | 'PAGE_TOO_COMPLEX',
              message: error.message,
              ...(error.details ? { details: error.details } : {}),
            },
          };
          await this.cache.set(ns.pages, url.href, refused);
          throw error;
        }
        // a site that asked to wait (Retry-After, issue #25.6): the copy read before answers meanwhile
        const waiting = !local && isProContextError(error) && error.retryAfter !== undefined;
        const old = waiting ? await this.cache.get<PageRecord>(ns.pages, url.href, { allowStale: true }) : undefined;
        if (old?.value.format !== PAGE_FORMAT || old.value.refused) throw error;
        record = old.value;
        stale = true;
      }
      if (!stale && !local) await this.cache.set(ns.pages, url.href, record);
    }
    // a TOC entry into one file (`llms.txt#key-features`) starts at its section, unless an offset says where
    const fragment = new URL(raw).hash;
    const start = offset === 0 && fragment ? (sectionOffset(record.markdown, fragment) ?? 0) : offset;
    return slicePage(record, maxTokens, start, Boolean(cached) || stale);
  }

  /**
   * Holds a redirect hop to the allowlist like the first URL: an allowlisted page must not be able to
   * send read-page to a host the agent could not ask for directly.
   */
  private checkRedirect(from: URL, hop: URL): void {
    if (this.isAllowed(hop)) return;
    throw engineMessages.create(
      'REDIRECT_NOT_ALLOWED',
      { from: from.href, to: hop.href, host: hop.host },
      { details: { url: from.href, redirect: hop.href } },
    );
  }

  /**
   * Title of a page (seed 001 §5.4 `title`): its first H1 outside code blocks, else the front matter's
   * `title`, else the title the library's TOC gives the requested URL, else one made from the final URL's
   * path. `readable` is the page made readable in the page worker, with the titles it gives.
   */
  private async titleFor(readable: ReadablePage, requested: URL, final: URL): Promise<string> {
    const title = readable.h1 ?? readable.frontMatterTitle;
    if (title) return title;
    try {
      const fromToc = (await this.tocTitle?.(requested))?.trim();
      if (fromToc) return fromToc;
    } catch (error) {
      this.logger.debug('read-page TOC title lookup failed', { url: requested.href, error: String(error) });
    }
    return titleFromUrl(final);
  }

  private async fetch(url: URL, signal?: AbortSignal): Promise<PageRecord> {
    return this.logger.span('engine.readPage', { url: url.href }, async (span) => {
      const owner = this.sources.owner(url);
      if (owner?.fetchPage) {
        span.set('adapter', owner.id);
        return this.fetchFromAdapter(owner as SourceAdapter & Required<Pick<SourceAdapter, 'fetchPage'>>, url, signal);
      }
      let notFound = 0;
      for (const candidate of markdownVariants(url)) {
        const response = await this.get(url, candidate, signal);
        if (response === 'not-found') notFound += 1;
        if (typeof response === 'string') continue;
        const record = await this.fromResponse(url, candidate, response, signal, span);
        if (record) return record;
      }
      if (notFound > 0) throw engineMessages.create('PAGE_MISSING', { url: url.href });
      throw engineMessages.create('NO_DOCUMENTATION', { url: url.href });
    });
  }

  /**
   * A page an adapter fetches itself; it is handed the hop check so a redirect off the allowlist is refused before
   * it is followed (the target is never contacted).
   */
  private async fetchFromAdapter(
    owner: SourceAdapter & Required<Pick<SourceAdapter, 'fetchPage'>>,
    url: URL,
    signal?: AbortSignal,
  ): Promise<PageRecord> {
    const page = await owner.fetchPage(url, {
      ...(signal ? { signal } : {}),
      allowUrl: (hop) => this.checkRedirect(url, hop),
    });
    // Defence in depth for an adapter that ignores `allowUrl`: content that ended up on a host outside
    // the allowlist is still not handed out.
    let final: URL | undefined;
    try {
      final = new URL(page.finalUrl);
    } catch {
      final = undefined;
    }
    if (final && final.href !== url.href) this.checkRedirect(url, final);
    const { readable } = await this.convert(
      { kind: page.contentType === 'html' ? 'html' : 'markdown', text: page.markdown, url: page.finalUrl },
      signal,
    );
    return this.checked({
      url: url.href,
      finalUrl: page.finalUrl,
      title: page.title || (await this.titleFor(readable, url, final ?? url)),
      markdown: readable.markdown,
      fetchedAt: page.fetchedAt,
      format: PAGE_FORMAT,
    });
  }

  /**
   * One candidate URL of the page over HTTP: its response, `'not-found'` (404, 410) or `'skip'` (an optional
   * `.md` variant that failed); an error for the URL itself.
   */
  private async get(url: URL, candidate: URL, signal?: AbortSignal): Promise<HttpResponse | 'not-found' | 'skip'> {
    let response: HttpResponse;
    const limits = sharedPageConverter().limits;
    try {
      response = await this.http.get(candidate, {
        ...(signal ? { signal } : {}),
        allowUrl: (hop) => this.checkRedirect(candidate, hop),
        // a page over the size limit is refused as it arrives, never held (nor decoded on this thread)
        maxBodyBytes: limits.maxBytes,
      });
    } catch (error) {
      const tooLarge = oversizeBody(error, candidate.href, limits);
      if (tooLarge) throw tooLarge;
      // The .md variant is optional: one redirected off the allowlist was not fetched; try the URL itself.
      if (candidate !== url && isProContextError(error) && error.code === 'URL_NOT_ALLOWED') return 'skip';
      throw error;
    }
    if (response.status === 404 || response.status === 410) return 'not-found';
    if (response.status >= 400) {
      if (candidate !== url) return 'skip'; // the .md variant is optional
      const { status, retryAfter } = response;
      const values = { host: candidate.host, status, url: candidate.href };
      const unavailable = status === 429 || status >= 500;
      if (retryAfter === undefined) {
        throw engineMessages.create(unavailable ? 'PAGE_STATUS_UNAVAILABLE' : 'PAGE_STATUS_NOT_FOUND', values);
      }
      throw engineMessages.create(
        unavailable ? 'PAGE_STATUS_UNAVAILABLE_RETRY' : 'PAGE_STATUS_NOT_FOUND_RETRY',
        { ...values, seconds: retryAfter },
        { retryAfter },
      );
    }
    return response;
  }

  /** The page a candidate's response holds, made readable; `undefined` for a `.md` variant answered with HTML. */
  private async fromResponse(
    url: URL,
    candidate: URL,
    response: HttpResponse,
    signal: AbortSignal | undefined,
    span: { set(values: Record<string, unknown>): void },
  ): Promise<PageRecord | undefined> {
    const type = response.headers['content-type'] ?? '';
    const finalUrl = new URL(response.url);
    const text = response.text();
    if (looksBinary(text)) {
      throw engineMessages.create('BINARY_PAGE', { url: url.href, type: type || 'no content type' });
    }
    const isHtml = HTML_TYPES.test(type) || (!type && /^\s*<(!doctype html|html)/i.test(text));
    if (candidate !== url && isHtml) return undefined; // a site answering HTML for the .md variant has no markdown twin
    span.set({ status: response.status, contentType: type, variant: candidate !== url });
    if (!isHtml && type && !MARKDOWN_TYPES.test(type)) {
      throw engineMessages.create('NOT_DOCUMENTATION_TYPE', { url: url.href, type: type.split(';')[0] ?? type });
    }
    const converted = await this.convert({ kind: isHtml ? 'html' : 'markdown', text, url: finalUrl.href }, signal);
    return this.checked({
      url: url.href,
      finalUrl: finalUrl.href,
      title: (isHtml && converted.title) || (await this.titleFor(converted.readable, url, finalUrl)),
      markdown: converted.readable.markdown,
      fetchedAt: new Date().toISOString(),
      format: PAGE_FORMAT,
    });
  }

  /**
   * A fetched page made readable in the page worker, within the per-page limits and time budget (`engine.pages`):
   * nothing proportional to the page's size runs on this thread. Over a limit: `PAGE_TOO_LARGE`/`PAGE_TOO_COMPLEX`.
   */
  private async convert(
    work: Omit<PageWork, 'readable'>,
    signal: AbortSignal | undefined,
  ): Promise<ConvertedPage & { readable: ReadablePage }> {
    const converted = await sharedPageConverter().convert({ ...work, readable: true }, signal ? { signal } : {});
    return { ...converted, readable: converted.readable ?? { markdown: converted.markdown } };
  }

  private checked(record: PageRecord): PageRecord {
    if (record.markdown.trim().length < 20) {
      throw engineMessages.create('NO_READABLE_CONTENT', { url: record.url });
    }
    return record;
  }
}
