import { createHash } from 'node:crypto';
import {
  CHARS_PER_TOKEN,
  type DocPage,
  type DocsResult,
  type DocVersions,
  type FetchContext,
  type Freshness,
  type HttpClient,
  type HttpResponse,
  type HttpStreamResponse,
  inject,
  injectable,
  kernelTokens,
  type LibraryDescriptor,
  type Logger,
  type PageResult,
  ProContextError,
  type SourceAdapter,
  type TocEntry,
  type TocResult,
  type UrlAllowlist,
} from '@pro-context/kernel';
import {
  cleanLlmsTitle as cleanTitle,
  detachString as detach,
  llmsFirstSentence as firstSentence,
  LlmsFullSplitter,
  type LlmsFullStyle,
  llmsTxtPages,
  looksLikeHtml,
  oversizeBody,
  type ParsedLlmsTxt,
  parseLlmsHeading as parseHeading,
  parseLlmsTxt,
  scanLlmsLines as scanLines,
  sharedPageConverter,
  sniffNonMarkdown,
} from '@pro-context/markdown';
import { errorText, Slicer, upstreamFailureOf } from '@pro-context/plugin-kit';
import pLimit from 'p-limit';
import { llmsTxtMessages } from './messages.js';
import { type LlmsTxtPluginOptions, llmsTxtOptionsToken } from './options.js';
import { atxTitle, htmlTitleText, quoteText } from './scan.js';
import { llmsTxtLibrarySettings, llmsTxtSettingsOf, settingName } from './settings.js';
import { hasVersionedDocs, llmsFullTxtUrlOf, llmsTxtUrlOf, pageCandidates, withoutHash } from './urls.js';

/** An llms.txt as read: where from, its text, how it parsed, and the TOC made of it. */
interface LoadedLlmsTxt {
  kind: 'llms-txt';
  url: string;
  finalUrl: string;
  text: string;
  parsed: ParsedLlmsTxt;
  toc: TocResult;
}

/**
 * A site without an llms.txt, read from its llms-full.txt instead (seed 001 §8.1 checks both): the pages the
 * file was split into, and the TOC made of them.
 */
interface LoadedFullTxt {
  kind: 'llms-full';
  /** The llms.txt URL that answered 404. */
  url: string;
  /** Where the llms-full.txt was read from. */
  finalUrl: string;
  /**
   * The pages, when they were kept: a file of fewer than `HANDOVER_MIN_CHARS` characters of pages read for the
   * TOC, or one read for the documentation whose pages were not handed over. `undefined` when they were dropped
   * (a large file read for its TOC only: the next fetchDocs reads it again) or handed over.
   */
  pages: DocPage[] | undefined;
  /** Pages handed over to `FetchContext.pages` while the file was read. */
  handedOver: number;
  /** The llms.txt's answer (404 or 410). */
  missingStatus: number;
  toc: TocResult;
}

/** What a library's TOC was read from. */
type LoadedToc = LoadedLlmsTxt | LoadedFullTxt;

/** A file whose pages are cut out of it (`<file>#<slug>`): an llms-full.txt or a self-contained llms.txt. */
interface Bundle {
  kind: 'llms-txt' | 'llms-full';
  /** The TOC the pages were matched against when it was split, so a re-split yields the same URLs. */
  toc: readonly TocEntry[];
}

/** A page body as fetched. */
interface FetchedBody {
  finalUrl: string;
  text: string;
  contentType: PageResult['contentType'];
  freshness: Freshness;
}

/** An llms-full.txt read as it downloaded (see `readFullTxt`). */
interface FullTxtDone {
  finalUrl: string;
  freshness: Freshness;
  style?: LlmsFullStyle;
  warnings: string[];
  /** The file's first characters (for its `# Title` and `> summary`). */
  opening: string;
  /** Pages kept (see `readFullTxt`); `undefined` when dropped. */
  pages: DocPage[] | undefined;
  handedOver: number;
  /** Pages the file had in all. */
  count: number;
  /** One page URL per host the pages live on (for the read-page allowlist). */
  hostUrls: string[];
}

/** What reading an llms-full.txt came to: its pages, a non-2xx answer, not text, or over `maxChars`. */
type FullTxtRead = FullTxtDone | HttpStreamResponse | { notText: string } | { chars: number };

/** What to check when a library's llms.txt is not there: the settings it is actually configured with. */
function settingsToCheck(library?: LibraryDescriptor): string {
  const settings = library ? llmsTxtSettingsOf(library) : {};
  const used = [
    ...(['llmsTxtUrl', 'llmsFullTxtUrl', 'versionedDocsUrl'] as const).filter((key) => settings[key]).map(settingName),
    ...(library?.docsUrl ? ['docsUrl'] : []),
  ];
  const which = used.length > 0 ? used.join(' and ') : 'docsUrl';
  return `${which}${library ? ` of ${library.id}` : ''}`;
}

const ACCEPT_LLMS_TXT = 'text/plain, text/markdown;q=0.9, */*;q=0.5';
const ACCEPT_PAGE = 'text/markdown, text/plain;q=0.9, text/html;q=0.5, */*;q=0.1';
/** Bytes per estimated token allowed when downloading an llms-full.txt within `maxFullTxtTokens` (UTF-8 slack). */
const FULL_TXT_BYTES_PER_TOKEN = 12;
const MiB = 1024 * 1024;

/**
 * The HTTP client's "larger than the limit" error, for an llms-full.txt: which file, and the setting that bounds it
 * (`maxFullTxtMB`, or the token budget when `preferFullTxt` is false). Any other error comes back as it is.
 */
function tooLargeExplained(error: unknown, url: string, setting: 'maxFullTxtMB' | 'maxFullTxtTokens'): unknown {
  if (!(error instanceof ProContextError) || error.code !== 'INVALID_CONTENT') return error;
  const limit = error.details?.maxBodyBytes;
  if (typeof limit !== 'number') return error;
  const explained = llmsTxtMessages.create(
    setting === 'maxFullTxtMB' ? 'FULL_TXT_OVER_MB' : 'FULL_TXT_OVER_TOKENS',
    { url, mb: Math.round((limit / MiB) * 10) / 10 },
    { details: { ...error.details, url, setting: `sources.llmsTxt.${setting}` }, cause: error },
  );
  // pages already handed over make the failure final (see readFullTxt)
  if ((error as { handedOver?: boolean }).handedOver) Object.assign(explained, { handedOver: true });
  return explained;
}

function sha256(body: Uint8Array | string): string {
  return createHash('sha256').update(body).digest('hex');
}

