#!/usr/bin/env node
// Measures the Orama search backend on the real corpora (not a test; nothing here asserts a time).
//
//   cd plugins/orama-search && pnpm run build && node --expose-gc scripts/bench.mjs
//
// Chunks every markdown file crudely by headings (the engine's chunker is better), builds one index per
// library, then reports: index time per library (and for pydantic's 1.8 MB llms-full.txt), heap after GC
// and RSS, search latency over 200 queries, snapshot size, snapshot and restore time, and whether the
// restored index answers exactly like the original. `--naive` runs plain Orama (default components, the
// documents stored, sorting on) on the same chunks for the memory comparison; it runs in a child process.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';

const here = dirname(fileURLToPath(import.meta.url));
const sharedDir = process.env.PRO_CONTEXT_SHARED_DIR ?? resolve(here, '../../../../shared');
const corporaDir = join(sharedDir, 'corpora');
const libraries = ['fastapi', 'pydantic', 'httpx', 'typer', 'instructor', 'langgraph', 'hono', 'zod', 'vitest'];

if (!existsSync(corporaDir)) {
  console.error(`No corpora at ${corporaDir}: set PRO_CONTEXT_SHARED_DIR. Nothing measured.`);
  process.exit(0);
}
v8.setFlagsFromString('--expose-gc');
const gc = globalThis.gc ?? vm.runInNewContext('gc');
const heapMb = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
const rssMb = () => process.memoryUsage().rss / 2 ** 20;
const fmt = (n, d = 1) => n.toFixed(d);

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.mdx?$/.test(name)) out.push(path);
  }
  return out;
}

