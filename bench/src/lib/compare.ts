/**
 * Retrieval quality of pro-context (over stdio, as `pnpm eval` measures it) beside three baselines over the
 * very same chunks: SQLite FTS5 BM25, MiniSearch, and an agent that navigates llms.txt to the whole page.
 */
import type { StoredChunk } from '@pro-context/engine';
import { estimateTokens } from '@pro-context/kernel';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { distinctSections, fillBudget, fts5Retriever, miniSearchRetriever, type Retriever } from './baselines.js';
import type { InProcess } from './inprocess.js';
import { findPhrase, isHit, type QuestionOutcome, summarize } from './quality.js';
import { corpusLibraries, type EvalRow, type StdioServer } from './setup.js';

/** The get-docs budgets the quality table reports. */
export const QUALITY_BUDGETS = [5000, 2000] as const;

/** One question's outcome, with the tokens returned at every budget. */
export interface Outcome extends QuestionOutcome {
  /** maxTokens → estimated tokens returned. */
  tokensAt: Record<number, number>;
}

/** One system's quality metrics. */
export interface QualityRow {
  system: string;
  questions: number;
  /** maxTokens → share of answers holding `must_contain`. */
  answerBearing: Record<number, number>;
  /** `null` where the system has no ranked search (navigation). */
  hitAt1: number | null;
  hitAt5: number | null;
  mrr: number | null;
  /** maxTokens → median estimated tokens of one answer. */
  tokensMedian: Record<number, number>;
  /** maxTokens → all tokens returned ÷ answer-bearing answers (what one found answer costs). */
  tokensPerAnswer: Record<number, number>;
}

function summarise(system: string, outcomes: Outcome[], ranked: boolean): QualityRow {
  const s = summarize(outcomes, [...QUALITY_BUDGETS]);
  const per = (b: number) => {
    const found = outcomes.filter((o) => o.answerBearing[b]).length;
    const spent = outcomes.reduce((n, o) => n + (o.tokensAt[b] ?? 0), 0);
    return found === 0 ? Number.POSITIVE_INFINITY : Math.round(spent / found);
  };
  const median = (b: number) => {
    const values = outcomes.map((o) => o.tokensAt[b] ?? 0).sort((x, y) => x - y);
    const mid = Math.floor(values.length / 2);
    return values.length % 2 ? (values[mid] ?? 0) : Math.round(((values[mid - 1] ?? 0) + (values[mid] ?? 0)) / 2);
  };
  return {
    system,
    questions: s.questions,
    answerBearing: s.answerBearing,
    hitAt1: ranked ? s.hitAt1 : null,
    hitAt5: ranked ? s.hitAt5 : null,
    mrr: ranked ? s.mrr : null,
    tokensMedian: Object.fromEntries(QUALITY_BUDGETS.map((b) => [b, median(b)])),
    tokensPerAnswer: Object.fromEntries(QUALITY_BUDGETS.map((b) => [b, per(b)])),
  };
}

/** pro-context through the stdio server: get-docs at each budget, search-docs top 10 (as bench/src/eval.ts). */
export async function proContextOutcomes(
  server: StdioServer,
  web: FakeWeb,
  rows: readonly EvalRow[],
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const row of rows) {
    const answerBearing: Record<number, boolean> = {};
    const tokensAt: Record<number, number> = {};
    for (const maxTokens of QUALITY_BUDGETS) {
      const result = await server.call('get-docs', { libraryId: row.library, topic: row.question, maxTokens });
      const content = (result.structuredContent as { content?: string } | undefined)?.content ?? '';
      answerBearing[maxTokens] = findPhrase(content, row.must_contain) >= 0;
      tokensAt[maxTokens] = estimateTokens(content);
    }
    const search = await server.call('search-docs', { libraryId: row.library, query: row.question, maxResults: 10 });
    const results = (
      (search.structuredContent as { results?: { url: string; section: string }[] } | undefined)?.results ?? []
    ).map((r) => ({ file: web.fileForUrl(r.url), headings: r.section.split(' › ') }));
    const firstHitRank = results.findIndex((r) => isHit(row, r)) + 1;
    outcomes.push({ row, answerBearing, tokensAt, tokensReturned: tokensAt[QUALITY_BUDGETS[0]] ?? 0, firstHitRank });
  }
  return outcomes;
}