/** A response's validators, with the hash of its content (the whole body, or a streamed body hashed as it came). */
function freshnessOf(headers: Record<string, string>, contentHash: string): Freshness {
  return {
    ...(headers.etag ? { etag: headers.etag } : {}),
    ...(headers['last-modified'] ? { lastModified: headers['last-modified'] } : {}),
    contentHash,
  };
}

const ok = (status: number) => status >= 200 && status < 300;

/**
 * The llms.txt source adapter (seed 001 §8.2): the TOC is the site's parsed llms.txt; documentation comes
 * from llms-full.txt when it is small enough (or preferred), from the llms.txt itself when it carries its
 * content (a condensed manual, an llms-ctx file), else from the pages it lists, markdown twin first.
 *
 * Every URL of a fetched llms.txt joins the `read-page` allowlist (seed 001 D6), and `read-page` asks this
 * adapter for the URLs it listed. Pages served only as HTML are not converted here: `fetchPage` returns them
 * with `contentType: 'html'` for the engine to convert, and `fetchDocs` lists them in `skipped`.
 */
@injectable()
export class LlmsTxtSourceAdapter implements SourceAdapter {
  readonly id = 'llms-txt';
  readonly priority = 10;
  /** Per-library settings in `sources.llmsTxt` (`llmsTxtUrl`, `llmsFullTxtUrl`, `versionedDocsUrl`). */
  readonly librarySettings = llmsTxtLibrarySettings;

  private readonly logger: Logger;
  /** URLs listed by fetched TOCs (with and without fragment), and their titles. */
  private readonly owned = new Map<string, string>();
  /** Files (without fragment) whose pages are cut out of them. */
  private readonly bundles = new Map<string, Bundle>();
  /**
   * TOCs read lately, for reuse within `reuseTocSeconds` (seed 001 §8.2 "cache the parsed TOC"): the engine
   * calls fetchToc for resolve-library and fetchDocs for the first get-docs, and both start from the TOC.
   */
  private readonly recent = new Map<string, { loaded: LoadedToc; at: number }>();

  constructor(
    @inject(llmsTxtOptionsToken) private readonly options: LlmsTxtPluginOptions,
    @inject(kernelTokens.http) private readonly http: HttpClient,
    @inject(kernelTokens.allowlist) private readonly allowlist: UrlAllowlist,
    @inject(kernelTokens.logger) logger: Logger,
  ) {
    this.logger = logger.child({ plugin: 'llms-txt' });
  }

  canHandle(library: LibraryDescriptor): boolean {
    if (!this.options.enabled) return false;
    if (library.source !== undefined && library.source !== this.id) return false;
    const settings = llmsTxtSettingsOf(library);
    return Boolean(settings.llmsTxtUrl || library.docsUrl || settings.versionedDocsUrl);
  }

  /** Any version when a URL names one (`{version}`), else only the latest stable. */
  async docVersions(library: LibraryDescriptor): Promise<DocVersions> {
    return hasVersionedDocs(library) ? { kind: 'any' } : { kind: 'latest' };
  }

  /** The llms.txt and llms-full.txt URLs configured for the library (their hosts are allowed for read-page). */
  docsUrls(library: LibraryDescriptor): string[] {
    const { llmsTxtUrl, llmsFullTxtUrl } = llmsTxtSettingsOf(library);
    return [llmsTxtUrl, llmsFullTxtUrl].filter((u): u is string => u !== undefined);
  }

  fetchToc(library: LibraryDescriptor, version: string, context: FetchContext = {}): Promise<TocResult> {
    return this.logger.span('llms-txt.fetchToc', { library: library.id, version }, async (span) => {
      const loaded = await this.loadToc(library, version, context);
      span.set({
        url: loaded.finalUrl,
        format: loaded.kind === 'llms-txt' ? loaded.parsed.format : 'llms-full',
        entries: loaded.toc.entries.length,
      });
      return loaded.toc;
    });
  }

  fetchDocs(library: LibraryDescriptor, version: string, context: FetchContext = {}): Promise<DocsResult> {
    return this.logger.span('llms-txt.fetchDocs', { library: library.id, version }, async (span) => {
      let loaded = await this.loadToc(library, version, context, true);
      if (loaded.kind === 'llms-full' && loaded.pages === undefined && loaded.handedOver === 0) {
        // a large llms-full.txt read for its TOC alone kept no pages: read again, pages handed over as they come
        this.forgetPages(library, version, loaded);
        loaded = await this.loadFullTxtOnly(
          library,
          version,
          loaded.url,
          { status: loaded.missingStatus },
          context,
          true,
        );
      }
      const { toc } = loaded;
      if (loaded.kind === 'llms-full') {
        // No llms.txt: the llms-full.txt the TOC came from is the only content, whatever its size. Its pages are
        // not kept for the next TOC read (they are the whole file): the next read downloads it again.
        const pages = loaded.pages?.splice(0) ?? [];
        span.set({ via: 'llms-full.txt (no llms.txt)', url: loaded.finalUrl, pages: pages.length + loaded.handedOver });
        this.forgetPages(library, version, loaded);
        return {
          pages: loaded.handedOver > 0 ? pages : await handOver(pages, context),
          sourceUrl: loaded.finalUrl,
          fetchedAt: toc.fetchedAt,
          freshness: toc.freshness,
          toc,
          skipped: [],
        };
      }
      const full = await this.tryFullTxt(library, version, loaded, context);
      if ('pages' in full) {
        span.set({ via: 'llms-full.txt', url: full.url, pages: full.pages.length + full.handedOver });
        return {
          pages: full.handedOver > 0 ? full.pages : await handOver(full.pages, context),
          sourceUrl: full.url,
          fetchedAt: toc.fetchedAt,
          freshness: toc.freshness,
          toc,
          skipped: [],
        };
      }
      span.set('fullTxt', full.reason);

      if (loaded.parsed.format === 'manual' || loaded.parsed.format === 'ctx') {
        const pages = llmsTxtPages(loaded.text, loaded.finalUrl);
        span.set({ via: `llms.txt (${loaded.parsed.format})`, pages: pages.length });
        if (pages.length === 0) {
          throw llmsTxtMessages.create(
            'EMPTY_SECTIONS',
            { url: loaded.finalUrl },
            { details: { url: loaded.finalUrl } },
          );
        }
        return {
          pages,
          sourceUrl: loaded.finalUrl,
          fetchedAt: toc.fetchedAt,
          freshness: toc.freshness,
          toc,
          skipped: [],
          ...(toc.condensed ? { condensed: true } : {}),
        };
      }

      const { pages, skipped } = await this.fetchListedPages(loaded, context);
      span.set({ via: 'pages', pages: pages.length, skipped: skipped.length });
      if (pages.length === 0) {
        throw llmsTxtMessages.create(
          'NO_PAGE_READ',
          { url: loaded.finalUrl },
          { details: { url: loaded.finalUrl, skipped: skipped.slice(0, 10), skippedCount: skipped.length } },
        );
      }
      return { pages, sourceUrl: loaded.finalUrl, fetchedAt: toc.fetchedAt, freshness: toc.freshness, toc, skipped };
    });
  }

