/**
 * What the engine knows about one library: its identity, where its documentation lives, and hints for
 * the adapters. Built from the known-libraries registry, the config file, package registries and
 * project detection.
 */
export interface LibraryDescriptor {
  /** Canonical id, e.g. `'pydantic/pydantic'` or `'fastapi'`. Alphanumerics and `-_./`, at most 200 chars. */
  id: string;
  /** Human-readable name, e.g. `'Pydantic'`. */
  name: string;
  /** One-sentence description. */
  description?: string;
  /** Programming language, e.g. `'python'`, `'javascript'`. */
  language?: string;
  /** Package name in its registry (PyPI, npm) when it differs from `id`. */
  packageName?: string;
  /** Other names an agent may use for it (`'pydantic v2'`, `'pydantic-core'`). */
  aliases?: string[];
  /** Categories for `list-libraries` filtering (`'web'`, `'ai'`, `'data'`, `'testing'`). */
  categories?: string[];
  /** Base URL of the documentation site; `{docsUrl}/llms.txt` is tried first. */
  docsUrl?: string;
  /**
   * Per-source settings, one bag per adapter, keyed by the adapter's `librarySettings.key`
   * (`{ llmsTxt: { llmsTxtUrl: '…' }, github: { ref: 'main' } }`). Each adapter validates its own bag.
   */
  sources?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /**
   * Package names per ecosystem (`{ pypi: 'pydantic', npm: 'zod' }`): which registries know this library,
   * and by what name. Without it, `packageName` (or the name) is looked up in the registry of `language`.
   */
  packages?: Readonly<Record<string, string>>;
  /** @deprecated Read from `sources.llmsTxt.llmsTxtUrl`; the old key is still accepted, with a warning. */
  llmsTxtUrl?: string;
  /** @deprecated Read from `sources.llmsTxt.llmsFullTxtUrl`; the old key is still accepted, with a warning. */
  llmsFullTxtUrl?: string;
  /** @deprecated Read from `sources.llmsTxt.versionedDocsUrl`; the old key is still accepted, with a warning. */
  versionedDocsUrl?: string;
  /** Source repository, `'owner/repo'` or a URL. */
  repository?: string;
  /** Folder of the docs inside the repository or on disk (default `docs`). */
  docsPath?: string;
  /** Local folder holding the documentation (internal docs, `local-docs` adapter). */
  localPath?: string;
  /** Force one source adapter by id (e.g. `'github'`), skipping the others. */
  source?: string;
  /** Cache time-to-live of this library's documentation, in hours. */
  ttlHours?: number;
  /** Version served when no package registry knows this library (default `'latest'`). */
  defaultVersion?: string;
  /** Known versions, newest first, when no package registry knows this library. */
  versions?: string[];
  /**
   * What the provider that found this library learnt about its documentation, one sentence or two (docs
   * discovery: the URLs it probed and why each missed). Added to the error when no source can serve the
   * library, so resolve-library's note and get-docs' `SOURCE_UNAVAILABLE` say what was tried.
   */
  docsNote?: string;
  /**
   * The version installed in the user's project (a lockfile's, set by project detection): served when a
   * tool call names no version. An explicit version still wins.
   */
  installedVersion?: string;
  /** The project file this library was detected in (`'uv.lock'`, `'apps/web/package.json'`); detected libraries only. */
  detectedFrom?: string;
}

/** One page of a library's table of contents. */
export interface TocEntry {
  title: string;
  /** Page URL, accepted by `read-page`. */
  url: string;
  /** One-sentence description of the page. */
  description?: string;
  /** Section grouping, e.g. `'Getting Started'`, `'API Reference'`, `'Optional'`. */
  section?: string;
}

/** How to tell later whether fetched content changed: any of ETag, Last-Modified or a content hash. */
export interface Freshness {
  etag?: string;
  lastModified?: string;
  contentHash?: string;
}

