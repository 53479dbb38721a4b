import type { IndexableChunk, IndexKey, SearchBackend, SearchOptions, SearchResults } from '@pro-context/kernel';

const tokenize = (text: string) => text.toLowerCase().match(/[a-z0-9_]+/g) ?? [];
const keyOf = (key: IndexKey) => `${key.libraryId}@${key.version}`;

/**
 * A tiny term-overlap `SearchBackend` for tests of code that needs *a* backend: a chunk scores the number
 * of query terms it contains (heading terms count double). Deterministic, no dependencies.
 */
export class TermSearchBackend implements SearchBackend {
  readonly id = 'term-search';
  private readonly indexes = new Map<string, { id: string; head: Set<string>; body: Set<string> }[]>();

  async index(key: IndexKey, chunks: IndexableChunk[]): Promise<void> {
    this.indexes.set(
      keyOf(key),
      chunks.map((c) => ({
        id: c.id,
        head: new Set(tokenize(`${c.title} ${c.headings.join(' ')}`)),
        body: new Set(tokenize(c.body)),
      })),
    );
  }

  async search(key: IndexKey, query: string, options: SearchOptions = {}): Promise<SearchResults> {
    const terms = [...new Set(tokenize(query))];
    const scored = (this.indexes.get(keyOf(key)) ?? [])
      .map((doc) => ({
        id: doc.id,
        score: terms.reduce((sum, t) => sum + (doc.head.has(t) ? 2 : 0) + (doc.body.has(t) ? 1 : 0), 0),
      }))
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
    return { hits: scored.slice(0, options.limit ?? 10), total: scored.length };
  }

  async has(key: IndexKey): Promise<boolean> {
    return this.indexes.has(keyOf(key));
  }

  async drop(key: IndexKey): Promise<void> {
    this.indexes.delete(keyOf(key));
  }

  async snapshot(key: IndexKey): Promise<Uint8Array | null> {
    const index = this.indexes.get(keyOf(key));
    if (!index) return null;
    const plain = index.map((d) => ({ id: d.id, head: [...d.head], body: [...d.body] }));
    return new TextEncoder().encode(JSON.stringify({ format: 'term-search/1', docs: plain }));
  }

  async restore(key: IndexKey, snapshot: Uint8Array): Promise<boolean> {
    try {
      const parsed = JSON.parse(new TextDecoder().decode(snapshot)) as {
        format?: string;
        docs: { id: string; head: string[]; body: string[] }[];
      };
      if (parsed.format !== 'term-search/1') return false;
      this.indexes.set(
        keyOf(key),
        parsed.docs.map((d) => ({ id: d.id, head: new Set(d.head), body: new Set(d.body) })),
      );
      return true;
    } catch {
      return false;
    }
  }
}
