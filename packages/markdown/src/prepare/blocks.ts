/** What a {@link ChunkBlockCutter} reads of a chunk. */
export interface BlockableChunk {
  id: string;
  url: string;
  body: string;
}

/**
 * Cuts chunks, in stored order, into blocks of about `blockChars` characters of body (a chunk never spans two
 * blocks) as they come, and keeps their ids, page runs (`[url, first ordinal]`) and block offsets. The engine's
 * stored docs are written in these blocks; a chunking worker cuts them the same way where it prepares them.
 */
export class ChunkBlockCutter<T extends BlockableChunk> {
  readonly ids: string[] = [];
  readonly runs: [string, number][] = [];
  readonly blockStarts: number[] = [];
  private current: T[] | undefined;
  private chars = Number.POSITIVE_INFINITY;
  /** Chunks whose ids, runs and offsets {@link drain} handed over, and the URL of the last run it handed over. */
  private drained = 0;
  private drainedUrl: string | undefined;

  constructor(private readonly blockChars: number) {}

  /** Adds the next chunks; returns the blocks they completed (a block is complete once the next one starts). */
  add(chunks: Iterable<T>): T[][] {
    const done: T[][] = [];
    for (const chunk of chunks) {
      const ordinal = this.drained + this.ids.length;
      this.ids.push(chunk.id);
      const lastUrl = this.runs.length > 0 ? this.runs[this.runs.length - 1]?.[0] : this.drainedUrl;
      if (lastUrl !== chunk.url) this.runs.push([chunk.url, ordinal]);
      if (this.chars >= this.blockChars) {
        if (this.current) done.push(this.current);
        this.blockStarts.push(ordinal);
        this.current = [];
        this.chars = 0;
      }
      this.current?.push(chunk);
      this.chars += chunk.body.length;
    }
    return done;
  }

  /**
   * Hands over the ids, page runs and block offsets added since the last call, and forgets them (ordinals go on
   * from where they were): a cutter whose caller keeps them elsewhere (a chunking worker posting them to the
   * thread that writes the manifest) does not hold a second copy of a large library's ids.
   */
  drain(): { ids: string[]; runs: [string, number][]; blockStarts: number[] } {
    this.drained += this.ids.length;
    this.drainedUrl = this.runs[this.runs.length - 1]?.[0] ?? this.drainedUrl;
    return { ids: this.ids.splice(0), runs: this.runs.splice(0), blockStarts: this.blockStarts.splice(0) };
  }

  /** The last block, if it has chunks (then there is none). */
  flush(): T[] | undefined {
    const last = this.current;
    this.current = undefined;
    return last;
  }
}

/** A block as stored: its chunks as JSON, in UTF-8 (what the engine writes to the cache without decoding it). */
export function encodeBlock(block: readonly unknown[]): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(block));
}
