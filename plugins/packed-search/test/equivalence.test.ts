import type { IndexableChunk, SearchBackend } from '@pro-context/kernel';
import { OramaSearchBackend } from '@pro-context/plugin-orama-search';
import { afterAll, describe, expect, it } from 'vitest';
import { PackedSearchBackend } from '../src/backend.js';
import { corporaAvailable, corpusChunks, evalQuestions, keyOf } from './helpers.js';

if (!corporaAvailable) console.warn('[packed-search] skipping the real-corpus comparison: no ../shared/corpora');

/** Real queries: the eval questions, headings of every eighth chunk, misspellings and abbreviations. */
function queriesFor(chunks: IndexableChunk[]): string[] {
  return [
    ...evalQuestions('fastapi'),
    ...evalQuestions('pydantic'),
    ...chunks.filter((_, i) => i % 8 === 0).map((c) => c.headings.join(' ')),
    'valdiator',
    'model_validate_json',
    'paramters env vars',
    'confgure middleware',
    'asyn clinet timeout',
    'db auth config',
    'how do I return a 404 error',
    'isn\u2019t it the app\u2019s settings',
    'Ünïcödé naïve café',
  ];
}

async function expectSameResults(orama: SearchBackend, packed: SearchBackend, library: string, queries: string[]) {
  const key = keyOf(library);
  let compared = 0;
  for (const query of queries) {
    for (const options of [{ limit: 10 }, { limit: 3, tolerance: 2 }]) {
      const expected = await orama.search(key, query, options);
      const actual = await packed.search(key, query, options);
      expect(actual.total, query).toBe(expected.total);
      expect(
        actual.hits.map((h) => h.id),
        query,
      ).toEqual(expected.hits.map((h) => h.id));
      actual.hits.forEach((hit, i) => {
        expect(Math.abs(hit.score - expected.hits[i]!.score), query).toBeLessThan(1e-12);
      });
      compared += 1;
    }
  }
  return compared;
}

describe.skipIf(!corporaAvailable)('packed-search ranks exactly like orama-search on real corpora', () => {
  const backends: PackedSearchBackend[] = [];
  afterAll(async () => {
    for (const backend of backends) await backend.close();
  });

  for (const library of ['fastapi', 'pydantic', 'hono', 'zod']) {
    it(`${library}: same top 10, same scores, same totals (built here, in one or two workers, and restored)`, async () => {
      const chunks = corpusChunks(library);
      expect(chunks.length).toBeGreaterThan(100);
      const key = keyOf(library);
      const orama = new OramaSearchBackend();
      await orama.index(key, chunks);
      const here = new PackedSearchBackend({ worker: false });
      const inWorker = new PackedSearchBackend({ worker: true });
      // two workers: a library of more than 1,024 chunks is built in two parts and merged
      const split = new PackedSearchBackend({ worker: true, workers: 2 });
      backends.push(inWorker, split);
      await here.index(key, chunks);
      await inWorker.index(key, chunks);
      await split.index(key, chunks);
      const restored = new PackedSearchBackend({ worker: false });
      expect(await restored.restore(key, (await inWorker.snapshot(key))!)).toBe(true);
      const queries = queriesFor(chunks);
      for (const packed of [here, inWorker, split, restored]) {
        expect(await expectSameResults(orama, packed, library, queries)).toBeGreaterThan(200);
      }
    });
  }
});
