/**
 * Public types of the fake web: loopback documentation sites built from the real corpora.
 *
 * @packageDocumentation
 */

/** How a site's llms.txt orders and groups its pages (read from the site's own build config). */
export type FakeSiteNav =
  /** `nav:` of an mkdocs.yml (corpus-relative path). */
  | { readonly kind: 'mkdocs'; readonly configFile: string }
  /** `sidebar` arrays of a VitePress `config.ts` (corpus-relative path). */
  | { readonly kind: 'vitepress'; readonly configFile: string }
  /** A fumadocs `meta.json` with `pages` and `---Section---` separators (corpus-relative path). */
  | { readonly kind: 'fumadocs'; readonly metaFile: string }
  /** Every markdown file of the docs folder, sorted, grouped by top-level folder. */
  | { readonly kind: 'tree' };

/** A real file served in place of a generated one, its absolute URLs rewritten to the fake site. */
export interface FakeSiteFile {
  /** Absolute path of the file to serve. */
  readonly file: string;
  /**
   * The real site's base URL (e.g. `https://docs.pydantic.dev/latest/`). Links under it are rewritten to
   * the fake site: to the page's served URL when they map to a corpus file, else to the same path on the fake
   * (which then answers 404, as a broken link would).
   */
  readonly originUrl?: string;
}

/**
 * One documentation site of the fake web. Paths named `corpus-relative` are relative to {@link corpusDir};
 * {@link FakeWeb.fileForUrl} answers in the same terms.
 */
export interface FakeSiteDefinition {
  /** URL-safe name (`[a-z0-9-]+`); the site is served under `/<name>/`. */
  readonly name: string;
  /** Absolute path of the corpus folder (e.g. `/…/corpora/pydantic`). */
  readonly corpusDir: string;
  /** Corpus-relative folder holding the markdown sources (`docs`, `docs/en/docs`, `.`). Default `docs`. */
  readonly docsDir?: string;
  /** Site title, the llms.txt H1. */
  readonly title: string;
  /** One-line summary, the llms.txt blockquote. */
  readonly summary?: string;
  /** Where the generated llms.txt takes its order and sections from. Default `{ kind: 'tree' }`. */
  readonly nav?: FakeSiteNav;
  /**
   * Page URL layout. `mkdocs`: `docs/a/b.md` is served at `a/b/index.md` (mkdocs-llmstxt style) and its built
   * HTML at `a/b/`. `plain`: `docs/a/b.md` (or `.mdx`) is served at `a/b.md`. Default `mkdocs`.
   */
  readonly urlStyle?: 'mkdocs' | 'plain';
  /** Serve the markdown sources. Default `true`; `false` makes an HTML-only site. */
  readonly markdown?: boolean;
  /** Absolute path of a built HTML tree (`x/index.html` is served at `x/` and `x/index.html`). */
  readonly htmlDir?: string;
  /**
   * The site's `llms.txt`: generated from {@link nav} (default), a real file, or none (`false`).
   * A generated one links to markdown pages, or to HTML pages when {@link markdown} is `false`.
   */
  readonly llmsTxt?: 'generated' | FakeSiteFile | false;
  /** The site's `llms-full.txt`: generated (every listed page concatenated), a real file, or none (default). */
  readonly llmsFullTxt?: 'generated' | FakeSiteFile | false;
  /**
   * Expand mdx_include directives (`{* path … *}` into a fenced code block, `{!path!}` verbatim), resolving
   * paths against this corpus-relative folder (the folder mkdocs runs in), as the real site build does.
   */
  readonly includeBaseDir?: string;
  /** List pages missing from the nav under a final `## Optional` section of the generated llms.txt. Default `true`. */
  readonly listUnlisted?: boolean;
  /** Serve a `sitemap.xml` listing the site's pages. Default `true`; `false` leaves a crawler only the links. */
  readonly sitemap?: boolean;
  /**
   * The site's robots.txt, with paths relative to the site (`Disallow: /private/`) and `{base}` standing for the
   * site's URL (`Sitemap: {base}sitemap.xml`). Served at the site's `robots.txt`, and merged (paths prefixed with
   * `/<name>`) into the `/robots.txt` at the root of the fake's origin, where crawlers look. Default: none (404).
   */
  readonly robotsTxt?: string;
  /**
   * Serve the `index.md` files found beside the `index.html` files of {@link htmlDir} at `x/index.md`: a built
   * site's own markdown renderings (mkdocs-llmstxt), as docs.pydantic.dev publishes them. Default `false`.
   */
  readonly htmlMarkdownTwins?: boolean;
}

