/**
 * Cut-off laboratory (not part of CI): the engine's get-docs candidates for every eval question, computed once,
 * then get-docs' relevance cut-off ({@link selectRelevant}) replayed with other parameters, reporting answer-bearing
 * at 5000/2000/1000 tokens and the median tokens returned at 5000, on all questions and on odd/even ids.
 *
 * The candidates are the engine's own (`rankChunks`, then the rest of each section), as get-docs ranks them.
 *
 * Usage: node dist/cutoff-lab.js [--grid='{"ratio":[0.3,0.5]}'] [--diag] [--show] [--lost] [--causes] [--only=react] [--top=ID]
 * `--causes` adds the dev half of `bench/eval/causes` (`--held` the held-back half too: measure, never tune on it);
 * `--lost` lists, for each question whose answer the cut-off loses at 5000 tokens, where the answer lies among
 * the candidates and what the cut-off kept; `--top=ID,ID` the first 30 candidates of those questions (a held-back
 * cause question is never listed).
 */
import {
  type CutoffParams,
  chunkUrl,
  DEFAULT_CUTOFF,
  docsEngineToken,
  fillBudget,
  joinHits,
  pageKind,
  queryTerms,
  type RankedChunk,
  rankChunks,
  rerank,
  type StoredChunk,
  sectionPath,
  sectionsLeftOut,
  selectRelevant,
  termWeights,
  withoutLibraryName,
  withSectionParts,
} from '@pro-context/engine';
import { searchBackendToken } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { normalizeTopic } from '@pro-context/markdown';
import { startProContext } from 'pro-context';
import { findPhrase, isHit } from './lib/quality.js';
import {
  corpusLibraries,
  devLibraries,
  type EvalRow,
  loadCauseRows,
  loadEvalRows,
  makeProject,
  median,
  startWeb,
} from './lib/setup.js';

const BUDGETS = [5000, 2000, 1000];

interface Case {
  row: EvalRow;
  candidates: RankedChunk[];
  terms: string[];
  weights: Map<string, number>;
}

function run(cases: Case[], params: CutoffParams) {
  return cases.map((c) => {
    const ab: Record<number, boolean> = {};
    let tokens = 0;
    let left = 0;
    for (const b of BUDGETS) {
      const { content, used } = fillBudget(selectRelevant(c.candidates, params), b);
      const leftOut = sectionsLeftOut(c.candidates, used, params);
      ab[b] = findPhrase(content, c.row.must_contain) >= 0;
      if (b === 5000) {
        tokens = Math.ceil(content.length / 4);
        left = leftOut;
      }
    }
    return { row: c.row, ab, tokens, left };
  });
}

function summary(outs: ReturnType<typeof run>) {
  const n = outs.length || 1;
  const p = (b: number) => ((100 * outs.filter((o) => o.ab[b]).length) / n).toFixed(1).padStart(5);
  return `${p(5000)} ${p(2000)} ${p(1000)} med ${String(median(outs.map((o) => o.tokens))).padStart(5)}`;
}

