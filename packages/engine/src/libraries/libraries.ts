import type { FetchContext, LibraryDescriptor, UrlAllowlist } from '@pro-context/kernel';
import type { SourceChain } from '../versions/sources.js';
import type { LibraryCatalog } from './catalog.js';

/**
 * The libraries a tool call may name: the catalog, its lookups through the providers, and the allowlist of
 * the documentation hosts of every library known.
 */
export class Libraries {
  constructor(
    readonly catalog: LibraryCatalog,
    private readonly sources: SourceChain,
    private readonly allowlist: UrlAllowlist,
  ) {}

  /** The library a tool's `libraryId` names: a known one, else one a provider finds; else `LIBRARY_NOT_FOUND`. */
  async library(libraryId: string, context?: FetchContext): Promise<LibraryDescriptor> {
    const known = this.catalog.find(libraryId);
    // a detected package nobody described yet: a provider may find its docs now
    if (known?.detectedFrom) return this.withDocsSource(known, context);
    if (known) return known;
    const found = await this.catalog.lookup(libraryId, context);
    if (found) {
      this.allowDocsDomains(found);
      return found;
    }
    return this.catalog.require(libraryId);
  }

  /**
   * A library no source can serve yet (a detected package nobody described) as a provider's `lookup` finds
   * it, keeping its installed version; the library itself when it has a source or nobody finds it.
   */
  async withDocsSource(library: LibraryDescriptor, context?: FetchContext): Promise<LibraryDescriptor> {
    // local sources (an installed package's files) come last in the chain: a provider may know a better source
    if (this.sources.for(library).some((a) => !a.local)) return library;
    const name = Object.values(library.packages ?? {})[0] ?? library.id;
    const found = await this.catalog.lookup(name, context);
    if (!found) return library;
    if (found.id !== library.id) this.catalog.remove(library.id);
    const held: LibraryDescriptor = {
      ...found,
      ...(library.installedVersion ? { installedVersion: library.installedVersion } : {}),
      ...(library.detectedFrom ? { detectedFrom: library.detectedFrom } : {}),
    };
    this.catalog.add(held);
    this.allowDocsDomains(held);
    return held;
  }

  /** Lets read-page fetch from the library's documentation hosts. */
  allowDocsDomains(library: LibraryDescriptor): void {
    this.allowlist.allowHostsOf(this.docsUrlsOf(library), `library ${library.id}`);
  }

  /** The library's docs site and the URLs its adapters read it from (an llms.txt elsewhere). */
  docsUrlsOf(library: LibraryDescriptor): string[] {
    const urls = [library.docsUrl, ...this.sources.for(library).flatMap((a) => a.docsUrls?.(library) ?? [])];
    return [...new Set(urls.filter((u): u is string => Boolean(u)))];
  }

  /**
   * The library a name means, as a person types it: an exact id, name or alias, else the best close match,
   * else one a provider finds. `undefined` when none does.
   */
  async findLibrary(name: string, context?: FetchContext): Promise<LibraryDescriptor | undefined> {
    return (
      this.catalog.find(name) ?? this.catalog.match(name)[0]?.library ?? (await this.catalog.lookup(name, context))
    );
  }

  /** Known libraries whose documentation is read from `url`'s host. */
  librariesAt(url: URL): LibraryDescriptor[] {
    return this.catalog.all().filter((lib) => this.docsUrlsOf(lib).some((u) => new URL(u).host === url.host));
  }
}
