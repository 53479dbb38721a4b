/**
 * The retrieval baselines the benchmark sets beside pro-context, built over the very chunks pro-context
 * indexed: SQLite FTS5 BM25 (`porter unicode61`), MiniSearch with its usual options, and the budget rule
 * pro-context's get-docs uses, mirrored so that a baseline's "get-docs" is the same packing of its own ranking.
 */
import type { StoredChunk } from '@pro-context/engine';
import { charsForTokens, estimateTokens } from '@pro-context/kernel';
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

/** The chunk's URL with its heading anchor (as pro-context's answers cite it). */
export function chunkUrl(chunk: StoredChunk): string {
  return chunk.anchor ? `${chunk.url}#${chunk.anchor}` : chunk.url;
}

/** The section path pro-context shows: the page title, then the headings below it. */
export function sectionPath(chunk: StoredChunk): string {
  const path = chunk.headings[0] === chunk.pageTitle ? chunk.headings.slice(1) : chunk.headings;
  return [chunk.pageTitle, ...path].join(' › ');
}

function cutAtBoundary(markdown: string, tokens: number): string {
  const limit = charsForTokens(tokens);
  if (markdown.length <= limit) return markdown;
  let out = '';
  let inFence = false;
  let lastSafe = 0;
  for (const line of markdown.split('\n')) {
    if (out.length + line.length + 1 > limit) break;
    out += `${line}\n`;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (!inFence && (line.trim() === '' || /^#{1,6}\s/.test(line))) lastSafe = out.length;
  }
  if (lastSafe > 0) return out.slice(0, lastSafe).trimEnd();
  return inFence ? `${out.trimEnd()}\n\`\`\`` : out.trimEnd();
}

/**
 * get-docs' budget rule (packages/engine/src/core/ranking.ts `fillBudget`, which the engine does not export):
 * chunks in rank order, each with its section/URL label, while they fit; the first one cut at a paragraph
 * boundary when even it does not fit; stop when less than 60 tokens are left.
 */
export function fillBudget(ranked: readonly StoredChunk[], maxTokens: number): string {
  const parts: string[] = [];
  let spent = 0;
  for (const chunk of ranked) {
    const label = `<!-- ${sectionPath(chunk)} — ${chunkUrl(chunk)} -->\n`;
    const cost = estimateTokens(label) + chunk.tokens + 1;
    if (spent + cost <= maxTokens) {
      parts.push(`${label}${chunk.body.trim()}`);
      spent += cost;
    } else if (parts.length === 0) {
      const cut = cutAtBoundary(chunk.body, maxTokens - estimateTokens(label) - 20);
      if (cut) {
        parts.push(
          `${label}${cut}\n\n[Section truncated to fit maxTokens. Use read-page on ${chunkUrl(chunk)} for all of it.]`,
        );
        spent = maxTokens;
      }
    }
    if (maxTokens - spent < 60) break;
  }
  return parts.join('\n\n---\n\n');
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
