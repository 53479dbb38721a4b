import {
  type CacheStore,
  charsForTokens,
  estimateTokens,
  type HttpClient,
  type Logger,
  ProContextError,
  type UrlAllowlist,
} from '@pro-context/kernel';
import { loadHtmlToMarkdown } from '../html/lazy.js';
import { ns } from './keys.js';
import type { SourceChain } from './sources.js';

/** A page as cached in namespace `pages`. */
export interface PageRecord {
  url: string;
  finalUrl: string;
  title: string;
  markdown: string;
  fetchedAt: string;
}

/** What read-page returns. */
export interface PageSlice {
  content: string;
  title: string;
  url: string;
  /** Estimated tokens of the whole page. */
  contentLength: number;
  truncated: boolean;
  cached: boolean;
  /** Character offset this slice starts at. */
  offset: number;
  /** Offset to pass to read the rest, when truncated. */
  nextOffset?: number;
}

const MARKDOWN_TYPES = /^(text\/(markdown|x-markdown|plain)|application\/(markdown|x-markdown))\b/i;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;

/** The note appended to a truncated page (seed 001 §5.4). */
export const truncationNote = (remaining: number) =>
  `[Content truncated. ${remaining} tokens not shown. Call read-page again with a higher maxTokens limit to see more.]`;

/** Title of a markdown page: its first H1, else front matter title, else the URL's last segment. */
function titleOf(markdown: string, url: URL): string {
  const h1 = /^#\s+(.+?)\s*#*\s*$/m.exec(markdown)?.[1];
  if (h1) return h1.replace(/\s*\{#[^}]*\}\s*$/, '').trim();
  const fm = /^---\n[\s\S]*?^title:\s*["']?(.+?)["']?\s*$/m.exec(markdown)?.[1];
  if (fm) return fm.trim();
  const segment = url.pathname.split('/').filter(Boolean).pop() ?? url.hostname;
  return decodeURIComponent(segment.replace(/(\/index)?\.(md|mdx|html?)$/, ''));
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

function looksBinary(body: Uint8Array): boolean {
  const sample = body.subarray(0, 2048);
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 9 || (byte > 13 && byte < 32)) control += 1;
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
      throw new ProContextError('INVALID_INPUT', `'${raw}' is not a valid URL.`, {
        suggestion: 'Pass an absolute http(s) URL from a TOC, a search result or relatedPages.',
      });
    }
    url.hash = '';
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ProContextError('URL_NOT_ALLOWED', `read-page only fetches http and https URLs, not ${url.protocol}.`);
    }
    if (!this.isAllowed(url)) {
      throw new ProContextError('URL_NOT_ALLOWED', `${url.host} is not in the read-page allowlist.`, {
        details: { url: url.href },
      });
    }
    return url;
  }

  /** The page (from cache or fetched), sliced from `offset` to at most `maxTokens`. */
  async read(raw: string, maxTokens: number, offset = 0, signal?: AbortSignal): Promise<PageSlice> {
    const url = this.checkUrl(raw);
    const cached = await this.cache.get<PageRecord>(ns.pages, url.href);
    const record = cached?.value ?? (await this.fetch(url, signal));
    if (!cached) await this.cache.set(ns.pages, url.href, record);
    return slicePage(record, maxTokens, offset, Boolean(cached));
  }

  private async fetch(url: URL, signal?: AbortSignal): Promise<PageRecord> {
    return this.logger.span('engine.readPage', { url: url.href }, async (span) => {
      const owner = this.sources.owner(url);
      if (owner?.fetchPage) {
        const page = await owner.fetchPage(url, signal ? { signal } : {});
        span.set('adapter', owner.id);
        const markdown =
          page.contentType === 'html'
            ? (await loadHtmlToMarkdown())(page.markdown, page.finalUrl).markdown
            : page.markdown;
        return this.checked({
          url: url.href,
          finalUrl: page.finalUrl,
          title: page.title,
          markdown,
          fetchedAt: page.fetchedAt,
        });
      }
      let notFound = 0;
      const candidates = markdownVariants(url);
      for (const candidate of candidates) {
        const response = await this.http.get(candidate, signal ? { signal } : {});
        if (response.status === 404 || response.status === 410) {
          notFound += 1;
          continue;
        }
        if (response.status >= 400) {
          if (candidate !== url) continue; // the .md variant is optional
          throw new ProContextError(
            response.status === 429
              ? 'SOURCE_UNAVAILABLE'
              : response.status >= 500
                ? 'SOURCE_UNAVAILABLE'
                : 'PAGE_NOT_FOUND',
            `${candidate.host} answered ${response.status} for ${candidate.href}.`,
          );
        }
        const type = response.headers['content-type'] ?? '';
        const finalUrl = new URL(response.url);
        if (looksBinary(response.body)) {
          throw new ProContextError(
            'INVALID_CONTENT',
            `${url.href} is binary content (${type || 'no content type'}), not documentation.`,
          );
        }
        const text = response.text();
        const isHtml = HTML_TYPES.test(type) || (!type && /^\s*<(!doctype html|html)/i.test(text));
        if (candidate !== url && isHtml) continue; // a site answering HTML for the .md variant has no markdown twin
        span.set({ status: response.status, contentType: type, variant: candidate !== url });
        if (isHtml) {
          const converted = (await loadHtmlToMarkdown())(text, finalUrl.href);
          return this.checked({
            url: url.href,
            finalUrl: finalUrl.href,
            title: converted.title || titleOf(converted.markdown, finalUrl),
            markdown: converted.markdown,
            fetchedAt: new Date().toISOString(),
          });
        }
        if (type && !MARKDOWN_TYPES.test(type)) {
          throw new ProContextError('INVALID_CONTENT', `${url.href} is ${type.split(';')[0]}, not documentation.`);
        }
        return this.checked({
          url: url.href,
          finalUrl: finalUrl.href,
          title: titleOf(text, finalUrl),
          markdown: text,
          fetchedAt: new Date().toISOString(),
        });
      }
      if (notFound > 0) throw new ProContextError('PAGE_NOT_FOUND', `${url.href} does not exist (404).`);
      throw new ProContextError('INVALID_CONTENT', `${url.href} has no markdown or HTML documentation.`);
    });
  }

  private checked(record: PageRecord): PageRecord {
    if (record.markdown.trim().length < 20) {
      throw new ProContextError('INVALID_CONTENT', `${record.url} has no readable content.`);
    }
    return record;
  }
}