  ownsUrl(url: URL): boolean {
    const href = url.href;
    const bare = withoutHash(href);
    if (this.owned.has(href) || this.owned.has(bare) || this.bundles.has(bare)) return true;
    // The markdown twin of a listed page (`…/page.md`, `…/page/index.md`) is the same page.
    const page = bare.replace(/(\/index\.html\.md|\/index\.md)$/i, '/').replace(/\.md$/i, '');
    return page !== bare && this.owned.has(page);
  }

  fetchPage(url: URL, context: FetchContext = {}): Promise<PageResult> {
    return this.logger.span('llms-txt.fetchPage', { url: url.href }, async (span) => {
      const bare = withoutHash(url.href);
      const bundle = this.bundles.get(bare);
      if (bundle && url.hash) {
        const page = await this.pageFromBundle(bare, bundle, url.href, context);
        span.set({ from: bundle.kind });
        return page;
      }
      // Seed 001 §8.2: the markdown twin is tried for pages of a TOC; any other URL is fetched as it is.
      const listed = this.owned.has(url.href) || this.owned.has(bare);
      const body = await this.fetchBody(url.href, context, listed);
      span.set({ finalUrl: body.finalUrl, contentType: body.contentType, listed });
      const title =
        this.owned.get(url.href) ??
        this.owned.get(bare) ??
        titleOf(body.text, body.contentType) ??
        lastSegment(body.finalUrl);
      return {
        url: url.href,
        finalUrl: body.finalUrl,
        title,
        markdown: body.text,
        contentType: body.contentType,
        fetchedAt: new Date().toISOString(),
        freshness: body.freshness,
      };
    });
  }

  checkFreshness(
    library: LibraryDescriptor,
    version: string,
    cached: Freshness,
    context: FetchContext = {},
  ): Promise<'fresh' | 'changed' | 'unknown'> {
    return this.logger.span('llms-txt.checkFreshness', { library: library.id, version }, async (span) => {
      const url = llmsTxtUrlOf(library, version);
      if (!url) return 'unknown';
      const fullUrl = llmsFullTxtUrlOf(library, version, url);
      let verdict = await this.compareWith(url, cached, context, (status) => span.set('status', status));
      // A site without llms.txt was read from its llms-full.txt, whose freshness is the cached one.
      if (verdict === 'missing' && withoutHash(fullUrl) !== withoutHash(url)) {
        verdict = await this.compareWith(fullUrl, cached, context, (status) => span.set('fullTxtStatus', status));
      }
      const result = verdict === 'missing' ? 'changed' : verdict;
      // Whatever is not known to be fresh must be read again by the next fetch.
      if (result !== 'fresh') this.recent.delete(memoKey(url, fullUrl));
      return result;
    });
  }

  /** A conditional GET of `url` compared with `cached`; `missing` when it answers 404 or 410. */
  private async compareWith(
    url: string,
    cached: Freshness,
    context: FetchContext,
    status: (status: number | string) => void,
  ): Promise<'fresh' | 'changed' | 'unknown' | 'missing'> {
    // streamed: the body (a whole llms-full.txt, maybe) is hashed as it arrives, never held
    let response: HttpStreamResponse;
    let hash: string | undefined;
    try {
      response = await this.http.stream(url, {
        headers: { accept: ACCEPT_LLMS_TXT },
        ...(cached.etag ? { etag: cached.etag } : {}),
        ...(cached.lastModified ? { lastModified: cached.lastModified } : {}),
        ...(context.signal ? { signal: context.signal } : {}),
      });
      if (ok(response.status) && cached.contentHash) {
        const digest = createHash('sha256');
        for await (const chunk of response.body) digest.update(chunk);
        hash = digest.digest('hex');
      } else {
        response.cancel();
      }
    } catch (error) {
      if (context.signal?.aborted) throw error;
      status(errorText(error));
      return 'unknown';
    }
    status(response.status);
    if (response.notModified || response.status === 304) return 'fresh';
    if (response.status === 404 || response.status === 410) return 'missing';
    if (!ok(response.status)) return 'unknown';
    if (hash !== undefined) return hash === cached.contentHash ? 'fresh' : 'changed';
    if (cached.etag && response.headers.etag) return cached.etag === response.headers.etag ? 'fresh' : 'changed';
    return 'unknown';
  }

  /** Drops the pages of a TOC read from an llms-full.txt from what is reused (the TOC itself stays). */
  private forgetPages(library: LibraryDescriptor, version: string, loaded: LoadedFullTxt): void {
    const url = llmsTxtUrlOf(library, version);
    if (!url) return;
    const key = memoKey(url, llmsFullTxtUrlOf(library, version, url));
    if (this.recent.get(key)?.loaded === loaded) this.recent.delete(key);
  }

  /**
   * The library's TOC: read lately (within `reuseTocSeconds`, capped by the library's `ttlHours`), else
   * fetched. So the first get-docs after resolve-library does not download the llms.txt again.
   */
  private async loadToc(
    library: LibraryDescriptor,
    version: string,
    context: FetchContext,
    forDocs = false,
  ): Promise<LoadedToc> {
    const url = llmsTxtUrlOf(library, version);
    if (!url) {
      throw llmsTxtMessages.create('NO_SITE', { id: library.id }, { details: { library: library.id } });
    }
    const key = memoKey(url, llmsFullTxtUrlOf(library, version, url));
    const reuseMs = Math.min(
      this.options.reuseTocSeconds * 1000,
      library.ttlHours ? library.ttlHours * 3_600_000 : Number.POSITIVE_INFINITY,
    );
    const now = Date.now();
    for (const [k, v] of this.recent) if (now - v.at >= this.options.reuseTocSeconds * 1000) this.recent.delete(k);
    const hit = this.recent.get(key);
    if (hit && now - hit.at < reuseMs) {
      this.logger.debug('TOC reused', { url: hit.loaded.finalUrl, ageMs: now - hit.at });
      return hit.loaded;
    }
    const loaded = await this.loadLlmsTxt(library, version, url, context, forDocs);
    if (reuseMs > 0) this.recent.set(key, { loaded, at: Date.now() });
    return loaded;
  }

