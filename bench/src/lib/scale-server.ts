/**
 * Scale through the real server (issue 12): one stdio `pro-context` asked about 100 libraries in turn (98 copies of
 * the nine corpora under other ids, and the two big ones below) with a
 * realistic skew — a few hot libraries asked all the time (cached get-docs, timed), a long tail each asked once
 * (fetched, chunked, indexed), some of the tail asked again later (restored from the cache), a cold 7 MB library
 * (the nine corpora as one llms-full.txt) and the synthetic corpus (the nine ten times over, ~68 MB, as one
 * llms-full.txt) among them. Measures peak RSS (VmHWM) and RSS after, the hot libraries' round trips while cold
 * ones are being indexed or restored, and the first answers of the big libraries with their server spans.
 * Uses the search backend the preset selects (`PRO_CONTEXT_SEARCH_BACKEND`, passed through). Bounded in time:
 * past `seconds`, no new library is introduced (the row says how many were asked).
 */
import type { StoredChunk } from '@pro-context/engine';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { cpuMsOf, logRecords, memoryOf, spawnTimed, type TimedServer } from './latency.js';
import { type LatencySummary, synthesize } from './scale.js';
import { corpusLibraries, errorCode, makeProject, percentile } from './setup.js';

/** A big library's first answer through the server. */
export interface ColdAnswer {
  libraryId: string;
  /** Markdown served (MB). */
  mb: number;
  /** The get-docs round trip, ms. */
  ms: number;
  /** Server spans of its indexing (`engine.index`: fetchMs, chunkMs, indexMs; chunks), when logged. */
  spans: Record<string, number>;
}

/** What {@link measureScaleServer} returns. */
export interface ScaleServerReport {
  /** Library versions asked (indexed at least once). */
  libraries: number;
  /** Of which were asked again after others (restored from the cache or still loaded). */
  revisits: number;
  /** Hot libraries' cached get-docs while another library was being indexed or restored. */
  hotWhileBusy: LatencySummary;
  /** Hot libraries' cached get-docs while the synthetic corpus was being indexed. */
  hotWhileSynthetic: LatencySummary;
  /** First get-docs of a tail library (fetch, chunk, index, answer), p50/p99. */
  coldAnswer: LatencySummary;
  /** A tail library asked again later: answered from what is loaded, else restored from the cache. */
  revisitAnswer: LatencySummary;
  /** The cold 7 MB library (the nine corpora in one llms-full.txt). */
  cold7mb: ColdAnswer | undefined;
  /** The synthetic corpus (the nine corpora `copies` times over). */
  synthetic: ColdAnswer | undefined;
  /** VmHWM of the server over the run. */
  peakRssMb: number | undefined;
  /** VmRSS of the server at the end. */
  rssAfterMb: number | undefined;
  /** Server CPU time over the run. */
  cpuSeconds: number | undefined;
  seconds: number;
  /** Whether the time bound cut the run short. */
  truncated: boolean;
  /** The search backend the server ran with. */
  backend: string;
}

