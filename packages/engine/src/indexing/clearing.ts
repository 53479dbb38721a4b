import type { CacheStore, SearchBackend } from '@pro-context/kernel';
import { Slicer } from '@pro-context/plugin-kit';
import { engineMessages } from '../tools/render-errors.js';
import { CHUNKS_NS } from './blocks.js';
import { answerKeyPrefix, ns, versionKey } from './keys.js';
import type { IndexingNow } from './shared-builds.js';
import type { TocRecord } from './toc-store.js';

/** What to do when a clear is refused because the library is being indexed. */

/** What clearing works with (the doc store's parts). */
export interface ClearDeps {
  cache: CacheStore;
  backend: SearchBackend;
  indexingNow: () => Promise<IndexingNow[]>;
  cachedVersions: () => Promise<{ libraryId: string; version: string }[]>;
  cachedToc: (libraryId: string, version: string) => Promise<TocRecord | undefined>;
  /** Lets a library version (`libraryId@version`) go from memory; every one without a key. */
  forget: (key?: string) => Promise<void>;
  /** Lets go the parsed blocks whose keys start with `prefix` (every one without). */
  forgetBlocks: (prefix?: string) => void;
  /** Library versions loaded in memory (`libraryId@version`). */
  loadedKeys: () => string[];
  /** Called once a library's cache went (tells the other replicas sharing the store). */
  cleared: (libraryId: string) => void;
}

/**
 * Removes everything cached of a library, every version: its TOC, docs manifest, chunk blocks and term index,
 * search index snapshots, stored answers and `read-page`'s copies of the pages its TOC lists; lets it go from
 * memory and from the search backend. Returns how many cache entries went. A library being indexed right now is
 * refused (`INDEXING_IN_PROGRESS`): its build would write it back.
 */
export async function clearLibrary(deps: ClearDeps, libraryId: string): Promise<number> {
  const { cache } = deps;
  const prefix = `${libraryId}@`;
  const building = (await deps.indexingNow()).find((b) => b.key.startsWith(prefix));
  if (building) {
    const where = building.here ? '' : ` by another server sharing the cache (process ${building.pid})`;
    throw engineMessages.create('LIBRARY_BEING_INDEXED', { libraryId, where }, { retryAfter: 5 });
  }
  let removed = 0;
  // (each delete is a synchronous write: a large library's thousands of blocks take turns with other work)
  const slicer = new Slicer();
  const remove = async (namespace: string, key: string) => {
    await slicer.turn();
    if (await cache.delete(namespace, key)) removed++;
  };
  const versions = (await deps.cachedVersions()).filter((v) => v.libraryId === libraryId).map((v) => v.version);
  for (const version of versions) {
    const toc = await deps.cachedToc(libraryId, version);
    for (const url of new Set(toc?.toc.entries.map((e) => e.url.split('#')[0] as string) ?? [])) {
      await remove(ns.pages, url);
    }
    for (const answer of await cache.keys(ns.answers, answerKeyPrefix(libraryId, version))) {
      await remove(ns.answers, answer);
    }
    await deps.forget(versionKey(libraryId, version));
    await deps.backend.drop({ libraryId, version });
  }
  for (const namespace of [ns.toc, ns.docs, ns.index, CHUNKS_NS]) {
    for (const key of await cache.keys(namespace, prefix)) await remove(namespace, key);
  }
  deps.forgetBlocks(prefix);
  deps.cleared(libraryId);
  return removed;
}

/**
 * Removes everything cached, every namespace, and lets every library go from memory and the search backend.
 * Refused (`INDEXING_IN_PROGRESS`) while any library is being indexed, here or by another server sharing the
 * cache: its build would be left without its blocks. Returns how many cache entries went.
 */
export async function clearEverything(deps: ClearDeps): Promise<number> {
  const building = await deps.indexingNow();
  if (building.length > 0) {
    const builds = building.map((b) => `${b.key} (pid ${b.pid})`).join(', ');
    throw engineMessages.create(
      building.length === 1 ? 'ONE_BEING_INDEXED' : 'SEVERAL_BEING_INDEXED',
      { builds },
      { retryAfter: 5 },
    );
  }
  const libraryIds = new Set([
    ...(await deps.cachedVersions()).map((v) => v.libraryId),
    ...deps.loadedKeys().map((key) => key.slice(0, key.lastIndexOf('@'))),
  ]);
  await deps.forget();
  deps.forgetBlocks();
  const removed = await deps.cache.clear();
  for (const libraryId of libraryIds) deps.cleared(libraryId);
  return removed;
}