  /**
   * GETs and parses the library's llms.txt at `url`, and records what it lists (ownership, allowlist). A site
   * without one (404, 410) is read from its llms-full.txt instead.
   */
  private async loadLlmsTxt(
    library: LibraryDescriptor,
    version: string,
    url: string,
    context: FetchContext,
    forDocs: boolean,
  ): Promise<LoadedToc> {
    const response = await this.http.get(url, {
      headers: { accept: ACCEPT_LLMS_TXT },
      ...(context.signal ? { signal: context.signal } : {}),
    });
    if (response.status === 404 || response.status === 410) {
      return this.loadFullTxtOnly(library, version, url, response, context, forDocs);
    }
    if (!ok(response.status)) throw statusError(response, url, 'llms.txt', library);
    const text = response.text();
    const finalUrl = response.url || url;
    const parsed = parseLlmsTxt(text, finalUrl);
    if (parsed.format === 'invalid') {
      const reason = (parsed.warnings[0] ?? 'not an llms.txt file').replace(/^not an llms\.txt file: /, '');
      const notText = /^the file is /.test(reason);
      const details = { details: { url: finalUrl, status: response.status, reason } };
      throw notText
        ? llmsTxtMessages.create('NOT_LLMS_TXT', { url, why: reason.replace(/^the file is /, 'it is ') }, details)
        : llmsTxtMessages.create('MALFORMED', { url, why: reason }, details);
    }
    if (parsed.warnings.length > 0)
      this.logger.debug('llms.txt read with warnings', { url: finalUrl, warnings: parsed.warnings });

    for (const entry of parsed.entries) {
      this.owned.set(entry.url, entry.title);
      this.owned.set(withoutHash(entry.url), this.owned.get(withoutHash(entry.url)) ?? entry.title);
    }
    if (parsed.format === 'manual' || parsed.format === 'ctx') {
      const bundle: Bundle = { kind: 'llms-txt', toc: parsed.entries };
      this.bundles.set(withoutHash(finalUrl), bundle);
      this.bundles.set(withoutHash(url), bundle);
    }
    // Seed 001 D6: what an llms.txt links to is the library's own documentation, so read-page may fetch it.
    this.allowlist.allowHostsOf(
      [finalUrl, ...parsed.links, ...parsed.entries.map((e) => e.url)],
      `llms.txt ${finalUrl}`,
    );

    const toc: TocResult = {
      ...(parsed.title ? { title: parsed.title } : {}),
      ...(parsed.summary ? { summary: parsed.summary } : {}),
      entries: parsed.entries,
      sourceUrl: finalUrl,
      fetchedAt: new Date().toISOString(),
      freshness: freshnessOf(response.headers, sha256(response.body)),
      // A manual linking only into itself condenses documentation that lives elsewhere (instructor's llms.txt
      // is 23 KB beside a docs folder of hundreds of pages): the engine prefers the library's other sources.
      ...(parsed.format === 'manual' ? { condensed: true } : {}),
    };
    return { kind: 'llms-txt', url, finalUrl, text, parsed, toc };
  }

  /**
   * A site whose llms.txt is missing, read from its llms-full.txt: the TOC lists the pages the file splits
   * into (their own URLs when the file names them, `llms-full.txt#<slug>` otherwise), and those pages are
   * the documentation. Fails with the llms.txt's 404 when there is no usable llms-full.txt either. The file is
   * split as it downloads (never held whole): read for the documentation (`forDocs`), a large file's pages go to
   * `context.pages` as they come; read for the TOC, a large file's pages are dropped once seen.
   */
  private async loadFullTxtOnly(
    library: LibraryDescriptor,
    version: string,
    url: string,
    missing: Pick<HttpResponse, 'status' | 'retryAfter'>,
    context: FetchContext,
    forDocs: boolean,
  ): Promise<LoadedFullTxt> {
    const fullUrl = llmsFullTxtUrlOf(library, version, url);
    if (withoutHash(fullUrl) === withoutHash(url)) throw statusError(missing, url, 'llms.txt', library);
    const where = settingsToCheck(library);
    const values = { url, status: missing.status, fullUrl, where };
    const details = (more: Record<string, unknown> = {}) => ({
      details: { url, status: missing.status, fullUrl, ...more },
    });
    const entries: TocEntry[] = [];
    const read = await this.readFullTxt(fullUrl, context, {
      ...(forDocs && context.pages ? { handOver: context.pages } : {}),
      keepAll: forDocs && !context.pages,
      onPage: (page) => {
        // what outlives the file is copied out of it: a string cut from it would keep all of it in memory
        if (!this.owned.has(page.url)) this.owned.set(detach(page.url), detach(page.title));
        const description = firstSentence(scanLines(page.markdown));
        entries.push({
          title: detach(page.title),
          url: detach(page.url),
          ...(description ? { description: detach(description) } : {}),
          ...(page.section ? { section: detach(page.section) } : {}),
        });
      },
    });
    if ('status' in read) {
      if (read.status === 404 || read.status === 410) {
        throw llmsTxtMessages.create(
          'NO_LLMS_TXT_NOR_FULL',
          { ...values, fullStatus: read.status },
          details({ fullStatus: read.status }),
        );
      }
      throw statusError(read, fullUrl, 'llms-full.txt', library);
    }
    if ('notText' in read) {
      const why = read.notText.replace(/^the file is /, 'it is ');
      throw llmsTxtMessages.create('NO_LLMS_TXT_FULL_NOT_TEXT', { ...values, why }, details());
    }
    // (no `maxChars` here, so never over it)
    if ('chars' in read) throw llmsTxtMessages.create('NO_LLMS_TXT_FULL_TOO_LARGE', values, details());
    if (read.count === 0) {
      throw llmsTxtMessages.create('NO_LLMS_TXT_FULL_EMPTY', values, details({ warnings: read.warnings }));
    }
    const { finalUrl } = read;

    // Split again without a TOC when read-page asks for a section, so the anchors come out the same.
    const bundle: Bundle = { kind: 'llms-full', toc: [] };
    this.bundles.set(withoutHash(finalUrl), bundle);
    this.bundles.set(withoutHash(fullUrl), bundle);
    this.allowlist.allowHostsOf([finalUrl, ...read.hostUrls], `llms-full.txt ${finalUrl}`);

    const header = fileHeader(read.opening);
    const toc: TocResult = {
      ...(header.title ? { title: detach(header.title) } : {}),
      ...(header.summary ? { summary: detach(header.summary) } : {}),
      entries,
      sourceUrl: finalUrl,
      fetchedAt: new Date().toISOString(),
      freshness: read.freshness,
    };
    this.logger.debug('no llms.txt; TOC read from llms-full.txt', {
      url: finalUrl,
      style: read.style,
      entries: toc.entries.length,
      ...(read.handedOver > 0 ? { handedOver: read.handedOver } : {}),
    });
    return {
      kind: 'llms-full',
      url,
      finalUrl,
      pages: read.pages,
      handedOver: read.handedOver,
      missingStatus: missing.status,
      toc,
    };
  }

