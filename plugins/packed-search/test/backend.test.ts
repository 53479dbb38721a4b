import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { isProContextError } from '@pro-context/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { PackedSearchBackend } from '../src/backend.js';
import { chunk, corporaAvailable, corpusChunks, keyOf } from './helpers.js';

const docs = [
  chunk('validators', 'Validators', ['Validators', 'Field validators'], 'Use `@field_validator` to check one field.'),
  chunk('models', 'Models', ['Models'], 'Models inherit from `BaseModel`.'),
  chunk('settings', 'Settings', ['Settings'], 'Read configuration from environment variables.'),
];

/** A corpus of `n` chunks of about 1 KB each, every one with its own words. */
function bigCorpus(n: number, prefix: string) {
  return Array.from({ length: n }, (_, i) =>
    chunk(
      `${prefix}-${i}`,
      `Page ${i}`,
      [`Page ${i}`, `Section ${prefix}${i}`],
      `${'lorem ipsum dolor sit amet validator '.repeat(20)} word${prefix}${i} thing${i % 97} ${prefix}unique${i}`,
    ),
  );
}

const open: PackedSearchBackend[] = [];
const backendWith = (options: ConstructorParameters<typeof PackedSearchBackend>[0] = {}) => {
  const backend = new PackedSearchBackend(options);
  open.push(backend);
  return backend;
};
afterEach(async () => {
  for (const backend of open.splice(0)) await backend.close();
});

