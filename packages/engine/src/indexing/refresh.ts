import type { LibraryDescriptor } from '@pro-context/kernel';
import { SourceChain } from '../versions/sources.js';
import { fetchAndIndex, type IndexingDeps } from './fetch-and-index.js';
import { ns, versionKey } from './keys.js';
import type { ReplicaCoordination } from './replicas.js';
import type { DocsRecord, LoadedDocs } from './stored-docs.js';

/**
 * Checks stale docs with their source behind the answer, one refresh per library version at a time: still fresh,
 * their TTL starts again; changed, they are fetched and indexed again while the stale ones keep answering (the
 * backend installs the new index when it is complete, and the new chunks replace the old in the same tick). An
 * unreachable origin keeps them answering, and shows as failing in health. With replicas sharing the store, the
 * one that takes the library version's indexing lease refreshes it and tells the others (they drop theirs and load
 * the new docs from the store); the others skip it.
 */
export class StaleRefresh {
  private readonly refreshing = new Set<string>();

  constructor(
    private readonly deps: IndexingDeps,
    private readonly replicas: ReplicaCoordination,
    /** Tracks background work, for `idle()`. */
    private readonly track: (work: Promise<unknown>) => void,
  ) {}

  start(library: LibraryDescriptor, version: string, docs: LoadedDocs, documenting?: readonly string[]): void {
    const key = versionKey(library.id, version);
    if (this.refreshing.has(key)) return;
    this.refreshing.add(key);
    const { logger, sources } = this.deps;
    this.track(
      logger
        .span('engine.refresh', { libraryId: library.id, version }, async (span) => {
          const lease = await this.replicas.forRefresh(key);
          if (lease === 'held') return span.set('verdict', 'another replica');
          try {
            const adapter = sources.for(library).find((a) => a.id === docs.record.adapterId);
            const verdict = adapter ? await adapter.checkFreshness(library, version, docs.record.freshness) : 'unknown';
            span.set('verdict', verdict);
            if (verdict === 'fresh') await this.renew(library, key, docs);
            else await fetchAndIndex(this.deps, library, version, {}, documenting);
            if (verdict === 'fresh') return await this.replicas.release(lease);
          } catch (error) {
            await this.replicas.release(lease);
            throw error;
          }
          // once the new docs are stored, the other replicas drop theirs, and the lease goes
          this.deps.persistence.inOrder(library.id, async () => {
            this.replicas.changed(library.id, 'refreshed');
            await this.replicas.release(lease);
          });
        })
        .catch((error: unknown) => {
          // the origin is down: keep serving the stale docs (they were never taken out), and say so in health
          if (SourceChain.unreachable(error)) sources.record(docs.record.adapterId, error);
          logger.warn('refresh failed; serving stale docs', { libraryId: library.id, error });
        })
        .finally(() => this.refreshing.delete(key)),
    );
  }

  /** Docs their source says are still fresh: their TTL starts again. */
  private async renew(library: LibraryDescriptor, key: string, docs: LoadedDocs): Promise<void> {
    const { cache, persistence } = this.deps;
    const stored = await cache.get<DocsRecord>(ns.docs, key, { allowStale: true, memory: false });
    if (!stored) return;
    const ttlMs = library.ttlHours ? library.ttlHours * 3_600_000 : undefined;
    await cache.set(ns.docs, key, stored.value, { ...(ttlMs ? { ttlMs } : {}), memory: false });
    docs.expiresAt = (await persistence.expiresAt(key)) ?? null;
  }
}
