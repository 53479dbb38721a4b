import { posix } from 'node:path';
import {
  type DocPage,
  type DocsResult,
  type DocVersions,
  type FetchContext,
  type Freshness,
  type HttpClient,
  inject,
  injectable,
  isProContextError,
  kernelTokens,
  type LibraryDescriptor,
  type Logger,
  type PageResult,
  type SourceAdapter,
  type TocEntry,
  type TocResult,
} from '@pro-context/kernel';
import {
  cleanHeading,
  createSlugger,
  headingPlainText,
  normalizeMarkdown,
  splitFrontMatter,
  walkLines,
} from '@pro-context/markdown';
import { errorText, TtlMemo } from '@pro-context/plugin-kit';
import pLimit from 'p-limit';
import { GithubApi } from './client.js';
import { githubMessages } from './messages.js';
import { type GithubPluginOptions, githubOptionsToken } from './options.js';
import { parseRepository, type RepoRef, tagFor, tagFormatsOf, tagNamesOf, versionsOfTags } from './repo.js';
import { rstToMarkdown } from './rst.js';
import { codeIncludeTargets, markdownIncludeTargets, trimPathSlashes } from './scan.js';
import { githubLibrarySettings, githubSettingsOf } from './settings.js';
import { filesFromTarball } from './tarball.js';

/** Repository metadata (`GET /repos/{owner}/{repo}`). */
interface RepoInfo {
  full_name: string;
  description?: string | null;
  homepage?: string | null;
  default_branch: string;
  archived?: boolean;
}

interface TreeAnswer {
  sha: string;
  truncated?: boolean;
  tree: { path: string; type: 'blob' | 'tree' | 'commit'; sha: string; size?: number }[];
}

interface FileAnswer {
  path: string;
  content?: string;
  encoding?: string;
}

/** A version's documentation as read from the repository. */
interface Snapshot {
  repo: RepoRef;
  ref: string;
  /** The docs folder read, or `''` for the README. */
  docsPath: string;
  pages: DocPage[];
  toc: TocResult;
  /** Pages by raw URL (without fragment), for read-page without a request. */
  byUrl: Map<string, DocPage>;
}

/** Folders tried, in order, when a library names none. */
const DOCS_FOLDERS = ['docs', 'doc', 'documentation', 'Documentation'];
const DOC_FILE = /\.(md|mdx|markdown|rst)$/i;
/** Build output, dependencies and theme folders inside a docs folder: no pages there. */
const SKIPPED = /(?:^|\/)(?:node_modules|_build|_static|_templates|site-packages|\.[^/]+)\//;

/** A file's text as markdown (MDX kept for the engine's cleanup, reStructuredText converted). */
function toMarkdown(path: string, text: string): string {
  return /\.rst$/i.test(path) ? rstToMarkdown(text) : text;
}

/** The file name made readable: `field-validators.md` → `Field validators`. */
function humanize(path: string): string {
  const base = (path.split('/').at(-1) ?? path).replace(DOC_FILE, '');
  const words = base.replace(/[-_]+/g, ' ').trim();
  return words ? `${words[0]?.toUpperCase()}${words.slice(1)}` : path;
}

/** Include directives of MkDocs pages (`{* path … *}`, `{! path !}`, `--8<-- "path"`), as the engine's cleanup reads them. */
const SNIPPET_INCLUDE = /^[ \t]*;?-{2,}8<-{2,}[ \t]+["']?([^"'\s]+)["']?[ \t]*$/gm;
/** Most files pulled in by include directives for one version, and the largest one read. */
const MAX_INCLUDES = 2000;
const MAX_INCLUDE_BYTES = 256 * 1024;

/** The include targets a page names, as written. */
function includeTargets(text: string): string[] {
  return [
    ...codeIncludeTargets(text),
    ...markdownIncludeTargets(text),
    ...[...text.matchAll(SNIPPET_INCLUDE)].map((m) => m[1] as string),
  ];
}

/**
 * The repository file an include of `page` names: relative to the page's folder or to one of its ancestors (MkDocs
 * resolves them from its config folder, which the repository does not say), the nearest that exists.
 */