async function main() {
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
  const causeRows = process.argv.includes('--causes')
    ? loadCauseRows().filter((r) => r.split === 'dev' || process.argv.includes('--held'))
    : [];
  const rows = [...loadEvalRows({ dev: true }), ...causeRows].filter((r) => !only || r.library === only);
  const web = await startWeb({ dev: true });
  const project = makeProject(web);
  const kernel = await startProContext({ configFile: project.configFile, logger: createSilentLogger(), env: {} });
  const engine = kernel.resolve(docsEngineToken);
  const backend = kernel.resolve(searchBackendToken);
  const cases: Case[] = [];
  const searchRanks: { row: EvalRow; before: number; after: number }[] = [];
  const whole = new Map<string, Map<string, StoredChunk>>();
  for (const row of rows) {
    const loaded = await engine.loadDocs(row.library, 'latest');
    const name = [...corpusLibraries, ...devLibraries].find((l) => l.id === row.library)?.name ?? row.library;
    const topic = withoutLibraryName(row.question, [name, row.library]);
    const terms = queryTerms(topic);
    const { hits } = await backend.search(loaded.docs.key, topic, { limit: 40 });
    // the lab holds the whole library: every ranking step sees every chunk
    let all = whole.get(row.library);
    if (all === undefined) {
      all = new Map((await loaded.docs.all()).map((c) => [c.id, c]));
      whole.set(row.library, all);
    }
    const plain = joinHits(hits, all, terms);
    if (process.argv.includes('--ranks')) {
      const again = rerank(plain, topic, all, terms);
      const rankOf = (list: RankedChunk[]) => {
        const seen = new Set<string>();
        let n = 0;
        for (const x of list) {
          const key = chunkUrl(x.chunk);
          if (seen.has(key)) continue;
          seen.add(key);
          n += 1;
          if (isHit(row, { file: web.fileForUrl(x.chunk.url), headings: sectionPath(x.chunk).split(' › ') })) return n;
        }
        return 0;
      };
      const [a, b] = [rankOf(plain), rankOf(again)];
      searchRanks.push({ row, before: a, after: b });
      if (a !== b) {
        console.log(`${row.id} ${a} -> ${b}  ${row.question.slice(0, 70)}`);
        for (const x of again.slice(0, 3))
          console.log(`    ${x.score.toFixed(2)} ${pageKind(x.chunk.url, x.chunk.pageTitle)} ${sectionPath(x.chunk)}`);
      }
    }
    let candidates: RankedChunk[];
    if (process.argv.includes('--no-rerank')) {
      candidates = withSectionParts(joinHits(hits, all, terms), all, terms);
    } else {
      // as get-docs ranks a topic (compose.ts): the engine's own ranking, then the rest of each section
      const library = engine.libraries().find((l) => l.id === row.library);
      if (library === undefined) throw new Error(`no library ${row.library}`);
      const asked = normalizeTopic(row.question).text || row.question;
      const ranking = await rankChunks(backend, library, loaded, asked, 40);
      candidates = withSectionParts(ranking.ranked, ranking.chunks, ranking.terms);
    }
    cases.push({ row, candidates, terms, weights: termWeights(all, terms) });
  }
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  // `--top=ID,ID`: the first candidates of those questions (dev questions only: never list a held one)
  for (const id of arg('top')?.split(',') ?? []) {
    const c = cases.find((x) => x.row.id === id);
    if (c === undefined || c.row.split === 'held') continue;
    console.log(`-- ${id} ${c.row.question}`);
    const best = c.candidates[0]?.score ?? 1;
    for (const [i, x] of c.candidates.slice(0, 30).entries()) {
      const answer = findPhrase(x.chunk.body, c.row.must_contain) >= 0;
      console.log(
        `  ${String(i).padStart(2)} ${(x.score / best).toFixed(3)} ${String(x.chunk.tokens).padStart(4)}t ${pageKind(x.chunk.url, x.chunk.pageTitle).slice(0, 5)}${answer ? ' ANSWER ' : '        '}${sectionPath(x.chunk).slice(0, 110)}`,
      );
    }
  }
  if (process.argv.includes('--diag')) {
    for (const c of cases) {
      const at = c.candidates.findIndex((x) => findPhrase(x.chunk.body, c.row.must_contain) >= 0);
      const best = c.candidates[0];
      const x = c.candidates[at];
      const page = (u: string) => u.split('#')[0];
      console.log(
        `${c.row.id.padEnd(12)} at=${String(at).padStart(3)} ratio=${x && best ? (x.score / best.score).toFixed(2) : '-'} samePage=${x && best && page(x.chunk.url) === page(best.chunk.url) ? 1 : 0} cov=${x?.coverage.toFixed(2)} ${c.row.question.slice(0, 60)}`,
      );
      console.log(
        `     ${c.candidates
          .slice(0, 12)
          .map(
            (y) =>
              `${(y.score / (best?.score ?? 1)).toFixed(2)}${page(y.chunk.url) === page(best?.chunk.url ?? '') ? 'p' : ''}:${y.chunk.tokens}`,
          )
          .join(' ')}`,
      );
    }
  }
  if (searchRanks.length > 0) {
    const m = (list: typeof searchRanks, k: 'before' | 'after') => {
      const n = list.length || 1;
      const r = list.map((x) => x[k]);
      return `hit@1 ${((100 * r.filter((x) => x === 1).length) / n).toFixed(1)} hit@5 ${((100 * r.filter((x) => x >= 1 && x <= 10 && x <= 5).length) / n).toFixed(1)} MRR ${(r.reduce((a, x) => a + (x > 0 && x <= 10 ? 1 / x : 0), 0) / n).toFixed(3)}`;
    };
    for (const lib of [...new Set(searchRanks.map((x) => x.row.library)), 'all']) {
      const list = searchRanks.filter((x) => lib === 'all' || x.row.library === lib);
      console.log(`search ${lib.padEnd(10)} before ${m(list, 'before')} | after ${m(list, 'after')}`);
    }
  }
  const grid = arg('grid');
  let combos: Partial<CutoffParams>[] = [{}];
  if (grid) {
    for (const [k, values] of Object.entries(JSON.parse(grid) as Record<string, unknown[]>))
      combos = combos.flatMap((c) => values.map((v) => ({ ...c, [k]: v })));
  }
  const base = arg('cfg') ? (JSON.parse(arg('cfg') as string) as Partial<CutoffParams>) : {};
  const none = run(cases, { ...DEFAULT_CUTOFF, enabled: false });
  const split = (outs: ReturnType<typeof run>) => {
    const odd = outs.filter((o) => Number(o.row.id.split('-').pop()) % 2 === 1);
    const even = outs.filter((o) => Number(o.row.id.split('-').pop()) % 2 === 0);
    const libs = [...new Set(outs.map((o) => o.row.library))];
    return `ALL ${summary(outs)} | ODD ${summary(odd)} | EVEN ${summary(even)} || ${libs.map((l) => `${l.slice(0, 6)} ${summary(outs.filter((o) => o.row.library === l))}`).join(' | ')}`;
  };
  console.log(`${'no cut-off'.padEnd(40)} ${split(none)}`);
  for (const combo of combos) {
    const params = { ...DEFAULT_CUTOFF, ...base, ...combo };
    const outs = run(cases, params);
    console.log(`${JSON.stringify(combo).padEnd(40)} ${split(outs)}`);
    if (process.argv.includes('--lost'))
      outs.forEach((o, i) => {
        const n = none[i] as (typeof none)[number];
        if (n.ab[5000] && !o.ab[5000]) lost(cases[i] as Case, params);
      });
    if (process.argv.includes('--show'))
      outs.forEach((o, i) => {
        const n = none[i]!;
        if (BUDGETS.some((b) => o.ab[b] !== n.ab[b]) || process.argv.includes('--all'))
          console.log(
            `   ${o.row.id.padEnd(12)} ${BUDGETS.map((b) => (n.ab[b] ? 1 : 0)).join('')} -> ${BUDGETS.map((b) => (o.ab[b] ? 1 : 0)).join('')} tok ${o.tokens} left ${o.left} ${o.row.question.slice(0, 70)}`,
          );
      });
  }
  await kernel.stop();
  await web.close();
  project.cleanup();
}