/** Cuts a page at a section boundary so the slice fits `maxTokens`, appending the seed's note when truncated. */
export function slicePage(record: PageRecord, maxTokens: number, offset: number, cached: boolean): PageSlice {
  const total = record.markdown;
  const start = Math.min(Math.max(0, offset), total.length);
  const rest = total.slice(start);
  const contentLength = estimateTokens(total);
  const base = { title: record.title, url: record.finalUrl, contentLength, cached, offset: start };
  if (estimateTokens(rest) <= maxTokens) return { ...base, content: rest, truncated: false };
  const budget = charsForTokens(maxTokens - 60); // leave room for the note
  const end = sectionBoundary(rest, budget);
  const shown = rest.slice(0, end).trimEnd();
  const remaining = estimateTokens(rest.slice(end));
  const nextOffset = start + end;
  return {
    ...base,
    content: `${shown}\n\n${truncationNote(remaining)}\n[To continue where this stops instead, call read-page with offset ${nextOffset}.]`,
    truncated: true,
    nextOffset,
  };
}

/** The best place to cut `text` at or before `limit` characters: a heading, else a blank line, outside code fences. */
function sectionBoundary(text: string, limit: number): number {
  let heading = 0;
  let paragraph = 0;
  let inFence = false;
  let position = 0;
  for (const line of text.split('\n')) {
    if (position > limit) break;
    if (/^\s{0,3}(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence && position > 0 && /^#{1,6}\s/.test(line)) heading = position;
    else if (!inFence && line.trim() === '') paragraph = position;
    position += line.length + 1;
  }
  if (heading > limit * 0.5) return heading;
  if (paragraph > 0) return paragraph;
  return heading > 0 ? heading : Math.min(limit, text.length);
}
