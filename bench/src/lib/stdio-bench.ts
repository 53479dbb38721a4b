/**
 * The stdio measurements: start-up, cached get-docs, search-docs with every corpus indexed, peak memory,
 * first-time llms-full.txt indexing and warm restart, each against a freshly spawned `pro-context`.
 */
import { startFakePypi } from '@pro-context/testing';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { cpuMsOf, type LogRecord, logRecords, memoryOf, spawnTimed, type TimedServer } from './latency.js';
import type { LatencySummary } from './scale.js';
import { corpusLibraries, type EvalRow, errorCode, makeProject, median, percentile } from './setup.js';

/** Spawn → first `tools/list` answer, one start. */
export interface StartupRun {
  initializeMs: number;
  toolsListMs: number;
  /** CPU time the server had used by then (user + system): what the start costs without the machine's load. */
  cpuMs?: number;
}

/** First-time llms-full.txt fetch, index and answer, one run on a fresh cache. */
export interface FullTxtRun {
  /** The get-docs round trip. */
  answerMs: number;
  /** Server-side spans (ms), when the server logged them. */
  spans: Record<string, number>;
  chunks?: number;
  pages?: number;
}

/** Warm restart: spawn → first cached get-docs answer, one run. */
export interface RestartRun {
  ms: number;
  /** CPU time the server had used by its first answer. */
  cpuMs?: number;
  /** Requests the fake web received during the run (should be 0). */
  requests: number;
}

/** An unlisted package, cold: spawn → resolve-library → first get-docs answer, one run on a fresh cache. */
export interface DiscoveryRun {
  /** Spawn → the get-docs answer. */
  ms: number;
  /** Spawn → the `initialize` answer. */
  initializeMs: number;
  /** The resolve-library round trip (registry lookup, llms.txt probe and fetch, TOC). */
  resolveMs: number;
  /** The get-docs round trip (the pages fetched, chunked, indexed, answered). */
  getDocsMs: number;
  /** CPU time the server had used by its answer. */
  cpuMs?: number;
  /** TOC entries resolve-library returned (from the discovered llms.txt). */
  tocEntries: number;
}

/** What {@link measureStdio} returns. */
export interface StdioReport {
  startup: StartupRun[];
  startupMedian: StartupRun;
  getDocs: LatencySummary;
  search: LatencySummary;
  /** VmHWM / VmRSS of the server with every corpus indexed. */
  memory: { peakRssMb: number; rssMb: number } | undefined;
  indexedLibraries: number;
  /** First-time index of each corpus through the server (get-docs round trip), ms. */
  firstIndexMs: Record<string, number>;
  fullTxt: FullTxtRun[];
  fullTxtMedianMs: number;
  restart: RestartRun[];
  restartMedianMs: number;
  restartMedianCpuMs: number;
  discovery: DiscoveryRun[];
  discoveryMedianMs: number;
}

/** The package the discovery row looks up: on the fake PyPI only, its docs URL the httpx corpus site. */
export const UNLISTED_PACKAGE = 'benchdocs-unlisted';

/**
 * A package no configuration and no curated entry lists, from a cold start: each run spawns the server on a
 * fresh cache (curated registry on, PyPI pointed at a loopback fake that lists {@link UNLISTED_PACKAGE} with
 * `project_urls.Documentation` = the fake web's httpx site, npm off), then times spawn → resolve-library
 * (discovery: PyPI lookup, `{docs}/llms.txt` probe, TOC) → first get-docs answer.
 */