/** Where a lost answer lies among a case's candidates, and what the cut-off kept (`--lost`). */
function lost(c: Case, params: CutoffParams) {
  const kept = new Set(selectRelevant(c.candidates, params).map((x) => x.chunk.id));
  const { used } = fillBudget(c.candidates, 5000);
  const given = new Set(used.map((x) => x.chunk.id));
  const best = c.candidates[0]?.score ?? 1;
  const pages: string[] = [];
  let tokens = 0;
  let rendered = 0;
  console.log(`-- ${c.row.id} [${c.row.kind}] ${c.row.question.slice(0, 90)}`);
  for (const [i, x] of c.candidates.entries()) {
    const page = x.chunk.url.split('#')[0] as string;
    if (!pages.includes(page)) pages.push(page);
    const answer = findPhrase(x.chunk.body, c.row.must_contain) >= 0;
    tokens += x.chunk.tokens;
    // as the cut-off counts a section's rendered tokens (about: the lab has the section path, not the label's)
    rendered += Math.ceil(
      (x.chunk.body.trim().length + sectionPath(x.chunk).length + chunkUrl(x.chunk).length + 30) / 4,
    );
    if (i >= 25 && !answer) continue;
    console.log(
      `  ${String(i).padStart(2)} ${(x.score / best).toFixed(3)} p${pages.indexOf(page)} ${String(x.chunk.tokens).padStart(4)}t cum${String(tokens).padStart(5)} r${String(rendered).padStart(5)}${x.joined ? 'j' : ' '} ${kept.has(x.chunk.id) ? 'K' : given.has(x.chunk.id) ? 'g' : '.'}${answer ? ' ANSWER' : '       '} ${sectionPath(x.chunk).slice(0, 110)}`,
    );
    if (answer) break;
  }
}

await main();
