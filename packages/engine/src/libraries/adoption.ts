import type { FetchContext, LibraryDescriptor, LibraryProvider, Logger } from '@pro-context/kernel';
import pLimit from 'p-limit';
import type { SourceChain } from '../versions/sources.js';
import type { LibraryCatalog } from './catalog.js';
import type { Libraries } from './libraries.js';

/** How many libraries delivered after start (project detection) are resolved at once, in the background. */
const PRE_RESOLVE_CONCURRENCY = 2;

/** What {@link ProviderAdoption} works with. */
export interface AdoptionDeps {
  catalog: LibraryCatalog;
  libraries: Libraries;
  sources: SourceChain;
  logger: Logger;
  /** `false`: adopted libraries are not resolved in the background (`engine.preResolveDetected`). */
  preResolve: boolean;
  /** resolve-library for one library id, in the background. */
  resolve: (libraryId: string, context: FetchContext) => Promise<unknown>;
}

/**
 * Libraries that providers deliver after start (project detection, `LibraryProvider.watch`): adopted beneath
 * what is known, then resolved in the background (bounded concurrency, cancelled by {@link close}) so that
 * their TOCs become resources. Never blocks a tool call; a failure is logged.
 */
export class ProviderAdoption {
  /** Aborted by {@link close}: cancels the background resolution. */
  private readonly stopping = new AbortController();
  private readonly unwatch: (() => void)[] = [];
  private readonly limit = pLimit(PRE_RESOLVE_CONCURRENCY);
  private readonly background = new Set<Promise<void>>();
  /** The libraries each watching provider delivered last (a later delivery without one takes back its project fields). */
  private readonly adoptedFrom = new Map<string, Set<string>>();

  constructor(
    providers: readonly LibraryProvider[],
    private readonly deps: AdoptionDeps,
  ) {
    for (const provider of providers) {
      if (provider.watch) this.unwatch.push(provider.watch(() => this.adoptFrom(provider)));
    }
  }

  /** Reads a watching provider's libraries again, adds them beneath what is known and resolves each behind. */
  private adoptFrom(provider: LibraryProvider): void {
    if (this.stopping.signal.aborted) return;
    const { catalog, libraries, logger } = this.deps;
    let adopted: LibraryDescriptor[];
    try {
      adopted = provider.libraries().map((library) => catalog.adopt(library, provider.id));
    } catch (error) {
      logger.warn(`library provider '${provider.id}' failed to list its libraries`, { error });
      return;
    }
    for (const library of adopted) libraries.allowDocsDomains(library);
    this.forgetUnlisted(provider.id, new Set(adopted.map((l) => l.id)));
    logger.info(`${adopted.length} libraries from '${provider.id}'`, {
      libraries: adopted.map((l) => `${l.id}@${l.installedVersion ?? 'latest'}`).slice(0, 50),
    });
    if (!this.deps.preResolve) return;
    for (const library of adopted) {
      const work = this.limit(() => this.preResolve(library.id)).finally(() => this.background.delete(work));
      this.background.add(work);
    }
  }

  /** A new scan (another project: the client's roots changed) no longer naming a library: no longer "in this project". */
  private forgetUnlisted(providerId: string, now: Set<string>): void {
    const { catalog } = this.deps;
    for (const id of this.adoptedFrom.get(providerId) ?? []) {
      const elsewhere = [...this.adoptedFrom].some(([other, ids]) => other !== providerId && ids.has(id));
      const held = now.has(id) || elsewhere ? undefined : catalog.find(id);
      if (held?.id !== id) continue;
      const { installedVersion: _installed, detectedFrom: _from, ...rest } = held;
      catalog.add(rest);
    }
    this.adoptedFrom.set(providerId, now);
  }

  /** Resolves one adopted library in the background; a placeholder (no docs source) is looked up first. */
  private async preResolve(libraryId: string): Promise<void> {
    const signal = this.stopping.signal;
    if (signal.aborted) return;
    let library = this.deps.catalog.find(libraryId);
    if (!library) return;
    try {
      library = await this.deps.libraries.withDocsSource(library, { signal });
      if (this.deps.sources.for(library).length === 0) return;
      await this.deps.resolve(library.id, { signal });
    } catch (error) {
      if (signal.aborted) return;
      this.deps.logger.warn(`could not pre-resolve ${libraryId}`, { error });
    }
  }

  /** Waits for the background resolution under way. */
  async idle(): Promise<void> {
    while (this.background.size > 0) await Promise.all([...this.background]);
  }

  /** Stops watching providers and cancels background resolution. */
  close(): void {
    for (const unwatch of this.unwatch.splice(0)) unwatch();
    this.stopping.abort();
  }
}
