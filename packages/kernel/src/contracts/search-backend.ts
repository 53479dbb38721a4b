import type { MessagePort } from 'node:worker_threads';
import { createToken } from './token.js';

/** Identifies one index: a library at an exact version. */
export interface IndexKey {
  libraryId: string;
  version: string;
}

/** One chunk of documentation handed to the backend for indexing. */
export interface IndexableChunk {
  /** Stable id, unique within the index. Search hits carry it back. */
  id: string;
  title: string;
  /** Heading path from the page title down to this chunk's heading. */
  headings: string[];
  /** The chunk's markdown. Backends index it; they need not keep it (the engine stores bodies). */
  body: string;
  url: string;
}

/** Options of one search. */
export interface SearchOptions {
  /** Maximum hits to return (default 10). */
  limit?: number;
  /** Typo tolerance: maximum edit distance for a term (default: the backend's). */
  tolerance?: number;
}

/** One hit: the chunk id and its raw relevance score (higher is better; scale is the backend's). */
export interface SearchHit {
  id: string;
  score: number;
}

/** Hits, best first, and how many chunks matched in all. */
export interface SearchResults {
  hits: SearchHit[];
  total: number;
}

/**
 * An index being built from chunks that arrive in batches ({@link SearchBackend.indexer}): a large library is
 * indexed without all its chunks in memory at once. The index is the one {@link SearchBackend.index} would build
 * from the batches' chunks in order, and it replaces the key's index only when {@link IndexBuild.finish} resolves.
 */
export interface IndexBuild {
  /** Adds the next chunks (in stored order; ids unique across the whole build). Waits while the backend catches up. */
  add(chunks: IndexableChunk[]): Promise<void>;
  /**
   * Optional: a channel another thread (a chunking worker) posts the batches to, so that the chunks never pass
   * through the thread that answers; `undefined` when the build runs on the calling thread. Taken before any
   * {@link add}, or not at all: once it is taken, batches come only through it ({@link add} is not called again).
   */
  channel?(): Promise<IndexChannel | undefined>;
  /** Completes the index and installs it for the key. */
  finish(): Promise<void>;
  /** Abandons the build: nothing is installed, what it held is let go. */
  cancel(): void;
}

/**
 * The channel of an {@link IndexBuild} ({@link IndexBuild.channel}). Whoever posts to {@link port} sends
 * {@link IndexBatchMessage}s in stored order, `seq` counting 1, 2, 3…; the index is the one {@link IndexBuild.add}
 * would build from the same batches.
 */
export interface IndexChannel {
  /** The port to post the batches to (transfer it to the posting thread). */
  readonly port: MessagePort;
  /** Resolves once batch `seq` is taken in (the backend caught up with it); rejects when the build failed. */
  taken(seq: number): Promise<void>;
}

/** One batch posted to an {@link IndexChannel}'s port. */
export interface IndexBatchMessage {
  seq: number;
  chunks: IndexableChunk[];
}

/**
 * Full-text search over documentation chunks, one index per (library, exact version).
 *
 * `snapshot`/`restore` let the engine persist an index through the `CacheStore`, so a restart serves
 * from the index without fetching or chunking again.
 */
export interface SearchBackend {
  /** Stable id, equal to the plugin id (`'orama-search'`). */
  readonly id: string;
  /** Builds (or replaces) the index for `key`. */
  index(key: IndexKey, chunks: IndexableChunk[]): Promise<void>;
  /**
   * Optional: starts an index for `key` built batch by batch ({@link IndexBuild}). The engine uses it for every
   * build when present; without it, the engine collects the batches and calls {@link SearchBackend.index} once.
   */
  indexer?(key: IndexKey): IndexBuild;
  /** Searches one index. An unknown key gives no hits. */
  search(key: IndexKey, query: string, options?: SearchOptions): Promise<SearchResults>;
  has(key: IndexKey): Promise<boolean>;
  drop(key: IndexKey): Promise<void>;
  /**
   * A serialized form of the index for `key` (no chunk bodies), or `null` if there is none. The bytes may be the
   * loaded index's own memory (no copy): read or copy them, never modify them or transfer their buffer.
   */
  snapshot(key: IndexKey): Promise<Uint8Array | null>;
  /**
   * Loads an index from {@link SearchBackend.snapshot}'s output; `false` if the snapshot is unusable. The backend
   * may keep the bytes as the index's own memory (no copy): the caller must not modify them afterwards.
   */
  restore(key: IndexKey, snapshot: Uint8Array): Promise<boolean>;
}

/** Singular contract: one search backend per kernel. */
export const searchBackendToken = createToken<SearchBackend>('kernel.searchBackend');
