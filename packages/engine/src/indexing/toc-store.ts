import type { CacheStore, FetchContext, LibraryDescriptor, Logger, TocResult } from '@pro-context/kernel';
import type { SourceChain } from '../versions/sources.js';
import { ns, versionKey } from './keys.js';
import type { LocalFreshness } from './local-freshness.js';

/** A TOC and the adapter that produced it. */
export interface TocRecord {
  toc: TocResult;
  adapterId: string;
  /** Why the sources tried before {@link adapterId} did not serve (`llms-txt: …`), when one did not. */
  passedOver?: string[];
}

/** Library TOCs: cached, else fetched from the first adapter that has one; stale ones refreshed behind. */
export class TocStore {
  /** TOC refreshes running behind a stale TOC, one per entry. */
  private readonly refreshes = new Map<string, Promise<void>>();
  /** First TOC fetches under way, shared by concurrent callers. */
  private readonly fetches = new Map<string, Promise<TocRecord>>();

  constructor(
    private readonly cache: CacheStore,
    private readonly sources: SourceChain,
    private readonly logger: Logger,
    private readonly local: LocalFreshness,
    /** Tracks background work (refreshes), for `idle()`. */
    private readonly track: (work: Promise<unknown>) => void,
  ) {}

  /**
   * The library's TOC: cached, else from the first adapter that has one (of those `documenting` the version,
   * when given). An expired TOC answers at once (marked stale) while one refresh per entry runs behind it
   * (stale-while-revalidate); when the refresh fails, the expired TOC goes on answering.
   */
  async toc(
    library: LibraryDescriptor,
    version: string,
    context: FetchContext = {},
    documenting?: readonly string[],
  ): Promise<TocRecord & { cached: boolean; stale: boolean }> {
    const key = versionKey(library.id, version);
    const cached = await this.cache.get<TocRecord>(ns.toc, key, { allowStale: true });
    // a local source's files changed since: fetched again now (a local read is quick), not served stale
    const changed =
      cached !== undefined &&
      (await this.local.changed(library, version, {
        adapterId: cached.value.adapterId,
        freshness: cached.value.toc.freshness,
      }));
    if (cached && !cached.stale && !changed) return { ...cached.value, cached: true, stale: false };
    if (cached && !changed) {
      this.refreshBehind(key, library, version, documenting);
      return { ...cached.value, cached: true, stale: true };
    }
    // concurrent first calls share one fetch
    const running = this.fetches.get(key);
    if (running) return { ...(await running), cached: false, stale: false };
    const fetching = this.fetch(library, version, context, documenting).finally(() => this.fetches.delete(key));
    this.fetches.set(key, fetching);
    try {
      return { ...(await fetching), cached: false, stale: false };
    } catch (error) {
      if (!cached) throw error;
      this.logger.warn('TOC refresh failed; serving the stale TOC', { libraryId: library.id, error });
      return { ...cached.value, cached: true, stale: true };
    }
  }

  /** Refreshes an expired TOC behind the answer, once per entry at a time. */
  private refreshBehind(
    key: string,
    library: LibraryDescriptor,
    version: string,
    documenting?: readonly string[],
  ): void {
    if (this.refreshes.has(key)) return;
    const refresh = this.fetch(library, version, {}, documenting)
      .then(() => undefined)
      .catch((error: unknown) => {
        this.logger.warn('TOC refresh failed; serving the stale TOC', { libraryId: library.id, error });
      })
      .finally(() => this.refreshes.delete(key));
    this.refreshes.set(key, refresh);
    this.track(refresh);
  }

  private async fetch(
    library: LibraryDescriptor,
    version: string,
    context: FetchContext,
    documenting?: readonly string[],
  ): Promise<TocRecord> {
    const {
      value: toc,
      adapter,
      passedOver,
    } = await this.sources.first(
      library,
      'fetch the table of contents',
      (a, ctx) => a.fetchToc(library, version, ctx),
      context,
      documenting,
    );
    const ttlMs = library.ttlHours ? library.ttlHours * 3_600_000 : undefined;
    const record: TocRecord = { toc, adapterId: adapter.id, ...(passedOver ? { passedOver } : {}) };
    await this.cache.set(ns.toc, versionKey(library.id, version), record, ttlMs ? { ttlMs } : {});
    return record;
  }

  /** A TOC already known (cached or loaded), without any fetch. */
  async cached(libraryId: string, version: string): Promise<TocRecord | undefined> {
    return (await this.cache.get<TocRecord>(ns.toc, versionKey(libraryId, version), { allowStale: true }))?.value;
  }
}