  /** The llms-full.txt's pages when it exists and may be used, else why not. */
  private async tryFullTxt(
    library: LibraryDescriptor,
    version: string,
    loaded: LoadedLlmsTxt,
    context: FetchContext,
  ): Promise<{ pages: DocPage[]; handedOver: number; url: string } | { reason: string }> {
    const url = llmsFullTxtUrlOf(library, version, loaded.finalUrl);
    if (withoutHash(url) === withoutHash(loaded.finalUrl)) return { reason: 'llms-full.txt is the llms.txt itself' };
    const { preferFullTxt, maxFullTxtTokens } = this.options;
    let read: FullTxtRead;
    try {
      read = await this.readFullTxt(url, context, {
        toc: loaded.toc.entries,
        // Within the token budget, a bigger body is refused while streaming instead of being read whole.
        ...(preferFullTxt
          ? {}
          : {
              maxBodyBytes: maxFullTxtTokens * FULL_TXT_BYTES_PER_TOKEN,
              maxChars: maxFullTxtTokens * CHARS_PER_TOKEN,
            }),
        // within the token budget the file is small: kept whole, so it can still be refused as too large
        ...(context.pages && preferFullTxt ? { handOver: context.pages } : {}),
        keepAll: !(context.pages && preferFullTxt),
      });
    } catch (error) {
      // a failure after pages were handed over fails the whole fetch (the engine drops the partial library)
      if (context.signal?.aborted || (error as { handedOver?: boolean }).handedOver) throw error;
      return { reason: `llms-full.txt not read: ${errorText(error)}` };
    }
    if ('status' in read) return { reason: `llms-full.txt answered HTTP ${read.status}` };
    if ('notText' in read) return { reason: 'llms-full.txt is not a text file' };
    if ('chars' in read) {
      return {
        reason: `llms-full.txt is too large (${Math.ceil(read.chars / CHARS_PER_TOKEN)} > ${maxFullTxtTokens} estimated tokens)`,
      };
    }
    if (read.count === 0) return { reason: `llms-full.txt has no pages (${read.warnings.join('; ')})` };
    const { finalUrl } = read;
    const bundle: Bundle = { kind: 'llms-full', toc: loaded.toc.entries };
    this.bundles.set(withoutHash(finalUrl), bundle);
    this.bundles.set(withoutHash(url), bundle);
    this.allowlist.allowHostsOf([finalUrl, ...read.hostUrls], `llms-full.txt ${finalUrl}`);
    return { pages: read.pages ?? [], handedOver: read.handedOver, url: finalUrl };
  }

  /**
   * Reads an llms-full.txt as it downloads, splitting it into pages on the way ({@link LlmsFullSplitter}): the
   * file is never held whole. Pages are kept until they pass `HANDOVER_MIN_CHARS` characters; past that they go
   * to `handOver` in batches (each awaited: a slow taker pauses the download), or, without one, are dropped
   * (`pages` comes back `undefined`) unless `keepAll`. `onPage` sees every page first; the URLs it records are
   * copied out. Not a text file, a non-2xx answer, or more than `maxChars` characters end the read early.
   */
  private async readFullTxt(
    url: string,
    context: FetchContext,
    options: {
      toc?: readonly TocEntry[];
      maxBodyBytes?: number;
      maxChars?: number;
      handOver?: (batch: DocPage[]) => Promise<void>;
      onPage?: (page: DocPage) => void;
      keepAll?: boolean;
      /** The URL page URLs are resolved against (default: where the file was read from, after redirects). */
      splitUrl?: string;
      /** Keep no pages at all (`onPage` sees them). */
      keepNone?: boolean;
    },
  ): Promise<FullTxtRead> {
    // Read as it downloads, never held whole: `http.maxBodyBytes` (the cap of bodies held whole) is not its limit.
    const limit = options.maxBodyBytes ?? this.options.maxFullTxtMB * MiB;
    try {
      return await this.streamFullTxt(url, context, options, limit);
    } catch (error) {
      throw tooLargeExplained(error, url, options.maxBodyBytes === undefined ? 'maxFullTxtMB' : 'maxFullTxtTokens');
    }
  }

