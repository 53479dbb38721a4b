/**
 * The retrieval baselines the benchmark sets beside pro-context, built over the very chunks pro-context
 * indexed: SQLite FTS5 BM25 (`porter unicode61`), MiniSearch with its usual options, and the budget rule
 * pro-context's get-docs uses (the engine's own `fillBudget`), so that a baseline's "get-docs" is the same packing of its own ranking.
 */
import { chunkUrl, fillBudget as engineFillBudget, type StoredChunk } from '@pro-context/engine';
import Database from 'better-sqlite3';
import MiniSearch from 'minisearch';

/** A ranked retriever over one library's chunks. */
export interface Retriever {
  /** Name shown in the tables. */
  readonly name: string;
  /** Chunk ids, best first. */
  search(query: string, limit: number): string[];
  /** Frees what the index holds. */
  close(): void;
}

/** The words of a query, as FTS5 string literals joined by OR (any term may match, BM25 ranks). */
export function fts5Query(text: string): string {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(words.map((w) => w.toLowerCase()))].map((w) => `"${w}"`).join(' OR ');
}

/** SQLite FTS5, `tokenize='porter unicode61'`, ranked by `bm25()` with the headings column weighted as the body. */
export function fts5Retriever(chunks: readonly StoredChunk[]): Retriever & { db: Database.Database } {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE chunks USING fts5(id UNINDEXED, headings, body, tokenize='porter unicode61')`);
  const insert = db.prepare('INSERT INTO chunks(id, headings, body) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (const c of chunks) insert.run(c.id, [c.pageTitle, ...c.headings].join(' \n '), c.body);
  })();
  const select = db.prepare<[string, number], { id: string }>(
    'SELECT id FROM chunks WHERE chunks MATCH ? ORDER BY bm25(chunks) LIMIT ?',
  );
  return {
    name: 'FTS5 BM25',
    db,
    search(query, limit) {
      const match = fts5Query(query);
      return match ? select.all(match, limit).map((r) => r.id) : [];
    },
    close: () => db.close(),
  };
}

/** MiniSearch over title, headings and body: prefix and fuzzy (0.2) matching, headings boosted 2x, OR of terms. */
export function miniSearchRetriever(chunks: readonly StoredChunk[]): Retriever & { index: MiniSearch } {
  const index = new MiniSearch<{ id: string; title: string; headings: string; body: string }>({
    fields: ['title', 'headings', 'body'],
    storeFields: [],
    searchOptions: { boost: { headings: 2 }, prefix: true, fuzzy: 0.2 },
  });
  index.addAll(chunks.map((c) => ({ id: c.id, title: c.pageTitle, headings: c.headings.join(' '), body: c.body })));
  return {
    name: 'MiniSearch',
    index,
    search: (query, limit) =>
      index
        .search(query)
        .slice(0, limit)
        .map((r) => String(r.id)),
    close: () => index.removeAll(),
  };
}

/** get-docs' budget rule, the engine's own: chunks in rank order while they fit, the first one cut if needed. */
export function fillBudget(ranked: readonly StoredChunk[], maxTokens: number): string {
  return engineFillBudget(
    ranked.map((chunk) => ({ chunk, score: 0, coverage: 0 })),
    maxTokens,
  ).content;
}

/** Ranked chunks with one entry per `url#anchor`, as search-docs lists them. */
export function distinctSections(chunks: readonly StoredChunk[]): StoredChunk[] {
  const seen = new Set<string>();
  return chunks.filter((c) => {
    const key = chunkUrl(c);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
