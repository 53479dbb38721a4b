import type { CacheStore, LibraryDescriptor, Logger, SearchBackend } from '@pro-context/kernel';
import { indexableChunk } from '@pro-context/markdown';
import { CHUNKS_NS } from './blocks.js';
import { ns, versionKey } from './keys.js';
import type { LocalFreshness } from './local-freshness.js';
import type { DocsPersistence } from './persistence.js';
import {
  blockPrefix,
  type DocsManifest,
  isManifest,
  isRecord,
  type LoadedDocs,
  type StoredChunk,
  type StoredDocsTable,
  toManifest,
} from './stored-docs.js';

/** What restoring stored docs works with (the doc store's parts). */
export interface RestoreDeps {
  cache: CacheStore;
  backend: SearchBackend;
  logger: Logger;
  local: LocalFreshness;
  persistence: DocsPersistence;
  /** Tracks background work, for `idle()`. */
  track: (work: Promise<unknown>) => void;
  /** Makes a manifest the loaded docs of its library version (see `DocStore`). */
  remember: (manifest: DocsManifest, expiresAt: number | null, pending?: readonly StoredChunk[]) => StoredDocsTable;
}

/**
 * Docs from a cached `docs` value: a manifest whose blocks are all in the cache, or a record of the first
 * format (every chunk inside), rewritten as a manifest and blocks behind the answer. `undefined` when the value
 * is neither, its blocks are incomplete, or a local source's files changed since: the docs are built again.
 */
export async function restoreDocs(
  deps: RestoreDeps,
  library: LibraryDescriptor,
  version: string,
  value: unknown,
  expiresAt: number | null,
): Promise<StoredDocsTable | undefined> {
  if (isManifest(value)) {
    const present = await deps.cache.keys(CHUNKS_NS, blockPrefix(value));
    if (present.length < value.blockStarts.length + 1) {
      deps.logger.info('cached docs are incomplete; indexing them again', { libraryId: library.id, version });
      return undefined;
    }
    if (await deps.local.changed(library, version, value)) return undefined;
    return deps.remember(value, expiresAt);
  }
  if (isRecord(value)) {
    if (await deps.local.changed(library, version, value)) return undefined;
    const { chunks, ...meta } = value;
    const { manifest, blocks } = toManifest(meta, chunks);
    const docs = deps.remember(manifest, expiresAt, chunks);
    const ttl = expiresAt === null ? { ttlMs: 0 } : { ttlMs: Math.max(1, expiresAt - Date.now()) };
    deps.persistence.inOrder(library.id, () => deps.persistence.writeDocs(docs, manifest, blocks, undefined, ttl));
    return docs;
  }
  return undefined;
}

/** Makes sure the backend holds the docs' index: restores the snapshot, or rebuilds it from stored chunks. */
export async function ensureIndexed(deps: RestoreDeps, docs: LoadedDocs): Promise<void> {
  const { backend, cache } = deps;
  if (await backend.has(docs.key)) return;
  const snapshotKey = `${versionKey(docs.key.libraryId, docs.key.version)}@${backend.id}`;
  const snapshot = await cache.get<Uint8Array>(ns.index, snapshotKey, { memory: false });
  if (snapshot?.meta?.revision === docs.record.revision && snapshot.value instanceof Uint8Array) {
    if (await backend.restore(docs.key, snapshot.value)) return;
  }
  const chunks = await docs.all();
  await backend.index(docs.key, chunks.map(indexableChunk));
  deps.track(deps.persistence.saveSnapshot(docs));
}
