import type { Freshness, IndexKey } from '@pro-context/kernel';
import { ChunkBlockCutter, idInRun } from '@pro-context/markdown';

/** A chunk as the engine stores it (the search backend only keeps ids). */
export interface StoredChunk {
  id: string;
  url: string;
  pageTitle: string;
  /** TOC section of the page, if any. */
  section?: string;
  headings: string[];
  anchor?: string;
  body: string;
  tokens: number;
  order: number;
}

/** A page of an indexed library, as listed in its docs record. */
export interface StoredPage {
  url: string;
  title: string;
  section?: string;
  /**
   * The texts other pages of the library link to this page with, `[text, links]`, most used first (at most 50
   * texts of at most 80 characters: `@pro-context/markdown`'s `AnchorCollector`); none when no page links here.
   */
  anchors?: [string, number][];
}

/** What is known about one indexed library version, its chunks aside. */
export interface DocsMeta {
  libraryId: string;
  version: string;
  adapterId: string;
  sourceUrl: string;
  fetchedAt: string;
  freshness: Freshness;
  /** Changes whenever the content changes; ties an index snapshot and chunk blocks to the chunks they hold. */
  revision: string;
  pages: StoredPage[];
  /**
   * Pages left out of the library because they were over a per-page limit or failed to convert (one bad page
   * never fails a library): the first {@link MAX_SKIPPED_KEPT} with why (the limit and its setting), and how many.
   */
  skipped?: { count: number; pages: { url: string; reason: string }[] };
}

/** Skipped pages whose reasons a docs record keeps (the rest are counted). */
export const MAX_SKIPPED_KEPT = 10;

/**
 * Pages of a library left out of its index over a per-page limit, as data: the first few with their reasons,
 * and how many in all. Answers of the library say so (get-docs, resolve-library; the sentences are the renderer's,
 * `tools/render-notes.ts`).
 */
export type SkippedPages = NonNullable<DocsMeta['skipped']>;

/**
 * An indexed library version as the first format persisted it (cache namespace `docs`): every chunk in one
 * record. Still read (and rewritten as a {@link DocsManifest}) when found in a cache.
 */
export interface DocsRecord extends DocsMeta {
  chunks: StoredChunk[];
}

/** Current format of the `docs` entries (3: ids written without their page's URL; 2, ids whole, is still read). */
export const DOCS_FORMAT = 3;

/**
 * An indexed library version as persisted (cache namespace `docs`): what is known about it and where its
 * chunks are. The chunks themselves are in blocks of consecutive chunks (namespace `chunks`, key
 * `<library>@<version>@<revision>#<n>`), with the chunks' term index beside them (`…#terms`), so that an
 * answer reads only the blocks of the chunks it returns.
 */
export interface DocsManifest extends DocsMeta {
  format: typeof DOCS_FORMAT;
  /**
   * Chunk ids in stored order (a chunk's position is its ordinal), each without the URL of its page (its run) when
   * it starts with it (`#setup~2`), else whole after a NUL character (`idInRun`): the URL is most of an
   * id, and a large library has tens of thousands of them (77,000 in the benchmark's 68 MB corpus).
   */
  ids: string[];
  /** The chunks of each page URL: `[url, first ordinal]`, in order; a run ends where the next one starts. */
  runs: [string, number][];
  /** Ordinal of the first chunk of each block. */
  blockStarts: number[];
  /**
   * The build the blocks were written by, when they were written batch by batch before the revision was known:
   * their keys hold it instead of the revision (see {@link blockPrefix}).
   */
  blocks?: string;
}

/** A library version ready to search, its chunks read on demand. */
export interface LoadedDocs {
  key: IndexKey;
  record: DocsMeta;
  /** Epoch ms after which the docs should be refreshed. */
  expiresAt: number | null;
  /** How many chunks the library has. */
  readonly chunkCount: number;
  /** The chunks with these ids (unknown ids are left out), with the other parts of their sections and more. */
  read(ids: readonly string[]): Promise<Map<string, StoredChunk>>;
  /** The chunks of the pages whose URL, fragment aside, is `url`'s, in stored order. */
  page(url: string): Promise<StoredChunk[]>;
  /** Every chunk, in stored order (reads them all: for tools that need the whole library, and benchmarks). */
  all(): Promise<StoredChunk[]>;
  /** Counts in how many chunks a lower-case term occurs (title, headings and body), without reading chunks. */
  termCounter(): Promise<(needle: string) => number>;
  /**
   * Ids of the chunks whose text (title, headings and body, lower-cased) contains every one of `needles`
   * (lower-case runs of `[a-z0-9_.$@-]`), in stored order, at most `limit`: found by the term index, nothing read.
   */
  containing(needles: readonly string[], limit: number): Promise<string[]>;
}