function resolveInclude(page: string, target: string, blobs: ReadonlySet<string>): string | undefined {
  const dirs = page.split('/').slice(0, -1);
  for (let i = dirs.length; i >= 0; i -= 1) {
    const path = posix.normalize(posix.join(dirs.slice(0, i).join('/') || '.', target.replace(/^\//, '')));
    if (!path.startsWith('..') && blobs.has(path)) return path;
  }
  return undefined;
}

/** Title and description of a page: front matter, else the first heading, else the file name. */
function titleOf(path: string, markdown: string): { title: string; description?: string } {
  const { title, description } = splitFrontMatter(markdown);
  let heading: string | undefined;
  walkLines(normalizeMarkdown(markdown).split('\n'), (_line, _i, h) => {
    if (h && !heading) heading = headingPlainText(cleanHeading(h.raw).text).trim() || undefined;
    return heading ? false : undefined;
  });
  return { title: title ?? heading ?? humanize(path), ...(description ? { description } : {}) };
}

/** Index pages (`index.md`, `README.md`) first in their folder, then by path. */
function pageOrder(a: string, b: string): number {
  const key = (p: string) => {
    const parts = p.split('/');
    const file = parts.pop() ?? '';
    return `${parts.join('/')}/${/^(index|readme)\./i.test(file) ? '\0' : ''}${file}`;
  };
  const [ka, kb] = [key(a), key(b)];
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * The GitHub source adapter (seed 001 §8.3): a library's documentation read from its repository — the docs
 * folder (markdown, MDX, reStructuredText converted to markdown) as TOC and pages, else the README with its
 * headings as TOC — at the git tag of the requested version (`v1.2.3`, `1.2.3`, `name@1.2.3`,
 * `name-v1.2.3`), the default branch for `latest`. A large docs folder costs one tarball download, a small one
 * a few raw files; the API's rate limit is read from every answer, reported in `pro-context://health`, and
 * refused locally with `RATE_LIMITED` while it is exhausted.
 */
@injectable()
export class GithubSourceAdapter implements SourceAdapter {
  readonly id = 'github';
  readonly priority = 20;
  /** Per-library settings in `sources.github` (`repo`, `docsPath`, `ref`, `tagFormat`). */
  readonly librarySettings = githubLibrarySettings;

  private readonly logger: Logger;
  private readonly api: GithubApi;
  private readonly webHost: string;
  /** Repositories of the libraries this adapter was asked about (`owner/name`, lower case): read-page URLs it owns. */
  private readonly handled = new Set<string>();
  /** Answers of the API read lately (within `reuseSeconds`). */
  private readonly memo: TtlMemo<Promise<unknown>>;
  /** Versions read lately (within `reuseSeconds`), so read-page answers their pages without a request. */
  private readonly snapshots: TtlMemo<Snapshot>;

  constructor(
    @inject(githubOptionsToken) private readonly options: GithubPluginOptions,
    @inject(kernelTokens.http) http: HttpClient,
    @inject(kernelTokens.logger) logger: Logger,
  ) {
    this.logger = logger.child({ plugin: 'github' });
    this.memo = new TtlMemo({ max: 200, ttlMs: options.reuseSeconds * 1000 });
    this.snapshots = new TtlMemo({ max: 20, ttlMs: options.reuseSeconds * 1000 });
    this.api = new GithubApi(options, http);
    this.webHost = new URL(options.webUrl).host;
  }

  canHandle(library: LibraryDescriptor): boolean {
    if (!this.options.enabled) return false;
    if (library.source !== undefined && library.source !== this.id) return false;
    const repo = this.repoOf(library);
    if (repo) this.handled.add(`${repo.owner}/${repo.name}`.toLowerCase());
    return repo !== undefined;
  }

  /** The versions the repository's tags name (`v1.2.3` → `1.2.3`); the latest only when it has none or cannot be asked. */
  async docVersions(library: LibraryDescriptor, context: FetchContext = {}): Promise<DocVersions> {
    const repo = this.repoOf(library);
    if (!repo) return { kind: 'latest' };
    try {
      const info = await this.repoInfo(repo, context);
      const tags = await this.tags(this.canonical(info), context);
      const versions = versionsOfTags(
        tags,
        tagFormatsOf(githubSettingsOf(library).tagFormat),
        this.namesOf(library, repo),
      );
      return versions.length > 0 ? { kind: 'list', versions } : { kind: 'latest' };
    } catch (error) {
      if (context.signal?.aborted) throw error;
      this.logger.warn('could not list the tags; documenting the latest version only', {
        library: library.id,
        error: errorText(error),
      });
      return { kind: 'latest' };
    }
  }

  /** The API's rate limit as last reported, for `pro-context://health`. */
  health(): Record<string, unknown> {
    const rate = this.api.rate;
    return {
      apiUrl: this.options.apiUrl,
      authenticated: Boolean(this.options.token),
      requests: this.api.requests,
      rateLimit: rate
        ? {
            limit: rate.limit,
            remaining: rate.remaining,
            ...(rate.used !== undefined ? { used: rate.used } : {}),
            resetsAt: new Date(rate.reset * 1000).toISOString(),
          }
        : null,
    };
  }

  fetchToc(library: LibraryDescriptor, version: string, context: FetchContext = {}): Promise<TocResult> {
    return this.logger.span('github.fetchToc', { library: library.id, version }, async (span) => {
      const snapshot = await this.load(library, version, context);
      span.set({
        repo: `${snapshot.repo.owner}/${snapshot.repo.name}`,
        ref: snapshot.ref,
        entries: snapshot.toc.entries.length,
      });
      return snapshot.toc;
    });
  }

  fetchDocs(library: LibraryDescriptor, version: string, context: FetchContext = {}): Promise<DocsResult> {
    return this.logger.span('github.fetchDocs', { library: library.id, version }, async (span) => {
      const snapshot = await this.load(library, version, context);
      span.set({
        repo: `${snapshot.repo.owner}/${snapshot.repo.name}`,
        ref: snapshot.ref,
        pages: snapshot.pages.length,
      });
      return {
        pages: [...snapshot.pages],
        sourceUrl: snapshot.toc.sourceUrl,
        fetchedAt: snapshot.toc.fetchedAt,
        freshness: snapshot.toc.freshness,
        toc: snapshot.toc,
        skipped: [],
      };
    });
  }

  ownsUrl(url: URL): boolean {
    const parsed = this.parsePageUrl(url);
    return parsed !== undefined && this.handled.has(`${parsed.owner}/${parsed.name}`.toLowerCase());
  }

  fetchPage(url: URL, context: FetchContext = {}): Promise<PageResult> {
    return this.logger.span('github.fetchPage', { url: url.href }, async (span) => {
      const parsed = this.parsePageUrl(url);
      if (!parsed) {
        throw githubMessages.create('NOT_A_REPOSITORY_FILE', { url: url.href }, { details: { url: url.href } });
      }
      const rawUrl = `${this.options.rawUrl}/${parsed.owner}/${parsed.name}/${parsed.ref}/${parsed.path}`;
      const known = this.knownPage(rawUrl);
      if (known) {
        span.set('from', 'memory');
        return this.pageResult(url, rawUrl, known.title, known.markdown, {});
      }
      const raw = await this.api.raw(rawUrl, context);
      if (!raw) {
        throw githubMessages.create(
          'NO_FILE',
          { repo: `${parsed.owner}/${parsed.name}`, path: parsed.path, ref: parsed.ref },
          { details: { url: url.href } },
        );
      }
      const markdown = toMarkdown(parsed.path, raw.text);
      span.set('from', 'raw');
      return this.pageResult(
        url,
        rawUrl,
        titleOf(parsed.path, markdown).title,
        markdown,
        raw.etag ? { etag: raw.etag } : {},
      );
    });
  }

  checkFreshness(
    library: LibraryDescriptor,
    version: string,
    cached: Freshness,
    context: FetchContext = {},
  ): Promise<'fresh' | 'changed' | 'unknown'> {
    return this.logger.span('github.checkFreshness', { library: library.id, version }, async (span) => {
      const repo = this.repoOf(library);
      if (!repo) return 'unknown';
      try {
        const info = await this.repoInfo(repo, context);
        const canonical = this.canonical(info);
        const ref = await this.refFor(library, canonical, info, version, context);
        const path = this.treePath(canonical, ref);
        let tree: TreeAnswer;
        if (cached.etag) {
          const answer = await this.api.revalidate<TreeAnswer>(path, cached.etag, `the tree of ${ref}`, context);
          if (answer === 'not-modified') {
            span.set('status', 304);
            return 'fresh';
          }
          tree = answer.value;
        } else {
          tree = (await this.api.json<TreeAnswer>(path, `the tree of ${ref}`, context)).value;
        }
        if (!cached.contentHash) return 'unknown';
        const { hash } = this.docsIn(tree, githubSettingsOf(library).docsPath);
        const verdict = hash === cached.contentHash ? 'fresh' : 'changed';
        span.set('verdict', verdict);
        if (verdict === 'changed') this.forgetVersion(canonical, ref);
        return verdict;
      } catch (error) {
        if (context.signal?.aborted) throw error;
        span.set('error', errorText(error));
        return 'unknown';
      }
    });
  }

  // ——— internals ———

  private repoOf(library: LibraryDescriptor): RepoRef | undefined {
    return parseRepository(githubSettingsOf(library).repo, this.webHost);
  }

  private canonical(info: RepoInfo): RepoRef {
    const [owner = '', name = ''] = info.full_name.split('/');
    this.handled.add(info.full_name.toLowerCase());
    return { owner, name };
  }

  /** Names the library's tags may carry: its package names, id and name, and the repository's name. */
  private namesOf(library: LibraryDescriptor, repo: RepoRef): string[] {
    return tagNamesOf([
      ...Object.values(library.packages ?? {}),
      library.packageName,
      library.id.split('/').at(-1),
      library.name,
      repo.name,
    ]);
  }

  /** `fn`'s answer, reused for `reuseSeconds` (a failure is not kept). */
  private remember<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.memo.remember(key, fn);
  }

  /** Drops what was read of a version, so the next fetch reads it again. */
  private forgetVersion(repo: RepoRef, ref: string): void {
    const prefix = `${repo.owner}/${repo.name}@${ref}|`;
    this.memo.deleteWhere((key) => key.startsWith(`snapshot:${prefix}`));
    this.snapshots.deleteWhere((key) => key.startsWith(prefix));
  }

  private repoInfo(repo: RepoRef, context: FetchContext): Promise<RepoInfo> {
    return this.remember(`repo:${repo.owner}/${repo.name}`.toLowerCase(), async () => {
      const { value } = await this.api.json<RepoInfo>(
        `/repos/${repo.owner}/${repo.name}`,
        `repository ${repo.owner}/${repo.name}`,
        context,
      );
      return value;
    });
  }

  /** Tag names, newest first (every page, within reason). */
  private tags(repo: RepoRef, context: FetchContext): Promise<string[]> {
    return this.remember(`tags:${repo.owner}/${repo.name}`, async () => {
      const names: string[] = [];
      for (let page = 1; page <= 10; page += 1) {
        const { value, headers } = await this.api.json<{ name: string }[]>(
          `/repos/${repo.owner}/${repo.name}/tags?per_page=100&page=${page}`,
          `the tags of ${repo.owner}/${repo.name}`,
          context,
        );
        names.push(...value.map((t) => t.name));
        if (!/rel="next"/.test(headers.link ?? '')) break;
      }
      return names;
    });
  }

  /**
   * The git ref of a version: the configured `ref` or the default branch for `latest`; else the version's tag,
   * or, with no tag naming it, the configured `ref` or default branch (the engine asks for an untagged
   * version only when it is the latest release).
   */
  private async refFor(
    library: LibraryDescriptor,
    repo: RepoRef,
    info: RepoInfo,
    version: string,
    context: FetchContext,
  ): Promise<string> {
    const settings = githubSettingsOf(library);
    const head = settings.ref ?? info.default_branch;
    if (!version || version === 'latest') return head;
    const tags = await this.tags(repo, context);
    const tag = tagFor(version, tags, tagFormatsOf(settings.tagFormat), this.namesOf(library, repo));
    if (!tag) this.logger.debug('no tag names this version; reading the head', { library: library.id, version, head });
    return tag ?? head;
  }

  private treePath(repo: RepoRef, ref: string): string {
    return `/repos/${repo.owner}/${repo.name}/git/trees/${encodeURIComponent(ref)}?recursive=1`;
  }

  /** The documentation files of a tree: in the configured folder, else the first of {@link DOCS_FOLDERS} with any. */
  private docsIn(
    tree: TreeAnswer,
    configured: string | undefined,
  ): { docsPath: string; files: { path: string; size: number }[]; hash: string | undefined } {
    const folders = configured === undefined ? DOCS_FOLDERS : [trimPathSlashes(configured).replace(/^\.$/, '')];
    for (const folder of folders) {
      if (folder === '') break;
      const prefix = `${folder}/`;
      const files = tree.tree
        .filter((e) => e.type === 'blob' && e.path.startsWith(prefix) && DOC_FILE.test(e.path) && !SKIPPED.test(e.path))
        .map((e) => ({ path: e.path, size: e.size ?? 0 }));
      if (files.length > 0) {
        const folderSha = tree.tree.find((e) => e.type === 'tree' && e.path === folder)?.sha;
        return { docsPath: folder, files, hash: folderSha ?? tree.sha };
      }
    }
    const readme = tree.tree.find((e) => e.type === 'blob' && /^readme(\.(md|markdown|mdx|rst|txt))?$/i.test(e.path));
    return { docsPath: '', files: [], hash: readme?.sha };
  }

  private load(library: LibraryDescriptor, version: string, context: FetchContext): Promise<Snapshot> {
    const repo = this.repoOf(library);
    if (!repo) {
      throw githubMessages.create('NO_REPOSITORY', { id: library.id }, { details: { library: library.id } });
    }
    return (async () => {
      const info = await this.repoInfo(repo, context);
      const canonical = this.canonical(info);
      const ref = await this.refFor(library, canonical, info, version, context);
      const docsPath = githubSettingsOf(library).docsPath;
      return this.remember(`snapshot:${canonical.owner}/${canonical.name}@${ref}|${docsPath ?? ''}`, () =>
        this.read(library, canonical, info, ref, docsPath, context),
      );
    })();
  }

  /** Reads a version's docs: the tree, then the docs folder's files (raw or one tarball), or the README. */
  private async read(
    library: LibraryDescriptor,
    repo: RepoRef,
    info: RepoInfo,
    ref: string,
    configuredDocsPath: string | undefined,
    context: FetchContext,
  ): Promise<Snapshot> {
    const full = `${repo.owner}/${repo.name}`;
    const tree = await this.api.json<TreeAnswer>(this.treePath(repo, ref), `the tree of ${full} at ${ref}`, context);
    const { docsPath, files, hash } = this.docsIn(tree.value, configuredDocsPath);
    const fetchedAt = new Date().toISOString();
    const freshness: Freshness = { ...(tree.etag ? { etag: tree.etag } : {}), ...(hash ? { contentHash: hash } : {}) };
    const rawOf = (path: string) =>
      `${this.options.rawUrl}/${full}/${ref}/${path.split('/').map(encodeURIComponent).join('/')}`;
    const sourceUrl = `${this.options.webUrl}/${full}/tree/${ref}${docsPath ? `/${docsPath}` : ''}`;
    const head = {
      title: library.name,
      ...(info.description ? { summary: info.description } : {}),
      sourceUrl,
      fetchedAt,
      freshness,
    };

    if (files.length === 0) {
      const readme = await this.api.json<FileAnswer>(
        `/repos/${full}/readme?ref=${encodeURIComponent(ref)}`,
        `a docs folder or README in ${full} at ${ref}`,
        context,
      );
      const text = Buffer.from(
        readme.value.content ?? '',
        (readme.value.encoding as BufferEncoding) || 'base64',
      ).toString('utf8');
      const markdown = toMarkdown(readme.value.path, text);
      const url = rawOf(readme.value.path);
      const page: DocPage = { url, title: titleOf(readme.value.path, markdown).title, markdown };
      const slugger = createSlugger('github');
      const entries: TocEntry[] = [];
      walkLines(normalizeMarkdown(markdown).split('\n'), (_line, _i, h) => {
        if (!h || h.level.length > 3) return;
        const { text, explicitAnchor } = cleanHeading(h.raw);
        const title = headingPlainText(text).trim();
        const anchor = slugger.slug(title, explicitAnchor);
        if (h.level.length === 1) return;
        entries.push({ title, url: `${url}#${anchor}`, ...(h.level.length === 3 ? { section: 'Details' } : {}) });
      });
      if (entries.length === 0) entries.push({ title: page.title, url });
      return this.snapshot(repo, ref, '', [page], { ...head, entries });
    }

    const chosen = files.sort((a, b) => pageOrder(a.path, b.path)).slice(0, this.options.maxFiles);
    const { texts, tarball } = await this.readFiles(repo, ref, chosen, tree.value, rawOf, context);
    const included = await this.readIncludes(repo, ref, texts, tree.value, tarball, rawOf, context);
    const includedPaths = new Set(included.keys());
    const pages: DocPage[] = [];
    const entries: TocEntry[] = [];
    for (const file of chosen) {
      const text = texts.get(file.path);
      if (text === undefined || text.trim() === '') continue;
      const converted = toMarkdown(file.path, text);
      // code examples pulled in from other files of the repository are put in place (fastapi's docs_src)
      const markdown =
        included.size > 0 && includeTargets(converted).length > 0
          ? normalizeMarkdown(converted, {
              resolveInclude: (target) => included.get(resolveInclude(file.path, target, includedPaths) ?? ''),
            })
          : converted;
      const { title, description } = titleOf(file.path, markdown);
      const folder = file.path
        .slice(docsPath.length + 1)
        .split('/')
        .slice(0, -1)
        .join('/');
      const section = folder
        ? folder
            .split('/')
            .map((part) => humanize(part))
            .join(' / ')
        : undefined;
      const url = rawOf(file.path);
      pages.push({ url, title, markdown, ...(section ? { section } : {}) });
      entries.push({ title, url, ...(description ? { description } : {}), ...(section ? { section } : {}) });
    }
    if (pages.length === 0) {
      throw githubMessages.create(
        'NO_READABLE_PAGE',
        { docsPath, repo: full, ref },
        { details: { repo: full, ref, docsPath } },
      );
    }
    return this.snapshot(repo, ref, docsPath, pages, { ...head, entries });
  }

  /**
   * The files' texts: one tarball download for a folder of more than `rawFileLimit` files (when the
   * repository fits `maxTarballBytes`), else — or when the tarball fails — raw files, `concurrency` at a time.
   */
  private async readFiles(
    repo: RepoRef,
    ref: string,
    files: readonly { path: string; size: number }[],
    tree: TreeAnswer,
    rawOf: (path: string) => string,
    context: FetchContext,
  ): Promise<{ texts: Map<string, string>; tarball?: Uint8Array }> {
    const full = `${repo.owner}/${repo.name}`;
    let kept: Uint8Array | undefined;
    const repoBytes = tree.tree.reduce((sum, e) => sum + (e.size ?? 0), 0);
    let texts = new Map<string, string>();
    if (files.length > this.options.rawFileLimit && repoBytes <= this.options.maxTarballBytes) {
      try {
        const tarball = await this.api.binary(
          `/repos/${full}/tarball/${encodeURIComponent(ref)}`,
          `the tarball of ${full} at ${ref}`,
          this.options.maxTarballBytes,
          context,
        );
        texts = await filesFromTarball(tarball, new Set(files.map((f) => f.path)));
        kept = tarball;
        this.logger.debug('read the docs from the tarball', {
          repo: full,
          ref,
          files: texts.size,
          bytes: tarball.length,
        });
      } catch (error) {
        if (context.signal?.aborted || (isProContextError(error) && error.code === 'RATE_LIMITED')) throw error;
        this.logger.warn('tarball failed; reading the files one by one', { repo: full, ref, error: errorText(error) });
      }
    }
    const missing = files.filter((f) => !texts.has(f.path));
    if (missing.length === 0) return { texts, ...(kept ? { tarball: kept } : {}) };
    const limit = pLimit(this.options.concurrency);
    let done = 0;
    await Promise.all(
      missing.map((file) =>
        limit(async () => {
          context.signal?.throwIfAborted();
          const raw = await this.api.raw(rawOf(file.path), context);
          if (raw) texts.set(file.path, raw.text);
          done += 1;
          context.progress?.(done, missing.length, `Read ${file.path}`);
        }),
      ),
    );
    return { texts, ...(kept ? { tarball: kept } : {}) };
  }

  /**
   * The files the pages pull in with include directives (that exist in the tree, within {@link MAX_INCLUDES}
   * and {@link MAX_INCLUDE_BYTES}): from the tarball already downloaded, else raw.
   */
  private async readIncludes(
    repo: RepoRef,
    ref: string,
    texts: ReadonlyMap<string, string>,
    tree: TreeAnswer,
    tarball: Uint8Array | undefined,
    rawOf: (path: string) => string,
    context: FetchContext,
  ): Promise<Map<string, string>> {
    const sizes = new Map(tree.tree.filter((e) => e.type === 'blob').map((e) => [e.path, e.size ?? 0]));
    const blobs = new Set(sizes.keys());
    const wanted = new Set<string>();
    for (const [page, text] of texts) {
      for (const target of includeTargets(text)) {
        const path = resolveInclude(page, target, blobs);
        if (path && (sizes.get(path) ?? 0) <= MAX_INCLUDE_BYTES && wanted.size < MAX_INCLUDES) wanted.add(path);
      }
    }
    let out = new Map<string, string>();
    if (wanted.size > 0 && tarball) out = await filesFromTarball(tarball, wanted);
    else if (wanted.size > 0) {
      const limit = pLimit(this.options.concurrency);
      await Promise.all(
        [...wanted].slice(0, this.options.maxFiles).map((path) =>
          limit(async () => {
            const raw = await this.api.raw(rawOf(path), context).catch(() => undefined);
            if (raw) out.set(path, raw.text);
          }),
        ),
      );
    }
    if (wanted.size > 0)
      this.logger.debug('read included files', { repo: `${repo.owner}/${repo.name}`, ref, files: out.size });
    return out;
  }

  private snapshot(repo: RepoRef, ref: string, docsPath: string, pages: DocPage[], toc: TocResult): Snapshot {
    const snapshot = { repo, ref, docsPath, pages, toc, byUrl: new Map(pages.map((p) => [p.url, p])) };
    const key = `${repo.owner}/${repo.name}@${ref}|${docsPath}`;
    this.snapshots.set(key, snapshot);
    return snapshot;
  }

  /** A page of a version read lately, by raw URL. */
  private knownPage(rawUrl: string): DocPage | undefined {
    for (const snapshot of this.snapshots.values()) if (snapshot.byUrl.has(rawUrl)) return snapshot.byUrl.get(rawUrl);
    return undefined;
  }

  private pageResult(url: URL, finalUrl: string, title: string, markdown: string, freshness: Freshness): PageResult {
    return {
      url: url.href,
      finalUrl,
      title,
      markdown,
      contentType: 'markdown',
      fetchedAt: new Date().toISOString(),
      freshness,
    };
  }

  /** `{rawUrl}/o/r/ref/path` or `{webUrl}/o/r/blob/ref/path` (the ref as one segment). */
  private parsePageUrl(url: URL): { owner: string; name: string; ref: string; path: string } | undefined {
    const href = url.href.split('#')[0]?.split('?')[0] ?? '';
    const pick = (root: string, blob: boolean) => {
      if (!href.startsWith(`${root}/`)) return undefined;
      const parts = href
        .slice(root.length + 1)
        .split('/')
        .map(decodeURIComponent);
      const [owner, name] = parts;
      const rest = parts.slice(2);
      if (blob && rest.shift() !== 'blob') return undefined;
      const [ref, ...path] = rest;
      if (!owner || !name || !ref || path.length === 0) return undefined;
      return { owner, name, ref, path: path.join('/') };
    };
    return pick(this.options.rawUrl, false) ?? pick(this.options.webUrl, true);
  }
}