export async function measureDiscovery(
  web: FakeWeb,
  topic: string,
  options: { runs: number; log: (line: string) => void },
): Promise<{ runs: DiscoveryRun[]; medianMs: number }> {
  const pypi = await startFakePypi([
    {
      name: UNLISTED_PACKAGE,
      summary: 'A package only PyPI knows, its docs the httpx corpus site.',
      projectUrls: { Documentation: web.siteUrl('httpx') },
      releases: [
        { version: '0.27.0', uploadedAt: '2024-02-21T00:00:00Z' },
        { version: '0.28.1', uploadedAt: '2024-12-06T00:00:00Z' },
      ],
    },
  ]);
  const runs: DiscoveryRun[] = [];
  try {
    for (let i = 0; i < options.runs; i++) {
      const project = makeProject(web, {
        libraries: [],
        registry: { enabled: true },
        registries: { pypi: { url: pypi.url }, npm: { enabled: false } },
      });
      try {
        const server = await spawnTimed(project.configFile);
        try {
          const resolved = await server.call('resolve-library', { query: UNLISTED_PACKAGE, language: 'python' });
          const error = errorCode(resolved.result);
          if (error) throw new Error(`resolve-library ${UNLISTED_PACKAGE} failed: ${error.code} ${error.message}`);
          const r = resolved.result.structuredContent as { libraryId?: string; toc?: unknown[] } | undefined;
          if (!r?.toc?.length) throw new Error(`resolve-library ${UNLISTED_PACKAGE}: no TOC discovered`);
          const getDocsMs = await expectAnswer(server, 'get-docs', {
            libraryId: r.libraryId ?? UNLISTED_PACKAGE,
            topic,
            maxTokens: 5000,
          });
          const ms = performance.now() - server.spawnedAt;
          const cpuMs = cpuMsOf(server.pid);
          runs.push({
            ms,
            initializeMs: server.initializeMs,
            resolveMs: resolved.ms,
            getDocsMs,
            tocEntries: r.toc.length,
            ...(cpuMs === undefined ? {} : { cpuMs }),
          });
        } finally {
          await server.close();
        }
      } finally {
        project.cleanup();
      }
    }
  } finally {
    await pypi.close();
  }
  options.log(
    `  unlisted package, cold start to first answer: ${runs
      .map(
        (r) =>
          `${r.ms.toFixed(0)} ms (initialize ${r.initializeMs.toFixed(0)}, resolve ${r.resolveMs.toFixed(0)}, get-docs ${r.getDocsMs.toFixed(0)})`,
      )
      .join(', ')}`,
  );
  return { runs, medianMs: median(runs.map((r) => r.ms)) };
}

function summary(times: number[]): LatencySummary {
  return { p50: percentile(times, 50), p99: percentile(times, 99), count: times.length };
}

function spanDurations(records: readonly LogRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) {
    if (typeof r.span === 'string' && typeof r.durationMs === 'number') out[r.span] = r.durationMs;
    for (const field of ['fetchMs', 'chunkMs', 'indexMs']) {
      const v = r[field];
      if (r.span === 'engine.index' && typeof v === 'number') out[`engine.index.${field}`] = v;
    }
  }
  return out;
}

/** Waits `ms` and then until the server's CPU use pauses (its background persistence is done), at most 10 s. */
async function settle(server: TimedServer, ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
  const deadline = performance.now() + 10_000;
  let last = cpuMsOf(server.pid);
  while (performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    const now = cpuMsOf(server.pid);
    if (now === undefined || last === undefined || now - last <= 10) return;
    last = now;
  }
}

async function expectAnswer(server: TimedServer, name: string, args: Record<string, unknown>): Promise<number> {
  const { result, ms } = await server.call(name, args);
  const error = errorCode(result);
  if (error) throw new Error(`${name} ${JSON.stringify(args)} failed: ${error.code} ${error.message}`);
  return ms;
}

/**
 * Runs every stdio measurement. `queries` gives, per library, the topics to ask (eval questions where there are
 * some, else headings); `calls` is how many get-docs and search-docs round trips are timed.
 */
