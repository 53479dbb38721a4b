import { createHash } from 'node:crypto';
import {
  type DocPage,
  type DocsResult,
  type FetchContext,
  type Freshness,
  type HttpClient,
  type HttpResponse,
  inject,
  injectable,
  isProContextError,
  kernelTokens,
  type LibraryDescriptor,
  type Logger,
  type PageResult,
  type ProContextError,
  type SourceAdapter,
  type TocResult,
} from '@pro-context/kernel';
import { type ConvertedPage, classifyContent, oversizeBody, sharedPageConverter } from '@pro-context/markdown';
import { errorText, TtlMemo, upstreamFailureOf } from '@pro-context/plugin-kit';
import pLimit from 'p-limit';
import robotsParserModule from 'robots-parser';
import { siteCrawlMessages } from './messages.js';
import { type SiteCrawlPluginOptions, siteCrawlOptionsToken } from './options.js';
import { atxTitle, withoutHeadingId } from './scan.js';
import { siteLibrarySettings, siteSettingsOf, startUrlOf } from './settings.js';
import {
  type CrawlScope,
  inScope,
  markdownTwins,
  normalizePageUrl,
  parseSitemap,
  scopeOf,
  sectionOf,
  sitemapCandidates,
  titleFromUrl,
} from './urls.js';

/** The user agent robots.txt rules are matched against (the HTTP client's default product token). */
const ROBOTS_AGENT = 'pro-context';
const ACCEPT_HTML = 'text/html, application/xhtml+xml;q=0.9, text/markdown;q=0.8, */*;q=0.1';
const ACCEPT_MARKDOWN = 'text/markdown, text/plain;q=0.9, */*;q=0.1';
/** Sitemaps read at most in one crawl (a sitemap index and the sitemaps it lists). */
const MAX_SITEMAPS = 20;
/** Twins missed in a row, before any was found, after which a crawl stops asking for them. */
const TWIN_GIVE_UP = 3;

/** The part of robots-parser's parsed robots.txt the crawl uses. */
interface Robots {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
  getSitemaps(): string[];
}
// robots-parser is CommonJS (`module.exports = fn`), whose default import is that function; its typings describe
// an ES module's default export, which NodeNext resolution reads as the namespace, so it is typed here.
const robotsParser = robotsParserModule as unknown as (url: string, text: string) => Robots;

/** One page as crawled. */
interface CrawledPage {
  url: string;
  title: string;
  section?: string;
  markdown: string;
  /** Whether the markdown came from the page's markdown twin rather than its HTML. */
  fromTwin: boolean;
}

/** What one crawl of a library's site found. */
interface Crawl {
  scope: CrawlScope;
  /** `sitemap` when the pages were listed by a sitemap, `links` when found by following links. */
  via: 'sitemap' | 'links';
  /** The document whose validators stand for the site's freshness (the sitemap, else the start page). */
  anchorUrl: string;
  pages: CrawledPage[];
  skipped: { url: string; reason: string; code?: string }[];
  toc: TocResult;
}

/** The caps of one crawl: the plugin's, lowered by the library's `sources.site` bag. */
interface Caps {
  maxPages: number;
  maxDepth: number;
  maxBytes: number;
}

/** What reading one page gave: the page (unless `reason` says why not), and its links. */
interface VisitResult {
  page?: CrawledPage;
  links: string[];
  response?: HttpResponse;
  reason?: string;
  /** The error code of a page refused over a per-page limit (`PAGE_TOO_LARGE`, `PAGE_TOO_COMPLEX`). */
  code?: string;
}

/** Shared state of one crawl in progress. */
interface CrawlState {
  bytes: number;
  twins: 'unknown' | 'yes' | 'no';
  twinMisses: number;
  caps: Caps;
  signal: AbortSignal | undefined;
}

const ok = (status: number) => status >= 200 && status < 300;

function sha256(body: Uint8Array | string): string {
  return createHash('sha256').update(body).digest('hex');
}

function freshnessOf(response: HttpResponse): Freshness {
  return {
    ...(response.headers.etag ? { etag: response.headers.etag } : {}),
    ...(response.headers['last-modified'] ? { lastModified: response.headers['last-modified'] } : {}),
    contentHash: sha256(response.body),
  };
}

