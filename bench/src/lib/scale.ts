/**
 * Indexing throughput and scale, in-process: the search backend pro-context ships (Orama, a fresh instance
 * with default options) indexing the stored chunks of one corpus, of all nine, and of a synthetic corpus ten
 * times the nine; FTS5 and MiniSearch indexing the same chunks for comparison; chunking throughput of the
 * pages' markdown. `backends` (default: Orama only) chooses the search backends measured; rows of another
 * backend (`sqlite-search`: SQLite FTS5 on a database file in a temporary directory) carry its id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkMarkdown, type StoredChunk } from '@pro-context/engine';
import {
  type DocsResult,
  type IndexableChunk,
  type IndexKey,
  type LibraryDescriptor,
  type SearchBackend,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { indexableChunk } from '@pro-context/markdown';
import { OramaSearchBackend } from '@pro-context/plugin-orama-search';
import { PackedSearchBackend } from '@pro-context/plugin-packed-search';
import { SqliteSearchBackend } from '@pro-context/plugin-sqlite-search';
import { fts5Retriever, miniSearchRetriever } from './baselines.js';
import type { InProcess } from './inprocess.js';
import { percentile } from './setup.js';

const MB = 1024 * 1024;

/** CPU seconds this process has used so far, all its threads (the search backend's build workers too). */
function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** Bytes of the chunks' markdown bodies (UTF-8). */
export function bodyBytes(chunks: readonly StoredChunk[]): number {
  let n = 0;
  for (const c of chunks) n += Buffer.byteLength(c.body, 'utf8');
  return n;
}

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect) {
    collect();
    collect();
  }
}

/** Heap + external (array buffers, native) after a full GC, in MB. Needs `--expose-gc` to be exact. */
export function settledMemoryMb(): { heapMb: number; rssMb: number } {
  gc();
  const m = process.memoryUsage();
  return { heapMb: (m.heapUsed + m.external) / MB, rssMb: m.rss / MB };
}

function indexable(chunks: readonly StoredChunk[]): IndexableChunk[] {
  return chunks.map(indexableChunk);
}

/** Search queries for a library: its eval questions, else headings of an even sample of its chunks. */
export function queriesFor(chunks: readonly StoredChunk[], evalQuestions: readonly string[], count: number): string[] {
  if (evalQuestions.length >= count) return evalQuestions.slice(0, count);
  const out = [...evalQuestions];
  const step = Math.max(1, Math.floor(chunks.length / (count - out.length)));
  for (let i = 0; i < chunks.length && out.length < count; i += step) {
    const c = chunks[i] as StoredChunk;
    out.push([c.pageTitle, c.headings[c.headings.length - 1] ?? ''].join(' ').trim());
  }
  return out;
}

/** Every chunk ten times: each copy has its own id and URL, and every fifth longer word of it gets a copy-specific suffix. */
export function synthesize(chunks: readonly StoredChunk[], copies: number): StoredChunk[] {
  const out: StoredChunk[] = [];
  for (let r = 0; r < copies; r++) {
    const suffix = r === 0 ? '' : String.fromCharCode(96 + r).repeat(2);
    let n = 0;
    const perturb = (text: string) =>
      r === 0 ? text : text.replace(/[A-Za-z]{4,}/g, (w) => (n++ % 5 === r % 5 ? `${w}${suffix}` : w));
    for (const c of chunks) {
      out.push({
        ...c,
        id: `${c.id}~${r}`,
        url: r === 0 ? c.url : `${c.url}?copy=${r}`,
        headings: c.headings.map(perturb),
        body: perturb(c.body),
      });
    }
  }
  return out;
}

/** Timing of searches, in ms. */
export interface LatencySummary {
  p50: number;
  p99: number;
  count: number;
  /** CPU ms per search on average (this process, all threads): robust to other load on the machine. */
  cpuMs?: number;
}

async function searchLatency(
  backend: SearchBackend,
  work: { key: IndexKey; query: string }[],
): Promise<LatencySummary> {
  // the first queries of a fresh index also compile the search path: ten untimed ones first
  for (const { key, query } of work.slice(0, 10)) await backend.search(key, query, { limit: 40 });
  const times: number[] = [];
  const cpuStarted = cpuSeconds();
  for (const { key, query } of work) {
    const started = performance.now();
    await backend.search(key, query, { limit: 40 });
    times.push(performance.now() - started);
  }
  const cpuMs = ((cpuSeconds() - cpuStarted) * 1000) / Math.max(1, times.length);
  return { p50: percentile(times, 50), p99: percentile(times, 99), count: times.length, cpuMs };
}

