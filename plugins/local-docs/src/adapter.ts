import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  DocPage,
  DocsResult,
  DocVersions,
  FetchContext,
  Freshness,
  LibraryDescriptor,
  PageResult,
  SourceAdapter,
  TocEntry,
  TocResult,
} from '@pro-context/kernel';
import { errorText } from '@pro-context/plugin-kit';
import {
  type DocFile,
  type DocSetSpec,
  type Listing,
  listDocSet,
  overMaxFiles,
  type ReadLimits,
  readDocFile,
  sectionsOf,
  stampOf,
  titleOf,
} from './docset.js';
import { renderDts } from './dts.js';
import type { InstalledPackages } from './installed.js';
import { parseMetadata, rstHeadingsToMarkdown } from './metadata.js';
import { localDocsErrors, localDocsMessages } from './options.js';
import { confinedPath, realRootOf } from './paths.js';
import { isLocalUrl, localUrl, parseLocalUrl } from './urls.js';

/** What the adapter needs besides its options. */
export interface LocalDocsAdapterDeps {
  limits: ReadLimits;
  /** Folder that relative `localPath`s are read from (the config file's folder). */
  baseDir: string;
  installed: InstalledPackages;
}

/**
 * A {@link SourceAdapter} (id `local-docs`, priority 30: after llms.txt, GitHub and the site crawl) that reads
 * documentation from the local disk: a library's `localPath` (a folder of markdown, one markdown file, or a
 * local llms.txt; `sources.custom` entries of type `file` become such libraries), and the packages installed in
 * the project (`node_modules/<pkg>`: README, `docs/**`, the `.d.ts` API; a virtual environment's METADATA), at
 * their installed version. No network. Every path stays inside its root. Its freshness check is a stat of the
 * files (`local: true`), so the engine asks it on every load and an edited file is re-indexed at once.
 */
export class LocalDocsSourceAdapter implements SourceAdapter {
  readonly id = 'local-docs';
  readonly priority = 30;
  readonly local = true;
  /** Libraries with a `localPath`, by id, as seen by `canHandle` (read-page needs them after a restart too). */
  private readonly folders = new Map<string, string>();

  constructor(private readonly deps: LocalDocsAdapterDeps) {}

  /** Remembers a library's `localPath` (called for configured ones at start, so read-page knows them). */
  remember(libraryId: string, localPath: string): void {
    this.folders.set(libraryId, resolve(this.deps.baseDir, localPath));
  }

  canHandle(library: LibraryDescriptor): boolean {
    if (library.source !== undefined && library.source !== this.id) return false;
    if (library.localPath) {
      this.remember(library.id, library.localPath);
      return true;
    }
    return this.deps.installed.of(library) !== undefined;
  }

  /** An installed package documents exactly its installed version; a folder, the latest. */
  async docVersions(library: LibraryDescriptor): Promise<DocVersions> {
    const installed = library.localPath ? undefined : this.deps.installed.of(library);
    return installed ? { kind: 'list', versions: [installed.version] } : { kind: 'latest' };
  }

  ownsUrl(url: URL): boolean {
    return isLocalUrl(url);
  }

  async fetchToc(library: LibraryDescriptor, version: string): Promise<TocResult> {
    const spec = await this.specFor(library, version);
    const listing = await listDocSet(spec, this.deps.limits);
    const entries: TocEntry[] = [];
    for (const file of listing.files) entries.push(...(await this.tocEntries(spec, file, listing)));
    entries.push(...listing.external);
    const notes: string[] = [];
    const over = listing.skipped.filter((s) => s.reason === overMaxFiles(this.deps.limits.maxFiles)).length;
    if (over > 0)
      notes.push(
        `Only ${listing.files.length} of the ${listing.files.length + over} markdown files in ${spec.root} are served: sources.localDocs.maxFiles is ${this.deps.limits.maxFiles}. Raise it to serve them all.`,
      );
    return {
      title: listing.title ?? library.name,
      ...(listing.summary ? { summary: listing.summary } : library.description ? { summary: library.description } : {}),
      entries,
      sourceUrl: pathToFileURL(spec.root).href,
      fetchedAt: new Date().toISOString(),
      freshness: { contentHash: await stampOf(spec, listing) },
      ...(notes.length > 0 ? { notes } : {}),
    };
  }