/**
 * The H1 of a markdown text, outside code fences. Only an H1: a twin without one (mkdocs-llmstxt leaves it out)
 * would otherwise be named after its first section.
 */
function markdownTitle(markdown: string): string | undefined {
  let fence = false;
  for (const line of markdown.slice(0, 65_536).split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) continue;
    const title = atxTitle(line);
    if (title) return withoutHeadingId(title).trim();
  }
  return undefined;
}

/** Whether converted markdown holds more than its `# title` line. */
function hasBody(markdown: string): boolean {
  return markdown.replace(/^# .*$/m, '').trim().length > 0;
}

/**
 * The site-crawl source adapter (issue #9 item 2): documentation websites that publish no llms.txt. A bounded
 * crawl under the library's docs URL — the site's sitemap.xml first (sitemap indexes and robots.txt
 * `Sitemap:` lines followed), else the links of each page within the docs folder, breadth first — honouring
 * robots.txt, capped in pages, depth and bytes, a few pages at a time. Each page's markdown twin is used when
 * the site publishes one; otherwise its HTML main content is converted to markdown by `@pro-context/markdown`.
 *
 * Tried after llms.txt (10) and GitHub (20): priority 25.
 */
@injectable()
export class SiteCrawlSourceAdapter implements SourceAdapter {
  readonly id = 'site';
  readonly priority = 25;
  /** Per-library settings in `sources.site` (`enabled`, `url`, `maxPages`, `maxDepth`). */
  readonly librarySettings = siteLibrarySettings;

  private readonly logger: Logger;
  /** Folders of crawled sites (`origin + prefix`): read-page of a URL under one asks this adapter. */
  private readonly scopes = new Set<string>();
  /** Titles of crawled pages, for read-page. */
  private readonly titles = new Map<string, string>();
  /** Crawls done lately, reused within `reuseSeconds`; and crawls in flight, shared. */
  private readonly recent: TtlMemo<Crawl>;
  private readonly inFlight = new Map<string, Promise<Crawl>>();
  /** Freshness anchor (sitemap or start page) per start URL, as the last crawl found it. */
  private readonly anchors = new Map<string, string>();

  constructor(
    @inject(siteCrawlOptionsToken) private readonly options: SiteCrawlPluginOptions,
    @inject(kernelTokens.http) private readonly http: HttpClient,
    @inject(kernelTokens.logger) logger: Logger,
  ) {
    this.logger = logger.child({ plugin: 'site-crawl' });
    this.recent = new TtlMemo({ max: 50, ttlMs: options.reuseSeconds * 1000 });
  }

  canHandle(library: LibraryDescriptor): boolean {
    if (!this.options.enabled) return false;
    if (library.source !== undefined && library.source !== this.id) return false;
    if (siteSettingsOf(library).enabled === false) return false;
    const start = startUrlOf(library);
    return start !== undefined && /^https?:\/\//i.test(start);
  }

  /** The docs site crawled for the library (its host is allowed for read-page). */
  docsUrls(library: LibraryDescriptor): string[] {
    const start = this.canHandle(library) ? startUrlOf(library) : undefined;
    return start ? [start] : [];
  }

  fetchToc(library: LibraryDescriptor, version: string, context: FetchContext = {}): Promise<TocResult> {
    return this.logger.span('site-crawl.fetchToc', { library: library.id, version }, async (span) => {
      const crawl = await this.crawlOf(library, context);
      span.set({ via: crawl.via, pages: crawl.pages.length });
      return crawl.toc;
    });
  }

  fetchDocs(library: LibraryDescriptor, version: string, context: FetchContext = {}): Promise<DocsResult> {
    return this.logger.span('site-crawl.fetchDocs', { library: library.id, version }, async (span) => {
      const crawl = await this.crawlOf(library, context);
      span.set({ via: crawl.via, pages: crawl.pages.length, skipped: crawl.skipped.length });
      const pages: DocPage[] = crawl.pages.map((p) => ({
        url: p.url,
        title: p.title,
        ...(p.section ? { section: p.section } : {}),
        markdown: p.markdown,
      }));
      return {
        pages,
        sourceUrl: crawl.toc.sourceUrl,
        fetchedAt: crawl.toc.fetchedAt,
        freshness: crawl.toc.freshness,
        toc: crawl.toc,
        skipped: crawl.skipped,
      };
    });
  }

  ownsUrl(url: URL): boolean {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    const href = url.href;
    for (const scope of this.scopes) if (href.startsWith(scope)) return true;
    return false;
  }

  fetchPage(url: URL, context: FetchContext = {}): Promise<PageResult> {
    return this.logger.span('site-crawl.fetchPage', { url: url.href }, async (span) => {
      const pageUrl = normalizePageUrl(url.href) ?? url.href;
      const twins = this.options.preferMarkdownTwins ? markdownTwins(pageUrl) : [];
      for (const twin of twins) {
        const response = await this.tryGet(twin, ACCEPT_MARKDOWN, context, { retries: 0, allowUrl: true });
        if (response && isMarkdown(response)) {
          span.set({ from: 'twin', finalUrl: response.url });
          const markdown = response.text();
          return {
            url: url.href,
            finalUrl: response.url || twin,
            title: this.titles.get(pageUrl) ?? markdownTitle(markdown) ?? titleFromUrl(pageUrl),
            markdown,
            contentType: 'markdown',
            fetchedAt: new Date().toISOString(),
            freshness: freshnessOf(response),
          };
        }
      }
      const response = await this.http.get(url.href, {
        headers: { accept: ACCEPT_HTML },
        ...(context.signal ? { signal: context.signal } : {}),
        ...(context.allowUrl ? { allowUrl: context.allowUrl } : {}),
      });
      if (!ok(response.status)) throw statusError(response, url.href);
      const verdict = classifyContent(response.headers['content-type'], response.body);
      if (!verdict.ok) {
        throw siteCrawlMessages.create(
          'NOT_A_DOCUMENTATION_PAGE',
          { url: url.href, why: verdict.message },
          { details: { url: url.href, reason: verdict.reason } },
        );
      }
      span.set({ from: verdict.kind, finalUrl: response.url });
      // HTML is returned as served: the engine converts it with the same extraction the crawl uses.
      return {
        url: url.href,
        finalUrl: response.url || url.href,
        title: this.titles.get(pageUrl) ?? '',
        markdown: response.text(),
        contentType: verdict.kind,
        fetchedAt: new Date().toISOString(),
        freshness: freshnessOf(response),
      };
    });
  }

  /**
   * A conditional GET of the crawl's anchor: the sitemap (whose `lastmod`s change with any page) or, for a
   * site without one, the start page — which can only tell that something changed, never that nothing did.
   */
  checkFreshness(
    library: LibraryDescriptor,
    version: string,
    cached: Freshness,
    context: FetchContext = {},
  ): Promise<'fresh' | 'changed' | 'unknown'> {
    return this.logger.span('site-crawl.checkFreshness', { library: library.id, version }, async (span) => {
      const start = startUrlOf(library);
      if (!start) return 'unknown';
      const scope = scopeOf(start);
      const known = this.anchors.get(scope.startUrl);
      const candidates = known
        ? [known]
        : [...(this.options.useSitemap ? sitemapCandidates(scope) : []), scope.startUrl];
      for (const url of candidates) {
        let response: HttpResponse;
        try {
          response = await this.http.get(url, {
            headers: { accept: url === scope.startUrl ? ACCEPT_HTML : 'application/xml, text/xml;q=0.9, */*;q=0.1' },
            retries: 0,
            ...(cached.etag ? { etag: cached.etag } : {}),
            ...(cached.lastModified ? { lastModified: cached.lastModified } : {}),
            ...(context.signal ? { signal: context.signal } : {}),
          });
        } catch (error) {
          if (context.signal?.aborted) throw error;
          span.set('error', errorText(error));
          return 'unknown';
        }
        span.set({ url, status: response.status });
        if (response.status === 404 || response.status === 410) continue;
        const isStart = url === scope.startUrl;
        let verdict: 'fresh' | 'changed' | 'unknown';
        if (response.notModified || response.status === 304) verdict = 'fresh';
        else if (!ok(response.status)) verdict = 'unknown';
        else if (cached.contentHash) verdict = sha256(response.body) === cached.contentHash ? 'fresh' : 'changed';
        else verdict = 'unknown';
        // An unchanged start page says nothing of the pages below it.
        if (isStart && verdict === 'fresh') verdict = 'unknown';
        if (verdict !== 'fresh') this.forget(scope.startUrl);
        return verdict;
      }
      this.forget(scope.startUrl);
      return 'changed';
    });
  }

  private forget(startUrl: string): void {
    this.recent.deleteWhere((key) => key.startsWith(`${startUrl}\n`));
  }

  /** The library's crawl: reused when recent, shared when in flight, else run. */
  private async crawlOf(library: LibraryDescriptor, context: FetchContext): Promise<Crawl> {
    const start = startUrlOf(library);
    if (!start || !this.canHandle(library)) {
      throw siteCrawlMessages.create('NO_SITE', { id: library.id }, { details: { library: library.id } });
    }
    const scope = scopeOf(start);
    const caps = this.capsOf(library);
    const key = `${scope.startUrl}\n${caps.maxPages}/${caps.maxDepth}/${caps.maxBytes}`;
    const reuseMs = Math.min(
      this.options.reuseSeconds * 1000,
      library.ttlHours ? library.ttlHours * 3_600_000 : Number.POSITIVE_INFINITY,
    );
    const hit = this.recent.get(key);
    if (hit) return hit;
    let running = this.inFlight.get(key);
    if (!running) {
      running = this.crawl(scope, caps, context).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, running);
    }
    const crawl = await running;
    this.recent.set(key, crawl, reuseMs);
    return crawl;
  }

  private capsOf(library: LibraryDescriptor): Caps {
    const settings = siteSettingsOf(library);
    return {
      maxPages: Math.min(settings.maxPages ?? this.options.maxPages, this.options.maxPages),
      maxDepth: Math.min(settings.maxDepth ?? this.options.maxDepth, this.options.maxDepth),
      maxBytes: this.options.maxBytes,
    };
  }

  private crawl(scope: CrawlScope, caps: Caps, context: FetchContext): Promise<Crawl> {
    return this.logger.span('site-crawl.crawl', { url: scope.startUrl }, async (span) => {
      const state: CrawlState = { bytes: 0, twins: 'unknown', twinMisses: 0, caps, signal: context.signal };
      const robots = this.options.respectRobotsTxt ? await this.readRobots(scope, state) : undefined;
      const allowed = (url: string): boolean => robots?.isAllowed(url, ROBOTS_AGENT) !== false;

      const sitemap = this.options.useSitemap ? await this.readSitemaps(scope, robots, state) : undefined;
      const listed = (sitemap?.urls ?? [])
        .map((u) => normalizePageUrl(u))
        .filter((u): u is string => u !== undefined && inScope(u, scope));
      const via: Crawl['via'] = listed.length > 0 ? 'sitemap' : 'links';
      span.set({ via, robots: robots !== undefined, sitemap: sitemap?.anchor, listed: listed.length });

      const skipped: Crawl['skipped'] = [];
      const found = new Map<string, CrawledPage>();
      const seen = new Set<string>();
      const limit = pLimit(this.options.concurrency);
      let anchorResponse: HttpResponse | undefined;

      // One level at a time, so the page order (and which pages the caps keep) does not depend on timing.
      let level: string[] = [];
      const admit = (url: string): void => {
        if (seen.has(url) || seen.size >= caps.maxPages) return;
        seen.add(url);
        if (!allowed(url)) {
          skipped.push({ url, reason: 'disallowed by robots.txt' });
          return;
        }
        level.push(url);
      };
      if (via === 'sitemap') {
        // The docs URL first when the sitemap lists it, then the sitemap's order.
        if (listed.includes(scope.startUrl)) admit(scope.startUrl);
        for (const url of listed) admit(url);
      } else {
        admit(scope.startUrl);
      }
      let done = 0;
      for (let depth = 0; level.length > 0; depth++) {
        const current = level;
        level = [];
        const results = await Promise.all(
          current.map((url) =>
            limit(async () => {
              const result = await this.visit(url, scope, state, via === 'links');
              done += 1;
              context.progress?.(done, Math.max(seen.size, done), `crawled ${url}`);
              return result;
            }),
          ),
        );
        for (const [i, result] of results.entries()) {
          const url = current[i] as string;
          if (result.reason)
            skipped.push({ url, reason: result.reason, ...(result.code ? { code: result.code } : {}) });
          if (result.page) seen.add(result.page.url);
          if (url === scope.startUrl && result.response) anchorResponse = result.response;
          if (result.page && !found.has(result.page.url)) found.set(result.page.url, result.page);
          if (via === 'links' && depth < caps.maxDepth) {
            for (const link of result.links) {
              const normalized = normalizePageUrl(link);
              if (normalized && inScope(normalized, scope)) admit(normalized);
            }
          }
        }
        context.signal?.throwIfAborted();
      }

      const pages = [...found.values()];
      span.set({ pages: pages.length, skipped: skipped.length, bytes: state.bytes, twins: state.twins });
      if (pages.length === 0) {
        const first = skipped[0];
        const notFound = first?.reason.includes('HTTP 404') || first?.reason.includes('HTTP 410');
        throw siteCrawlMessages.create(
          notFound ? 'NOTHING_FOUND' : 'NOTHING_READ',
          { prefix: scope.prefix, first: first ? ` (${first.url}: ${first.reason})` : '' },
          {
            recoverable: !notFound && !first?.reason.includes('robots.txt'),
            details: { url: scope.startUrl, skipped: skipped.slice(0, 10), skippedCount: skipped.length },
          },
        );
      }
      for (const page of pages) this.titles.set(page.url, page.title);
      this.scopes.add(scope.prefix);
      const anchorUrl = sitemap && via === 'sitemap' ? sitemap.anchor : scope.startUrl;
      this.anchors.set(scope.startUrl, anchorUrl);
      const anchor = sitemap && via === 'sitemap' ? sitemap.response : anchorResponse;
      const fetchedAt = new Date().toISOString();
      const toc: TocResult = {
        title: pages.find((p) => p.url === scope.startUrl)?.title ?? titleFromUrl(scope.startUrl),
        entries: pages.map((p) => ({ title: p.title, url: p.url, ...(p.section ? { section: p.section } : {}) })),
        sourceUrl: scope.startUrl,
        fetchedAt,
        freshness: anchor
          ? freshnessOf(anchor)
          : { contentHash: sha256(pages.map((p) => `${p.url}\n${p.markdown}`).join('\n')) },
      };
      return { scope, via, anchorUrl, pages, skipped, toc };
    });
  }

  /**
   * Reads one page: its markdown twin when the site has them, else its HTML converted to markdown. When the
   * crawl follows links, the HTML is read even when the twin is used, for its links.
   */
  private async visit(url: string, scope: CrawlScope, state: CrawlState, needLinks: boolean): Promise<VisitResult> {
    if (state.bytes >= state.caps.maxBytes) {
      return { reason: `byte cap reached (${state.caps.maxBytes} bytes)`, links: [] };
    }
    // One budget per page, its twins included: a page that never arrives is skipped before the engine's wait for
    // the next page runs out, so one stuck page does not fail the library's first answer.
    const seconds = this.options.pageTimeoutSeconds;
    const deadline = Date.now() + seconds * 1000;
    const late = (): VisitResult => ({
      reason: `did not arrive within ${seconds} s (sources.site.pageTimeoutSeconds)`,
      code: 'SOURCE_UNAVAILABLE',
      links: [],
    });
    let twin: { markdown: string; url: string } | undefined;
    if (this.options.preferMarkdownTwins && state.twins !== 'no') {
      for (const candidate of markdownTwins(url)) {
        const left = deadline - Date.now();
        if (left <= 0) return late();
        const response = await this.tryGet(
          candidate,
          ACCEPT_MARKDOWN,
          { signal: state.signal },
          { retries: 0, timeoutMs: left },
        );
        if (response) state.bytes += response.body.byteLength;
        if (response && isMarkdown(response)) {
          twin = { markdown: response.text(), url: candidate };
          state.twins = 'yes';
          break;
        }
        if (state.twins === 'unknown' && ++state.twinMisses >= TWIN_GIVE_UP) state.twins = 'no';
      }
    }
    if (twin && !needLinks) {
      const markdown = twin.markdown;
      if (!markdown.trim()) return { reason: `empty markdown twin ${twin.url}`, links: [] };
      return { page: this.page(url, scope, markdownTitle(markdown), markdown, true), links: [] };
    }
    let response: HttpResponse;
    const limits = sharedPageConverter().limits;
    const left = deadline - Date.now();
    if (left <= 0) return late();
    try {
      response = await this.http.get(url, {
        headers: { accept: ACCEPT_HTML },
        timeoutMs: left,
        ...(state.signal ? { signal: state.signal } : {}),
        // a page over the per-page size limit is refused as it arrives, never held
        maxBodyBytes: limits.maxBytes,
      });
    } catch (error) {
      if (state.signal?.aborted) throw error;
      const tooLarge = oversizeBody(error, url, limits);
      if (tooLarge) return { reason: tooLarge.message, code: tooLarge.code, links: [] };
      if (upstreamFailureOf(error) === 'timeout') return late();
      // a failure carries its catalog code (unreachable, refused by policy): the engine notes the page left out
      const code = (error as { code?: unknown } | null)?.code;
      return { reason: errorText(error), ...(typeof code === 'string' ? { code } : {}), links: [] };
    }
    state.bytes += response.body.byteLength;
    if (!ok(response.status)) return { reason: `HTTP ${response.status}`, links: [] };
    const finalUrl = normalizePageUrl(response.url || url) ?? url;
    if (!inScope(finalUrl, scope) && finalUrl !== scope.startUrl) {
      return { reason: `redirected outside the docs to ${finalUrl}`, links: [] };
    }
    // A link without its trailing slash redirects to the page: the page is known by where it ended up.
    const pageUrl = finalUrl;
    const verdict = classifyContent(response.headers['content-type'], response.body);
    if (!verdict.ok) return { reason: verdict.message, links: [] };
    if (verdict.kind !== 'html') {
      const markdown = twin?.markdown ?? response.text();
      return { page: this.page(pageUrl, scope, markdownTitle(markdown), markdown, false), links: [], response };
    }
    // converted in the page worker, within the per-page limits and time budget (`engine.pages`): a page over one
    // is left out with why (the limit and its setting), and the crawl goes on
    let converted: ConvertedPage;
    try {
      converted = await sharedPageConverter().convert(
        { kind: 'html', text: response.text(), url: response.url || pageUrl },
        state.signal ? { signal: state.signal } : {},
      );
    } catch (error) {
      if (state.signal?.aborted || !isProContextError(error)) throw error;
      return { reason: error.message, code: error.code, links: [] };
    }
    if (twin) {
      return {
        page: this.page(pageUrl, scope, markdownTitle(twin.markdown) ?? converted.title, twin.markdown, true),
        links: converted.links,
        response,
      };
    }
    // A page of links only (a section index) is not indexed, but its links are still followed.
    if (!hasBody(converted.markdown)) return { reason: 'no text in the main content', links: converted.links };
    return {
      page: this.page(pageUrl, scope, converted.title, converted.markdown, false),
      links: converted.links,
      response,
    };
  }

  private page(
    url: string,
    scope: CrawlScope,
    title: string | undefined,
    markdown: string,
    fromTwin: boolean,
  ): CrawledPage {
    const section = sectionOf(url, scope);
    return {
      url,
      title: title?.trim() || titleFromUrl(url),
      ...(section ? { section } : {}),
      markdown,
      fromTwin,
    };
  }

  /** The site's robots.txt, or `undefined` when it has none (everything allowed). */
  private async readRobots(scope: CrawlScope, state: CrawlState): Promise<Robots | undefined> {
    const url = `${scope.origin}/robots.txt`;
    const response = await this.tryGet(url, 'text/plain, */*;q=0.1', { signal: state.signal }, { retries: 0 });
    if (!response) return undefined;
    state.bytes += response.body.byteLength;
    const text = response.text();
    // An HTML answer is a catch-all page, not a robots.txt.
    if (/^\s*</.test(text)) return undefined;
    return robotsParser(url, text);
  }

  /**
   * The page URLs of the site's sitemap: beside the docs, at the origin's root, or named by robots.txt;
   * sitemap indexes are followed (at most {@link MAX_SITEMAPS} files, those under the docs folder first).
   */
  private async readSitemaps(
    scope: CrawlScope,
    robots: Robots | undefined,
    state: CrawlState,
  ): Promise<{ urls: string[]; anchor: string; response: HttpResponse } | undefined> {
    const fromRobots = (robots?.getSitemaps() ?? []).filter((u) => u.startsWith(`${scope.origin}/`));
    for (const first of [...new Set([...sitemapCandidates(scope), ...fromRobots])]) {
      const response = await this.tryGet(
        first,
        'application/xml, text/xml;q=0.9, */*;q=0.1',
        { signal: state.signal },
        { retries: 0 },
      );
      if (!response) continue;
      state.bytes += response.body.byteLength;
      const parsed = parseSitemap(response.text());
      if (!parsed) continue;
      const urls: string[] = [];
      const queue = parsed.index ? [...parsed.locs] : [];
      if (!parsed.index) urls.push(...parsed.locs);
      // Sitemaps of the docs folder first: a site-wide index lists blog and marketing sitemaps too.
      queue.sort((a, b) => Number(!a.startsWith(scope.prefix)) - Number(!b.startsWith(scope.prefix)));
      let read = 1;
      while (queue.length > 0 && read < MAX_SITEMAPS && state.bytes < state.caps.maxBytes) {
        const next = queue.shift() as string;
        if (!next.startsWith(`${scope.origin}/`)) continue;
        read += 1;
        const child = await this.tryGet(next, 'application/xml, text/xml;q=0.9', { signal: state.signal }, {});
        if (!child) continue;
        state.bytes += child.body.byteLength;
        const inner = parseSitemap(child.text());
        if (!inner) continue;
        if (inner.index) queue.push(...inner.locs);
        else urls.push(...inner.locs);
      }
      return { urls, anchor: first, response };
    }
    return undefined;
  }

  /** A GET that answers `undefined` for anything but a 2xx (a network error included, unless aborted). */
  private async tryGet(
    url: string,
    accept: string,
    context: FetchContext,
    options: { retries?: number; allowUrl?: boolean; timeoutMs?: number },
  ): Promise<HttpResponse | undefined> {
    try {
      const response = await this.http.get(url, {
        headers: { accept },
        ...(options.retries === undefined ? {} : { retries: options.retries }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        ...(context.signal ? { signal: context.signal } : {}),
        ...(options.allowUrl && context.allowUrl ? { allowUrl: context.allowUrl } : {}),
      });
      return ok(response.status) ? response : undefined;
    } catch (error) {
      if (context.signal?.aborted) throw error;
      return undefined;
    }
  }
}

/** Whether a response is markdown (not an HTML catch-all page answering every path). */
function isMarkdown(response: HttpResponse): boolean {
  const verdict = classifyContent(response.headers['content-type'], response.body);
  return verdict.ok && verdict.kind !== 'html';
}

/** The catalog error for a non-2xx answer to read-page. */
function statusError(response: HttpResponse, url: string): ProContextError {
  const { status } = response;
  if (status === 404 || status === 410) {
    return siteCrawlMessages.create('NO_PAGE', { url, status }, { details: { url, status } });
  }
  if (status === 429) {
    return siteCrawlMessages.create(
      'RATE_LIMITING',
      { host: new URL(url).host, url },
      { ...(response.retryAfter === undefined ? {} : { retryAfter: response.retryAfter }), details: { url, status } },
    );
  }
  return siteCrawlMessages.create(
    'HTTP_STATUS',
    { url, status },
    { recoverable: status >= 500, details: { url, status } },
  );
}