  /** {@link readFullTxt}'s read, within `limit` bytes. */
  private async streamFullTxt(
    url: string,
    context: FetchContext,
    options: Parameters<LlmsTxtSourceAdapter['readFullTxt']>[2],
    limit: number,
  ): Promise<FullTxtRead> {
    const response = await this.http.stream(url, {
      headers: { accept: ACCEPT_LLMS_TXT },
      maxBodyBytes: limit,
      ...(context.signal ? { signal: context.signal } : {}),
      // The caller's redirect check (read-page's allowlist), applied before a hop is followed.
      ...(context.allowUrl ? { allowUrl: context.allowUrl } : {}),
    });
    if (!ok(response.status)) {
      response.cancel();
      return response;
    }
    const finalUrl = response.url || url;
    const splitter = new LlmsFullSplitter(options.splitUrl ?? finalUrl, options.toc ? { toc: options.toc } : {});
    // chosen on the first bytes: a UTF-16 llms-full.txt (byte-order mark) is text, as the client's text() reads it
    let decoder: InstanceType<typeof TextDecoder> | undefined;
    const hash = createHash('sha256');
    const hosts = new Map<string, string>();
    let pending: DocPage[] | undefined = options.keepNone ? undefined : [];
    let pendingChars = 0;
    let handing = false;
    let handedOver = 0;
    let count = 0;
    let chars = 0;
    let checked = false;
    const notText = () => {
      if (checked || splitter.style === undefined) return undefined;
      checked = true;
      return looksLikeHtml(splitter.opening) ? 'the file is an HTML page' : splitter.notMarkdown;
    };
    // The batch with the taker is awaited before the next one is handed over (one at a time, as the contract
    // asks), while the file goes on being read and split: the taker's worker and this thread work side by side.
    let inFlight: Promise<void> | undefined;
    const flush = async (all: boolean) => {
      while (
        pending &&
        pending.length > 0 &&
        (all || pending.length >= HANDOVER_PAGES || pendingChars >= HANDOVER_BATCH_CHARS)
      ) {
        const batch = pending.splice(0, HANDOVER_PAGES);
        for (const page of batch) pendingChars -= page.markdown.length;
        handedOver += batch.length;
        if (inFlight) await inFlight;
        inFlight = options.handOver!(batch);
        // awaited before the next batch, at the end, or (failing) before the read gives up
        inFlight.catch(() => undefined);
      }
      if (all && inFlight) await inFlight;
    };
    const take = async (pages: DocPage[]) => {
      for (const page of pages) {
        count++;
        options.onPage?.(page);
        const host = hostOf(page.url);
        if (host !== undefined && !hosts.has(host)) hosts.set(host, detach(page.url));
        if (!pending) continue;
        pending.push(page);
        pendingChars += page.markdown.length;
      }
      if (pending && !handing && pendingChars >= HANDOVER_MIN_CHARS && !options.keepAll) {
        if (options.handOver) handing = true;
        else pending = undefined;
      }
      if (handing) await flush(false);
    };
    // a fast server fills the body's buffer quicker than it is split: `for await` then runs chunk after chunk on
    // microtasks, and answers to other calls would wait behind megabytes; a turn every few milliseconds
    const slicer = new Slicer();
    try {
      for await (const chunk of response.body) {
        await slicer.turn();
        hash.update(chunk);
        decoder ??= streamDecoder(chunk, response.headers['content-type']);
        const text = decoder.decode(chunk, { stream: true });
        chars += text.length;
        if (options.maxChars !== undefined && chars > options.maxChars) {
          response.cancel();
          return { chars };
        }
        // split a piece at a time, with a turn between pieces: a body chunk can be hundreds of kB, and splitting
        // it (and recording its pages) in one go would hold up answers for tens of milliseconds
        for (let from = 0; from < text.length; ) {
          const to = pieceEnd(text, from);
          if (from > 0) await slicer.turn();
          const pages = splitter.push(from === 0 && to === text.length ? text : text.slice(from, to));
          from = to;
          const refused = notText();
          if (refused) {
            response.cancel();
            return { notText: refused };
          }
          await take(pages);
        }
      }
      const tail = decoder?.decode() ?? '';
      chars += tail.length;
      if (options.maxChars !== undefined && chars > options.maxChars) return { chars };
      const pages = [...splitter.push(tail), ...splitter.end()];
      const refused = notText() ?? (count + pages.length === 0 ? splitter.notMarkdown : undefined);
      if (refused) return { notText: refused };
      await take(pages);
      if (handing) await flush(true);
    } catch (error) {
      // the taker is never left working on a batch after the read failed
      await inFlight?.catch(() => undefined);
      // pages already handed over make any failure final: the caller must not try something else
      if (handedOver > 0 && error instanceof Error) Object.assign(error, { handedOver: true });
      throw error;
    } finally {
      response.cancel();
    }
    return {
      finalUrl,
      freshness: freshnessOf(response.headers, hash.digest('hex')),
      ...(splitter.style ? { style: splitter.style } : {}),
      warnings: splitter.warnings,
      opening: splitter.opening,
      pages: handing ? [] : pending,
      handedOver,
      count,
      hostUrls: [...hosts.values()],
    };
  }

  /** Fetches the pages an index-style llms.txt lists: bounded concurrency, Optional last, failures skipped. */
  private async fetchListedPages(
    loaded: LoadedLlmsTxt,
    context: FetchContext,
  ): Promise<{ pages: DocPage[]; skipped: { url: string; reason: string; code?: string }[] }> {
    const optional = new Set(loaded.parsed.sections.filter((s) => s.optional).flatMap((s) => s.entries));
    const ordered = [
      ...loaded.parsed.entries.filter((e) => !optional.has(e)),
      ...loaded.parsed.entries.filter((e) => optional.has(e)),
    ];
    const self = withoutHash(loaded.finalUrl);
    const targets: TocEntry[] = [];
    const seen = new Set<string>();
    for (const entry of ordered) {
      const page = withoutHash(entry.url);
      // Anchors into one page, or into the llms.txt itself, are not pages of their own.
      if (page === self || seen.has(page)) continue;
      seen.add(page);
      targets.push(entry);
    }
    if (this.options.discoverPages && targets.length < this.options.maxPages) {
      targets.push(...(await this.unlistedPages(loaded, seen, context)));
    }
    const { maxPages, concurrency } = this.options;
    const chosen = targets.slice(0, maxPages);
    const skipped: { url: string; reason: string; code?: string }[] = targets.slice(maxPages).map((e) => ({
      url: e.url,
      reason: `over maxPages (${maxPages})${optional.has(e) ? ', Optional section' : ''}`,
    }));
    const pages: (DocPage | undefined)[] = new Array(chosen.length);
    let done = 0;
    context.progress?.(0, chosen.length, `Fetching ${chosen.length} pages listed in ${loaded.finalUrl}`);
    // once the request is aborted, pages not started yet are not fetched (each throws the abort reason)
    await pLimit(concurrency).map(chosen, async (entry, index) => {
      context.signal?.throwIfAborted();
      try {
        const body = await this.fetchBody(entry.url, context);
        if (!body.text.trim()) {
          skipped.push({ url: entry.url, reason: 'empty page' });
        } else {
          // HTML-only pages go to the engine as HTML: it extracts the main content as markdown
          pages[index] = {
            url: entry.url,
            title: entry.title,
            ...(entry.section ? { section: entry.section } : {}),
            ...(body.contentType === 'html' ? { markdown: '', html: body.text } : { markdown: body.text }),
          };
        }
      } catch (error) {
        if (context.signal?.aborted) throw error;
        // a page that failed carries its catalog code (over a per-page limit, did not arrive, refused): the engine
        // says so in the library's notes
        const code = (error as { code?: unknown } | null)?.code;
        skipped.push({ url: entry.url, reason: errorText(error), ...(typeof code === 'string' ? { code } : {}) });
      }
      done++;
      context.progress?.(done, chosen.length, entry.title);
    });
    return { pages: pages.filter((p): p is DocPage => p !== undefined), skipped };
  }

