import type { CacheStore } from '@pro-context/kernel';
import type { StoredChunk } from './stored-docs.js';

/** Cache namespace of chunk blocks and term indexes. */
export const CHUNKS_NS = 'chunks';

/**
 * Parsed blocks kept at hand (hot chunks), across libraries: 1024 blocks of ~8 K characters, ~8 M characters in
 * all. Blocks are read past the cache's memory tier, so a block not kept here is read from SQLite and parsed
 * again: the nine corpora of `pnpm bench` have ~760 blocks, and with 512 kept search-docs over them read blocks on
 * most calls (p50/p99 2.3/17 ms; 1024: 1.8/7 ms; server peak RSS the same, ~250 MB).
 */
const HOT_BLOCKS = 1024;

/** Chunk blocks and term indexes in the cache, the recently read blocks kept parsed. */
export class ChunkBlocks {
  /** Recently read blocks, parsed, by cache key (revision included, so never of other content). */
  private readonly hot = new Map<string, StoredChunk[]>();

  constructor(private readonly cache: CacheStore) {}

  /** A block's chunks; `undefined` when the cache no longer holds it. */
  async block(key: string): Promise<StoredChunk[] | undefined> {
    const known = this.hot.get(key);
    if (known !== undefined) {
      this.hot.delete(key);
      this.hot.set(key, known);
      return known;
    }
    // (parsed here, in `hot`: the cache's memory tier would only hold a second copy, as text)
    const stored = (await this.cache.get<StoredChunk[] | Uint8Array>(CHUNKS_NS, key, { memory: false }))?.value;
    // a block prepared in a chunking worker was written as its JSON in UTF-8 (see `IndexingBuild`)
    const value = stored instanceof Uint8Array ? parseBlock(stored) : stored;
    if (!Array.isArray(value)) return undefined;
    this.hot.set(key, value);
    if (this.hot.size > HOT_BLOCKS) this.hot.delete(this.hot.keys().next().value as string);
    return value;
  }

  /** A term index's bytes. */
  async terms(key: string): Promise<Uint8Array | undefined> {
    const value = (await this.cache.get<Uint8Array>(CHUNKS_NS, key, { memory: false }))?.value;
    return value instanceof Uint8Array ? value : undefined;
  }

  /** Writes a chunk block (a build's). */
  async write(key: string, block: readonly StoredChunk[] | Uint8Array): Promise<void> {
    await this.cache.set(CHUNKS_NS, key, block, { ttlMs: 0, memory: false });
  }

  /** Deletes chunk blocks (an abandoned build's). */
  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) await this.cache.delete(CHUNKS_NS, key);
  }

  /** Lets go the parsed blocks whose keys start with `prefix` (every one without). */
  forget(prefix?: string): void {
    if (prefix === undefined) {
      this.hot.clear();
      return;
    }
    for (const key of [...this.hot.keys()]) if (key.startsWith(prefix)) this.hot.delete(key);
  }
}

/** A block written as JSON bytes; `undefined` when they are not a JSON array. */
function parseBlock(bytes: Uint8Array): StoredChunk[] | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    return Array.isArray(value) ? (value as StoredChunk[]) : undefined;
  } catch {
    return undefined;
  }
}
