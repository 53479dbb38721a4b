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

  constructor(private readonly blockChars: number) {}

  /** Adds the next chunks; returns the blocks they completed (a block is complete once the next one starts). */
  add(chunks: Iterable<T>): T[][] {
    const done: T[][] = [];
    for (const chunk of chunks) {
      const ordinal = this.ids.length;
      this.ids.push(chunk.id);
      const last = this.runs[this.runs.length - 1];
      if (last === undefined || last[0] !== chunk.url) this.runs.push([chunk.url, ordinal]);
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