  /**
   * Pages of the site that its llms.txt does not list, from the sitemap.xml beside it (curated llms.txt
   * files often leave out guides such as a migration guide). Only pages under the llms.txt's folder are
   * taken; a missing or malformed sitemap just means no extra pages.
   */
  private async unlistedPages(loaded: LoadedLlmsTxt, listed: Set<string>, context: FetchContext): Promise<TocEntry[]> {
    const base = new URL('./', loaded.finalUrl);
    const sitemapUrl = new URL('sitemap.xml', base).href;
    let xml: string;
    try {
      const response = await this.http.get(sitemapUrl, {
        retries: 0,
        headers: { accept: 'application/xml, text/xml;q=0.9, */*;q=0.1' },
        ...(context.signal ? { signal: context.signal } : {}),
      });
      if (!ok(response.status)) return [];
      xml = response.text();
    } catch (error) {
      if (context.signal?.aborted) throw error;
      return [];
    }
    // a listed page is known by its markdown twin (`a/index.md`) or its own URL (`a/`)
    const known = new Set<string>();
    for (const url of listed) {
      known.add(url);
      known.add(url.replace(/(index)?(\.html)?\.md$/, ''));
    }
    const out: TocEntry[] = [];
    for (const match of xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/g)) {
      let url: URL;
      try {
        url = new URL(match[1]!.replace(/&amp;/g, '&'));
      } catch {
        continue;
      }
      if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) continue;
      url.hash = '';
      if (known.has(url.href) || known.has(url.href.replace(/\/$/, '/index.md'))) continue;
      known.add(url.href);
      const slug = decodeURIComponent(url.pathname.slice(base.pathname.length).replace(/\/$/, ''));
      if (!slug) continue;
      const words = slug.split('/').pop()!.replace(/[-_]+/g, ' ');
      out.push({ title: words.charAt(0).toUpperCase() + words.slice(1), url: url.href, section: 'Other pages' });
    }
    this.allowlist.allowHostsOf(
      out.map((e) => e.url),
      `sitemap ${sitemapUrl}`,
    );
    return out;
  }

  /**
   * One page's body: its markdown twin first (when preferred and `twinFirst`), then the URL itself. A twin that answers
   * with HTML is an SPA's catch-all, not a twin, so the next candidate is tried.
   */
  private async fetchBody(pageUrl: string, context: FetchContext, twinFirst = true): Promise<FetchedBody> {
    const candidates = pageCandidates(pageUrl, twinFirst && this.options.preferMarkdownVariant);
    // One budget per page, its twin included: a page that never arrives is skipped before the engine's wait
    // for the next page runs out, so one stuck page does not fail the library's first answer.
    const seconds = this.options.pageTimeoutSeconds;
    const deadline = Date.now() + seconds * 1000;
    const timedOut = (cause?: unknown) =>
      llmsTxtMessages.create(
        'PAGE_TIMED_OUT',
        { url: pageUrl, seconds },
        { details: { url: pageUrl, timeoutMs: seconds * 1000 }, ...(cause ? { cause } : {}) },
      );
    for (let i = 0; i < candidates.length; i++) {
      const candidate = candidates[i]!;
      const isTwin = i < candidates.length - 1;
      const left = deadline - Date.now();
      if (left <= 0) throw timedOut();
      let response: HttpResponse;
      try {
        response = await this.http.get(candidate, {
          timeoutMs: left,
          headers: { accept: ACCEPT_PAGE },
          // A missing twin is common and cheap to pass over: no retries spent on it.
          ...(isTwin ? { retries: 0 } : {}),
          ...(context.signal ? { signal: context.signal } : {}),
          // The caller's redirect check (read-page's allowlist), applied before a hop is followed.
          ...(context.allowUrl ? { allowUrl: context.allowUrl } : {}),
          // A page over the per-page size limit (the engine's `engine.pages.maxBytes`) is refused as it arrives.
          maxBodyBytes: sharedPageConverter().limits.maxBytes,
        });
      } catch (error) {
        const tooLarge = oversizeBody(error, candidate, sharedPageConverter().limits);
        if (tooLarge && !isTwin) throw tooLarge;
        if (context.signal?.aborted) throw error;
        if (!isTwin && upstreamFailureOf(error) === 'timeout') throw timedOut(error);
        // A twin that failed, or redirected somewhere the caller refuses, is passed over for the page itself.
        if (!isTwin) throw error;
        continue;
      }
      if (!ok(response.status)) {
        if (isTwin) continue;
        throw statusError(response, candidate, 'page');
      }
      const text = response.text();
      const contentType = classify(response, text);
      if (contentType === undefined || (isTwin && contentType === 'html')) {
        if (isTwin) continue;
        throw llmsTxtMessages.create(
          'NOT_TEXT_PAGE',
          { url: candidate, kind: sniffNonMarkdown(text) ?? 'binary' },
          { details: { url: candidate, contentType: response.headers['content-type'] } },
        );
      }
      return {
        finalUrl: response.url || candidate,
        text,
        contentType,
        freshness: freshnessOf(response.headers, sha256(response.body)),
      };
    }
    // Unreachable: the last candidate either returns or throws.
    throw llmsTxtMessages.create('NO_PAGE_AT', { url: pageUrl }, { details: { url: pageUrl } });
  }

  /**
   * A page cut out of a bundle (`<file>#<slug>`), split the same way as when it was indexed. An llms-full.txt is
   * split as it downloads and only the page asked for is kept.
   */
  private async pageFromBundle(
    file: string,
    bundle: Bundle,
    pageUrl: string,
    context: FetchContext,
  ): Promise<PageResult> {
    let page: DocPage | undefined;
    let freshness: Freshness;
    if (bundle.kind === 'llms-full') {
      // Split against the URL the pages were named after (the file's address), not a redirect target.
      const read = await this.readFullTxt(file, context, {
        toc: bundle.toc,
        splitUrl: file,
        keepNone: true,
        onPage: (p) => {
          if (page === undefined && p.url === pageUrl) page = p;
        },
      });
      if ('status' in read) throw statusError(read, file, 'llms-full.txt');
      freshness = 'freshness' in read ? read.freshness : {};
    } else {
      const response = await this.http.get(file, {
        headers: { accept: ACCEPT_LLMS_TXT },
        ...(context.signal ? { signal: context.signal } : {}),
        ...(context.allowUrl ? { allowUrl: context.allowUrl } : {}),
      });
      if (!ok(response.status)) throw statusError(response, file, 'llms.txt');
      page = llmsTxtPages(response.text(), file).find((p) => p.url === pageUrl);
      freshness = freshnessOf(response.headers, sha256(response.body));
    }
    if (!page) {
      throw llmsTxtMessages.create('NO_SECTION', { file, hash: new URL(pageUrl).hash }, { details: { url: pageUrl } });
    }
    return {
      url: pageUrl,
      finalUrl: pageUrl,
      title: page.title,
      markdown: page.markdown,
      contentType: 'markdown',
      fetchedAt: new Date().toISOString(),
      freshness,
    };
  }
}

/** The reuse key of a TOC: both files it may come from (two libraries may share an llms.txt URL). */
function memoKey(llmsTxtUrl: string, llmsFullTxtUrl: string): string {
  return `${llmsTxtUrl}\n${llmsFullTxtUrl}`;
}