  async fetchDocs(library: LibraryDescriptor, version: string, context?: FetchContext): Promise<DocsResult> {
    const spec = await this.specFor(library, version);
    const listing = await listDocSet(spec, this.deps.limits);
    const pages: DocPage[] = [];
    const skipped = [...listing.skipped];
    let done = 0;
    for (const file of listing.files) {
      context?.signal?.throwIfAborted();
      try {
        pages.push(await readDocFile(spec, file, this.deps.limits, this.render));
      } catch (error) {
        // a file removed meanwhile, too large or refused (a link out of the folder) is left out, not fatal
        skipped.push({
          url: localUrl(spec.kind, spec.key, file.rel),
          reason: errorText(error),
        });
      }
      context?.progress?.(++done, listing.files.length, `Read ${file.rel}`);
    }
    if (pages.length === 0) {
      throw localDocsMessages.create(
        'NO_FILES',
        { name: library.name, root: spec.root },
        { details: { root: spec.root, skipped } },
      );
    }
    const toc = await this.fetchToc(library, version);
    return {
      pages,
      sourceUrl: toc.sourceUrl,
      fetchedAt: new Date().toISOString(),
      freshness: toc.freshness,
      toc,
      ...(skipped.length > 0 ? { skipped } : {}),
    };
  }

  async fetchPage(url: URL): Promise<PageResult> {
    const { kind, key, rel } = parseLocalUrl(url);
    const spec = await this.specForUrl(kind, key);
    const listing = await listDocSet(spec, this.deps.limits);
    // a path leading out of the root is refused as such (LOCAL_PATH_REFUSED), before anything else is said
    await confinedPath(spec.root, rel);
    // only the documents of the root: never an arbitrary file in it
    const file = listing.files.find((f) => f.rel === rel);
    if (!file) {
      throw localDocsMessages.create('NOT_A_FILE_OF', { url: url.href, key });
    }
    const page = await readDocFile(spec, file, this.deps.limits, this.render);
    return {
      url: url.href,
      finalUrl: url.href,
      title: page.title,
      markdown: page.markdown,
      contentType: 'markdown',
      fetchedAt: new Date().toISOString(),
      freshness: {},
    };
  }

  async checkFreshness(
    library: LibraryDescriptor,
    version: string,
    cached: Freshness,
  ): Promise<'fresh' | 'changed' | 'unknown'> {
    if (!cached.contentHash) return 'unknown';
    try {
      const spec = await this.specFor(library, version);
      const stamp = await stampOf(spec, await listDocSet(spec, this.deps.limits));
      return stamp === cached.contentHash ? 'fresh' : 'changed';
    } catch {
      // the folder or package is gone: what was indexed is not what is there
      return 'changed';
    }
  }

  /** Renders the files that are not markdown: the `.d.ts` API reference and a distribution's METADATA. */
  private readonly render = async (spec: DocSetSpec, file: DocFile, absolute: string) => {
    if (file.role === 'api' && spec.layout === 'npm') {
      const title = `${spec.key} ${spec.version} API reference`;
      return { title, markdown: await renderDts(spec.root, file.rel, title, this.deps.limits.maxFileBytes) };
    }
    const metadata = parseMetadata(await readFile(absolute, 'utf8'));
    const name = metadata.name ?? spec.key;
    const version = metadata.version ?? (spec.layout === 'pypi' ? spec.version : '');
    let body = metadata.description;
    if (/rst/i.test(metadata.contentType ?? '') || (!metadata.contentType && /^[=\-~]{3,}\s*$/m.test(body))) {
      body = rstHeadingsToMarkdown(body);
    }
    const title = titleOf(body, `${name} ${version}`.trim());
    const intro = metadata.summary ? `> ${metadata.summary}\n\n` : '';
    const markdown = /^#\s/m.test(body) ? `${intro}${body}` : `# ${name} ${version}\n\n${intro}${body}`;
    return { title, markdown: markdown.trim() ? markdown : `# ${name} ${version}\n\n${metadata.summary ?? ''}` };
  };

