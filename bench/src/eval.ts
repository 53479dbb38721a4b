/**
 * `pnpm eval`: the retrieval quality of pro-context on ../shared/eval, through the real stdio server
 * against the fake web serving the real corpora.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { httpxQuestions } from './lib/httpx-questions.js';
import { findPhrase, isHit, type QuestionOutcome, summarize } from './lib/quality.js';
import {
  type EvalRow,
  half,
  loadCauseRows,
  loadEvalRows,
  makeProject,
  pct,
  type StdioServer,
  sharedDir,
  sharedEvalLibraries,
  spawnServer,
  startWeb,
  table,
} from './lib/setup.js';

const BUDGETS = [5000, 2000, 1000];

/** Asks every row's question of a running server: get-docs at each budget, search-docs top 10. */
async function askAll(
  rows: EvalRow[],
  server: StdioServer,
  web: FakeWeb,
  verbose: boolean,
): Promise<QuestionOutcome[]> {
  const outcomes: QuestionOutcome[] = [];
  for (const row of rows) {
    const answerBearing: Record<number, boolean> = {};
    let tokensBefore: number | undefined;
    let tokensReturned = 0;
    for (const maxTokens of BUDGETS) {
      const result = await server.call('get-docs', { libraryId: row.library, topic: row.question, maxTokens });
      const content = (result.structuredContent as { content?: string } | undefined)?.content ?? '';
      const at = findPhrase(content, row.must_contain);
      answerBearing[maxTokens] = at >= 0;
      if (maxTokens === BUDGETS[0]) {
        tokensReturned = Math.ceil(content.length / 4);
        if (at >= 0) tokensBefore = Math.ceil(at / 4);
      }
    }
    const search = await server.call('search-docs', { libraryId: row.library, query: row.question, maxResults: 10 });
    const results = (
      (search.structuredContent as { results?: { url: string; section: string }[] } | undefined)?.results ?? []
    ).map((r) => ({
      file: web.fileForUrl(r.url),
      headings: r.section.split(' › '),
      url: r.url,
    }));
    const firstHitRank = results.findIndex((r) => isHit(row, r)) + 1;
    outcomes.push({
      row,
      answerBearing,
      ...(tokensBefore === undefined ? {} : { tokensBefore }),
      tokensReturned,
      firstHitRank,
    });
    if (verbose && (firstHitRank !== 1 || !answerBearing[2000])) {
      console.log(
        `${row.id} [${row.noise ?? '-'}] rank=${firstHitRank} ab=${BUDGETS.map((b) => (answerBearing[b] ? 1 : 0)).join('')} q="${row.question}" want=${row.file}#${row.heading}`,
      );
      for (const r of results.slice(0, 3)) console.log(`    ${r.file} :: ${r.headings.join(' › ')}`);
    }
  }
  return outcomes;
}

/** The metrics table of grouped outcomes. */
function report(groups: (readonly [string, QuestionOutcome[]])[], first = 'library') {
  const summaries = groups.map(([name, group]) => ({ name, ...summarize(group, BUDGETS) }));
  const text = table(
    [first, 'n', 'ans@5000', 'ans@2000', 'ans@1000', 'tok-before (med)', 'hit@1', 'hit@5', 'MRR', 'tokens (med)'],
    summaries.map((s) => [
      s.name,
      s.questions,
      pct(s.answerBearing[5000] ?? 0),
      pct(s.answerBearing[2000] ?? 0),
      pct(s.answerBearing[1000] ?? 0),
      s.tokensBeforeAnswerMedian,
      pct(s.hitAt1),
      pct(s.hitAt5),
      s.mrr.toFixed(3),
      s.tokensReturnedMedian,
    ]),
  );
  return { summaries, text };
}

/**
 * `pnpm eval --httpx-html`: the httpx corpus served as markdown (its llms.txt and markdown pages, as the default
 * eval serves every corpus) against the same corpus served as its built HTML site only (no llms.txt, no markdown:
 * the site crawl reads its sitemap and converts each page), over the same questions. ../shared/eval has no httpx
 * questions, so they are made from the httpx markdown sources ({@link httpxQuestions}). The default eval's
 * figures and results file are untouched.
 */
async function httpxHtmlVariant(verbose: boolean) {
  const rows = httpxQuestions(join(sharedDir(), 'corpora', 'httpx'));
  const web = await startWeb();
  const variants = [
    {
      name: 'httpx as markdown (llms.txt)',
      library: { sources: { llmsTxt: { llmsTxtUrl: web.llmsTxtUrl('httpx') } } },
    },
    { name: 'httpx as HTML (site crawl)', library: { docsUrl: web.siteUrl('httpx-html-bare') } },
  ];
  const groups: (readonly [string, QuestionOutcome[]])[] = [];
  try {
    for (const variant of variants) {
      const project = makeProject(web, {
        libraries: [{ id: 'httpx', name: 'HTTPX', language: 'python', ...variant.library }],
      });
      const server = await spawnServer(project.configFile);
      try {
        groups.push([variant.name, await askAll(rows, server, web, verbose)] as const);
      } finally {
        await server.close();
        project.cleanup();
      }
    }
  } finally {
    await web.close();
  }
  console.log(
    `\nhttpx served as markdown vs as HTML (${rows.length} questions made from the httpx sources' sections, get-docs at ${BUDGETS.join('/')} tokens, search-docs top 10)\n`,
  );
  console.log(report(groups).text);
}

