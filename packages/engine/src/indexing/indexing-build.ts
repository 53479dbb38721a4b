import { randomBytes } from 'node:crypto';
import {
  type DocPage,
  type IndexBuild,
  type IndexChannel,
  type IndexKey,
  isProContextError,
  type SearchBackend,
} from '@pro-context/kernel';
import {
  type ChunkingPool,
  indexableChunk,
  type PageAnchors,
  type PageLimits,
  type PipedBatch,
  type PipedSession,
  type PrepareSession,
  type SkippedPage,
  sharedPageConverter,
} from '@pro-context/markdown';
import { Slicer } from '@pro-context/plugin-kit';
import {
  BLOCK_CHARS,
  BlockCutter,
  blockPrefix,
  type DocsManifest,
  type DocsMeta,
  MAX_SKIPPED_KEPT,
  type StoredChunk,
  type StoredPage,
} from './stored-docs.js';

/** Characters of pages chunked per batch: a batch's pages, chunks and copies between threads stay a few MB. */
const BATCH_CHARS = 1024 * 1024;

/** A library with a page longer than this (characters) is chunked in a worker even when it is small in total. */
const MAX_PAGE_CHARS_ON_THREAD = 200_000;

/**
 * A library whose chunks total fewer characters than this keeps them at hand after its build until it is
 * persisted (its first answers read no block back); a bigger one lets each batch go once written.
 */
const KEPT_CHARS = 4 * 1024 * 1024;

/** What an {@link IndexingBuild} writes to and reads from (the doc store). */
export interface BuildTarget {
  readonly chunking: ChunkingPool;
  /** Per-page limits (the engine's `engine.pages`; defaults: `DEFAULT_PAGE_LIMITS`). */
  readonly pageLimits?: Partial<PageLimits>;
  readonly search: SearchBackend;
  /** Block prefixes of builds under way (an older build's clean-up leaves them be). */
  readonly building: Set<string>;
  /** Writes a block: its chunks, or (prepared in a worker) their JSON already encoded as UTF-8. */
  writeBlock(key: string, block: readonly StoredChunk[] | Uint8Array): Promise<void>;
  deleteBlocks(keys: readonly string[]): Promise<void>;
}

/** A backend without {@link SearchBackend.indexer}: the batches are collected and indexed at once. */
function collecting(backend: SearchBackend, key: IndexKey): IndexBuild {
  let chunks: Parameters<SearchBackend['index']>[1] = [];
  return {
    add: async (batch) => {
      for (const chunk of batch) chunks.push(chunk);
    },
    finish: () => backend.index(key, chunks),
    cancel: () => {
      chunks = [];
    },
  };
}

/**
 * One library version being fetched, chunked, indexed and stored batch by batch: each batch of pages is chunked
 * (in a chunking worker held for the library), its chunks go to the search backend's build and into chunk blocks
 * written to the cache at once, and nothing of the batch stays behind but ids, page runs and block offsets. The
 * chunks, their ids and the index are those of the same pages prepared all at once. Blocks are written under
 * the build's own tag (the revision is known only at the end); {@link abandon} deletes them.
 */
export class IndexingBuild {
  /** The build's tag in its block keys. */
  readonly tag = `b${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
  /** Time spent chunking and indexing (awaiting the workers), ms. */
  chunkMs = 0;
  indexMs = 0;
  private session: Promise<PrepareSession> | undefined;
  private index: IndexBuild | undefined;
  /**
   * Set at the first batch when the chunking worker feeds the backend's build directly (its channel): the chunks
   * then never come to this thread, only ids, page runs, block offsets and encoded blocks.
   */
  private piped: { session: PipedSession; channel: IndexChannel } | undefined;
  private pipeDecided = false;
  private readonly cutter = new BlockCutter();
  /** Pages left out (over a limit, or failing to convert or chunk), in order. */
  readonly skipped: SkippedPage[] = [];
  private readonly pages: StoredPage[] = [];
  /** Blocks written so far: their keys are the prefix and their number (`…#0`, `…#1`, …). */
  private written = 0;
  private pagesIn = 0;
  /** Pages handed to the build so far, and who hears of progress through them. */
  private received = 0;
  private progress: ((pagesDone: number, pagesReceived: number) => void) | undefined;
  /** The last batch's indexing and writing. */
  private stored: Promise<void> = Promise.resolve();
  private over = false;
  /** The chunks so far while they total under {@link KEPT_CHARS}. */
  private kept: StoredChunk[] | undefined = [];
  private keptChars = 0;

  constructor(
    private readonly target: BuildTarget,
    private readonly key: IndexKey,
    private readonly maxTokens: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    target.building.add(this.prefix);
  }

  /** The blocks' key prefix. */
  get prefix(): string {
    return blockPrefix({ ...this.key, revision: '', blocks: this.tag });
  }

  /** Chunks so far, once the batches handed over are indexed and written. */
  async chunkCount(): Promise<number> {
    await this.stored;
    return this.cutter.ids.length;
  }