  /** A file's TOC entries: the file, and for a one-page doc set, its sections. */
  private async tocEntries(spec: DocSetSpec, file: DocFile, listing: Listing): Promise<TocEntry[]> {
    const url = localUrl(spec.kind, spec.key, file.rel);
    const section = file.section ? { section: file.section } : {};
    const description = file.description ? { description: file.description } : {};
    if (file.role === 'api') return [{ title: `${spec.key} API reference`, url, ...section }];
    let page: DocPage;
    try {
      page = await readDocFile(spec, file, this.deps.limits, this.render);
    } catch {
      return [];
    }
    const entries: TocEntry[] = [{ title: page.title, url, ...section, ...description }];
    if (listing.files.length === 1) {
      for (const s of sectionsOf(page.markdown))
        entries.push({ title: s.title, url: `${url}#${s.anchor}`, section: page.title });
    }
    return entries;
  }

  /** Where a library's documents are, and how they are laid out. */
  private async specFor(library: LibraryDescriptor, version: string): Promise<DocSetSpec> {
    if (library.localPath) {
      this.remember(library.id, library.localPath);
      return this.folderSpec(library.id);
    }
    const installed = this.deps.installed.of(library);
    if (!installed) {
      throw localDocsMessages.create('NO_LOCAL_DOCS', { name: library.name, id: library.id });
    }
    if (version !== installed.version) {
      throw localDocsMessages.create(
        'OTHER_VERSION_INSTALLED',
        { name: installed.name, installed: installed.version, version },
        { details: { installed: installed.version, requested: version } },
      );
    }
    return this.installedSpec(installed.ecosystem, installed.name);
  }

  private async specForUrl(kind: 'lib' | 'npm' | 'pypi', key: string): Promise<DocSetSpec> {
    if (kind === 'lib') return this.folderSpec(key);
    return this.installedSpec(kind, key);
  }

  private installedSpec(ecosystem: 'npm' | 'pypi', name: string): DocSetSpec {
    const installed = this.deps.installed.get(ecosystem, name);
    if (!installed) throw localDocsMessages.create('NOT_INSTALLED', { name });
    return installed.ecosystem === 'npm'
      ? {
          layout: 'npm',
          kind: 'npm',
          key: installed.name,
          root: installed.root,
          version: installed.version,
          ...(installed.types ? { types: installed.types } : {}),
        }
      : { layout: 'pypi', kind: 'pypi', key: installed.name, root: installed.root, version: installed.version };
  }

  private async folderSpec(libraryId: string): Promise<DocSetSpec> {
    const path = this.folders.get(libraryId);
    if (!path) throw localDocsMessages.create('NOT_CONFIGURED', { libraryId });
    let isDir: boolean;
    try {
      isDir = (await stat(path)).isDirectory();
    } catch (error) {
      throw localDocsErrors.create(
        'LOCAL_PATH_MISSING',
        { path, reason: (error as NodeJS.ErrnoException).code ?? String(error) },
        { cause: error },
      );
    }
    if (isDir) return { layout: 'folder', kind: 'lib', key: libraryId, root: await realRootOf(path) };
    const root = await realRootOf(dirname(path));
    const file = basename(path);
    return /^llms\.txt$/i.test(file)
      ? { layout: 'llms-txt', kind: 'lib', key: libraryId, root, file }
      : { layout: 'file', kind: 'lib', key: libraryId, root, file };
  }
}
