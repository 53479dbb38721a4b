import type {
  DocPage,
  DocsResult,
  DocVersions,
  Freshness,
  LibraryDescriptor,
  PageResult,
  SourceAdapter,
  TocResult,
} from '@pro-context/kernel';
import { ProContextError } from '@pro-context/kernel';

/** Documentation a {@link StaticSourceAdapter} serves for one library. */
export interface StaticLibraryDocs {
  pages: DocPage[];
  /** Changes when the docs change (drives `checkFreshness`). Default `'v1'`. */
  revision?: string;
  /** Which versions these docs serve (`docVersions`). Default: the latest stable only. */
  versions?: DocVersions;
}

/**
 * A `SourceAdapter` serving documentation held in memory, for tests. It counts calls, can be told to fail,
 * and owns the URLs of its pages.
 */
export class StaticSourceAdapter implements SourceAdapter {
  readonly calls = { fetchToc: 0, fetchDocs: 0, fetchPage: 0, checkFreshness: 0 };
  /** When set, every fetch throws this error (simulates an origin that is down). */
  failWith: Error | undefined;

  constructor(
    readonly id: string,
    private readonly libraries: Record<string, StaticLibraryDocs>,
    readonly priority = 50,
  ) {}

  canHandle(library: LibraryDescriptor): boolean {
    return library.id in this.libraries && (library.source === undefined || library.source === this.id);
  }

  async docVersions(library: LibraryDescriptor): Promise<DocVersions> {
    return this.libraries[library.id]?.versions ?? { kind: 'latest' };
  }

  private docsFor(library: LibraryDescriptor): StaticLibraryDocs {
    if (this.failWith) throw this.failWith;
    const docs = this.libraries[library.id];
    if (!docs) throw new ProContextError('SOURCE_UNAVAILABLE', `${this.id} has no documentation for ${library.id}.`);
    return docs;
  }

  private freshness(docs: StaticLibraryDocs): Freshness {
    return { contentHash: docs.revision ?? 'v1' };
  }

  async fetchToc(library: LibraryDescriptor): Promise<TocResult> {
    this.calls.fetchToc += 1;
    const docs = this.docsFor(library);
    return {
      title: library.name,
      entries: docs.pages.map((p) => ({ title: p.title, url: p.url, ...(p.section ? { section: p.section } : {}) })),
      sourceUrl: `static://${this.id}/${library.id}`,
      fetchedAt: new Date().toISOString(),
      freshness: this.freshness(docs),
    };
  }

  async fetchDocs(library: LibraryDescriptor): Promise<DocsResult> {
    this.calls.fetchDocs += 1;
    const docs = this.docsFor(library);
    return {
      pages: docs.pages.map((p) => ({ ...p })),
      sourceUrl: `static://${this.id}/${library.id}`,
      fetchedAt: new Date().toISOString(),
      freshness: this.freshness(docs),
    };
  }

  ownsUrl(url: URL): boolean {
    return Object.values(this.libraries).some((docs) => docs.pages.some((p) => p.url === url.href));
  }

  async fetchPage(url: URL): Promise<PageResult> {
    this.calls.fetchPage += 1;
    if (this.failWith) throw this.failWith;
    for (const docs of Object.values(this.libraries)) {
      const page = docs.pages.find((p) => p.url === url.href);
      if (page) {
        return {
          url: url.href,
          finalUrl: url.href,
          title: page.title,
          markdown: page.markdown,
          contentType: 'markdown',
          fetchedAt: new Date().toISOString(),
          freshness: this.freshness(docs),
        };
      }
    }
    throw new ProContextError('PAGE_NOT_FOUND', `No page at ${url.href}.`);
  }

  async checkFreshness(library: LibraryDescriptor, _version: string, cached: Freshness) {
    this.calls.checkFreshness += 1;
    const docs = this.docsFor(library);
    return cached.contentHash === this.freshness(docs).contentHash ? ('fresh' as const) : ('changed' as const);
  }
}