/** A baseline ranking the library's chunks: get-docs fills each budget with its top 40, search lists its top 10 sections. */
export function baselineOutcomes(
  retrievers: Map<string, Retriever>,
  chunks: Map<string, Map<string, StoredChunk>>,
  web: FakeWeb,
  rows: readonly EvalRow[],
): Outcome[] {
  return rows.map((row) => {
    const retriever = retrievers.get(row.library);
    const byId = chunks.get(row.library);
    if (!retriever || !byId) throw new Error(`no baseline index for ${row.library}`);
    const ranked = retriever
      .search(row.question, 40)
      .map((id) => byId.get(id))
      .filter((c): c is StoredChunk => c !== undefined);
    const answerBearing: Record<number, boolean> = {};
    const tokensAt: Record<number, number> = {};
    for (const maxTokens of QUALITY_BUDGETS) {
      const content = fillBudget(ranked, maxTokens);
      answerBearing[maxTokens] = findPhrase(content, row.must_contain) >= 0;
      tokensAt[maxTokens] = estimateTokens(content);
    }
    const firstHitRank =
      distinctSections(ranked)
        .slice(0, 10)
        .findIndex((c) => isHit(row, { file: web.fileForUrl(c.url), headings: [c.pageTitle, ...c.headings] })) + 1;
    return { row, answerBearing, tokensAt, tokensReturned: tokensAt[QUALITY_BUDGETS[0]] ?? 0, firstHitRank };
  });
}

async function text(url: string): Promise<string> {
  const response = await fetch(url);
  return response.ok ? response.text() : '';
}

/**
 * Navigation only: the agent reads llms.txt, follows the link to the page that holds the answer and reads all
 * of it. Tokens: llms.txt + the whole page. Answer-bearing when llms.txt links that page and the page holds
 * `must_contain`. The same answer at every budget (there is no budget to respect).
 */
export async function navigationOutcomes(web: FakeWeb, rows: readonly EvalRow[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const llms = new Map<string, { text: string; links: string[] }>();
  for (const row of rows) {
    const site = corpusLibraries.find((l) => l.id === row.library)?.site ?? row.library;
    let index = llms.get(site);
    if (!index) {
      const body = await text(web.llmsTxtUrl(site));
      const links = [...body.matchAll(/\]\(([^)\s]+)\)/g)].map(
        (m) => new URL(m[1] as string, web.llmsTxtUrl(site)).href,
      );
      index = { text: body, links };
      llms.set(site, index);
    }
    const linked = index.links.find((u) => web.fileForUrl(u) === row.file);
    const pageUrl = linked ?? web.urlForFile(site, row.file);
    const page = pageUrl ? await text(pageUrl) : '';
    const found = linked !== undefined && findPhrase(page, row.must_contain) >= 0;
    const tokens = estimateTokens(index.text) + estimateTokens(page);
    const answerBearing = Object.fromEntries(QUALITY_BUDGETS.map((b) => [b, found]));
    const tokensAt = Object.fromEntries(QUALITY_BUDGETS.map((b) => [b, tokens]));
    outcomes.push({ row, answerBearing, tokensAt, tokensReturned: tokens, firstHitRank: 0 });
  }
  return outcomes;
}

/** Everything the quality table needs. */
export interface QualityReport {
  rows: QualityRow[];
  /** Per library: rows for each system. */
  byLibrary: Record<string, QualityRow[]>;
  chunks: Record<string, number>;
  /** Per system: ids of the questions whose get-docs answer at the largest budget lacks `must_contain`. */
  misses: Record<string, string[]>;
}

/** Runs the four systems on the eval rows. `server` must serve the same libraries `inProcess` loaded. */
export async function compareQuality(
  server: StdioServer,
  inProcess: InProcess,
  web: FakeWeb,
  rows: readonly EvalRow[],
): Promise<QualityReport> {
  const libraries = [...new Set(rows.map((r) => r.library))];
  const chunks = new Map<string, Map<string, StoredChunk>>();
  for (const id of libraries) chunks.set(id, await inProcess.chunkMap(id));
  const fts = new Map(
    libraries.map((id) => [id, fts5Retriever([...(chunks.get(id) as Map<string, StoredChunk>).values()])] as const),
  );
  const mini = new Map(
    libraries.map(
      (id) => [id, miniSearchRetriever([...(chunks.get(id) as Map<string, StoredChunk>).values()])] as const,
    ),
  );
  const systems: [string, Outcome[], boolean][] = [
    ['pro-context', await proContextOutcomes(server, web, rows), true],
    ['FTS5 BM25', baselineOutcomes(fts, chunks, web, rows), true],
    ['MiniSearch', baselineOutcomes(mini, chunks, web, rows), true],
    ['navigation only', await navigationOutcomes(web, rows), false],
  ];
  for (const r of [...fts.values(), ...mini.values()]) r.close();
  const byLibrary: Record<string, QualityRow[]> = {};
  for (const id of libraries) {
    byLibrary[id] = systems.map(([name, outcomes, ranked]) =>
      summarise(
        name,
        outcomes.filter((o) => o.row.library === id),
        ranked,
      ),
    );
  }
  return {
    rows: systems.map(([name, outcomes, ranked]) => summarise(name, outcomes, ranked)),
    byLibrary,
    chunks: Object.fromEntries(libraries.map((id) => [id, chunks.get(id)?.size ?? 0])),
    misses: Object.fromEntries(
      systems.map(([name, outcomes]) => [
        name,
        outcomes.filter((o) => !o.answerBearing[QUALITY_BUDGETS[0]]).map((o) => o.row.id),
      ]),
    ),
  };
}
