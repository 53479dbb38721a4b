import type { CacheStore, Logger, SearchBackend } from '@pro-context/kernel';
import { Slicer } from '@pro-context/plugin-kit';
import { CHUNKS_NS } from './blocks.js';
import { ns, versionKey } from './keys.js';
import {
  blockPrefix,
  type DocsManifest,
  isManifest,
  type LoadedDocs,
  type StoredChunk,
  type StoredDocsTable,
} from './stored-docs.js';

/** Index snapshots never expire on their own (a new revision replaces them). */
const SNAPSHOT_TTL_NEVER = 0;

/** What {@link DocsPersistence} works with. */
export interface PersistenceDeps {
  cache: CacheStore;
  backend: SearchBackend;
  logger: Logger;
  /** Tracks background work, for `idle()`. */
  track: (work: Promise<unknown>) => void;
  /** Block prefixes of builds under way or not yet persisted: an older build's clean-up leaves them be. */
  building: Set<string>;
  /**
   * Makes `manifest` (the same content, stored already by another process) the loaded docs in place of `docs`,
   * when `docs` are still the loaded ones.
   */
  replaceLoaded: (docs: StoredDocsTable, manifest: DocsManifest) => void;
}

/** Writes indexed docs to the cache, one library at a time, after the answers that wait for them. */
export class DocsPersistence {
  /** Persisting indexed docs, one library at a time: each encodes megabytes, and together they set peak memory. */
  private persisting: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: PersistenceDeps) {}

  /** Runs `persist` after every persistence started before it (each writes megabytes; together they set peak memory). */
  inOrder(libraryId: string, persist: () => Promise<void>): void {
    this.persisting = this.persisting
      .then(persist)
      .catch((error: unknown) => this.deps.logger.warn('could not persist indexed docs', { libraryId, error }));
    this.deps.track(this.persisting);
  }

  /** Saves the backend's snapshot of the docs' index, with the docs' revision. */
  async saveSnapshot(docs: LoadedDocs): Promise<void> {
    const { backend, cache } = this.deps;
    const snapshot = await backend.snapshot(docs.key);
    if (!snapshot) return;
    await cache.set(ns.index, `${versionKey(docs.key.libraryId, docs.key.version)}@${backend.id}`, snapshot, {
      ttlMs: SNAPSHOT_TTL_NEVER,
      meta: { revision: docs.record.revision },
      // the backend holds the index itself; the snapshot is read again only once it has let it go
      memory: false,
    });
  }

  /**
   * When the `docs` entry of a library version expires (`null`: never; `undefined`: no entry), read without its
   * value where the cache can (a big library's manifest is megabytes of JSON: reading it back cost them again).
   */
  async expiresAt(key: string): Promise<number | null | undefined> {
    const { cache } = this.deps;
    if (cache.expiresAt) return cache.expiresAt(ns.docs, key);
    return (await cache.get<unknown>(ns.docs, key, { allowStale: true, memory: false }))?.expiresAt;
  }

  /**
   * Writes docs as blocks, term index and manifest (last: a manifest names blocks that exist), lets the chunks
   * leave memory, and removes the blocks of the library version's earlier revisions. `ttl`: the manifest's (none:
   * the namespace's default); blocks never expire on their own, the manifest says when the docs do.
   */
  async writeDocs(
    docs: StoredDocsTable,
    manifest: DocsManifest,
    blocks: readonly StoredChunk[][],
    terms: Uint8Array | undefined,
    ttl: { ttlMs?: number },
  ): Promise<void> {
    const { cache } = this.deps;
    const key = versionKey(manifest.libraryId, manifest.version);
    const prefix = blockPrefix(manifest);
    const previous = (await cache.get<unknown>(ns.docs, key, { allowStale: true, memory: false }))?.value;
    if (await this.storedAlready(manifest, previous, prefix)) {
      // the same content is stored already (another process sharing the cache built it at the same time): its
      // blocks serve, ours go (the blocks are the same: same chunks, same cuts)
      this.deps.replaceLoaded(docs, previous as DocsManifest);
      for (const mine of await cache.keys(CHUNKS_NS, prefix)) await cache.delete(CHUNKS_NS, mine);
      return;
    }
    // (synchronous writes, a few ms each: answers to other calls get a turn every few ms)
    const slicer = new Slicer();
    for (const [n, block] of blocks.entries()) {
      await slicer.turn();
      await cache.set(CHUNKS_NS, `${prefix}${n}`, block, { ttlMs: 0, memory: false });
    }
    const termBytes = terms ?? (await docs.termIndexBytes());
    await cache.set(CHUNKS_NS, `${prefix}terms`, termBytes, { ttlMs: 0, memory: false });
    await cache.set(ns.docs, key, manifest, { ...ttl, memory: false });
    const expiresAt = await this.expiresAt(key);
    if (expiresAt !== undefined) docs.expiresAt = expiresAt;
    docs.settle();
    await this.dropReplacedBlocks(key, prefix, previous);
  }

  /** Whether `previous` (the stored `docs` value) is `manifest`'s content, stored whole under other blocks. */
  private async storedAlready(manifest: DocsManifest, previous: unknown, prefix: string): Promise<boolean> {
    return (
      manifest.blocks !== undefined &&
      isManifest(previous) &&
      previous.revision === manifest.revision &&
      blockPrefix(previous) !== prefix &&
      (await this.deps.cache.keys(CHUNKS_NS, blockPrefix(previous))).length >= previous.blockStarts.length + 1
    );
  }

  /**
   * The blocks of the docs replaced go, and those of the first format's revisions; a build's blocks (`@b…#`)
   * only when they are the replaced docs' (another process sharing the cache may be writing its own).
   */
  private async dropReplacedBlocks(key: string, prefix: string, previous: unknown): Promise<void> {
    const { cache } = this.deps;
    const replaced = isManifest(previous) ? blockPrefix(previous) : undefined;
    const building = [...this.deps.building].filter((p) => p !== prefix);
    for (const old of await cache.keys(CHUNKS_NS, `${key}@`)) {
      if (old.startsWith(prefix) || building.some((p) => old.startsWith(p))) continue;
      const tagged = /^b[0-9a-z]+#/.test(old.slice(key.length + 1));
      if (!tagged || (replaced !== undefined && old.startsWith(replaced))) await cache.delete(CHUNKS_NS, old);
    }
  }
}