/** A table of contents as an adapter returns it. */
export interface TocResult {
  /** Site or library title (the llms.txt H1). */
  title?: string;
  /** Short summary (the llms.txt blockquote). */
  summary?: string;
  entries: TocEntry[];
  /** Where the TOC came from (the llms.txt URL, the repository tree URL, the folder). */
  sourceUrl: string;
  /** ISO date-time of the fetch. */
  fetchedAt: string;
  freshness: Freshness;
  /**
   * The TOC of a condensed summary of documentation published in full elsewhere (an llms.txt written as a
   * short manual whose only links point into itself). The engine then prefers a later source of the same
   * library (its repository, its site) and uses this one only when none of them can serve it.
   */
  condensed?: boolean;
  /**
   * What a reader of this documentation should know that the entries do not say, in a sentence each: files or
   * pages left out over a cap, and the setting that raises it. `resolve-library` passes them on in its notes.
   */
  notes?: string[];
}

/** One page of documentation as markdown. */
export interface DocPage {
  /** Canonical URL of the page (what `read-page` accepts). */
  url: string;
  title: string;
  /** TOC section the page belongs to, if any. */
  section?: string;
  markdown: string;
  /**
   * The page's HTML, when the origin serves no markdown for it. The engine converts it to markdown of the
   * main content (navigation, sidebars and footers dropped) before chunking; leave `markdown` empty then.
   */
  html?: string;
}

/** A library's documentation, as fetched for indexing. */
export interface DocsResult {
  pages: DocPage[];
  /** The URL the content came from (llms-full.txt, llms.txt, repository, folder). */
  sourceUrl: string;
  fetchedAt: string;
  freshness: Freshness;
  /** The TOC, when the adapter read it on the way. */
  toc?: TocResult;
  /**
   * Pages listed but not fetched (URL and reason), for the logs. One that failed carries its catalog `code` (over a
   * per-page limit: `PAGE_TOO_LARGE`; unreachable, refused: `SOURCE_UNAVAILABLE`…): the library's notes name it.
   */
  skipped?: { url: string; reason: string; code?: string }[];
  /** A condensed summary of documentation published in full elsewhere: see {@link TocResult.condensed}. */
  condensed?: boolean;
}

/** One page fetched for `read-page`. */
export interface PageResult {
  /** The URL that was asked for. */
  url: string;
  /** The URL the content was finally read from (after a `.md` variant or redirects). */
  finalUrl: string;
  title: string;
  markdown: string;
  /** What the origin served. */
  contentType: 'markdown' | 'html' | 'text';
  fetchedAt: string;
  freshness: Freshness;
}

/** Passed to long adapter operations: cancellation, progress and per-call logging. */
export interface FetchContext {
  signal?: AbortSignal;
  /** Reports progress of a long fetch (pages fetched so far and in all). */
  progress?: (done: number, total: number, message: string) => void;
  /**
   * The caller's check for redirect targets (today: `read-page`'s allowlist, passed to
   * `SourceAdapter.fetchPage`). An adapter that receives it must pass it as `allowUrl` to every
   * `HttpClient` request it makes for that page (markdown twin included), so each redirect hop is checked
   * before it is followed rather than after its body was read. It throws to refuse a hop; a refused optional
   * request (such as a markdown twin) may be skipped like any other failed optional request.
   */
  allowUrl?: (url: URL) => void;
  /**
   * Optional, for `SourceAdapter.fetchDocs`: takes the library's pages in batches as the adapter reads them, so a
   * large library is chunked and indexed while it downloads and never held whole. An adapter may hand pages here
   * (awaiting each call: it resolves when the batch is taken, which paces the download) instead of returning them
   * in `DocsResult.pages`; the pages of the result, if any, count after the batches. An adapter that fails after
   * handing over pages leaves nothing behind (the engine drops the partial library and tries the next source).
   * A result whose pages came this way is never set aside as `condensed`.
   */
  pages?: (batch: DocPage[]) => Promise<void>;
}
