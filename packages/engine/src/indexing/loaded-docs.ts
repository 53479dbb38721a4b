import type { SearchBackend } from '@pro-context/kernel';
import { versionKey } from './keys.js';
import type { StoredDocsTable } from './stored-docs.js';

const MB = 1024 * 1024;

/** How many library versions, and how much of them, stay loaded. */
export interface LoadedLimits {
  maxLoadedLibraries: number;
  maxLoadedMB?: number | undefined;
}

/**
 * The library versions loaded in memory (`libraryId@version` → docs), least recently used first: at most
 * `maxLoadedLibraries` of them holding at most `maxLoadedMB` (the most recent always stays). The cache restores
 * those let go on demand; their search indexes go with them.
 */
export class LoadedDocsSet {
  private readonly loaded = new Map<string, StoredDocsTable>();
  /** Approximate bytes each library version holds (ids, pages, term index, unwritten chunks). */
  private readonly bytes = new Map<string, number>();
  private totalBytes = 0;

  constructor(
    private readonly limits: LoadedLimits,
    private readonly backend: SearchBackend,
    /** Called when docs are loaded or let go (answers may change with them). */
    private readonly onChange?: (reason: string) => void,
  ) {}

  get(key: string): StoredDocsTable | undefined {
    return this.loaded.get(key);
  }

  has(key: string): boolean {
    return this.loaded.has(key);
  }

  keys(): string[] {
    return [...this.loaded.keys()];
  }

  /** Marks docs as the most recently used. */
  touch(key: string, docs: StoredDocsTable): void {
    this.loaded.delete(key);
    this.loaded.set(key, docs);
  }

  /** Makes `docs` the loaded docs of their library version, then lets the least recently used go. */
  add(docs: StoredDocsTable): void {
    const key = versionKey(docs.key.libraryId, docs.key.version);
    this.touch(key, docs);
    this.onChange?.(`docs ${key} loaded`);
    this.account(key, docs);
  }

  /**
   * Records what `docs` holds, then lets the least recently used library versions go until within the limits.
   */
  account(key: string, docs: StoredDocsTable): void {
    if (this.loaded.get(key) !== docs) return;
    this.totalBytes -= this.bytes.get(key) ?? 0;
    const bytes = docs.bytes;
    this.bytes.set(key, bytes);
    this.totalBytes += bytes;
    const maxBytes = (this.limits.maxLoadedMB ?? Number.POSITIVE_INFINITY) * MB;
    while (this.loaded.size > 1 && (this.loaded.size > this.limits.maxLoadedLibraries || this.totalBytes > maxBytes)) {
      const oldest = this.loaded.keys().next().value as string;
      const evicted = this.loaded.get(oldest);
      this.forget(oldest);
      if (evicted) void this.backend.drop(evicted.key);
    }
  }

  /** Lets a library version go from memory. */
  forget(key: string): void {
    if (this.loaded.delete(key)) this.onChange?.(`docs ${key} dropped`);
    this.totalBytes -= this.bytes.get(key) ?? 0;
    this.bytes.delete(key);
  }

  /**
   * Lets every version of a library go from memory, and from the search backend, but those `unchanged` says are
   * still the docs stored. Returns how many went.
   */
  async forgetLibrary(
    libraryId: string,
    unchanged: (key: string, docs: StoredDocsTable) => Promise<boolean>,
  ): Promise<number> {
    let forgotten = 0;
    for (const key of this.keys().filter((k) => k.startsWith(`${libraryId}@`))) {
      const docs = this.loaded.get(key);
      if (!docs || (await unchanged(key, docs)) || this.loaded.get(key) !== docs) continue;
      this.forget(key);
      await this.backend.drop(docs.key);
      forgotten++;
    }
    return forgotten;
  }

  /** Approximate MB the loaded library versions hold. */
  megabytes(): number {
    return this.totalBytes / MB;
  }
}