/** Which requests a fault applies to. All given fields must match. */
export interface FaultTarget {
  /** Site name; with a string {@link path}, the path is relative to the site (`llms.txt`, `/concepts/`). */
  readonly site?: string;
  /** Exact path (no query), or a RegExp tested against the full request path including the query. */
  readonly path?: string | RegExp;
  /** HTTP method (upper case). */
  readonly method?: string;
}

/** What a fault does. Effects apply in this order: delay, then hang / reset / redirect / replacement response. */
export interface FaultSpec {
  /** Apply to the next `times` matching requests only, then remove itself. Default: until cleared. */
  readonly times?: number;
  /** Wait this long before answering (the normal answer unless another effect is set). */
  readonly delayMs?: number;
  /** Never answer; the connection stays open until the client gives up or the fake closes. */
  readonly hang?: boolean;
  /** Destroy the connection without an answer (a network error on the client side). */
  readonly reset?: boolean;
  /** Answer with a redirect to this location (any URL, e.g. `http://169.254.169.254/`). */
  readonly redirectTo?: string;
  /** Redirect status. Default 302. */
  readonly redirectStatus?: 301 | 302 | 303 | 307 | 308;
  /** Answer with this status (body: a short text unless {@link body} is set). */
  readonly status?: number;
  /** `Retry-After` header value: seconds, or an HTTP date. */
  readonly retryAfter?: number | string;
  /** Answer with this body (status 200 unless {@link status} is set). */
  readonly body?: string | Uint8Array;
  /** Answer with a generated markdown body of this many bytes, streamed (e.g. a 12 MB page). */
  readonly generatedBytes?: number;
  /** Omit `Content-Length` (chunked transfer), so size caps must count bytes. */
  readonly chunked?: boolean;
  /** Content type of {@link body} / {@link generatedBytes}. Defaults: text/plain, text/markdown. */
  readonly contentType?: string;
  /** Extra response headers. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** One request the fake received. */
export interface FakeWebRequest {
  /** HTTP method. */
  readonly method: string;
  /** Path and query as received (e.g. `/pydantic/llms.txt`). */
  readonly path: string;
  /** Site name when the path belongs to one. */
  readonly site: string | undefined;
  /** Request headers (lower-case names). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Status sent; 0 while unanswered, and for hung or reset requests. */
  status: number;
  /** Whether a fault handled (or delayed) this request. */
  faulted: boolean;
}

/** Options of {@link startFakeWeb}. */
export interface FakeWebOptions {
  /** Sites to serve. */
  readonly sites: readonly FakeSiteDefinition[];
  /**
   * `prefix` (default): one origin, each site under `/<name>/`. `origin`: each site also gets its own origin
   * (own port) where it lives at `/`, so root-absolute links inside pages (`/docs/api/request`) resolve;
   * {@link FakeWeb.siteUrl} then answers the site's own origin.
   */
  readonly layout?: 'prefix' | 'origin';
}

/** A running fake web. */
export interface FakeWeb {
  /** Origin of the fake, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  readonly url: string;
  /** Names of the sites served. */
  readonly sites: readonly string[];
  /** Every request received so far, oldest first (live view). */
  readonly requests: readonly FakeWebRequest[];
  /** Base URL of a site, with a trailing slash (e.g. `http://127.0.0.1:41234/pydantic/`). Throws for unknown sites. */
  siteUrl(site: string): string;
  /** The site's llms.txt URL. */
  llmsTxtUrl(site: string): string;
  /**
   * Corpus-relative source file of a served page URL (markdown, HTML, with or without trailing slash, fragment or
   * query), e.g. `docs/concepts/validators.md`; `undefined` when the URL is not a page of this fake.
   */
  fileForUrl(url: string | URL): string | undefined;
  /** Site name of a URL of this fake, if any. */
  siteForUrl(url: string | URL): string | undefined;
  /** URL where a corpus-relative source file is served (markdown if served, else HTML), if it is. */
  urlForFile(site: string, file: string): string | undefined;
  /** Requests whose path (without query) equals `path` (full path, e.g. `/pydantic/llms.txt`). */
  requestsTo(path: string): FakeWebRequest[];
  /** Forget the request log. */
  clearRequests(): void;
  /** Install a fault; returns a function that removes it. The newest matching fault wins. */
  setFault(target: FaultTarget, fault: FaultSpec): () => void;
  /** Remove every fault. */
  clearFaults(): void;
  /** Stop listening and destroy every open connection, hung ones included. Idempotent. */
  close(): Promise<void>;
}