/** The `# Title` and `> summary` an llms-full.txt opens with, as the llms.txt proposal writes them. */
function fileHeader(text: string): { title?: string; summary?: string } {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/, 40)
    .map((l) => l.trim())
    .filter(Boolean);
  const title = atxTitle(lines[0] ?? '');
  const summary = quoteText(lines[1] ?? '');
  // A heading without a summary under it is the first page's, not the site's.
  return title && summary ? { title: cleanTitle(title), summary: summary.trim() } : {};
}

/** Pages of an llms-full.txt handed over (`FetchContext.pages`) to the engine. */
const HANDOVER_PAGES = 256;
/** Characters of pages past which a batch is handed over before it has `HANDOVER_PAGES` pages. */
const HANDOVER_BATCH_CHARS = 1_000_000;
/**
 * An llms-full.txt with fewer characters of pages is returned whole: the engine prepares it on its own thread in
 * tens of milliseconds, where pages handed over would go to a chunking worker.
 */
const HANDOVER_MIN_CHARS = 2_000_000;

/** Characters of a downloaded llms-full.txt split between two turns of the event loop (see `readFullTxt`). */
const SPLIT_PIECE_CHARS = 16 * 1024;

/**
 * Where the piece of `text` that starts at `from` ends: after the last line break within
 * {@link SPLIT_PIECE_CHARS} characters (so no piece ends inside a surrogate pair), or at the end.
 */
function pieceEnd(text: string, from: number): number {
  if (text.length - from <= SPLIT_PIECE_CHARS) return text.length;
  const at = text.lastIndexOf('\n', from + SPLIT_PIECE_CHARS - 1);
  if (at >= from) return at + 1;
  const next = text.indexOf('\n', from + SPLIT_PIECE_CHARS);
  return next < 0 ? text.length : next + 1;
}

/**
 * `pages` (which it owns) handed to `context.pages` in batches when the caller takes them so and they are large,
 * each batch let go once handed over, and none returned; else `pages` themselves.
 */
async function handOver(pages: DocPage[], context: FetchContext): Promise<DocPage[]> {
  let chars = 0;
  for (const page of pages) chars += page.markdown.length;
  if (!context.pages || chars < HANDOVER_MIN_CHARS) return pages;
  while (pages.length > 0) await context.pages(pages.splice(0, HANDOVER_PAGES));
  return [];
}

/** The catalog error for a non-2xx answer. */
/**
 * The decoder of a streamed body, from its first bytes: a byte-order mark (UTF-8, UTF-16LE/BE), else the charset
 * `Content-Type` declares when `TextDecoder` knows it, else UTF-8 (the rules of the HTTP client's `text()`).
 */
function streamDecoder(first: Uint8Array, contentType: string | undefined): InstanceType<typeof TextDecoder> {
  if (first[0] === 0xff && first[1] === 0xfe) return new TextDecoder('utf-16le');
  if (first[0] === 0xfe && first[1] === 0xff) return new TextDecoder('utf-16be');
  const label = /;\s{0,10}charset\s{0,10}=\s{0,10}"?([A-Za-z0-9_.:-]{1,40})/i.exec(contentType ?? '')?.[1];
  if (label && !(first[0] === 0xef && first[1] === 0xbb && first[2] === 0xbf)) {
    try {
      return new TextDecoder(label);
    } catch {
      // an unknown label: UTF-8
    }
  }
  return new TextDecoder('utf-8');
}

function statusError(
  response: Pick<HttpResponse, 'status' | 'retryAfter'>,
  url: string,
  what: string,
  library?: LibraryDescriptor,
): ProContextError {
  const { status } = response;
  if (status === 404 || status === 410) {
    return what === 'page'
      ? llmsTxtMessages.create('NO_PAGE', { url, status }, { details: { url, status } })
      : llmsTxtMessages.create(
          'NO_FILE',
          { what, url, status, where: settingsToCheck(library) },
          { details: { url, status } },
        );
  }
  if (status === 429) {
    // the client parsed Retry-After already (seconds, on 429 and 503)
    const { retryAfter } = response;
    return llmsTxtMessages.create(
      'RATE_LIMITING',
      { host: new URL(url).host, url },
      { ...(retryAfter === undefined ? {} : { retryAfter }), details: { url, status } },
    );
  }
  // a 503's Retry-After (parsed by the client) travels too: the host is not asked again before it passes
  const { retryAfter } = response;
  const options = { recoverable: status >= 500, details: { url, status } };
  return retryAfter === undefined
    ? llmsTxtMessages.create('HTTP_STATUS', { url, status }, options)
    : llmsTxtMessages.create('HTTP_STATUS_RETRY', { url, status, seconds: retryAfter }, { ...options, retryAfter });
}

/** What a body is: `markdown`, `text`, `html`, or `undefined` when it is not text at all. */
function classify(response: HttpResponse, text: string): PageResult['contentType'] | undefined {
  const type = (response.headers['content-type'] ?? '').toLowerCase();
  if (looksLikeHtml(text) || (type.includes('html') && text.trimStart().startsWith('<'))) return 'html';
  const sniff = sniffNonMarkdown(text);
  if (sniff === 'the file is binary') return undefined;
  if (/^(image|audio|video|font)\/|application\/(pdf|zip|octet-stream)/.test(type)) return undefined;
  let path = '';
  try {
    path = new URL(response.url).pathname;
  } catch {
    // keep the empty path
  }
  if (type.includes('markdown') || /\.(md|mdx|markdown)$/i.test(path)) return 'markdown';
  if (/\.(txt|py|js|ts|json|ya?ml|toml)$/i.test(path) && !/^#|\n#{1,6} /.test(text)) return 'text';
  return /(^|\n)#{1,6} |\]\(/.test(text.slice(0, 8192)) ? 'markdown' : 'text';
}

/** A page's own title: its first heading (markdown) or `<title>` (HTML). */
function titleOf(text: string, contentType: PageResult['contentType']): string | undefined {
  if (contentType === 'html') {
    const title = htmlTitleText(text.slice(0, 65536));
    return title?.trim() ? cleanTitle(title) : undefined;
  }
  let inFence = false;
  for (const line of text.slice(0, 65536).split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const heading = parseHeading(line);
    if (heading) return cleanTitle(heading.text);
  }
  return undefined;
}

function hostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return undefined;
  }
}

function lastSegment(url: string): string {
  try {
    const parts = new URL(url).pathname.split('/').filter(Boolean);
    return decodeURIComponent(parts.at(-1) ?? new URL(url).host);
  } catch {
    return url;
  }
}
