/** What a {@link ChunkBlockCutter} reads of a chunk. */
export interface BlockableChunk {
  id: string;
  url: string;
  body: string;
}

/** Marks an id kept whole by {@link idInRun} (it does not start with its chunk's URL). */
const WHOLE = '\u0000';

/**
 * How a chunk's id is kept beside its page run (a manifest's `ids`): without its chunk's URL, which it starts with
 * and which is most of it (`#setup~2` for `https://…/guide#setup~2`), or whole after a NUL character when it does not
 * start with it. A new string, not a slice holding on to the whole id.
 */
export function idInRun(id: string, url: string): string {
  const kept = id.startsWith(url) && id.charCodeAt(url.length) !== 0 ? id.slice(url.length) : `${WHOLE}${id}`;
  // (V8 makes a longer slice a view of the string it was cut from; a slice of a string built here holds only that)
  return kept.length < 13 ? kept : `${kept} `.slice(0, -1);
}

/** The id {@link idInRun} kept as `kept` for a chunk of the page at `url`. */
export function idFromRun(kept: string, url: string): string {
  return kept.charCodeAt(0) === 0 ? kept.slice(1) : `${url}${kept}`;
}

/**
 * Cuts chunks, in stored order, into blocks of about `blockChars` characters of body (a chunk never spans two
 * blocks) as they come, and keeps their ids (without their URL: {@link idInRun}), page runs
 * (`[url, first ordinal]`) and block offsets. The engine's stored docs are written in these blocks; a chunking
 * worker cuts them the same way where it prepares them.
 */
export class ChunkBlockCutter<T extends BlockableChunk> {
  /** The chunks' ids as {@link idInRun} keeps them, in order. */
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
      this.ids.push(idInRun(chunk.id, chunk.url));
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