/** One row of the scale table. */
export interface ScaleRow {
  corpus: string;
  indexes: number;
  chunks: number;
  markdownMb: number;
  indexSeconds: number;
  mbPerSecond: number;
  /** CPU seconds of the indexing (this process, all threads: the build workers too), robust to other load. */
  indexCpuSeconds?: number;
  search: LatencySummary;
  /** Heap + external growth from the indexes, after GC. */
  heapGrowthMb: number;
  /** The benchmark process's RSS after indexing. */
  rssMb: number;
  /** Size of the indexes' snapshots, and the time to restore them all (after a drop). */
  snapshotMb?: number;
  restoreMs?: number;
}

/** Indexing throughput of each system on one set of chunks. */
export interface ThroughputRow {
  system: string;
  mb: number;
  seconds: number;
  mbPerSecond: number;
  /** CPU seconds (this process, all threads), robust to other load on the machine. */
  cpuSeconds?: number;
}

/** What {@link measureScale} returns. */
export interface ScaleReport {
  scale: ScaleRow[];
  throughput: ThroughputRow[];
}

/**
 * Scale and throughput. `libraries` are indexed in `inProcess` already (their stored chunks are read back);
 * `evalQuestions` gives real queries where there are some.
 */
export async function measureScale(
  inProcess: InProcess,
  libraries: readonly string[],
  evalQuestions: Record<string, string[]>,
  options: { copies: number; queriesPerLibrary: number; log: (line: string) => void; backends?: readonly string[] },
): Promise<ScaleReport> {
  const corpora = new Map<string, StoredChunk[]>();
  for (const id of libraries) corpora.set(id, await inProcess.chunks(id));
  const all = [...corpora.values()].flat();
  const allMb = bodyBytes(all) / MB;
  const throughput: ThroughputRow[] = [];

  // chunking: the pages' markdown as the source adapter delivers it, through the engine's chunker
  const adapters = inProcess.kernel.resolveAll(sourceAdapterToken);
  let chunkSeconds = 0;
  let chunkCpu = 0;
  let markdownBytes = 0;
  for (const id of libraries) {
    const library = (await inProcess.engine.findLibrary(id)) as LibraryDescriptor;
    const adapter = adapters.find((a) => a.canHandle(library));
    if (!adapter) continue;
    const docs: DocsResult = await adapter.fetchDocs(library, 'latest', {});
    const started = performance.now();
    const cpuStarted = cpuSeconds();
    for (const page of docs.pages) {
      markdownBytes += Buffer.byteLength(page.markdown, 'utf8');
      chunkMarkdown({ url: page.url, title: page.title, markdown: page.markdown }, { maxTokens: 800 });
    }
    chunkSeconds += (performance.now() - started) / 1000;
    chunkCpu += cpuSeconds() - cpuStarted;
  }
  throughput.push({
    system: 'chunking (engine, page markdown)',
    mb: markdownBytes / MB,
    seconds: chunkSeconds,
    mbPerSecond: markdownBytes / MB / chunkSeconds,
    cpuSeconds: chunkCpu,
  });
  options.log(
    `  chunking: ${(markdownBytes / MB).toFixed(1)} MB in ${chunkSeconds.toFixed(2)} s (${chunkCpu.toFixed(2)} CPU s)`,
  );

  for (const [name, build] of [
    ['FTS5 BM25 (better-sqlite3)', fts5Retriever],
    ['MiniSearch', miniSearchRetriever],
  ] as const) {
    let seconds = 0;
    const cpuStarted = cpuSeconds();
    for (const chunks of corpora.values()) {
      const started = performance.now();
      const retriever = build(chunks);
      seconds += (performance.now() - started) / 1000;
      retriever.close();
    }
    const cpu = cpuSeconds() - cpuStarted;
    throughput.push({ system: `${name} index`, mb: allMb, seconds, mbPerSecond: allMb / seconds, cpuSeconds: cpu });
    options.log(`  ${name}: ${allMb.toFixed(1)} MB in ${seconds.toFixed(2)} s`);
  }

  const scale: ScaleRow[] = [];
  const extra: ThroughputRow[] = [];
  for (const backendId of options.backends ?? ['orama-search']) {
    const label = (corpus: string) => (backendId === 'orama-search' ? corpus : `${corpus} [${backendId}]`);
    let directory: string | undefined;
    let backend: SearchBackend;
    if (backendId === 'sqlite-search') {
      directory = mkdtempSync(join(tmpdir(), 'pc-bench-fts-'));
      backend = new SqliteSearchBackend({ directory });
    } else if (backendId === 'orama-search') {
      backend = new OramaSearchBackend({ maxLoadedIndexes: 64 });
    } else if (backendId === 'packed-search') {
      // its defaults: the worker thread builds, loaded indexes within 128 MB
      backend = new PackedSearchBackend();
    } else if (backendId === 'packed-search-2w') {
      // the same with two build workers: a large library is split between them and the parts merged
      backend = new PackedSearchBackend({ workers: 2 });
    } else {
      throw new Error(`unknown search backend ${backendId}`);
    }
    const rowsBefore = scale.length;
    const stage = async (
      corpus: string,
      sets: [IndexKey, StoredChunk[]][],
      queries: { key: IndexKey; query: string }[],
      /**
       * Let the chunks go once indexed, before the searches: a server holds no library's chunk bodies in its heap
       * (they are in the cache's blocks), while this process would otherwise keep the synthetic corpus' 68 MB of
       * strings (some 200 MB of heap), whose garbage collection then lands in the timed searches.
       */
      releaseChunks = false,
    ) => {
      const before = settledMemoryMb();
      let seconds = 0;
      let cpu = 0;
      for (const [key, chunks] of sets) {
        const docs = indexable(chunks);
        const started = performance.now();
        const cpuStarted = cpuSeconds();
        await backend.index(key, docs);
        seconds += (performance.now() - started) / 1000;
        cpu += cpuSeconds() - cpuStarted;
      }
      const chunks = sets.reduce((n, [, c]) => n + c.length, 0);
      const mb = sets.reduce((n, [, c]) => n + bodyBytes(c), 0) / MB;
      const after = settledMemoryMb();
      if (releaseChunks) {
        for (const set of sets) set[1] = [];
        settledMemoryMb();
      }
      const search = await searchLatency(backend, queries);
      const snapshots: [IndexKey, Uint8Array | null][] = [];
      for (const [key] of sets) snapshots.push([key, await backend.snapshot(key)]);
      const snapshotBytes = snapshots.reduce((n, [, snapshot]) => n + (snapshot?.byteLength ?? 0), 0);
      let restoreMs = 0;
      for (const [key, snapshot] of snapshots) {
        if (snapshot === null) continue;
        await backend.drop(key);
        const restoreStarted = performance.now();
        await backend.restore(key, snapshot);
        restoreMs += performance.now() - restoreStarted;
      }
      snapshots.length = 0;
      const row: ScaleRow = {
        corpus: label(corpus),
        indexes: sets.length,
        chunks,
        markdownMb: mb,
        indexSeconds: seconds,
        mbPerSecond: mb / seconds,
        indexCpuSeconds: cpu,
        search,
        heapGrowthMb: after.heapMb - before.heapMb,
        rssMb: after.rssMb,
        ...(snapshotBytes > 0 ? { snapshotMb: snapshotBytes / MB, restoreMs } : {}),
      };
      options.log(
        `  ${label(corpus)}: ${chunks} chunks, ${mb.toFixed(1)} MB indexed in ${seconds.toFixed(2)} s (${cpu.toFixed(2)} CPU s); search p50 ${search.p50.toFixed(2)} ms p99 ${search.p99.toFixed(2)} ms (${(search.cpuMs ?? 0).toFixed(2)} CPU ms a search)`,
      );
      for (const [key] of sets) await backend.drop(key);
      return row;
    };
    const keyOf = (id: string): IndexKey => ({ libraryId: `scale-${id}`, version: '1' });
    const queriesOf = (id: string, key: IndexKey) =>
      queriesFor(corpora.get(id) ?? [], evalQuestions[id] ?? [], options.queriesPerLibrary).map((query) => ({
        key,
        query,
      }));

    const first = libraries[0] as string;
    scale.push(
      await stage(`${first} (1 corpus)`, [[keyOf(first), corpora.get(first) ?? []]], queriesOf(first, keyOf(first))),
    );
    scale.push(
      await stage(
        `all ${libraries.length} corpora`,
        libraries.map((id) => [keyOf(id), corpora.get(id) ?? []]),
        libraries.flatMap((id) => queriesOf(id, keyOf(id)).slice(0, Math.ceil(options.queriesPerLibrary / 2))),
      ),
    );
    const bigKey: IndexKey = { libraryId: 'scale-synthetic', version: '1' };
    const bigQueries = libraries.flatMap((id) =>
      queriesFor(corpora.get(id) ?? [], evalQuestions[id] ?? [], Math.ceil(options.queriesPerLibrary / 2)),
    );
    scale.push(
      await stage(
        `synthetic ${options.copies}x all (1 index)`,
        [[bigKey, synthesize(all, options.copies)]],
        bigQueries.map((query) => ({ key: bigKey, query })),
        true,
      ),
    );

    if (backend instanceof SqliteSearchBackend) backend.close();
    if (backend instanceof PackedSearchBackend) await backend.close();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    const all9 = scale[rowsBefore + 1] as ScaleRow;
    extra.push({
      system: backendId === 'orama-search' ? 'Orama backend index' : `${backendId} backend index`,
      mb: all9.markdownMb,
      seconds: all9.indexSeconds,
      mbPerSecond: all9.mbPerSecond,
      cpuSeconds: all9.indexCpuSeconds,
    });
  }

  throughput.unshift(...extra);
  return { scale, throughput };
}
