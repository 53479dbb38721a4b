import type { IndexableChunk, SearchBackend } from '@pro-context/kernel';
import { beforeEach, describe, expect, it } from 'vitest';

/** How the suite gets a fresh backend. */
export interface SearchBackendContractOptions {
  create(): SearchBackend | Promise<SearchBackend>;
}

const chunk = (id: string, title: string, headings: string[], body: string): IndexableChunk => ({
  id,
  title,
  headings,
  body,
  url: `https://docs.test/${id}`,
});

/** A small corpus the suite indexes. */
export const contractCorpus: IndexableChunk[] = [
  chunk(
    'validators',
    'Validators',
    ['Validators', 'Field validators'],
    'Use field validators to check a value before or after parsing.',
  ),
  chunk(
    'models',
    'Models',
    ['Models', 'Basic model usage'],
    'Models are classes that inherit from BaseModel and define fields.',
  ),
  chunk(
    'serialization',
    'Serialization',
    ['Serialization', 'model_dump'],
    'Convert a model to a dictionary with model_dump.',
  ),
  chunk('settings', 'Settings', ['Settings'], 'Load configuration from environment variables.'),
  chunk(
    'errors',
    'Errors',
    ['Errors', 'Validation errors'],
    'A ValidationError lists every problem found while validating.',
  ),
];

/**
 * The behaviour every `SearchBackend` must have:
 * `describeSearchBackendContract('my-backend', { create: () => new MyBackend() })`.
 */
export function describeSearchBackendContract(name: string, options: SearchBackendContractOptions): void {
  describe(`SearchBackend contract: ${name}`, () => {
    let backend: SearchBackend;
    const key = { libraryId: 'contract/lib', version: '1.0.0' };
    beforeEach(async () => {
      backend = await options.create();
      await backend.index(key, contractCorpus);
    });

    it('ranks the chunk about the query first', async () => {
      const results = await backend.search(key, 'field validators');
      expect(results.hits[0]?.id).toBe('validators');
      expect(results.total).toBeGreaterThanOrEqual(1);
      for (let i = 1; i < results.hits.length; i++) {
        expect(results.hits[i - 1]!.score).toBeGreaterThanOrEqual(results.hits[i]!.score);
      }
    });

    it('finds code identifiers', async () => {
      expect((await backend.search(key, 'model_dump')).hits[0]?.id).toBe('serialization');
    });

    it('respects the limit and reports the total', async () => {
      const results = await backend.search(key, 'model validators errors settings', { limit: 2 });
      expect(results.hits.length).toBeLessThanOrEqual(2);
      expect(results.total).toBeGreaterThanOrEqual(results.hits.length);
    });

    it('returns nothing for an unknown key or an unmatched query', async () => {
      expect((await backend.search({ libraryId: 'nope', version: '1' }, 'validators')).hits).toEqual([]);
      expect((await backend.search(key, 'xylophone')).hits).toEqual([]);
    });

    it('keeps versions of a library apart', async () => {
      const v2 = { libraryId: key.libraryId, version: '2.0.0' };
      await backend.index(v2, [chunk('v2-only', 'Migration', ['Migration'], 'Upgrading guide for xylophone users.')]);
      expect((await backend.search(v2, 'xylophone')).hits[0]?.id).toBe('v2-only');
      expect((await backend.search(key, 'xylophone')).hits).toEqual([]);
    });

    it('snapshots and restores an index with the same results', async () => {
      const before = await backend.search(key, 'validators');
      const snapshot = await backend.snapshot(key);
      expect(snapshot).toBeInstanceOf(Uint8Array);
      const fresh = await options.create();
      expect(await fresh.has(key)).toBe(false);
      expect(await fresh.restore(key, snapshot as Uint8Array)).toBe(true);
      expect(await fresh.has(key)).toBe(true);
      const after = await fresh.search(key, 'validators');
      expect(after.hits.map((h) => h.id)).toEqual(before.hits.map((h) => h.id));
    });

    it('refuses an unusable snapshot without throwing', async () => {
      const fresh = await options.create();
      expect(await fresh.restore(key, new TextEncoder().encode('not a snapshot'))).toBe(false);
      expect(await fresh.snapshot({ libraryId: 'nope', version: '1' })).toBeNull();
    });

    it('drops an index', async () => {
      await backend.drop(key);
      expect(await backend.has(key)).toBe(false);
      expect((await backend.search(key, 'validators')).hits).toEqual([]);
    });
  });
}
