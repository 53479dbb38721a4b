import type { IndexKey, ProContextError } from '@pro-context/kernel';
import { chunkTermIndex, idFromRun, idInRun, TermIndex } from '@pro-context/markdown';
import { engineMessages } from '../tools/render-errors.js';
import { blockPrefix, type DocsManifest, type DocsMeta, type LoadedDocs, type StoredChunk } from './docs-format.js';

export type {
  DocsManifest,
  DocsMeta,
  DocsRecord,
  LoadedDocs,
  SkippedPages,
  StoredChunk,
  StoredPage,
} from './docs-format.js';
export {
  BLOCK_CHARS,
  BlockCutter,
  blockPrefix,
  DOCS_FORMAT,
  isManifest,
  isRecord,
  MAX_SKIPPED_KEPT,
  toManifest,
} from './docs-format.js';

/** Where a {@link StoredDocsTable} reads its blocks and term index from. */
export interface BlockSource {
  /** A block of chunks; `undefined` when it is gone from the cache. */
  block(key: string): Promise<StoredChunk[] | undefined>;
  /** The term index bytes; `undefined` when gone. */
  terms(key: string): Promise<Uint8Array | undefined>;
  /** Called when a block or the term index is missing: the docs cannot answer and must be built again. */
  missing(docs: StoredDocsTable): void;
  /** Called when what the docs hold in memory changed size. */
  resized(docs: StoredDocsTable): void;
}

/** Needle lookups a loaded library remembers. */
const LOOKUPS_KEPT = 256;

