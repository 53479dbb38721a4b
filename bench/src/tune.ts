/**
 * Ranking experiments (not part of CI): loads the eval libraries in-process and compares rerankers of the
 * backend's candidates on hit@1 / hit@5 / MRR. Usage: node dist/tune.js
 */
import { docsEngineToken, type StoredChunk } from '@pro-context/engine';
import { searchBackendToken } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { createCodeTokenizer } from '@pro-context/plugin-orama-search';
import { startProContext } from 'pro-context';
import { isHit } from './lib/quality.js';
import { loadEvalRows, makeProject, startWeb } from './lib/setup.js';

const tokenizer = createCodeTokenizer('english');
const termsOf = (text: string) => new Set(tokenizer.queryTerms(text).map((t) => t.term));

interface Candidate {
  chunk: StoredChunk;
  bm25: number;
  rank: number;
}

type Scorer = (q: Set<string>, c: Candidate, maxBm25: number) => number;

/** Document frequency of each term over the current library's chunks. */
let df = new Map<string, number>();
let docCount = 1;
const termCache = new Map<string, Set<string>>();
function chunkTerms(c: StoredChunk, part: 'all' | 'head' | 'own' | 'title'): Set<string> {
  const key = `${c.id}|${part}`;
  let t = termCache.get(key);
  if (!t) {
    const text =
      part === 'all'
        ? `${c.headings.join(' ')} ${c.body}`
        : part === 'head'
          ? c.headings.join(' ')
          : part === 'title'
            ? c.pageTitle
            : ownHeading(c);
    t = termsOf(text);
    termCache.set(key, t);
  }
  return t;
}
const idf = (t: string) => Math.log(1 + (docCount - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
function idfCover(q: Set<string>, terms: Set<string>): number {
  let num = 0;
  let den = 0;
  for (const t of q) {
    const w = idf(t);
    den += w;
    if (terms.has(t)) num += w;
  }
  return den === 0 ? 0 : num / den;
}

function coverage(q: Set<string>, text: string): number {
  if (q.size === 0) return 0;
  const t = termsOf(text);
  let n = 0;
  for (const term of q) if (t.has(term)) n += 1;
  return n / q.size;
}

function ownHeading(c: StoredChunk): string {
  const path = c.headings[0] === c.pageTitle ? c.headings.slice(1) : c.headings;
  return path[path.length - 1] ?? c.pageTitle;
}

function proseTokens(c: StoredChunk): number {
  return Math.ceil(
    c.body
      .replace(/```[\s\S]*?```/g, '')
      .replace(/^#.*$/gm, '')
      .trim().length / 4,
  );
}

/** Idf-weighted share of the heading's terms that the query contains: does this heading describe the question? */
function headPrecision(q: Set<string>, terms: Set<string>): number {
  let num = 0;
  let den = 0;
  for (const t of terms) {
    const w = idf(t);
    den += w;
    if (q.has(t)) num += w;
  }
  return den === 0 ? 0 : num / den;
}
const sum3: Scorer = (q, c, max) => idfCover(q, chunkTerms(c.chunk, 'all')) + 0.3 * (c.bm25 / max);
const isNotes = (c: StoredChunk) => /release notes|changelog/i.test(c.pageTitle);
const sum3own: Scorer = (q, c, max) =>
  idfCover(q, chunkTerms(c.chunk, 'all')) +
  0.3 * (c.bm25 / max) +
  0.15 * idfCover(q, chunkTerms(c.chunk, 'own')) -
  (isNotes(c.chunk) ? 0.3 : 0);
const words = (c: StoredChunk) =>
  (
    c.body
      .replace(/```[\s\S]*?```/g, ' ')
      .replace(/^#.*$/gm, ' ')
      .match(/[A-Za-z]{2,}/g) ?? []
  ).length;
const scorers: Record<string, Scorer> = {
  thin20a: (_q, c) => c.bm25 - (words(c.chunk) < 20 ? 0.2 : 0),
  thin20b: (_q, c) => c.bm25 - (words(c.chunk) < 20 ? 0.4 : 0),
  thin40a: (_q, c) => c.bm25 - (words(c.chunk) < 40 ? 0.2 : 0),
  thin40b: (_q, c) => c.bm25 - (words(c.chunk) < 40 ? 0.4 : 0),
  thinLog: (_q, c) => c.bm25 * Math.min(1, 0.6 + 0.1 * Math.log2(1 + words(c.chunk))),
  hp2: (q, c, max) => sum3(q, c, max) + 0.2 * headPrecision(q, chunkTerms(c.chunk, 'own')),
  hp3: (q, c, max) => sum3(q, c, max) + 0.3 * headPrecision(q, chunkTerms(c.chunk, 'own')),
  hp5: (q, c, max) => sum3(q, c, max) + 0.5 * headPrecision(q, chunkTerms(c.chunk, 'own')),
  hpp3: (q, c, max) =>
    sum3(q, c, max) +
    0.3 * headPrecision(q, chunkTerms(c.chunk, 'own')) +
    0.15 * headPrecision(q, chunkTerms(c.chunk, 'title')),
  hph3: (q, c, max) => sum3(q, c, max) + 0.3 * headPrecision(q, chunkTerms(c.chunk, 'head')),
  sum3own,
  sum3n: (q, c, max) => idfCover(q, chunkTerms(c.chunk, 'all')) + 0.3 * (c.bm25 / max) - (isNotes(c.chunk) ? 0.3 : 0),
  pg02: sum3own,
  pg04: sum3own,
  pg06: sum3own,
  pg10: sum3own,
  prod2: (q, c, max) => (c.bm25 / max) * idfCover(q, chunkTerms(c.chunk, 'all')) ** 2,
  prod3: (q, c, max) => (c.bm25 / max) * idfCover(q, chunkTerms(c.chunk, 'all')) ** 3,
  sum3: (q, c, max) => idfCover(q, chunkTerms(c.chunk, 'all')) + 0.3 * (c.bm25 / max),
  sum5: (q, c, max) => idfCover(q, chunkTerms(c.chunk, 'all')) + 0.5 * (c.bm25 / max),
  idfc: (q, c, max) => idfCover(q, chunkTerms(c.chunk, 'all')) + 0.01 * (c.bm25 / max),
  idfch: (q, c, max) =>
    idfCover(q, chunkTerms(c.chunk, 'all')) + 0.3 * idfCover(q, chunkTerms(c.chunk, 'head')) + 0.01 * (c.bm25 / max),
  idfch2: (q, c, max) =>
    idfCover(q, chunkTerms(c.chunk, 'all')) +
    0.2 * idfCover(q, chunkTerms(c.chunk, 'head')) +
    0.2 * idfCover(q, chunkTerms(c.chunk, 'own')) +
    0.05 * (c.bm25 / max),
  idfch3: (q, c, max) =>
    idfCover(q, chunkTerms(c.chunk, 'all')) + 0.3 * idfCover(q, chunkTerms(c.chunk, 'head')) + 0.15 * (c.bm25 / max),
  bm25: (_q, c) => c.bm25,
  cover: (q, c, max) => coverage(q, `${c.chunk.headings.join(' ')} ${c.chunk.body}`) + 0.01 * (c.bm25 / max),
  mix1: (q, c, max) =>
    0.4 * (c.bm25 / max) +
    0.4 * coverage(q, `${c.chunk.headings.join(' ')} ${c.chunk.body}`) +
    0.2 * coverage(q, ownHeading(c.chunk)),
  mix2: (q, c, max) =>
    0.3 * (c.bm25 / max) +
    0.4 * coverage(q, `${c.chunk.headings.join(' ')} ${c.chunk.body}`) +
    0.2 * coverage(q, ownHeading(c.chunk)) +
    0.1 * coverage(q, c.chunk.headings.join(' ')) -
    (proseTokens(c.chunk) < 30 ? 0.3 : 0),
  mix3: (q, c, max) =>
    0.3 * (c.bm25 / max) +
    0.5 * coverage(q, `${c.chunk.headings.join(' ')} ${c.chunk.body}`) +
    0.2 * coverage(q, c.chunk.headings.join(' ')) -
    (proseTokens(c.chunk) < 30 ? 0.3 : 0),
};

async function main() {
  const rows = loadEvalRows();
  const web = await startWeb();
  const project = makeProject(web, {
    ...(process.env.SEARCH ? { search: JSON.parse(process.env.SEARCH) } : {}),
    ...(process.env.ENGINE ? { engine: JSON.parse(process.env.ENGINE) } : {}),
  });
  const kernel = await startProContext({ configFile: project.configFile, logger: createSilentLogger(), env: {} });
  const engine = kernel.resolve(docsEngineToken);
  const backend = kernel.resolve(searchBackendToken);
  const stats = Object.fromEntries(
    Object.keys(scorers).map((k) => [k, { h1: 0, h5: 0, mrr: 0, h1lib: {} as Record<string, number> }]),
  );
  for (const row of rows) {
    const loaded = await engine.loadDocs(row.library, 'latest');
    const chunkMap = new Map((await loaded.docs.all()).map((c) => [c.id, c]));
    if ((df as unknown as { lib?: string }).lib !== row.library) {
      df = new Map();
      docCount = chunkMap.size;
      for (const c of chunkMap.values()) for (const t of chunkTerms(c, 'all')) df.set(t, (df.get(t) ?? 0) + 1);
      (df as unknown as { lib?: string }).lib = row.library;
    }
    const { hits } = await backend.search(loaded.docs.key, row.question, {
      limit: Number(process.env.CANDIDATES ?? 60),
    });
    const candidates: Candidate[] = hits
      .map((h, i) => ({ chunk: chunkMap.get(h.id) as StoredChunk, bm25: h.score, rank: i }))
      .filter((c) => c.chunk);
    const q = termsOf(row.question);
    const max = candidates[0]?.bm25 ?? 1;
    for (const [name, score0] of Object.entries(scorers)) {
      let score = score0;
      if (name.startsWith('pg')) {
        const base = new Map(candidates.map((c) => [c, score0(q, c, max)]));
        const page = new Map<string, number[]>();
        for (const [c, v] of base) page.set(c.chunk.url, [...(page.get(c.chunk.url) ?? []), v]);
        const pageScore = new Map(
          [...page].map(([u, vs]) => [
            u,
            vs
              .sort((a, b) => b - a)
              .slice(0, 3)
              .reduce((x, y) => x + y, 0),
          ]),
        );
        const maxPage = Math.max(...pageScore.values(), 1e-9);
        const lambda = Number(name.slice(2, 4)) / 10;
        score = (_q, c) => (base.get(c) ?? 0) + lambda * ((pageScore.get(c.chunk.url) ?? 0) / maxPage);
      }
      const ordered = [...candidates].sort((a, b) => score(q, b, max) - score(q, a, max));
      const seen = new Set<string>();
      const dedup = ordered.filter((c) => {
        const k = `${c.chunk.url}#${c.chunk.anchor}`;
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      });
      const rank =
        dedup.findIndex((c) => isHit(row, { file: web.fileForUrl(c.chunk.url), headings: c.chunk.headings })) + 1;
      const s = stats[name]!;
      if (rank === 1) {
        s.h1 += 1;
        s.h1lib[row.library] = (s.h1lib[row.library] ?? 0) + 1;
      }
      if (rank >= 1 && rank <= 5) s.h5 += 1;
      if (rank > 0) s.mrr += 1 / rank;
      if (process.argv.includes(`--show=${name}`) && rank !== 1) {
        console.log(`${row.id} rank=${rank} q=${row.question} want=${row.heading}`);
        for (const c of dedup.slice(0, 3))
          console.log(
            `   ${score(q, c, max).toFixed(3)} ${c.chunk.headings.join(' › ')} [${web.fileForUrl(c.chunk.url)}]`,
          );
      }
    }
  }
  for (const [name, s] of Object.entries(stats)) {
    console.log(
      `${name.padEnd(8)} hit@1 ${((s.h1 / rows.length) * 100).toFixed(1)}%  hit@5 ${((s.h5 / rows.length) * 100).toFixed(1)}%  MRR ${(s.mrr / rows.length).toFixed(3)}  ${JSON.stringify(s.h1lib)}`,
    );
  }
  await kernel.stop();
  await web.close();
  project.cleanup();
}

await main();