export async function measureStdio(
  web: FakeWeb,
  rows: readonly EvalRow[],
  queries: Record<string, string[]>,
  options: {
    startups: number;
    calls: number;
    fullTxtRuns: number;
    restarts: number;
    discoveryRuns: number;
    log: (line: string) => void;
  },
): Promise<StdioReport> {
  const { log } = options;
  const project = makeProject(web);
  try {
    // 1. start-up: spawn → initialize → tools/list, with nothing cached
    const startup: StartupRun[] = [];
    for (let i = 0; i < options.startups; i++) {
      const server = await spawnTimed(project.configFile);
      await server.listTools();
      const toolsListMs = performance.now() - server.spawnedAt;
      const cpuMs = cpuMsOf(server.pid);
      startup.push({ initializeMs: server.initializeMs, toolsListMs, ...(cpuMs === undefined ? {} : { cpuMs }) });
      await server.close();
    }
    const startupMedian = {
      initializeMs: median(startup.map((s) => s.initializeMs)),
      toolsListMs: median(startup.map((s) => s.toolsListMs)),
      cpuMs: median(startup.map((s) => s.cpuMs ?? Number.NaN)),
    };
    log(
      `  start-up to tools/list: ${startup.map((s) => `${s.toolsListMs.toFixed(0)} ms (cpu ${s.cpuMs ?? '?'} ms)`).join(', ')}`,
    );

    // 2. one long-lived server: index the eval libraries, time cached get-docs, index the rest, time search-docs
    const server = await spawnTimed(project.configFile);
    const firstIndexMs: Record<string, number> = {};
    let getDocs: LatencySummary;
    let search: LatencySummary;
    let memory: StdioReport['memory'];
    try {
      const evalLibraries = [...new Set(rows.map((r) => r.library))];
      for (const id of evalLibraries) {
        firstIndexMs[id] = await expectAnswer(server, 'get-docs', {
          libraryId: id,
          topic: queries[id]?.[0] ?? id,
          maxTokens: 2000,
        });
      }
      const budgets = [5000, 2000];
      // warm: let the first index's background persistence finish, then one untimed pass over the questions
      await settle(server, 1500);
      for (const row of rows)
        await server.call('get-docs', { libraryId: row.library, topic: row.question, maxTokens: 5000 });
      const docTimes: number[] = [];
      for (let i = 0; i < options.calls; i++) {
        const row = rows[i % rows.length] as EvalRow;
        const { ms } = await server.call('get-docs', {
          libraryId: row.library,
          topic: row.question,
          maxTokens: budgets[i % 2],
        });
        docTimes.push(ms);
      }
      getDocs = summary(docTimes);
      log(`  cached get-docs: p50 ${getDocs.p50.toFixed(2)} ms, p99 ${getDocs.p99.toFixed(2)} ms`);
      for (const { id } of corpusLibraries) {
        if (firstIndexMs[id] !== undefined) continue;
        firstIndexMs[id] = await expectAnswer(server, 'get-docs', {
          libraryId: id,
          topic: queries[id]?.[0] ?? id,
          maxTokens: 2000,
        });
      }
      log(
        `  first index through the server: ${Object.entries(firstIndexMs)
          .map(([id, ms]) => `${id} ${ms.toFixed(0)}`)
          .join(', ')} ms`,
      );
      const ids = corpusLibraries.map((l) => l.id);
      await settle(server, 1500);
      for (const id of ids)
        for (const query of (queries[id] ?? [id]).slice(0, 5))
          await server.call('search-docs', { libraryId: id, query, maxResults: 10 });
      const searchTimes: number[] = [];
      for (let i = 0; i < options.calls; i++) {
        const id = ids[i % ids.length] as string;
        const list = queries[id] ?? [id];
        const query = list[Math.floor(i / ids.length) % list.length] as string;
        const { ms } = await server.call('search-docs', { libraryId: id, query, maxResults: 10 });
        searchTimes.push(ms);
      }
      search = summary(searchTimes);
      log(
        `  search-docs (${ids.length} corpora indexed): p50 ${search.p50.toFixed(2)} ms, p99 ${search.p99.toFixed(2)} ms`,
      );
      memory = memoryOf(server.pid);
      log(`  server memory: VmHWM ${memory?.peakRssMb.toFixed(0)} MB, VmRSS ${memory?.rssMb.toFixed(0)} MB`);
    } finally {
      // stdin closes: the server stops its kernel, which persists chunks and index snapshots first
      await server.close();
    }

    // 3. warm restart on that cache: spawn → first cached get-docs answer, with no request to the web
    const restart: RestartRun[] = [];
    const row = rows[0] as EvalRow;
    for (let i = 0; i < options.restarts; i++) {
      web.clearRequests();
      const again = await spawnTimed(project.configFile);
      await expectAnswer(again, 'get-docs', { libraryId: row.library, topic: row.question, maxTokens: 5000 });
      const ms = performance.now() - again.spawnedAt;
      const cpuMs = cpuMsOf(again.pid);
      restart.push({ ms, requests: web.requests.length, ...(cpuMs === undefined ? {} : { cpuMs }) });
      await again.close();
    }
    log(
      `  warm restart to first answer: ${restart.map((r) => `${r.ms.toFixed(0)} ms (cpu ${r.cpuMs ?? '?'} ms, ${r.requests} requests)`).join(', ')}`,
    );

    // 4. pydantic's llms-full.txt, first time: fetch + parse + chunk + index + answer, fresh cache each run
    const fullTxt: FullTxtRun[] = [];
    const topic = rows.find((r) => r.library === 'pydantic')?.question ?? 'validators';
    for (let i = 0; i < options.fullTxtRuns; i++) {
      const full = makeProject(web, {
        libraries: [
          {
            id: 'pydantic-full',
            name: 'Pydantic',
            language: 'python',
            sources: {
              llmsTxt: {
                llmsTxtUrl: web.llmsTxtUrl('pydantic'),
                llmsFullTxtUrl: `${web.siteUrl('pydantic')}llms-full.txt`,
              },
            },
          },
        ],
        sources: { llmsTxt: { preferFullTxt: true } },
        logging: { level: 'info' },
      });
      try {
        const fresh = await spawnTimed(full.configFile);
        try {
          const answerMs = await expectAnswer(fresh, 'get-docs', {
            libraryId: 'pydantic-full',
            topic,
            maxTokens: 5000,
          });
          await new Promise((r) => setTimeout(r, 50)); // let the span records reach stderr
          const records = logRecords(fresh.stderr);
          const index = records.find((r) => r.span === 'engine.index');
          const fetch = records.find((r) => r.span === 'llms-txt.fetchDocs');
          fullTxt.push({
            answerMs,
            spans: spanDurations(records),
            ...(typeof index?.chunks === 'number' ? { chunks: index.chunks } : {}),
            ...(typeof fetch?.pages === 'number' ? { pages: fetch.pages } : {}),
          });
        } finally {
          await fresh.close();
        }
      } finally {
        full.cleanup();
      }
    }
    const fullTxtMedianMs = median(fullTxt.map((r) => r.answerMs));
    log(`  pydantic llms-full.txt first answer: ${fullTxt.map((r) => r.answerMs.toFixed(0)).join(', ')} ms`);

    // 5. an unlisted package, cold: spawn → resolve-library (discovery) → first get-docs answer
    const discovery = await measureDiscovery(web, queries.httpx?.[0] ?? 'timeouts', {
      runs: options.discoveryRuns,
      log,
    });

    return {
      startup,
      startupMedian,
      getDocs,
      search,
      memory,
      indexedLibraries: Object.keys(firstIndexMs).length,
      firstIndexMs,
      fullTxt,
      fullTxtMedianMs,
      restart,
      restartMedianMs: median(restart.map((r) => r.ms)),
      restartMedianCpuMs: median(restart.map((r) => r.cpuMs ?? Number.NaN)),
      discovery: discovery.runs,
      discoveryMedianMs: discovery.medianMs,
    };
  } finally {
    project.cleanup();
  }
}