/** Crude chunking: split before every ATX heading; heading path = page title + the chunk's heading. */
function chunkMarkdown(text, pageId, fallbackTitle) {
  const title = /^# (.+)$/m.exec(text)?.[1]?.trim() ?? fallbackTitle;
  return text
    .split(/^(?=#{1,6} )/m)
    .filter((part) => part.trim())
    .map((body, i) => {
      const heading = /^#{1,6} (.+)$/m.exec(body)?.[1]?.trim();
      return {
        id: `${pageId}#${i}`,
        title,
        headings: heading && heading !== title ? [title, heading] : [title],
        body,
        url: `https://docs.example/${pageId}`,
      };
    });
}

function loadLibrary(library) {
  const root = join(corporaDir, library);
  return walk(root).flatMap((file) =>
    chunkMarkdown(readFileSync(file, 'utf8'), relative(root, file), basename(file).replace(/\.mdx?$/, '')),
  );
}

// A small deterministic PRNG, so every run asks the same queries.
let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};

const handWritten = [
  ['fastapi', 'dependencies with yield'],
  ['fastapi', 'Depends()'],
  ['fastapi', 'response_model'],
  ['fastapi', 'APIRouter include_router'],
  ['fastapi', '@app.get path parameters'],
  ['fastapi', 'OAuth2 password bearer JWT'],
  ['fastapi', 'background tasks'],
  ['fastapi', 'CORS middleware'],
  ['fastapi', 'depndencies'],
  ['fastapi', 'upload file multipart'],
  ['pydantic', 'field validator'],
  ['pydantic', 'field_validator'],
  ['pydantic', 'model_validate_json'],
  ['pydantic', 'BaseModel'],
  ['pydantic', 'valdiator'],
  ['pydantic', 'computed fields serialization'],
  ['pydantic', 'ConfigDict extra forbid'],
  ['pydantic', 'discriminated unions'],
  ['pydantic', 'strict mode'],
  ['pydantic', 'TypeAdapter'],
  ['httpx', 'httpx.AsyncClient'],
  ['httpx', 'timeout configuration'],
  ['httpx', 'proxies'],
  ['httpx', 'streaming responses'],
  ['httpx', 'event hooks'],
  ['typer', 'command line options'],
  ['typer', 'typer.Option'],
  ['typer', 'autocompletion'],
  ['typer', 'subcommands'],
  ['instructor', 'response_model retries'],
  ['instructor', 'streaming partial'],
  ['instructor', 'validation context'],
  ['langgraph', 'StateGraph add_node'],
  ['langgraph', 'checkpointer memory persistence'],
  ['langgraph', 'human in the loop interrupt'],
  ['langgraph', 'subgraphs'],
  ['hono', 'middleware'],
  ['hono', 'c.json'],
  ['hono', 'zValidator'],
  ['hono', 'cloudflare workers'],
  ['zod', 'z.object'],
  ['zod', 'safeParse'],
  ['zod', 'refinements'],
  ['zod', 'discriminatedUnion'],
  ['vitest', 'vi.mock'],
  ['vitest', 'beforeEach'],
  ['vitest', 'snapshot testing'],
  ['vitest', 'coverage v8'],
  ['vitest', 'test.each'],
  ['vitest', 'browser mode'],
];

function buildQueries(chunksByLibrary) {
  const queries = handWritten.map(([library, query]) => ({ library, query }));
  while (queries.length < 200) {
    const library = libraries[Math.floor(random() * libraries.length)];
    const chunks = chunksByLibrary.get(library);
    const chunk = chunks[Math.floor(random() * chunks.length)];
    const heading = chunk.headings
      .at(-1)
      .replace(/[`*_[\]()]/g, ' ')
      .trim();
    if (heading) queries.push({ library, query: heading.split(/\s+/).slice(0, 4).join(' ') });
  }
  return queries;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

async function runPro() {
  const { OramaSearchBackend } = await import('../dist/backend.js');
  const chunksByLibrary = new Map(libraries.map((library) => [library, loadLibrary(library)]));
  const totalChunks = [...chunksByLibrary.values()].reduce((n, c) => n + c.length, 0);
  const queries = buildQueries(chunksByLibrary);
  const heap0 = heapMb();
  const backend = new OramaSearchBackend();
  const key = (library) => ({ libraryId: library, version: '1' });

  console.log(`corpora: ${totalChunks} chunks in ${libraries.length} libraries`);
  console.log('\nindex time');
  let totalIndexMs = 0;
  for (const [library, chunks] of chunksByLibrary) {
    const t = performance.now();
    await backend.index(key(library), chunks);
    const ms = performance.now() - t;
    totalIndexMs += ms;
    console.log(`  ${library.padEnd(11)} ${String(chunks.length).padStart(5)} chunks ${fmt(ms, 0).padStart(5)} ms`);
  }
  console.log(`  all         ${String(totalChunks).padStart(5)} chunks ${fmt(totalIndexMs, 0).padStart(5)} ms`);
  const heap1 = heapMb();
  console.log(
    `\nheap after GC: ${fmt(heap0)} MB before, ${fmt(heap1)} MB with all indexes (+${fmt(heap1 - heap0)} MB, ` +
      `${fmt(((heap1 - heap0) * 10_000) / totalChunks)} MB per 10k chunks); RSS ${fmt(rssMb())} MB, ` +
      `peak RSS so far ${fmt(process.resourceUsage().maxRSS / 1024)} MB (this process also holds every chunk's text)`,
  );

  for (const [label, tolerance] of [
    ['tolerance 1 (default)', undefined],
    ['tolerance 0', 0],
    ['tolerance 2', 2],
  ]) {
    for (const { library, query } of queries) await backend.search(key(library), query, { tolerance });
    const times = [];
    const slowest = new Map();
    for (let round = 0; round < 3; round++) {
      for (const { library, query } of queries) {
        const t = performance.now();
        await backend.search(key(library), query, { limit: 10, tolerance });
        const ms = performance.now() - t;
        times.push(ms);
        slowest.set(`[${library}] ${query}`, Math.max(ms, slowest.get(`[${library}] ${query}`) ?? 0));
      }
    }
    times.sort((a, b) => a - b);
    console.log(
      `\nsearch, ${label}: ${times.length} searches (200 queries x 3), p50 ${fmt(percentile(times, 50), 2)} ms, ` +
        `p99 ${fmt(percentile(times, 99), 2)} ms, max ${fmt(times.at(-1), 2)} ms`,
    );
    const worst = [...slowest].sort((a, b) => b[1] - a[1]).slice(0, 4);
    console.log(`  slowest: ${worst.map(([q, ms]) => `${q} ${fmt(ms, 2)} ms`).join('; ')}`);
  }

  // Misspelt words (two adjacent letters swapped) drawn from each library's own headings: the typo path.
  const typos = [];
  for (const { library, query } of queries) {
    const word = query.split(/\s+/).find((w) => /^[a-z]{6,}$/i.test(w));
    if (!word) continue;
    const at = 1 + Math.floor(random() * (word.length - 3));
    typos.push({ library, query: word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2) });
  }
  const typoTimes = [];
  let typoFound = 0;
  for (const { library, query } of typos) {
    const t = performance.now();
    const { total } = await backend.search(key(library), query);
    typoTimes.push(performance.now() - t);
    if (total > 0) typoFound++;
  }
  typoTimes.sort((a, b) => a - b);
  console.log(
    `\nmisspelt single words (${typos.length}, e.g. "${typos[0]?.query}"): p50 ${fmt(percentile(typoTimes, 50), 2)} ms, ` +
      `p99 ${fmt(percentile(typoTimes, 99), 2)} ms; ${typoFound} found something`,
  );

  console.log('\nsample results (top 3 headings)');
  const byId = new Map([...chunksByLibrary].flatMap(([, chunks]) => chunks.map((c) => [c.id, c])));
  for (const { library, query } of queries.slice(0, 50)) {
    const { hits, total } = await backend.search(key(library), query, { limit: 3 });
    const shown = hits.map((h) => `${byId.get(h.id)?.headings.join(' > ')} (${fmt(h.score, 2)})`).join(' | ');
    console.log(`  [${library}] ${query} (${total}): ${shown}`);
  }

  console.log('\nsnapshots');
  let totalBytes = 0;
  let identical = true;
  for (const library of libraries) {
    let t = performance.now();
    const snapshot = await backend.snapshot(key(library));
    const saveMs = performance.now() - t;
    totalBytes += snapshot.byteLength;
    const restored = new OramaSearchBackend();
    t = performance.now();
    const ok = await restored.restore(key(library), snapshot);
    const restoreMs = performance.now() - t;
    for (const { query } of queries.filter((q) => q.library === library)) {
      const a = await backend.search(key(library), query, { limit: 20 });
      const b = await restored.search(key(library), query, { limit: 20 });
      if (JSON.stringify(a) !== JSON.stringify(b)) identical = false;
    }
    const markdown = chunksByLibrary.get(library).reduce((n, c) => n + Buffer.byteLength(c.body), 0);
    console.log(
      `  ${library.padEnd(11)} ${fmt(snapshot.byteLength / 2 ** 20, 2).padStart(6)} MB ` +
        `(markdown ${fmt(markdown / 2 ** 20, 2)} MB), save ${fmt(saveMs, 0)} ms, ` +
        `restore ${fmt(restoreMs, 0)} ms (${ok ? 'ok' : 'REFUSED'})`,
    );
  }
  console.log(`  total ${fmt(totalBytes / 2 ** 20, 1)} MB; restored indexes answer identically: ${identical}`);

  const fullPath = join(corporaDir, 'llms-txt', 'pydantic.llms-full.txt');
  const full = chunkMarkdown(readFileSync(fullPath, 'utf8'), 'pydantic-full', 'pydantic');
  const t = performance.now();
  await backend.index({ libraryId: 'pydantic-full', version: '1' }, full);
  console.log(
    `\npydantic llms-full.txt (${fmt(statSync(fullPath).size / 2 ** 20, 2)} MB, ${full.length} chunks): ` +
      `indexed in ${fmt(performance.now() - t, 0)} ms`,
  );
  console.log(`\npeak RSS of this process: ${fmt(process.resourceUsage().maxRSS / 1024)} MB`);
}

async function runNaive() {
  const { create, insertMultiple } = await import('@orama/orama');
  const { stemmer } = await import('@orama/stemmers/english');
  const chunks = libraries.flatMap(loadLibrary);
  const heap0 = heapMb();
  const t = performance.now();
  const dbs = [];
  for (const library of libraries) {
    const db = create({
      schema: { title: 'string', headings: 'string', body: 'string' },
      components: { tokenizer: { stemming: true, stemmer } },
    });
    const docs = loadLibrary(library).map((c) => ({ ...c, headings: c.headings.join('\n') }));
    await insertMultiple(db, docs, 1000);
    dbs.push(db);
  }
  const ms = performance.now() - t;
  const heap1 = heapMb();
  console.log(
    `naive Orama (default components, documents stored, sorting on, stemming): ${chunks.length} chunks, ` +
      `indexed in ${fmt(ms, 0)} ms, +${fmt(heap1 - heap0)} MB heap after GC ` +
      `(${fmt(((heap1 - heap0) * 10_000) / chunks.length)} MB per 10k chunks), RSS ${fmt(rssMb())} MB, ` +
      `peak RSS ${fmt(process.resourceUsage().maxRSS / 1024)} MB (${dbs.length} dbs)`,
  );
}

if (process.argv.includes('--naive')) {
  await runNaive();
} else {
  await runPro();
  if (!process.argv.includes('--no-naive')) {
    console.log('');
    const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--naive'], {
      stdio: 'inherit',
    });
    if (child.status !== 0) process.exitCode = child.status ?? 1;
  }
}