/** The per-cause table: each cause's dev and held-back halves, then every cause's. */
function causeReport(outcomes: QuestionOutcome[]) {
  if (outcomes.length === 0) return undefined;
  const causes = [...new Set(outcomes.map((o) => o.row.cause ?? '?'))];
  const groups = [...causes, 'all causes'].flatMap((cause) =>
    (['dev', 'held'] as const).map(
      (split) =>
        [
          `${cause} ${split}`,
          outcomes.filter((o) => (cause === 'all causes' || o.row.cause === cause) && o.row.split === split),
        ] as const,
    ),
  );
  return report(groups, 'cause');
}

async function main() {
  const verbose = process.argv.includes('--verbose');
  if (process.argv.includes('--httpx-html')) {
    await httpxHtmlVariant(verbose);
    return;
  }
  // --shared-only: the shared questions alone (FastAPI, Pydantic), as before this project had its own
  const sharedOnly = process.argv.includes('--shared-only');
  const rows = loadEvalRows({ dev: !sharedOnly });
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
  const selected = only ? rows.filter((r) => r.id.startsWith(only) || r.library === only) : rows;
  // the per-cause questions (issue #28): asked of the same server, reported in a table of their own
  const causeRows = sharedOnly || process.argv.includes('--no-causes') ? [] : loadCauseRows();
  const selectedCauses = only ? causeRows.filter((r) => r.id.startsWith(only) || r.library === only) : causeRows;
  // --backend=sqlite-search: the same eval with another search backend (results in eval-<backend>.json)
  const backend = process.argv.find((a) => a.startsWith('--backend='))?.slice(10);
  const web = await startWeb({ dev: !sharedOnly });
  // --search-options='{"rank":"coverage"}': the config's search section (the backend's options)
  const searchOptions = process.argv.find((a) => a.startsWith('--search-options='))?.slice(17);
  const project = makeProject(web, searchOptions ? { search: JSON.parse(searchOptions) } : {});
  const server = await spawnServer(project.configFile, backend ? { PRO_CONTEXT_SEARCH_BACKEND: backend } : {});
  let outcomes: QuestionOutcome[];
  let causeOutcomes: QuestionOutcome[];
  try {
    outcomes = await askAll(selected, server, web, verbose);
    // --verbose lists the misses of the dev half only: the held-back half is measured, never looked into
    causeOutcomes = await askAll(selectedCauses, server, web, false);
    if (verbose)
      await askAll(
        selectedCauses.filter((r) => r.split === 'dev'),
        server,
        web,
        true,
      );
  } finally {
    await server.close();
    await web.close();
    project.cleanup();
  }
  const libraries = [...new Set(outcomes.map((o) => o.row.library))];
  // `shared`: the shared eval's libraries only (FastAPI, Pydantic), the overall row of earlier reports
  const shared = outcomes.filter((o) => sharedEvalLibraries.includes(o.row.library));
  const groups = [
    ...libraries.map((l) => [l, outcomes.filter((o) => o.row.library === l)] as const),
    ...(shared.length > 0 && shared.length < outcomes.length
      ? [[`shared (${sharedEvalLibraries.join('+')})`, shared] as const]
      : []),
    ['overall', outcomes] as const,
  ];
  const { summaries, text } = report(groups);
  console.log(
    `\npro-context retrieval eval${backend ? ` [${backend}]` : ''} (${outcomes.length} questions, get-docs at ${BUDGETS.join('/')} tokens, search-docs top 10)\n`,
  );
  console.log(text);
  // odd/even halves (by the number ending each id): tune on one half, check on the other
  const halves = groups.flatMap(([name, group]) =>
    (['odd', 'even'] as const).map((h) => [`${name} ${h}`, group.filter((o) => half(o.row) === h)] as const),
  );
  const halvesReport = report(halves);
  console.log('\nodd/even halves\n');
  console.log(halvesReport.text);
  // by kind of question (api, conceptual, howto, troubleshooting, changelog), over every library
  const kinds = [...new Set(outcomes.map((o) => o.row.kind))];
  const byKind = report(
    kinds.map((k) => [k, outcomes.filter((o) => o.row.kind === k)] as const),
    'kind',
  );
  console.log('\nby kind of question\n');
  console.log(byKind.text);
  const byCause = causeReport(causeOutcomes);
  if (byCause) {
    console.log('\nby cause (bench/eval/causes; dev: tuned on, held: held back)\n');
    console.log(byCause.text);
  }
  const out = join(
    dirname(fileURLToPath(import.meta.url)),
    '..',
    'results',
    backend ? `eval-${backend}.json` : 'eval.json',
  );
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), summaries, halves: halvesReport.summaries, kinds: byKind.summaries, causes: byCause?.summaries ?? [], misses: [...outcomes, ...causeOutcomes].filter((o) => o.firstHitRank !== 1 || !o.answerBearing[5000]).map((o) => ({ id: o.row.id, kind: o.row.kind, rank: o.firstHitRank, answerBearing: o.answerBearing })) }, null, 2)}\n`,
  );
  console.log(`\nwritten: ${out}`);
}

await main();