  /**
   * Adds pages handed over while the library downloads (a streaming adapter's batch); `progress` hears of the
   * pages chunked so far and the pages received so far.
   */
  async add(pages: readonly DocPage[], progress?: (pagesDone: number, pagesReceived: number) => void): Promise<void> {
    this.received += pages.length;
    this.progress = progress;
    let from = 0;
    while (from < pages.length) {
      let to = from;
      let chars = 0;
      while (to < pages.length && (to === from || chars < BATCH_CHARS)) chars += charsOf(pages[to++] as DocPage);
      await this.batch(pages.slice(from, to));
      from = to;
    }
  }

  /**
   * Adds every page of `pages` (a whole library, as an adapter returned it), taking them off the array as they
   * are chunked so that each can be let go.
   */
  async addAll(
    pages: DocPage[],
    total: number,
    progress?: (pagesDone: number, pagesReceived: number) => void,
  ): Promise<void> {
    const before = this.pagesIn;
    this.received += pages.length;
    this.progress = (done) => progress?.(Math.min(done - before, total), total);
    if (this.session === undefined && this.pagesIn === 0) {
      let chars = 0;
      let largest = 0;
      for (const page of pages) {
        const size = charsOf(page);
        chars += size;
        largest = Math.max(largest, size);
      }
      // a small library is chunked on this thread, taking turns between pages; one with a long page goes to a
      // worker whatever its total, since a page is chunked in one go (nothing proportional to a page's size here)
      this.start(largest > MAX_PAGE_CHARS_ON_THREAD ? undefined : chars);
    }
    while (pages.length > 0) {
      let count = 0;
      let chars = 0;
      while (count < pages.length && (count === 0 || chars < BATCH_CHARS)) chars += charsOf(pages[count++] as DocPage);
      await this.batch(pages.splice(0, count));
    }
  }

  /** Completes the build: the manifest of its chunks (blocks all written) and their term index. */
  async finish(
    meta: Omit<DocsMeta, 'revision' | 'pages'>,
  ): Promise<{ manifest: DocsManifest; terms: Uint8Array; chunks: StoredChunk[] | undefined }> {
    await this.stored;
    const last = this.cutter.flush();
    if (last) await this.write(last);
    const session = await this.start();
    const started = performance.now();
    const totals = this.piped ? await this.piped.session.finish() : await session.finish();
    session.close();
    this.chunkMs += performance.now() - started;
    const lastPiped = this.piped ? (totals as Awaited<ReturnType<PipedSession['finish']>>).last : undefined;
    if (lastPiped) await this.write(lastPiped);
    const indexing = performance.now();
    this.index ??= this.indexer();
    await this.index.finish();
    this.indexMs += performance.now() - indexing;
    this.over = true;
    const skipped =
      this.skipped.length > 0
        ? {
            skipped: {
              count: this.skipped.length,
              pages: this.skipped.slice(0, MAX_SKIPPED_KEPT).map(({ url, reason }) => ({ url, reason })),
            },
          }
        : {};
    const manifest = this.cutter.manifest(
      { ...meta, revision: totals.revision, pages: withAnchors(this.pages, totals.anchors), ...skipped },
      this.tag,
    );
    const chunks = this.kept;
    this.kept = undefined;
    return { manifest, terms: totals.terms, chunks };
  }

  /** Gives up: the chunking worker and the backend's build are let go, and the blocks written are deleted. */
  async abandon(): Promise<void> {
    if (this.over) return;
    this.over = true;
    this.index?.cancel();
    await this.stored.catch(() => undefined);
    this.kept = undefined;
    const session = this.session;
    this.session = undefined;
    await session?.then((s) => s.close()).catch(() => undefined);
    const keys = Array.from({ length: this.written }, (_, n) => `${this.prefix}${n}`);
    this.written = 0;
    try {
      await this.target.deleteBlocks(keys);
    } finally {
      this.target.building.delete(this.prefix);
    }
  }

  private start(chars?: number): Promise<PrepareSession> {
    this.session ??= this.target.chunking.session(
      { maxTokens: this.maxTokens, ...(this.target.pageLimits ? { limits: this.target.pageLimits } : {}) },
      { ...(this.signal ? { signal: this.signal } : {}), ...(chars === undefined ? {} : { chars }) },
    );
    return this.session;
  }

  private indexer(): IndexBuild {
    return this.target.search.indexer?.(this.key) ?? collecting(this.target.search, this.key);
  }

  /**
   * At the first batch: a session in a chunking worker and a backend build that takes its batches through a
   * channel are joined (the worker posts the chunks to the build itself).
   */
  private async pipe(session: PrepareSession): Promise<void> {
    if (this.pipeDecided) return;
    this.pipeDecided = true;
    if (!session.pipe || !this.target.search.indexer) return;
    this.index ??= this.indexer();
    const channel = await this.index.channel?.();
    if (!channel) return;
    this.piped = { session: await session.pipe(channel.port, BLOCK_CHARS), channel };
  }