describe('PackedSearchBackend', () => {
  it('keeps the loaded indexes within maxMemoryMB, least recently used out first, and restores them', async () => {
    const a = keyOf('a');
    const b = keyOf('b');
    const c = keyOf('c');
    const probe = backendWith({ worker: false });
    await probe.index(a, bigCorpus(1500, 'a'));
    const oneIndex = probe.memoryBytes;
    // room for one of these indexes and a half
    const budget = (oneIndex * 1.5) / 2 ** 20;
    const backend = backendWith({ worker: false, maxMemoryMB: budget });
    await backend.index(a, bigCorpus(1500, 'a'));
    expect(backend.memoryBytes).toBe(oneIndex);
    const snapshotA = (await backend.snapshot(a))!;
    await backend.index(b, bigCorpus(1500, 'b'));
    // a and b do not both fit: a, the least recently used, is gone
    expect(await backend.has(a)).toBe(false);
    expect(await backend.has(b)).toBe(true);
    expect(backend.memoryBytes).toBeLessThanOrEqual(budget * 2 ** 20);
    expect((await backend.search(a, 'aunique7')).hits).toEqual([]);
    // the engine restores an evicted index from its snapshot when asked again
    expect(await backend.restore(a, snapshotA)).toBe(true);
    expect((await backend.search(a, 'aunique7')).hits.map((h) => h.id)).toEqual(['a-7']);
    expect(await backend.has(b)).toBe(false);
    // small indexes share the budget
    await backend.index(c, docs);
    expect(backend.loadedKeys().map((k) => k.libraryId)).toEqual(['a', 'c']);
  });

  it('keeps at most maxLoadedIndexes', async () => {
    const backend = backendWith({ worker: false, maxLoadedIndexes: 2 });
    for (const id of ['a', 'b', 'c']) await backend.index(keyOf(id), docs);
    await backend.search(keyOf('b'), 'models');
    await backend.index(keyOf('d'), docs);
    expect(backend.loadedKeys().map((k) => k.libraryId)).toEqual(['b', 'd']);
  });

  it('answers another library while a large one is being built in the worker', async () => {
    const backend = backendWith();
    const small = keyOf('small');
    await backend.index(small, docs);
    let built = false;
    const building = backend.index(keyOf('large'), bigCorpus(20_000, 'l')).then(() => {
      built = true;
    });
    const answers: number[] = [];
    while (!built && answers.length < 20) {
      const started = performance.now();
      const results = await backend.search(small, 'field validator');
      answers.push(performance.now() - started);
      expect(results.hits[0]?.id).toBe('validators');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // several answers came back while the large index was still being built
    expect(built).toBe(false);
    expect(answers.length).toBe(20);
    await building;
    expect((await backend.search(keyOf('large'), 'lunique19999')).hits.map((h) => h.id)).toEqual(['l-19999']);
  });

  it('lets a newer index() or drop() of a key win over a build still running', async () => {
    for (const worker of [true, false]) {
      const backend = backendWith({ worker });
      const key = keyOf('lib');
      const first = backend.index(key, bigCorpus(3000, 'old'));
      await backend.drop(key);
      await first;
      expect(await backend.has(key)).toBe(false);
      const stale = backend.index(key, bigCorpus(3000, 'old'));
      const fresh = backend.index(key, docs);
      await Promise.all([stale, fresh]);
      expect((await backend.search(key, 'oldunique5')).hits).toEqual([]);
      expect((await backend.search(key, 'models')).hits.map((h) => h.id)).toEqual(['models']);
    }
  });

  it('reports a crash of the worker as a coded error, and the next build starts a new worker', async () => {
    // a heap too small for the build: the worker dies of it (ERR_WORKER_OUT_OF_MEMORY). One worker, so that
    // the next build goes to a new one rather than to a second worker still busy with the other half.
    const backend = backendWith({ workerMaxHeapMB: 8, workers: 1 });
    const key = keyOf('huge');
    const error = await backend.index(key, bigCorpus(60_000, 'h')).catch((e: unknown) => e);
    expect(isProContextError(error)).toBe(true);
    expect((error as { code: string }).code).toBe('PACKED_SEARCH_WORKER_FAILED');
    expect((error as Error).message).toContain('huge@1.0.0');
    expect(await backend.has(key)).toBe(false);
    await backend.index(keyOf('small'), docs);
    expect((await backend.search(keyOf('small'), 'models')).hits.map((h) => h.id)).toEqual(['models']);
  });

  it('ends idle workers and starts new ones for the next build', async () => {
    const backend = backendWith({ workerIdleMs: 20 });
    await backend.index(keyOf('a'), bigCorpus(3000, 'a'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await backend.index(keyOf('b'), bigCorpus(3000, 'b'));
    expect((await backend.search(keyOf('a'), 'aunique2999')).hits.map((h) => h.id)).toEqual(['a-2999']);
    expect((await backend.search(keyOf('b'), 'bunique0')).hits.map((h) => h.id)).toEqual(['b-0']);
  });

  it('refuses damaged, foreign and truncated snapshots', async () => {
    const backend = backendWith({ worker: false });
    const key = keyOf('lib');
    await backend.index(key, docs);
    const snapshot = (await backend.snapshot(key))!;
    const fresh = backendWith({ worker: false });
    expect(await fresh.restore(key, snapshot.subarray(0, snapshot.length - 8))).toBe(false);
    const damaged = snapshot.slice();
    // the last array is the written words' term numbers: point one far out of range
    new DataView(damaged.buffer).setUint32(damaged.length - 8, 0xffffff, true);
    expect(await fresh.restore(key, damaged)).toBe(false);
    const gzipped = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]);
    expect(await fresh.restore(key, gzipped)).toBe(false);
    expect(await fresh.has(key)).toBe(false);
    // an unaligned copy of a good snapshot restores (the engine's cache hands out Buffers at any offset)
    const unaligned = new Uint8Array(snapshot.length + 3).subarray(3);
    unaligned.set(snapshot);
    expect(await fresh.restore(key, unaligned)).toBe(true);
    expect((await fresh.search(key, 'models')).hits.map((h) => h.id)).toEqual(['models']);
  });

  it('returns nothing for an empty query or a limit of 0, and still counts the matches', async () => {
    const backend = backendWith({ worker: false });
    const key = keyOf('lib');
    await backend.index(key, docs);
    expect(await backend.search(key, '   ')).toEqual({ hits: [], total: 0 });
    expect(await backend.search(key, 'models settings', { limit: 0 })).toEqual({ hits: [], total: 2 });
  });

  it('refuses duplicate chunk ids and bad limits', async () => {
    const backend = backendWith({ worker: false });
    await expect(backend.index(keyOf('lib'), [docs[0]!, docs[0]!])).rejects.toThrow(/appears twice/);
    expect(() => new PackedSearchBackend({ maxMemoryMB: 0 })).toThrow(RangeError);
    expect(() => new PackedSearchBackend({ maxLoadedIndexes: 0 })).toThrow(RangeError);
  });

  it.skipIf(!corporaAvailable)('holds a real corpus in a fraction of its markdown', async () => {
    const backend = backendWith({ worker: false });
    const chunks = corpusChunks('fastapi');
    await backend.index(keyOf('fastapi'), chunks);
    const markdown = chunks.reduce((n, c) => n + Buffer.byteLength(c.body), 0);
    expect(backend.memoryBytes).toBeLessThan(markdown);
    expect((await backend.snapshot(keyOf('fastapi')))!.byteLength).toBeLessThan(markdown);
  });
});

describe('PackedSearchBackend.indexer (chunks in batches)', () => {
  const queries = ['validator word', 'thing5 lorem', 'aunique77', 'page 1200 section'];
  for (const worker of [true, false]) {
    it(`builds the index index() builds from the same chunks (${worker ? 'in the build worker' : 'on the main thread'})`, async () => {
      const chunks = bigCorpus(1300, 'a');
      const whole = backendWith({ worker });
      await whole.index(keyOf('whole'), chunks);
      const streamed = backendWith({ worker });
      const build = streamed.indexer(keyOf('streamed'));
      for (let from = 0; from < chunks.length; from += 400) await build.add(chunks.slice(from, from + 400));
      expect(await streamed.has(keyOf('streamed'))).toBe(false);
      await build.finish();
      for (const query of queries) {
        expect(await streamed.search(keyOf('streamed'), query)).toEqual(await whole.search(keyOf('whole'), query));
      }
      expect(await streamed.snapshot(keyOf('streamed'))).toEqual(await whole.snapshot(keyOf('whole')));
    });
  }

  it('fed through its channel by another thread, builds the same index, acknowledging each batch', async () => {
    const chunks = bigCorpus(1300, 'a');
    const whole = backendWith();
    await whole.index(keyOf('whole'), chunks);
    const fed = backendWith();
    const build = fed.indexer(keyOf('fed'));
    const channel = await build.channel?.();
    if (!channel) throw new Error('no channel from a build in the worker');
    // a thread of its own posts the batches, as a chunking worker does
    const poster = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const { port, chunks } = workerData;
       for (let from = 0, seq = 1; from < chunks.length; from += 400, seq++)
         port.postMessage({ seq, chunks: chunks.slice(from, from + 400) });
       parentPort.postMessage('sent');`,
      { eval: true, workerData: { port: channel.port, chunks }, transferList: [channel.port] },
    );
    await once(poster, 'message');
    await Promise.all([1, 2, 3, 4].map((seq) => channel.taken(seq)));
    await poster.terminate();
    expect(await fed.has(keyOf('fed'))).toBe(false);
    await build.finish();
    for (const query of queries) {
      expect(await fed.search(keyOf('fed'), query)).toEqual(await whole.search(keyOf('whole'), query));
    }
    expect(await fed.snapshot(keyOf('fed'))).toEqual(await whole.snapshot(keyOf('whole')));
    // built on the main thread, there is no channel: batches go through add()
    expect(await backendWith({ worker: false }).indexer(keyOf('here')).channel?.()).toBeUndefined();
  });

  it('cancelled, installs nothing; a chunk id seen in an earlier batch is refused', async () => {
    const backend = backendWith();
    const build = backend.indexer(keyOf('x'));
    await build.add(bigCorpus(300, 'x'));
    build.cancel();
    expect(await backend.has(keyOf('x'))).toBe(false);
    const again = backend.indexer(keyOf('y'));
    await again.add(bigCorpus(10, 'y'));
    await expect(again.add(bigCorpus(1, 'y'))).rejects.toThrow(/appears twice/);
  });

  it('a worker that dies during a streamed build fails it with PACKED_SEARCH_WORKER_FAILED', async () => {
    const backend = backendWith({ workerMaxHeapMB: 8 });
    const build = backend.indexer(keyOf('big'));
    const error = await (async () => {
      for (let i = 0; i < 40; i++) await build.add(bigCorpus(2000, `p${i}`));
      await build.finish();
    })().catch((e: unknown) => e);
    expect(isProContextError(error) && error.code).toBe('PACKED_SEARCH_WORKER_FAILED');
  });
});
