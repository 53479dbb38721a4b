/**
 * `pnpm bench`: retrieval quality beside three baselines over the same chunks, latency and memory of the real
 * stdio server, indexing throughput and scale. Prints tables (stdout; progress on stderr) and writes
 * bench/results/bench.json. Benchmarks, not tests: it never fails on its numbers.
 *
 * Flags: `--sections=startup,quality,stdio,http,scale,libraries,hostile,replicas` (default: all), `--startup-runs=N` (start-up
 * runs of each server in each folder, default 9), `--startup-packages=N` (the project folder's node_modules, default
 * 100), `--startup-cli=PATH` (the pro-context command the start-up section runs, default this checkout's build), `--http-seconds=N` (each HTTP load run,
 * default 5), `--copies=N` (synthetic corpus size, default 10), `--calls=N` (timed get-docs and search-docs calls,
 * default 200), `--search-backends=orama-search,packed-search,packed-search-2w,sqlite-search` (the search backends the scale section
 * measures; default Orama and the packed index, side by side), `--libraries=N` and `--libraries-seconds=N` (the
 * many-libraries run through the server: how many libraries, default 100, and its time bound, default 300 s),
 * `--replicas-seconds=N` (each load run of the replicas section, default 10).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareQuality, QUALITY_BUDGETS, type QualityReport, type QualityRow } from './lib/compare.js';
import { type HostileReport, measureHostile } from './lib/hostile.js';
import { type HttpReport, measureHttp } from './lib/http-bench.js';
import { startInProcess } from './lib/inprocess.js';
import { measureReplicas, type ReplicasReport } from './lib/replicas-bench.js';
import { measureScale, queriesFor, type ScaleReport } from './lib/scale.js';
import { measureScaleServer, type ScaleServerReport } from './lib/scale-server.js';
import {
  cliPath,
  corpusLibraries,
  loadEvalRows,
  makeProject,
  median,
  pct,
  spawnServer,
  startWeb,
  table,
} from './lib/setup.js';
import { measureStartup, type StartupReport, startupMedians } from './lib/startup.js';
import { measureStdio, type StdioReport } from './lib/stdio-bench.js';
import { evaluateTargets, type TargetResult } from './lib/targets.js';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const sections = new Set((arg('sections') ?? 'startup,quality,stdio,http,scale,libraries,hostile,replicas').split(','));
const replicasSeconds = Number(arg('replicas-seconds') ?? 10);
const startupRuns = Number(arg('startup-runs') ?? 9);
const startupPackages = Number(arg('startup-packages') ?? 100);
const startupCli = arg('startup-cli') ?? cliPath;
const manyLibraries = Number(arg('libraries') ?? 100);
const manySeconds = Number(arg('libraries-seconds') ?? 300);
const httpSeconds = Number(arg('http-seconds') ?? 5);
const copies = Number(arg('copies') ?? 10);
const calls = Number(arg('calls') ?? 200);
const searchBackends = (arg('search-backends') ?? 'orama-search,packed-search').split(',').filter(Boolean);
const log = (line: string) => process.stderr.write(`${line}\n`);
const ms = (x: number | undefined, digits = 1) =>
  x === undefined || Number.isNaN(x) ? 'n/a' : `${x.toFixed(digits)} ms`;

function qualityTable(rows: QualityRow[]): string {
  const rate = (x: number | null) => (x === null ? '—' : pct(x));
  return table(
    [
      'system',
      'n',
      ...QUALITY_BUDGETS.map((b) => `ans@${b}`),
      'hit@1',
      'hit@5',
      'MRR',
      ...QUALITY_BUDGETS.flatMap((b) => [`tok/ans@${b}`, `tok med@${b}`]),
    ],
    rows.map((r) => [
      r.system,
      r.questions,
      ...QUALITY_BUDGETS.map((b) => pct(r.answerBearing[b] ?? 0)),
      rate(r.hitAt1),
      rate(r.hitAt5),
      r.mrr === null ? '—' : r.mrr.toFixed(3),
      ...QUALITY_BUDGETS.flatMap((b) => [r.tokensPerAnswer[b] ?? 0, r.tokensMedian[b] ?? 0]),
    ]),
  );
}

function printQuality(q: QualityReport): void {
  console.log(
    `\n## Quality: ${q.rows[0]?.questions ?? 0} questions (../shared/eval), the same chunks for every system (${Object.entries(
      q.chunks,
    )
      .map(([id, n]) => `${id} ${n}`)
      .join(', ')} chunks)\n`,
  );
  console.log(qualityTable(q.rows));
  for (const [id, rows] of Object.entries(q.byLibrary)) {
    console.log(`\n${id}:`);
    console.log(qualityTable(rows));
  }
  console.log(
    `\nnot answer-bearing at ${QUALITY_BUDGETS[0]}: ${Object.entries(q.misses)
      .map(([name, ids]) => `${name} [${ids.join(' ')}]`)
      .join('; ')}`,
  );
  console.log(
    '\nans@B: get-docs answers at maxTokens B holding must_contain. hit@k/MRR: search top 10, hit = file and heading of the question.' +
      '\ntok/ans@B: all tokens returned ÷ answer-bearing answers; tok med: median tokens of one answer. Navigation: llms.txt + the whole page.',
  );
}

function printStdio(s: StdioReport): void {
  console.log(
    `\n## Latency and memory over stdio (dist/bin/pro-context.js spawned with the MCP SDK client; load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')})\n`,
  );
  console.log(
    table(
      ['measure', 'p50 / median', 'p99', 'server CPU', 'runs'],
      [
        ['spawn → initialize answered', ms(s.startupMedian.initializeMs, 0), '', '', s.startup.length],
        [
          'spawn → first tools/list answer',
          ms(s.startupMedian.toolsListMs, 0),
          '',
          ms(s.startupMedian.cpuMs, 0),
          s.startup.length,
        ],
        [
          'get-docs, cached (eval questions, 5000/2000)',
          ms(s.getDocs.p50, 2),
          ms(s.getDocs.p99, 2),
          '',
          s.getDocs.count,
        ],
        [
          `search-docs, ${s.indexedLibraries} corpora indexed`,
          ms(s.search.p50, 2),
          ms(s.search.p99, 2),
          '',
          s.search.count,
        ],
        [
          'pydantic llms-full.txt: first get-docs (fetch+index+answer)',
          ms(s.fullTxtMedianMs, 0),
          '',
          '',
          s.fullTxt.length,
        ],
        [
          'warm restart: spawn → first cached answer',
          ms(s.restartMedianMs, 0),
          '',
          ms(s.restartMedianCpuMs, 0),
          s.restart.length,
        ],
        [
          '  requests to the web during warm restarts',
          String(s.restart.reduce((n, r) => n + r.requests, 0)),
          '',
          '',
          s.restart.length,
        ],
        [
          'unlisted package: cold start → first get-docs answer (discovery)',
          ms(s.discoveryMedianMs, 0),
          '',
          ms(median(s.discovery.map((r) => r.cpuMs ?? Number.NaN)), 0),
          s.discovery.length,
        ],
        ['peak RSS (VmHWM), all corpora indexed', s.memory ? `${s.memory.peakRssMb.toFixed(0)} MB` : 'n/a', '', '', 1],
        ['RSS (VmRSS) after the timed calls', s.memory ? `${s.memory.rssMb.toFixed(0)} MB` : 'n/a', '', '', 1],
      ],
    ),
  );
  const full = s.fullTxt[0];
  if (full) {
    const spans = s.fullTxt.map((r) => r.spans);
    const med = (k: string) => {
      const v = spans
        .map((x) => x[k])
        .filter((x): x is number => x !== undefined)
        .sort((a, b) => a - b);
      return v.length ? (v[Math.floor(v.length / 2)] as number) : undefined;
    };
    console.log(
      `\npydantic llms-full.txt breakdown (server spans, median of ${s.fullTxt.length}; ${full.pages ?? '?'} pages, ${full.chunks ?? '?'} chunks):` +
        ` get-docs ${ms(med('get-docs'), 0)} = engine.index ${ms(med('engine.index'), 0)} [fetch+parse ${ms(med('engine.index.fetchMs'), 0)},` +
        ` chunk ${ms(med('engine.index.chunkMs'), 0)}, search index ${ms(med('engine.index.indexMs'), 0)}] + ranking and answer;` +
        ` the rest of the round trip is transport and process`,
    );
  }
  if (s.discovery.length) {
    const med = (pick: (r: StdioReport['discovery'][number]) => number) => ms(median(s.discovery.map(pick)), 0);
    console.log(
      `unlisted package breakdown (median of ${s.discovery.length}, fresh cache each): spawn → initialize ${med((r) => r.initializeMs)},` +
        ` resolve-library (PyPI lookup + llms.txt probe, ${s.discovery[0]?.tocEntries} TOC entries) ${med((r) => r.resolveMs)},` +
        ` get-docs (pages fetched, indexed, answered) ${med((r) => r.getDocsMs)}`,
    );
  }
  console.log(
    `first index through the server (get-docs round trip): ${Object.entries(s.firstIndexMs)
      .map(([id, v]) => `${id} ${v.toFixed(0)} ms`)
      .join(', ')}`,
  );
}

function printStartup(s: StartupReport): void {
  console.log(
    `\n## Start-up: pro-context vs a bare MCP SDK server with one tool (whole process with its client, ${s.runs} runs each, alternating; load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')})\n`,
  );
  console.log(
    table(
      [
        'folder',
        'pro-context',
        'bare SDK server',
        'ratio (min–max)',
        'tools/list: pro-context / bare',
        'server CPU: pro-context / bare',
      ],
      s.scenarios.map((scenario) => {
        const m = startupMedians(scenario);
        return [
          scenario.packages ? `project (${scenario.packages} packages)` : 'empty',
          ms(m.proContextWallMs, 0),
          ms(m.bareWallMs, 0),
          `${m.ratio.toFixed(2)}× (${m.ratioMin.toFixed(2)}–${m.ratioMax.toFixed(2)})`,
          `${ms(m.proContextToolsListMs, 0)} / ${ms(m.bareToolsListMs, 0)}`,
          `${ms(m.proContextCpuMs, 0)} / ${ms(m.bareCpuMs, 0)}`,
        ];
      }),
    ),
  );
  console.log(
    `\nmedians; the ratio is pro-context's whole-process time ÷ the bare server's, pair by pair. Command: ${s.cli}`,
  );
}

function printScale(s: ScaleReport): void {
  console.log('\n## Throughput (in-process)\n');
  console.log(
    table(
      ['what', 'MB', 'seconds', 'MB/s', 'CPU s', 'MB/CPU s'],
      [
        ...s.throughput.map((t) => [
          t.system,
          t.mb.toFixed(2),
          t.seconds.toFixed(2),
          t.mbPerSecond.toFixed(2),
          t.cpuSeconds === undefined ? 'n/a' : t.cpuSeconds.toFixed(2),
          t.cpuSeconds === undefined ? 'n/a' : (t.mb / t.cpuSeconds).toFixed(2),
        ]),
      ],
    ),
  );
  console.log('\n## Scale (pro-context search backend, in-process, fresh instance)\n');
  console.log(
    table(
      [
        'corpus',
        'indexes',
        'chunks',
        'MB',
        'index s',
        'MB/s',
        'index CPU s',
        'search p50',
        'search p99',
        'search CPU',
        'heap+ext growth',
        'process RSS',
        'snapshot',
        'restore',
      ],
      s.scale.map((r) => [
        r.corpus,
        r.indexes,
        r.chunks,
        r.markdownMb.toFixed(1),
        r.indexSeconds.toFixed(2),
        r.mbPerSecond.toFixed(2),
        r.indexCpuSeconds === undefined ? 'n/a' : r.indexCpuSeconds.toFixed(2),
        ms(r.search.p50, 2),
        ms(r.search.p99, 2),
        r.search.cpuMs === undefined ? 'n/a' : ms(r.search.cpuMs, 2),
        `${r.heapGrowthMb.toFixed(0)} MB`,
        `${r.rssMb.toFixed(0)} MB`,
        r.snapshotMb === undefined ? 'n/a' : `${r.snapshotMb.toFixed(1)} MB`,
        r.restoreMs === undefined ? 'n/a' : ms(r.restoreMs, 0),
      ]),
    ),
  );
}

function printScaleServer(s: ScaleServerReport): void {
  const lat = (l: { p50: number; p99: number; count: number }) =>
    l.count === 0 ? 'n/a' : `${ms(l.p50, 2)} / ${ms(l.p99, 2)} (${l.count})`;
  const cold = (c: ScaleServerReport['cold7mb']) =>
    c
      ? `${c.ms.toFixed(0)} ms (${c.mb.toFixed(1)} MB${['fetchMs', 'chunkMs', 'indexMs']
          .filter((k) => c.spans[k] !== undefined)
          .map((k) => `, ${k.replace('Ms', '')} ${c.spans[k]} ms`)
          .join('')})`
      : 'not reached';
  console.log(
    `\n## ${s.libraries} libraries through one stdio server (search backend: ${s.backend}; ${s.seconds.toFixed(0)} s${
      s.truncated ? ', time bound reached' : ''
    }; load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')})\n`,
  );
  const mb = (x: number | undefined) => (x === undefined ? 'n/a' : `${x.toFixed(0)} MB`);
  console.log(
    table(
      ['measure', 'value'],
      [
        ['libraries asked (tail revisits)', `${s.libraries} (${s.revisits})`],
        ['peak RSS (VmHWM)', mb(s.peakRssMb)],
        ['RSS after', mb(s.rssAfterMb)],
        ['server CPU', s.cpuSeconds === undefined ? 'n/a' : `${s.cpuSeconds.toFixed(0)} s`],
        ['hot cached get-docs p50 / p99 while others index or restore', lat(s.hotWhileBusy)],
        ['hot cached get-docs p50 / p99 while the synthetic corpus indexes', lat(s.hotWhileSynthetic)],
        ['tail library first get-docs p50 / p99 (fetch+chunk+index)', lat(s.coldAnswer)],
        ['tail library asked again p50 / p99 (loaded or restored)', lat(s.revisitAnswer)],
        ['cold 7 MB library (nine corpora in one llms-full.txt): first answer', cold(s.cold7mb)],
        ['synthetic corpus: first answer', cold(s.synthetic)],
      ],
    ),
  );
}

function printHttp(h: HttpReport, stdio: StdioReport | undefined): void {
  console.log(
    `\n## The HTTP host under load (pro-context serve --http from dist/, autocannon on loopback, ${h.runs[0]?.seconds ?? 0} s per run; load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')})\n`,
  );
  const beside = (tool: string) => {
    const s = tool === 'get-docs' ? stdio?.getDocs : stdio?.search;
    return s ? `${ms(s.p50, 2)} / ${ms(s.p99, 2)}` : 'n/a';
  };
  console.log(
    table(
      [
        'tool (cached)',
        'connections',
        'req/s',
        'p50',
        'p99',
        'requests',
        'non-2xx',
        'errors',
        'stdio p50 / p99 (1 client)',
      ],
      h.runs.map((r) => [
        r.tool,
        r.connections,
        r.requestsPerSecond.toFixed(0),
        `${r.p50Ms} ms`,
        `${r.p99Ms} ms`,
        r.requests,
        r.non2xx,
        r.errors,
        beside(r.tool),
      ]),
    ),
  );
  const mb = (x: number | undefined) => (x === undefined ? 'n/a' : `${x.toFixed(0)} MB`);
  console.log(
    `server RSS: ${mb(h.memoryBeforeMb)} before the load runs (corpora indexed), ${mb(h.memoryAfterMb)} after; peak ${mb(h.peakMb)}`,
  );
}

function printHostile(h: HostileReport): void {
  console.log('\n## Hostile content (issue #25)\n');
  console.log(
    table(
      ['cached get-docs (calm library)', 'calls', 'p50', 'p99', 'worst'],
      [
        ['idle server', h.idle.calls, ms(h.idle.p50Ms), ms(h.idle.p99Ms), ms(h.idle.maxMs)],
        [
          'while hostile pages are indexed and read',
          h.during.calls,
          ms(h.during.p50Ms),
          ms(h.during.p99Ms),
          ms(h.during.maxMs),
        ],
      ],
    ),
  );
  console.log(
    `\nworst cached round trip by phase: ${Object.entries(h.worstByPhase)
      .map(([phase, worst]) => `${phase} ${worst} ms`)
      .join(', ')}`,
  );
  console.log(
    `\nhostile library indexed in ${h.index.ms} ms (${h.index.answered ? 'get-docs answered' : 'get-docs FAILED'}; ${h.index.notes} notes of pages left out)\n`,
  );
  console.log(
    table(
      ['page', 'read-page', 'ms', 'again', 'ms'],
      h.pages.map((p) => [p.page, p.first, p.firstMs, p.second, p.secondMs]),
    ),
  );
  const mb = (x: number | undefined) => (x === undefined ? 'n/a' : `${x} MB`);
  console.log(
    `\nserver peak RSS (VmHWM) having indexed and read the 7 MB page: ${mb(h.peakRssMb)}; RSS after ${mb(h.rssMb)}`,
  );
}

function printReplicas(r: ReplicasReport): void {
  console.log('\n## Replicas on PostgreSQL behind nginx (cached get-docs, loopback)\n');
  if (r.skipped) {
    console.log(`skipped: ${r.skipped}`);
    return;
  }
  const n = (x: number | null, digits = 2) => (x === null ? 'n/a' : x.toFixed(digits));
  console.log(
    table(
      [
        'replicas',
        'conns',
        'req/s',
        'p50',
        'p99',
        'non-2xx',
        'replicas CPU ms/req',
        'PostgreSQL CPU ms/req',
        'nginx CPU ms/req',
        'PG queries/req',
      ],
      r.runs.map((x) => [
        x.replicas,
        x.connections,
        x.requestsPerSecond.toFixed(0),
        ms(x.p50Ms),
        ms(x.p99Ms),
        x.non2xx,
        n(x.serverCpuMsPerRequest),
        n(x.postgresCpuMsPerRequest),
        n(x.nginxCpuMsPerRequest),
        n(x.postgresQueriesPerRequest),
      ]),
    ),
  );
}

function printTargets(targets: TargetResult[]): void {
  console.log('\n## Targets (2-core machine)\n');
  console.log(
    table(
      ['target', 'measured', 'verdict'],
      targets.map((t) => [t.target, t.measured, t.verdict]),
    ),
  );
}

/** Every section but start-up: they share the fake web and an in-process kernel. */
async function measureServing(): Promise<{
  quality?: QualityReport;
  stdio?: StdioReport;
  http?: HttpReport;
  scale?: ScaleReport;
  libraries?: ScaleServerReport;
  hostile?: HostileReport;
  replicas?: ReplicasReport;
}> {
  const rows = loadEvalRows();
  const web = await startWeb();
  const inProcess = await startInProcess(web);
  const evalQuestions: Record<string, string[]> = {};
  for (const r of rows) evalQuestions[r.library] = [...(evalQuestions[r.library] ?? []), r.question];
  let quality: QualityReport | undefined;
  let stdio: StdioReport | undefined;
  let scale: ScaleReport | undefined;
  let http: HttpReport | undefined;
  let libraries: ScaleServerReport | undefined;
  let hostile: HostileReport | undefined;
  let replicas: ReplicasReport | undefined;
  try {
    if (sections.has('quality')) {
      log('quality: pro-context over stdio, FTS5, MiniSearch and navigation on the same chunks…');
      const project = makeProject(web);
      const server = await spawnServer(project.configFile);
      try {
        quality = await compareQuality(server, inProcess, web, rows);
      } finally {
        await server.close();
        project.cleanup();
      }
      printQuality(quality);
    }
    if (sections.has('stdio')) {
      log('stdio: start-up, cached get-docs, search-docs, memory, warm restart, llms-full.txt…');
      const queries: Record<string, string[]> = {};
      for (const { id } of corpusLibraries)
        queries[id] = queriesFor(await inProcess.chunks(id), evalQuestions[id] ?? [], 40);
      stdio = await measureStdio(web, rows, queries, {
        startups: 5,
        calls,
        fullTxtRuns: 3,
        restarts: 3,
        discoveryRuns: 3,
        log,
      });
      printStdio(stdio);
    }
    if (sections.has('http')) {
      log('http: pro-context serve --http under autocannon (cached get-docs, search-docs; 1, 10, 50 connections)…');
      const asked = rows.filter((r) => r.library === 'fastapi' || r.library === 'pydantic');
      http = await measureHttp(
        web,
        {
          getDocs: asked.map((r) => ({ libraryId: r.library, topic: r.question })),
          search: asked.map((r) => ({ libraryId: r.library, query: r.question })),
        },
        { seconds: httpSeconds, connections: [1, 10, 50], log },
      );
      printHttp(http, stdio);
    }
    if (sections.has('scale')) {
      log(`scale: one corpus, all ${corpusLibraries.length}, synthetic ${copies}x…`);
      scale = await measureScale(
        inProcess,
        corpusLibraries.map((l) => l.id),
        evalQuestions,
        { copies, queriesPerLibrary: 40, log, backends: searchBackends },
      );
      printScale(scale);
    }
    if (sections.has('libraries')) {
      log(
        `libraries: ${manyLibraries} libraries through one stdio server, a few hot, a long tail (≤ ${manySeconds} s)…`,
      );
      libraries = await measureScaleServer(web, (id) => inProcess.chunks(id), evalQuestions, {
        libraries: manyLibraries,
        copies,
        seconds: manySeconds,
        log,
      });
      printScaleServer(libraries);
    }
    if (sections.has('hostile')) {
      log('hostile: cached calls while deep, huge and heavy pages are indexed and read; peak RSS…');
      hostile = await measureHostile(web, { log });
      printHostile(hostile);
    }
    if (sections.has('replicas')) {
      log('replicas: 1 and 3 replicas on PostgreSQL behind nginx, cached get-docs at 10 and 100 connections…');
      const asked = rows.filter((r) => r.library === 'fastapi');
      replicas = await measureReplicas(
        web,
        asked.slice(0, 20).map((r) => ({ libraryId: r.library, topic: r.question })),
        { seconds: replicasSeconds, counts: [1, 3], connections: [10, 100], log },
      );
      printReplicas(replicas);
    }
  } finally {
    await inProcess.stop();
    await web.close();
  }
  return {
    ...(quality ? { quality } : {}),
    ...(stdio ? { stdio } : {}),
    ...(http ? { http } : {}),
    ...(scale ? { scale } : {}),
    ...(libraries ? { libraries } : {}),
    ...(hostile ? { hostile } : {}),
    ...(replicas ? { replicas } : {}),
  };
}

async function main() {
  const started = performance.now();
  let startup: StartupReport | undefined;
  // first, on a quiet machine: nothing else of the benchmark is running yet
  if (sections.has('startup')) {
    log('startup: pro-context and a bare SDK server, whole process with its client, empty and project folders…');
    startup = await measureStartup({ cli: startupCli, runs: startupRuns, packages: startupPackages, log });
    printStartup(startup);
  }
  const reports = [...sections].some((s) => s !== 'startup') ? await measureServing() : {};
  const { quality, stdio, http, scale, libraries, hostile, replicas } = reports;
  const targets = evaluateTargets({ startup, quality, stdio, http, scale, libraries });
  printTargets(targets);
  const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', 'bench.json');
  mkdirSync(dirname(out), { recursive: true });
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    loadAverage: os.loadavg(),
  };
  writeFileSync(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), machine, seconds: (performance.now() - started) / 1000, startup, quality, stdio, http, scale, libraries, hostile, replicas, targets }, null, 2)}\n`,
  );
  console.log(`\nwritten: ${out} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

await main();