/** A deterministic PRNG (mulberry32), so every run asks the same sequence. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Chunks back into one llms-full.txt (`# Title`, `Source: url`, then the page's sections), one page per URL. */
export function llmsFullOf(chunks: readonly StoredChunk[]): string {
  const pages = new Map<string, { title: string; bodies: string[] }>();
  for (const c of chunks) {
    const page = pages.get(c.url) ?? { title: c.pageTitle, bodies: [] };
    // a page's own H1 is the page line below; H1s inside would start pages of their own
    page.bodies.push(c.body.replace(/^# .*$/gm, '').trim());
    pages.set(c.url, page);
  }
  const out: string[] = [];
  for (const [url, page] of pages) out.push(`# ${page.title}\n\nSource: ${url}\n\n${page.bodies.join('\n\n')}\n`);
  return out.join('\n');
}

function summary(times: number[]): LatencySummary {
  return { p50: percentile(times, 50), p99: percentile(times, 99), count: times.length };
}

/**
 * Runs the scale section against a fresh server and cache. `chunksOf` gives a corpus library's stored chunks
 * (to build the big llms-full.txt files); `questions` the topics asked of the hot libraries.
 */
export async function measureScaleServer(
  web: FakeWeb,
  chunksOf: (libraryId: string) => Promise<StoredChunk[]>,
  questions: Record<string, string[]>,
  options: { libraries: number; copies: number; seconds: number; log: (line: string) => void },
): Promise<ScaleServerReport> {
  const { log } = options;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const all: StoredChunk[] = [];
  for (const { id } of corpusLibraries) all.push(...(await chunksOf(id)));
  const nineBody = llmsFullOf(all);
  const syntheticBody = llmsFullOf(synthesize(all, options.copies));
  const mb = (text: string) => Buffer.byteLength(text, 'utf8') / 2 ** 20;
  // served where no corpus site lives: no llms.txt (404), so the llms-full.txt beside it is the documentation
  const big = [
    { id: 'nine-in-one', name: 'Nine in one', body: nineBody },
    { id: 'synthetic', name: 'Synthetic', body: syntheticBody },
  ];
  const removeFaults: (() => void)[] = [];
  for (const b of big) {
    removeFaults.push(web.setFault({ path: `/scale-${b.id}/llms.txt` }, { status: 404 }));
    removeFaults.push(
      web.setFault({ path: `/scale-${b.id}/llms-full.txt` }, { body: b.body, contentType: 'text/markdown' }),
    );
  }

  // the tail: the nine corpora under other ids, round after round; the big ones among them
  const copiesNeeded = Math.ceil((options.libraries - 2) / corpusLibraries.length);
  const tail: { id: string; name: string; language: string; llmsTxtUrl: string; questionsOf: string }[] = [];
  for (let r = 0; r < copiesNeeded; r++)
    for (const l of corpusLibraries)
      tail.push({
        id: `${l.id}-${r}`,
        name: l.name,
        language: l.language,
        llmsTxtUrl: web.llmsTxtUrl(l.site),
        questionsOf: l.id,
      });
  tail.length = options.libraries - 2;
  const hot = tail.slice(0, 3);
  const bigEntry = (b: (typeof big)[number]) => ({
    id: b.id,
    name: b.name,
    language: 'python',
    llmsTxtUrl: `${web.url}/scale-${b.id}/llms.txt`,
    questionsOf: 'fastapi',
  });
  // the 7 MB library a third of the way in, the synthetic one half way: the run goes on after both
  const order = [...tail];
  order.splice(Math.floor(order.length / 3), 0, bigEntry(big[0] as (typeof big)[number]));
  order.splice(Math.floor(order.length / 2), 0, bigEntry(big[1] as (typeof big)[number]));
  const project = makeProject(web, {
    libraries: order.map(({ questionsOf: _q, llmsTxtUrl, ...l }) => ({ ...l, sources: { llmsTxt: { llmsTxtUrl } } })),
    http: { retryDelaysMs: [50, 100], maxBodyBytes: 128 * 2 ** 20 },
    // a big library's first answer waits for its index instead of answering "timed out, still indexing"
    engine: { interactiveTimeoutMs: 300_000 },
    logging: { level: 'info' },
  });
  const backend = process.env.PRO_CONTEXT_SEARCH_BACKEND ?? 'preset default';
  const server: TimedServer = await spawnTimed(project.configFile);
  const ask = async (libraryId: string, topic: string) => {
    const { result, ms } = await server.call('get-docs', { libraryId, topic, maxTokens: 5000 });
    const error = errorCode(result);
    if (error) throw new Error(`get-docs ${libraryId} "${topic}" failed: ${error.code} ${error.message}`);
    return ms;
  };
  const topicsOf = (source: string) => {
    const list = questions[source] ?? [];
    return list.length > 0 ? list : ['getting started'];
  };
  const rand = random(12);
  // the hot libraries' questions are asked once first: during the run they are answered from the cache
  const hotAsks: { libraryId: string; topic: string }[] = [];
  for (const h of hot)
    for (const topic of topicsOf(h.questionsOf).slice(0, 10)) hotAsks.push({ libraryId: h.id, topic });
  const hotWhileBusy: number[] = [];
  const hotWhileSynthetic: number[] = [];
  const coldTimes: number[] = [];
  const revisitTimes: number[] = [];
  let cold7mb: ColdAnswer | undefined;
  let synthetic: ColdAnswer | undefined;
  let asked = 0;
  let revisits = 0;
  let truncated = false;
  const spansOf = (libraryId: string): Record<string, number> => {
    const record = logRecords(server.stderr).find((r) => r.span === 'engine.index' && r.libraryId === libraryId);
    const out: Record<string, number> = {};
    for (const field of ['durationMs', 'fetchMs', 'chunkMs', 'indexMs', 'chunks', 'pages']) {
      const v = record?.[field];
      if (typeof v === 'number') out[field] = v;
    }
    return out;
  };
  /** Runs `work` while asking hot libraries one after the other; the hot round trips go to `into`. */
  const whileAskingHot = async (work: Promise<number>, into: number[][]) => {
    let done = false;
    const settled = work.finally(() => {
      done = true;
    });
    settled.catch(() => undefined);
    let i = Math.floor(rand() * hotAsks.length);
    while (!done) {
      // skewed: the first hot library half the time, the others the rest
      const pick =
        rand() < 0.5
          ? (hotAsks[i % 10] as (typeof hotAsks)[number])
          : (hotAsks[i % hotAsks.length] as (typeof hotAsks)[number]);
      const ms = await ask(pick.libraryId, pick.topic);
      if (!done) for (const list of into) list.push(ms);
      i++;
    }
    return settled;
  };
  try {
    for (const h of hot) {
      for (const topic of topicsOf(h.questionsOf).slice(0, 10)) await ask(h.id, topic);
      asked++;
    }
    const introduced: (typeof order)[number][] = [...hot];
    for (const library of order.slice(hot.length)) {
      if (performance.now() > deadline) {
        truncated = true;
        break;
      }
      const topics = topicsOf(library.questionsOf);
      const topic = topics[Math.floor(rand() * topics.length)] as string;
      const isBig = big.find((b) => b.id === library.id);
      const into = library.id === 'synthetic' ? [hotWhileBusy, hotWhileSynthetic] : [hotWhileBusy];
      const ms = await whileAskingHot(ask(library.id, topic), into);
      asked++;
      introduced.push(library);
      if (isBig) {
        await new Promise((r) => setTimeout(r, 50)); // the span record reaches stderr
        const answer: ColdAnswer = { libraryId: library.id, mb: mb(isBig.body), ms, spans: spansOf(library.id) };
        if (library.id === 'synthetic') synthetic = answer;
        else cold7mb = answer;
        log(
          `  ${library.id} (${answer.mb.toFixed(1)} MB) first answer ${ms.toFixed(0)} ms; spans ${JSON.stringify(answer.spans)}`,
        );
      } else coldTimes.push(ms);
      // every fifth new library, one from the tail asked before comes back, about another topic
      if (asked % 5 === 0) {
        const tailSoFar = introduced.slice(hot.length).filter((l) => !big.some((b) => b.id === l.id));
        const back = tailSoFar[Math.floor(rand() * tailSoFar.length)];
        if (back) {
          const again = topicsOf(back.questionsOf);
          revisitTimes.push(
            await whileAskingHot(ask(back.id, again[Math.floor(rand() * again.length)] as string), [hotWhileBusy]),
          );
          revisits++;
        }
      }
      // every library with PRO_CONTEXT_BENCH_TRACE=1 (where memory grows), else every twentieth
      if (asked % (process.env.PRO_CONTEXT_BENCH_TRACE ? 1 : 20) === 0) {
        const m = memoryOf(server.pid);
        log(
          `  ${asked} libraries asked (last: ${library.id}); server VmHWM ${m?.peakRssMb.toFixed(0)} MB, VmRSS ${m?.rssMb.toFixed(0)} MB`,
        );
      }
    }
    const memory = memoryOf(server.pid);
    const cpu = cpuMsOf(server.pid);
    const report: ScaleServerReport = {
      libraries: asked,
      revisits,
      hotWhileBusy: summary(hotWhileBusy),
      hotWhileSynthetic: summary(hotWhileSynthetic),
      coldAnswer: summary(coldTimes),
      revisitAnswer: summary(revisitTimes),
      cold7mb,
      synthetic,
      peakRssMb: memory?.peakRssMb,
      rssAfterMb: memory?.rssMb,
      cpuSeconds: cpu === undefined ? undefined : cpu / 1000,
      seconds: (performance.now() - started) / 1000,
      truncated,
      backend,
    };
    log(
      `  ${asked} libraries (${revisits} revisits) in ${report.seconds.toFixed(0)} s${truncated ? ' (time bound reached)' : ''}: hot get-docs while others index p50 ${report.hotWhileBusy.p50.toFixed(2)} ms p99 ${report.hotWhileBusy.p99.toFixed(2)} ms (${report.hotWhileBusy.count}); peak RSS ${report.peakRssMb?.toFixed(0)} MB, after ${report.rssAfterMb?.toFixed(0)} MB`,
    );
    return report;
  } finally {
    await server.close();
    project.cleanup();
    for (const remove of removeFaults) remove();
  }
}
