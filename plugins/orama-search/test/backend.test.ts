import { gunzipSync, gzipSync } from 'node:zlib';
import type { IndexKey, SearchBackend } from '@pro-context/kernel';
import { beforeEach, describe, expect, it } from 'vitest';
import { OramaSearchBackend } from '../src/backend.js';
import { chunk, docs, keyOf } from './helpers.js';

const key = keyOf('pydantic');
const unpack = (snapshot: Uint8Array) => gunzipSync(snapshot).toString('utf8');
const pack = (text: string) => new Uint8Array(gzipSync(Buffer.from(text, 'utf8')));
const ids = async (backend: SearchBackend, query: string, options?: { limit?: number; tolerance?: number }) =>
  (await backend.search(key, query, options)).hits.map((hit) => hit.id);

describe('OramaSearchBackend', () => {
  let backend: OramaSearchBackend;
  beforeEach(async () => {
    backend = new OramaSearchBackend();
    await backend.index(key, docs);
  });

  describe('code identifiers', () => {
    it.each([
      ['field validator', 'field-validators'],
      ['field_validator', 'field-validators'],
      ['model_validate_json', 'json-parsing'],
      ['BaseModel', 'base-model'],
      ['base model', 'base-model'],
      ['Depends()', 'dependencies'],
      ['response_model', 'response-model'],
      ['APIRouter', 'routers'],
      ['apirouter', 'routers'],
      ['@app.get', 'dependencies'],
      ['httpx.AsyncClient', 'async-client'],
      ['AsyncClient', 'async-client'],
    ])('"%s" finds %s first', async (query, expected) => {
      expect((await ids(backend, query))[0]).toBe(expected);
    });

    it('ranks the exact identifier above chunks sharing only its parts', async () => {
      const { hits } = await backend.search(key, 'model_validate_json');
      expect(hits[0]?.id).toBe('json-parsing');
      // model_validator shares "model" and "valid": it matches, but lower.
      expect(hits.map((h) => h.id)).toContain('model-validators');
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    });
  });

  it('stems: "validators", "validator" and "validation" find the same chunks', async () => {
    const plural = await ids(backend, 'validators');
    expect(plural).toContain('field-validators');
    expect(await ids(backend, 'validator')).toEqual(plural);
    expect(await ids(backend, 'validation')).toEqual(plural);
  });

  describe('synonyms and abbreviations', () => {
    const synonymDocs = [
      chunk('env', 'Settings', ['Settings', 'Environment variables'], 'Read settings from environment variables.'),
      chunk('abbrev', 'Settings', ['Settings', 'Env vars'], 'Env vars are read once at startup.'),
      chunk('other', 'Settings', ['Settings', 'Files'], 'Read settings from a file.'),
    ];
    const synonymKey = keyOf('synonyms');

    it('finds the long form of an abbreviation and the other way round, the word as asked first', async () => {
      await backend.index(synonymKey, synonymDocs);
      const search = async (query: string) => (await backend.search(synonymKey, query)).hits.map((h) => h.id);
      expect(await search('env vars')).toEqual(['abbrev', 'env']);
      expect(await search('environment variables')).toEqual(['env', 'abbrev']);
    });
  });

  describe('typo tolerance', () => {
    it('matches a swap of two letters and a missing letter within the default tolerance of 1', async () => {
      expect(await ids(backend, 'valdiator')).toContain('field-validators');
      expect(await ids(backend, 'validatr')).toContain('field-validators');
      expect((await ids(backend, 'modle'))[0]).toBe('base-model');
    });

    it('is off at tolerance 0 and for words shorter than five letters', async () => {
      expect(await ids(backend, 'valdiator', { tolerance: 0 })).toEqual([]);
      expect(await ids(backend, 'modl')).toEqual([]);
    });

    it('allows two edits for long words only when asked', async () => {
      expect(await ids(backend, 'valdaitor')).toEqual([]);
      expect(await ids(backend, 'valdaitor', { tolerance: 2 })).toContain('field-validators');
    });

    it('never replaces a word the index contains by a look-alike', async () => {
      const small = new OramaSearchBackend();
      await small.index(key, [chunk('modal', 'Dialogs', ['Dialogs'], 'Open a modal dialog.'), ...docs]);
      expect(await ids(small, 'model')).not.toContain('modal');
      expect(await ids(small, 'modle')).toContain('base-model');
    });

    it('scores a typo match below the exact word', async () => {
      const exact = await backend.search(key, 'validators');
      const typo = await backend.search(key, 'valdiators');
      expect(typo.hits[0]?.id).toBe(exact.hits[0]?.id);
      expect(typo.hits[0]!.score).toBeLessThan(exact.hits[0]!.score);
    });
  });

  describe('ranking', () => {
    it('puts a chunk whose heading matches above one that only mentions the term in its text', async () => {
      const order = await ids(backend, 'validators');
      expect(order.indexOf('mentions-validators')).toBeGreaterThan(order.indexOf('field-validators'));
      expect(order.indexOf('mentions-validators')).toBeGreaterThan(order.indexOf('model-validators'));
    });

    it('ORs the terms, ranking chunks that match more of them higher', async () => {
      const results = await backend.search(key, 'json routers');
      expect(results.hits.map((h) => h.id).sort()).toEqual(['json-parsing', 'routers']);
      expect(results.total).toBe(2);
      expect((await ids(backend, 'field validator decorator'))[0]).toBe('field-validators');
    });

    it('returns raw BM25 scores best first, the limit, and the total number of matching chunks', async () => {
      const all = await backend.search(key, 'validators', { limit: 100 });
      expect(all.total).toBe(all.hits.length);
      expect(all.total).toBeGreaterThanOrEqual(3);
      for (let i = 1; i < all.hits.length; i++)
        expect(all.hits[i - 1]!.score).toBeGreaterThanOrEqual(all.hits[i]!.score);
      expect(all.hits[0]!.score).toBeGreaterThan(1);
      const one = await backend.search(key, 'validators', { limit: 1 });
      expect(one.hits).toEqual([all.hits[0]]);
      expect(one.total).toBe(all.total);
      expect((await backend.search(key, 'validators')).hits.length).toBeLessThanOrEqual(10);
    });

    it('finds nothing for an empty query, stop words only, an unknown word or an unknown key', async () => {
      for (const query of ['', '   ', 'the of and', 'xylophone']) {
        expect(await backend.search(key, query)).toEqual({ hits: [], total: 0 });
      }
      expect(await backend.search(keyOf('unknown'), 'validators')).toEqual({ hits: [], total: 0 });
    });

    it('handles words named like Object.prototype members', async () => {
      const small = new OramaSearchBackend();
      await small.index(key, [
        chunk('proto', 'Classes', ['Classes'], 'Every class has a constructor, a toString method and __proto__.'),
        chunk('other', 'Other', ['Other'], 'Nothing to see.'),
      ]);
      expect(await ids(small, 'constructor')).toEqual(['proto']);
      expect(await ids(small, '__proto__')).toEqual(['proto']);
      expect(await ids(small, 'hasOwnProperty valueOf')).toEqual([]);
    });
  });

  describe('indexes', () => {
    it('keeps libraries and versions apart', async () => {
      const v2 = keyOf('pydantic', '2.0.0');
      const other = keyOf('fastapi', '1.0.0');
      await backend.index(v2, [chunk('v2-only', 'Migration', ['Migration'], 'Upgrading guide for xylophone users.')]);
      await backend.index(other, [chunk('fastapi-only', 'Routers', ['Routers'], 'Validators live elsewhere.')]);
      expect((await backend.search(v2, 'xylophone')).hits.map((h) => h.id)).toEqual(['v2-only']);
      expect(await ids(backend, 'xylophone')).toEqual([]);
      expect((await backend.search(v2, 'validators')).hits).toEqual([]);
      expect((await backend.search(other, 'validators')).hits.map((h) => h.id)).toEqual(['fastapi-only']);
      expect(await ids(backend, 'validators')).not.toContain('fastapi-only');
      await backend.drop(v2);
      expect(await backend.has(other)).toBe(true);
      expect(await backend.has(key)).toBe(true);
    });

    it('reports, replaces and drops an index', async () => {
      const fresh = keyOf('httpx');
      expect(await backend.has(fresh)).toBe(false);
      await backend.index(fresh, [chunk('a', 'A', ['A'], 'timeouts')]);
      expect(await backend.has(fresh)).toBe(true);
      await backend.index(fresh, [chunk('b', 'B', ['B'], 'proxies')]);
      expect((await backend.search(fresh, 'timeouts')).hits).toEqual([]);
      expect((await backend.search(fresh, 'proxies')).hits.map((h) => h.id)).toEqual(['b']);
      await backend.drop(fresh);
      expect(await backend.has(fresh)).toBe(false);
      expect(await backend.snapshot(fresh)).toBeNull();
      expect((await backend.search(fresh, 'proxies')).hits).toEqual([]);
    });

    it('indexes an empty chunk list as an empty index', async () => {
      const empty = keyOf('empty');
      await backend.index(empty, []);
      expect(await backend.has(empty)).toBe(true);
      expect(await backend.search(empty, 'anything')).toEqual({ hits: [], total: 0 });
    });

    it('refuses duplicate chunk ids and keeps the previous index', async () => {
      await expect(
        backend.index(key, [chunk('same', 'A', ['A'], 'one'), chunk('same', 'B', ['B'], 'two')]),
      ).rejects.toThrow(/"same" appears twice/);
      expect((await ids(backend, 'BaseModel'))[0]).toBe('base-model');
    });

    it('does not resurrect an index dropped while it was being built', async () => {
      const big = keyOf('big');
      const chunks = Array.from({ length: 1500 }, (_, i) => chunk(`c${i}`, 'T', ['T'], `word${i} shared text`));
      const building = backend.index(big, chunks);
      await backend.drop(big);
      await building;
      expect(await backend.has(big)).toBe(false);
    });

    it('lets an index() that starts while a snapshot is being restored win over the snapshot', async () => {
      const snapshot = (await backend.snapshot(key))!;
      const restoring = backend.restore(key, snapshot);
      const rebuilding = backend.index(key, [chunk('newer', 'Newer', ['Newer'], 'xylophone')]);
      expect(await restoring).toBe(false);
      await rebuilding;
      expect(await ids(backend, 'xylophone')).toEqual(['newer']);
      expect(await ids(backend, 'BaseModel')).toEqual([]);
    });

    it('keeps at most maxLoadedIndexes indexes, forgetting the least recently used', async () => {
      const small = new OramaSearchBackend({ maxLoadedIndexes: 2 });
      const [a, b, c] = [keyOf('a'), keyOf('b'), keyOf('c')];
      for (const k of [a, b]) await small.index(k, [chunk(k.libraryId, 'T', ['T'], 'text')]);
      await small.search(a, 'text'); // a is now the most recently used
      await small.index(c, [chunk('c', 'T', ['T'], 'text')]);
      expect(await small.has(b)).toBe(false);
      expect(await small.has(a)).toBe(true);
      expect(small.loadedKeys()).toEqual([a, c]);
      expect(() => new OramaSearchBackend({ maxLoadedIndexes: 0 })).toThrow(RangeError);
    });
  });

  describe('snapshots', () => {
    const queries = [
      'field validator',
      'model_validate_json',
      'validators',
      'valdiator',
      'APIRouter include_router',
      'async client',
      'response_model',
    ];

    it('restores an index that answers exactly like the original, scores included', async () => {
      const snapshot = await backend.snapshot(key);
      expect(snapshot).toBeInstanceOf(Uint8Array);
      const restored = new OramaSearchBackend();
      expect(await restored.restore(key, snapshot!)).toBe(true);
      expect(await restored.has(key)).toBe(true);
      for (const query of queries) {
        expect(await restored.search(key, query, { limit: 20 }), query).toEqual(
          await backend.search(key, query, { limit: 20 }),
        );
      }
      // A restored index snapshots to the same bytes, so a restart does not change the cached copy.
      expect(Buffer.from((await restored.snapshot(key))!).equals(Buffer.from(snapshot!))).toBe(true);
    });

    it('keeps chunk text and URLs out of the snapshot', async () => {
      const text = unpack((await backend.snapshot(key))!);
      expect(text).not.toContain('Many small fixes');
      expect(text).not.toContain('https://docs.test');
      expect(text).not.toContain('the decorator to filter');
    });

    it('refuses unusable snapshots without throwing and keeps the loaded index', async () => {
      const good = (await backend.snapshot(key))!;
      const envelope = JSON.parse(unpack(good)) as Record<string, unknown>;
      const variant = (patch: Record<string, unknown>) => pack(JSON.stringify({ ...envelope, ...patch }));
      const unusable: [string, Uint8Array][] = [
        ['garbage', new TextEncoder().encode('not a snapshot')],
        ['empty', new Uint8Array()],
        ['uncompressed JSON', new TextEncoder().encode(unpack(good))],
        ['truncated', good.subarray(0, Math.floor(good.length / 2))],
        ['not UTF-8 inside', new Uint8Array(gzipSync(Buffer.from([0xff, 0xfe, 0x00])))],
        ['not JSON inside', pack('not json')],
        ['JSON of something else', pack('[1,2,3]')],
        ['another format', variant({ format: 'minisearch' })],
        ['a newer format version', variant({ version: (envelope.version as number) + 1 })],
        ['another Orama version', variant({ orama: '4.0.0' })],
        ['another tokenization', variant({ analysis: 'code-english-0' })],
        ['a wrong chunk count', variant({ chunks: 3 })],
        ['no data', variant({ data: null })],
        ['broken data', variant({ data: { index: 'nope' } })],
      ];
      for (const [what, bytes] of unusable) {
        expect(await backend.restore(key, bytes), what).toBe(false);
      }
      expect((await ids(backend, 'BaseModel'))[0]).toBe('base-model');
      const fresh = new OramaSearchBackend();
      expect(await fresh.restore(key, unusable[0]![1])).toBe(false);
      expect(await fresh.has(key)).toBe(false);
    });

    it('restores into a backend with other options and answers with its own boosts', async () => {
      const restored = new OramaSearchBackend({ boost: { title: 1, headings: 1, body: 10 } });
      expect(await restored.restore(key, (await backend.snapshot(key))!)).toBe(true);
      const original = await backend.search(key, 'validators');
      const reweighted = await restored.search(key, 'validators');
      expect(reweighted.total).toBe(original.total);
      // Scores are relative to the best chunk, so the boosts show in the others' scores.
      expect(reweighted.hits.map((h) => h.score)).not.toEqual(original.hits.map((h) => h.score));
    });
  });
});

describe('memory', () => {
  it('keeps no chunk text alive once an index is built', async () => {
    const { setFlagsFromString } = await import('node:v8');
    const { runInNewContext } = await import('node:vm');
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    // 2,000 chunks of 10 kB each (20 MB of text); their long words are what V8 would keep as slices.
    const filler = 'internationalization_settings configuration_management '.repeat(180);
    const make = (i: number): IndexKey & { body: string } => ({
      libraryId: 'x',
      version: '1',
      body: `unique_identifier_number_${i} ${filler} trailing_identifier_${i}`,
    });
    const backend = new OramaSearchBackend();
    const before = heap();
    await backend.index(
      keyOf('memory'),
      Array.from({ length: 2000 }, (_, i) => chunk(`c${i}`, 'Title', ['Title'], make(i).body)),
    );
    const grown = heap() - before;
    expect((await backend.search(keyOf('memory'), 'unique_identifier_number_7')).hits[0]?.id).toBe('c7');
    // Measured 5 MB; keeping the documents (Orama's default store) or sorting on (its default) adds 20 MB.
    expect(grown).toBeLessThan(10 * 2 ** 20);
  });
});