  /**
   * Chunks a batch, then hands its chunks to the backend and the cache behind the next batch's chunking (at
   * most one batch in that stage: the chunking worker and the index worker work side by side).
   */
  private async batch(given: readonly DocPage[]): Promise<void> {
    if (this.over) throw new Error('the build is over');
    this.signal?.throwIfAborted();
    const session = await this.start();
    const pages = await this.converted(given);
    await this.pipe(session);
    const started = performance.now();
    const pagesIn = this.pagesIn;
    const progress = (done: number) => this.progress?.(pagesIn + done, this.received);
    if (this.piped) {
      const piped = await this.piped.session.add(pages, progress, this.kept !== undefined);
      if (piped.skipped) this.skipped.push(...piped.skipped);
      this.chunkMs += performance.now() - started;
      this.pagesIn += pages.length;
      for (const page of piped.pages) this.pages.push(page);
      this.cutter.absorb(piped);
      await this.stored;
      this.signal?.throwIfAborted();
      this.stored = this.storePiped(piped, this.piped.channel);
      this.stored.catch(() => undefined);
      return;
    }
    const prepared = await session.add(pages, progress);
    if (prepared.skipped) this.skipped.push(...prepared.skipped);
    this.chunkMs += performance.now() - started;
    this.pagesIn += pages.length;
    for (const page of prepared.pages) this.pages.push(page);
    await this.stored;
    this.signal?.throwIfAborted();
    this.stored = this.store(prepared.chunks);
    this.stored.catch(() => undefined);
  }

  /**
   * The batch with its HTML-only pages converted to markdown in the page worker (within the per-page limits and
   * time budget, off this thread); a page over a limit is left out and added to {@link skipped}. Without a page
   * worker (the TypeScript sources), the chunking session converts them, within the same limits but no budget.
   */
  private async converted(pages: readonly DocPage[]): Promise<readonly DocPage[]> {
    const converter = sharedPageConverter();
    if (!converter.threaded || !pages.some((p) => p.html && p.markdown.trim() === '')) return pages;
    const out: DocPage[] = [];
    for (const page of pages) {
      if (!page.html || page.markdown.trim() !== '') {
        out.push(page);
        continue;
      }
      try {
        const { markdown } = await converter.convert(
          { kind: 'html', text: page.html, url: page.url },
          this.signal ? { signal: this.signal } : {},
        );
        const { html: _html, ...rest } = page;
        out.push({ ...rest, markdown });
      } catch (error) {
        this.signal?.throwIfAborted();
        if (!isProContextError(error)) throw error;
        this.skipped.push({ url: page.url, code: error.code, reason: error.message });
      }
    }
    return out;
  }

  /** Indexes a batch's chunks and writes the blocks they complete. */
  private async store(chunks: StoredChunk[]): Promise<void> {
    const started = performance.now();
    this.index ??= this.indexer();
    await this.index.add(chunks.map(indexableChunk));
    this.indexMs += performance.now() - started;
    // each write encodes and stores a block on this thread: answers to other calls get a turn every few ms
    const slicer = new Slicer();
    for (const block of this.cutter.add(chunks)) {
      await slicer.turn();
      await this.write(block);
    }
    this.keep(chunks);
  }

  /** Waits for the backend to take in a piped batch (the worker sent it), and writes the blocks it completed. */
  private async storePiped(batch: PipedBatch, channel: IndexChannel): Promise<void> {
    const started = performance.now();
    await channel.taken(batch.seq);
    this.indexMs += performance.now() - started;
    const slicer = new Slicer();
    for (const block of batch.blocks) {
      await slicer.turn();
      await this.write(block);
    }
    this.keep(batch.chunks);
  }

  /** Keeps a batch's chunks while the library's chunks total under {@link KEPT_CHARS}. */
  private keep(chunks: readonly StoredChunk[] | undefined): void {
    if (this.kept === undefined) return;
    if (chunks === undefined) {
      this.kept = undefined;
      return;
    }
    for (const c of chunks) this.keptChars += c.body.length;
    if (this.keptChars < KEPT_CHARS) for (const c of chunks) this.kept.push(c);
    else this.kept = undefined;
  }

  private async write(block: readonly StoredChunk[] | Uint8Array): Promise<void> {
    const key = `${this.prefix}${this.written++}`;
    await this.target.writeBlock(key, block);
  }
}

/** The pages with the texts other pages link to them with (issue #28's page fields), as the build found them. */
function withAnchors(pages: StoredPage[], anchors: readonly PageAnchors[] | undefined): StoredPage[] {
  if (!anchors || anchors.length === 0) return pages;
  const byUrl = new Map(anchors.map((a) => [a.url, a.texts]));
  return pages.map((page) => {
    const texts = byUrl.get(page.url);
    return texts ? { ...page, anchors: texts } : page;
  });
}

function charsOf(page: DocPage): number {
  return page.markdown.length + (page.html?.length ?? 0);
}
