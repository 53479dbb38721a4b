/**
 * The indexes a search backend holds in memory, least recently used first, with the bytes they hold, and the
 * build generation of each key: a build or a restore that began under an older generation of its key (a newer
 * build, a drop came since) is superseded and must not install its index.
 */
export class LoadedIndexes<T> {
  private readonly loaded = new Map<string, T>();
  private readonly generations = new Map<string, number>();
  private bytes = 0;

  /**
   * @param sizeOf - the bytes an entry holds (0 when the backend bounds the count only).
   * @param over - whether the loaded indexes exceed the backend's limits (count, bytes); the least recently
   *   used are dropped while it says so.
   * @param evicted - told of each entry dropped to stay within the limits.
   */
  constructor(
    private readonly options: {
      sizeOf?: (entry: T) => number;
      over: (loaded: LoadedIndexes<T>) => boolean;
      evicted?: (id: string, entry: T) => void;
    },
  ) {}

  /** Indexes loaded. */
  get size(): number {
    return this.loaded.size;
  }

  /** Bytes the loaded indexes hold (by `sizeOf`). */
  get totalBytes(): number {
    return this.bytes;
  }

  /** Starts a new generation of `id` (a build, a restore, a drop): whatever began under an older one is superseded. */
  bump(id: string): number {
    const next = (this.generations.get(id) ?? 0) + 1;
    this.generations.set(id, next);
    return next;
  }

  /** The current generation of `id` (undefined before its first). */
  generation(id: string): number | undefined {
    return this.generations.get(id);
  }

  /** Whether `generation` is still the current one of `id`. */
  isCurrent(id: string, generation: number | undefined): boolean {
    return this.generations.get(id) === generation;
  }

  has(id: string): boolean {
    return this.loaded.has(id);
  }

  /** The entry, without marking it used. */
  get(id: string): T | undefined {
    return this.loaded.get(id);
  }

  /** The entry, marked most recently used. */
  touch(id: string): T | undefined {
    const entry = this.loaded.get(id);
    if (entry !== undefined) {
      this.loaded.delete(id);
      this.loaded.set(id, entry);
    }
    return entry;
  }

  /** Keys, least recently used first. */
  keys(): IterableIterator<string> {
    return this.loaded.keys();
  }

  /** Drops the entry of `id`, if loaded. */
  remove(id: string): void {
    const entry = this.loaded.get(id);
    if (entry === undefined) return;
    this.loaded.delete(id);
    this.bytes -= this.options.sizeOf?.(entry) ?? 0;
  }

  /** Installs `entry` as the most recently used index of `id`, then keeps within the limits. */
  install(id: string, entry: T): void {
    this.remove(id);
    this.loaded.set(id, entry);
    this.bytes += this.options.sizeOf?.(entry) ?? 0;
    this.evict(id);
  }

  /** Records that the entry of `id` grew or shrank by `delta` bytes, then keeps within the limits. */
  resized(id: string, delta: number): void {
    this.bytes += delta;
    this.evict(id);
  }

  /** Drops least recently used indexes while over the limits; `keep` (the one just used) always stays. */
  private evict(keep: string): void {
    for (const [id, entry] of this.loaded) {
      if (!this.options.over(this)) break;
      if (id === keep) continue;
      this.remove(id);
      this.options.evicted?.(id, entry);
    }
  }
}