/** Index of the last element of ascending `starts` that is <= `value` (0 when none is). */
function floorIndex(starts: readonly number[], value: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * {@link LoadedDocs} over a {@link DocsManifest}: holds the ids, page runs and block offsets, and reads chunks
 * block by block from the cache. Just after a build, before the blocks are written, the chunks are held
 * (`pending`) and served from memory; {@link settle} lets them go.
 */
export class StoredDocsTable implements LoadedDocs {
  readonly key: IndexKey;
  readonly record: DocsMeta;
  /**
   * The page runs of each URL (indexes into the manifest's runs): a chunk's id begins with its page's URL, so an id
   * is found among a few chunks without a map of every id (77,000 of them for the benchmark's 68 MB corpus).
   */
  private readonly runsOf = new Map<string, number[]>();
  /** Every id's ordinal, built only if an id is ever not found by its URL (ids of another form). */
  private ordinals: Map<string, number> | undefined;
  private readonly runStarts: number[];
  private terms: TermIndex | undefined;
  private termsLoading: Promise<TermIndex> | undefined;
  /** Chunks holding each needle looked up lately ({@link containing}). */
  private readonly lookups = new Map<string, number[]>();

  constructor(
    private readonly manifest: DocsManifest,
    public expiresAt: number | null,
    private readonly source: BlockSource,
    private pending?: readonly StoredChunk[],
    terms?: TermIndex,
  ) {
    const { ids: _ids, runs: _runs, blockStarts: _blocks, format: _format, blocks: _build, ...meta } = manifest;
    this.record = meta;
    this.key = { libraryId: manifest.libraryId, version: manifest.version };
    manifest.runs.forEach(([url], run) => {
      const runs = this.runsOf.get(url);
      if (runs === undefined) this.runsOf.set(url, [run]);
      else runs.push(run);
    });
    this.runStarts = manifest.runs.map((r) => r[1]);
    this.terms = terms;
  }

  get chunkCount(): number {
    return this.manifest.ids.length;
  }

  /** The blocks' key prefix. */
  get prefix(): string {
    return blockPrefix(this.manifest);
  }

  /** Blocks the docs are stored in. */
  get blockCount(): number {
    return this.manifest.blockStarts.length;
  }

  /** Bytes held in memory, roughly: ids, page list, term index, and chunks not yet written to the cache. */
  get bytes(): number {
    let bytes = 64 * this.manifest.ids.length + 96 * this.manifest.pages.length + (this.terms?.bytes ?? 0);
    for (const id of this.manifest.ids) bytes += 2 * id.length;
    for (const c of this.pending ?? []) bytes += 2 * (c.body.length + c.pageTitle.length) + 160;
    return bytes;
  }

  /** The chunks are in the cache now: they leave memory. */
  settle(): void {
    if (this.pending === undefined) return;
    this.pending = undefined;
    this.source.resized(this);
  }

  async read(ids: readonly string[]): Promise<Map<string, StoredChunk>> {
    const byOrdinal = new Map<number, StoredChunk>();
    const wanted: number[] = [];
    for (const id of ids) {
      const ordinal = this.ordinalOf(id);
      if (ordinal !== undefined) wanted.push(ordinal);
    }
    await this.fill(byOrdinal, wanted);
    // with the other parts of their sections (same page, same headings), which the chunker writes one after the
    // other: neighbours are read until a chunk of another section
    const sameSection = (a: StoredChunk, b: StoredChunk | undefined) =>
      b !== undefined && a.url === b.url && a.headings.join('\u0001') === b.headings.join('\u0001');
    for (const ordinal of wanted) {
      const chunk = byOrdinal.get(ordinal);
      if (chunk === undefined) continue;
      for (const step of [-1, 1]) {
        for (let next = ordinal + step; next >= 0 && next < this.chunkCount; next += step) {
          if (!byOrdinal.has(next)) await this.fill(byOrdinal, [next]);
          if (!sameSection(chunk, byOrdinal.get(next))) break;
        }
      }
    }
    const out = new Map<string, StoredChunk>();
    for (const ordinal of [...byOrdinal.keys()].sort((a, b) => a - b)) {
      const chunk = byOrdinal.get(ordinal) as StoredChunk;
      out.set(chunk.id, chunk);
    }
    return out;
  }

  /**
   * The first ordinal of a chunk id: looked for in the runs of its page, whose URL is the id up to a `#` or a `~` (or
   * all of it; a URL may hold either itself, so each cut is tried); an id that names no page of these docs, in a
   * map of every id (built then: chunk ids of another form).
   */
  private ordinalOf(id: string): number | undefined {
    const ids = this.manifest.ids;
    let found: number | undefined;
    let page = false;
    for (let cut = id.length; cut > 0; ) {
      const url = id.slice(0, cut);
      const runs = this.runsOf.get(url);
      if (runs !== undefined) page = true;
      // as the manifest writes the id in a run of the page at `url`
      const written = runs === undefined ? '' : idInRun(id, url);
      for (const run of runs ?? []) {
        const end = Math.min(this.runEnd(run), found ?? Number.POSITIVE_INFINITY);
        for (let ordinal = this.runStarts[run] as number; ordinal < end; ordinal++) {
          if (ids[ordinal] === written) {
            found = ordinal;
            break;
          }
        }
      }
      cut = Math.max(id.lastIndexOf('#', cut - 1), id.lastIndexOf('~', cut - 1));
    }
    // (an id naming a page of these docs but none of its chunks is not theirs)
    if (found !== undefined || page) return found;
    if (this.ordinals === undefined) {
      const ordinals = new Map<string, number>();
      for (let ordinal = 0; ordinal < ids.length; ordinal++) {
        const known = this.idAt(ordinal);
        if (!ordinals.has(known)) ordinals.set(known, ordinal);
      }
      this.ordinals = ordinals;
    }
    return this.ordinals.get(id);
  }

  /** The id of the chunk at `ordinal`. */
  private idAt(ordinal: number): string {
    const run = floorIndex(this.runStarts, ordinal);
    return idFromRun(this.manifest.ids[ordinal] as string, this.manifest.runs[run]?.[0] ?? '');
  }

  /** Reads the blocks holding `ordinals` into `into` (every chunk of each block). */
  private async fill(into: Map<number, StoredChunk>, ordinals: readonly number[]): Promise<void> {
    const starts = this.manifest.blockStarts;
    const blocks = new Set<number>();
    for (const ordinal of ordinals) if (!into.has(ordinal)) blocks.add(floorIndex(starts, ordinal));
    for (const b of [...blocks].sort((x, y) => x - y)) {
      const first = starts[b] as number;
      const end = b + 1 < starts.length ? (starts[b + 1] as number) : this.chunkCount;
      const chunks = await this.range(first, end);
      for (const [i, chunk] of chunks.entries()) into.set(first + i, chunk);
    }
  }

  async page(url: string): Promise<StoredChunk[]> {
    const base = url.split('#')[0];
    const out: StoredChunk[] = [];
    for (const [run, [runUrl]] of this.manifest.runs.entries()) {
      if (runUrl.split('#')[0] === base)
        out.push(...(await this.range(this.runStarts[run] as number, this.runEnd(run))));
    }
    return out;
  }

  async all(): Promise<StoredChunk[]> {
    return this.range(0, this.chunkCount);
  }

  async termCounter(): Promise<(needle: string) => number> {
    const terms = await this.termIndex();
    return (needle) => terms.documentFrequency(needle);
  }

  async containing(needles: readonly string[], limit: number): Promise<string[]> {
    if (needles.length === 0 || limit <= 0) return [];
    const terms = await this.termIndex();
    // the rarest needle first: every other one only filters its chunks
    const lists = needles
      .map((needle) => {
        // the same identifiers come back query after query: a lookup scans the whole vocabulary
        let list = this.lookups.get(needle);
        if (list === undefined) {
          list = terms.chunksWith(needle);
          if (this.lookups.size >= LOOKUPS_KEPT) this.lookups.clear();
          this.lookups.set(needle, list);
        }
        return list;
      })
      .sort((a, b) => a.length - b.length);
    const rest = lists.slice(1).map((list) => new Set(list));
    const out: string[] = [];
    for (const ordinal of lists[0] ?? []) {
      if (!rest.every((set) => set.has(ordinal))) continue;
      out.push(this.idAt(ordinal));
      if (out.length >= limit) break;
    }
    return out;
  }

  private async termIndex(): Promise<TermIndex> {
    if (this.terms !== undefined) return this.terms;
    this.termsLoading ??= this.loadTerms().finally(() => {
      this.termsLoading = undefined;
    });
    return this.termsLoading;
  }

  private async loadTerms(): Promise<TermIndex> {
    const bytes = this.pending === undefined ? await this.source.terms(`${this.prefix}terms`) : undefined;
    const index = bytes === undefined ? undefined : TermIndex.read(bytes);
    if (index !== undefined) {
      this.terms = index;
      this.source.resized(this);
      return index;
    }
    if (this.pending !== undefined) {
      // not written yet (docs of the first format being rewritten): counted from the chunks in memory
      const built = TermIndex.read(await this.termIndexBytes()) as TermIndex;
      this.terms = built;
      return built;
    }
    this.source.missing(this);
    throw gone(this.record);
  }

  /** The term index of the chunks in memory (docs of the first format, before they are written as blocks). */
  async termIndexBytes(): Promise<Uint8Array> {
    return chunkTermIndex(this.pending ?? (await this.all()));
  }

  private runEnd(run: number): number {
    return run + 1 < this.runStarts.length ? (this.runStarts[run + 1] as number) : this.chunkCount;
  }

  /** Chunks `from` (inclusive) to `to` (exclusive) by ordinal. */
  private async range(from: number, to: number): Promise<StoredChunk[]> {
    if (this.pending !== undefined) return this.pending.slice(from, to);
    const starts = this.manifest.blockStarts;
    const out: StoredChunk[] = [];
    for (let b = floorIndex(starts, from); b < starts.length && (starts[b] as number) < to; b++) {
      const block = await this.source.block(`${this.prefix}${b}`);
      if (block === undefined) {
        this.source.missing(this);
        throw gone(this.record);
      }
      const first = starts[b] as number;
      for (let i = Math.max(from, first); i < Math.min(to, first + block.length); i++)
        out.push(block[i - first] as StoredChunk);
    }
    return out;
  }
}

/** The error of docs whose blocks left the cache: the next call builds them again. */
function gone(meta: DocsMeta): ProContextError {
  return engineMessages.create('DOCS_GONE', { libraryId: meta.libraryId, version: meta.version }, { retryAfter: 2 });
}