/** Characters of chunk text per block, about (a chunk never spans two blocks): an answer reads a few. */
export const BLOCK_CHARS = 8 * 1024;

/**
 * The cache key prefix of a library version's blocks: of one revision, or of one build (`blocks`, a manifest
 * whose chunks were written while they were being prepared, before the revision was known).
 */
export function blockPrefix(
  meta: Pick<DocsMeta, 'libraryId' | 'version' | 'revision'> & { blocks?: string | undefined },
): string {
  return `${meta.libraryId}@${meta.version}@${meta.blocks ?? meta.revision}#`;
}

/**
 * Cuts chunks, in stored order, into blocks as they come and keeps the manifest's ids, page runs and block
 * offsets: {@link toManifest} all at once, or a library indexed batch by batch (the same blocks either way).
 */
export class BlockCutter extends ChunkBlockCutter<StoredChunk> {
  constructor() {
    super(BLOCK_CHARS);
  }

  /**
   * Takes what a chunking worker cut of the next chunks (see `PrepareSession.pipe`): the ids, page runs and block
   * offsets it added, in the order of the chunks it was given (the same as {@link add} of those chunks keeps).
   */
  absorb(cut: { ids: readonly string[]; runs: readonly [string, number][]; blockStarts: readonly number[] }): void {
    // (the ids as the manifest writes them, without their URL: new strings here, copied from the worker's)
    for (const id of cut.ids) this.ids.push(id);
    for (const run of cut.runs) this.runs.push(run);
    for (const start of cut.blockStarts) this.blockStarts.push(start);
  }

  /** The manifest of the chunks added, with `meta`. */
  manifest(meta: DocsMeta, blocks?: string): DocsManifest {
    return {
      ...meta,
      format: DOCS_FORMAT,
      ids: this.ids,
      runs: this.runs,
      blockStarts: this.blockStarts,
      ...(blocks ? { blocks } : {}),
    };
  }
}

/** The manifest and blocks of `chunks` (in stored order). */
export function toManifest(
  meta: DocsMeta,
  chunks: readonly StoredChunk[],
): { manifest: DocsManifest; blocks: StoredChunk[][] } {
  const cutter = new BlockCutter();
  const blocks = cutter.add(chunks);
  const last = cutter.flush();
  if (last) blocks.push(last);
  return { manifest: cutter.manifest(meta), blocks };
}

/**
 * Whether a cached `docs` value is a manifest: of the current format, or of format 2 (its ids whole), which it
 * turns into the current one where it is (the value is the reader's own copy).
 */
export function isManifest(value: unknown): value is DocsManifest {
  const v = value as (Omit<Partial<DocsManifest>, 'format'> & { format?: number }) | null;
  if (
    typeof v !== 'object' ||
    v === null ||
    (v.format !== DOCS_FORMAT && v.format !== 2) ||
    !Array.isArray(v.ids) ||
    !Array.isArray(v.runs) ||
    !Array.isArray(v.blockStarts) ||
    !Array.isArray(v.pages)
  )
    return false;
  if (v.format === 2) {
    const { ids, runs } = v as DocsManifest;
    let run = 0;
    for (let ordinal = 0; ordinal < ids.length; ordinal++) {
      while (run + 1 < runs.length && (runs[run + 1]?.[1] as number) <= ordinal) run++;
      ids[ordinal] = idInRun(ids[ordinal] as string, runs[run]?.[0] ?? '');
    }
    v.format = DOCS_FORMAT;
  }
  return true;
}

/** Whether a cached `docs` value is a record of the first format (every chunk inside). */
export function isRecord(value: unknown): value is DocsRecord {
  const v = value as Partial<DocsRecord> | null;
  return typeof v === 'object' && v !== null && Array.isArray(v.chunks) && Array.isArray(v.pages);
}
