import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IndexableChunk } from '@pro-context/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { ftsQuery } from '../src/analysis.js';
import { SqliteSearchBackend } from '../src/backend.js';

const chunk = (id: string, title: string, headings: string[], body: string): IndexableChunk => ({
  id,
  title,
  headings,
  body,
  url: `https://docs.test/${id}`,
});

const corpus: IndexableChunk[] = [
  chunk('validators', 'Validators', ['Validators', 'model_validator'], 'Use model_validator to check a whole model.'),
  chunk('config', 'Configuration', ['Configuration', 'setupFiles'], 'setupFiles run before each test file.'),
  chunk('poll', 'Assertions', ['Assertions', 'expect.poll'], 'expect.poll retries an assertion until it passes.'),
  chunk('links', 'Links', ['Links'], 'See [the guide](https://example.test/validator/guide) for more.'),
  chunk('plain', 'Models', ['Models'], 'A model has fields. The model is validated.'),
];
const key = { libraryId: 'test/lib', version: '1.0.0' };

const open: SqliteSearchBackend[] = [];
const directories: string[] = [];
const memory = () => {
  const backend = new SqliteSearchBackend({ directory: ':memory:' });
  open.push(backend);
  return backend;
};
const onDisk = (directory = mkdtempSync(join(tmpdir(), 'sqlite-search-'))) => {
  if (!directories.includes(directory)) directories.push(directory);
  const backend = new SqliteSearchBackend({ directory });
  open.push(backend);
  return { backend, directory };
};
afterEach(() => {
  for (const backend of open.splice(0)) backend.close();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const ids = async (backend: SqliteSearchBackend, query: string) =>
  (await backend.search(key, query)).hits.map((h) => h.id);

describe('SqliteSearchBackend', () => {
  it('never fails on FTS5 syntax in a query', async () => {
    const backend = memory();
    await backend.index(key, corpus);
    for (const query of [
      '"',
      'model" OR',
      'NEAR(model validator)',
      'model AND',
      'NOT',
      '*',
      'body:model',
      '^model',
      '-',
      '(',
      "model's",
      '{}',
    ]) {
      await expect(backend.search(key, query)).resolves.toBeDefined();
    }
    expect((await backend.search(key, 'NEAR(model_validator')).hits[0]?.id).toBe('validators');
    expect(await ids(backend, 'the and of')).toEqual([]);
  });

  it('finds identifiers whole and by their parts', async () => {
    const backend = memory();
    await backend.index(key, corpus);
    expect((await ids(backend, 'model_validator'))[0]).toBe('validators');
    expect((await ids(backend, 'setupFiles'))[0]).toBe('config');
    expect((await ids(backend, 'setup files'))[0]).toBe('config');
    expect((await ids(backend, 'expect.poll'))[0]).toBe('poll');
    // stemmed: `validated` and `validators` share a stem
    expect(await ids(backend, 'validating')).toContain('plain');
    // link targets are not indexed
    expect(await ids(backend, 'example')).toEqual([]);
  });

  it('builds the query from literals only', () => {
    expect(ftsQuery('How do I use expect.poll?')).toBe('"expectpoll" OR "expect" OR "poll"');
    expect(ftsQuery('setupFiles')).toBe('"setupfiles" OR "setup" OR "files"');
    expect(ftsQuery('"')).toBe('');
  });

  it('replaces an index whole, and searches see the old one until the new one is committed', async () => {
    const backend = memory();
    await backend.index(key, corpus);
    const big = Array.from({ length: 5000 }, (_, i) => chunk(`new-${i}`, 'Xylophone', ['Xylophone'], `xylophone ${i}`));
    const building = backend.index(key, big);
    // the build yields between slices of rows; meanwhile the old index answers
    await new Promise((done) => setImmediate(done));
    expect((await ids(backend, 'setupFiles'))[0]).toBe('config');
    expect(await ids(backend, 'xylophone')).toEqual([]);
    await building;
    expect(await ids(backend, 'setupFiles')).toEqual([]);
    expect((await backend.search(key, 'xylophone')).total).toBe(5000);
  });

  it('refuses duplicate chunk ids and keeps the previous index', async () => {
    const backend = memory();
    await backend.index(key, corpus);
    await expect(backend.index(key, [corpus[0]!, corpus[0]!])).rejects.toThrow(/appears twice/);
    expect((await ids(backend, 'setupFiles'))[0]).toBe('config');
  });

  it('keeps indexes on disk: a new process restores from the marker without re-indexing', async () => {
    const { backend, directory } = onDisk();
    await backend.index(key, corpus);
    const marker = (await backend.snapshot(key)) as Uint8Array;
    expect(marker.byteLength).toBeLessThan(200);
    backend.close();
    const next = onDisk(directory).backend;
    expect(await next.has(key)).toBe(false);
    expect(await next.restore(key, marker)).toBe(true);
    expect((await ids(next, 'expect.poll'))[0]).toBe('poll');
    expect(existsSync(join(directory, 'search.db'))).toBe(true);
  });

  it('refuses a marker of an index rebuilt or dropped since', async () => {
    const { backend, directory } = onDisk();
    await backend.index(key, corpus);
    const old = (await backend.snapshot(key)) as Uint8Array;
    await backend.index(key, corpus.slice(0, 2));
    const other = onDisk(directory).backend;
    expect(await other.restore(key, old)).toBe(false);
    const current = (await backend.snapshot(key)) as Uint8Array;
    await backend.drop(key);
    expect(await other.restore(key, current)).toBe(false);
  });

  it('drops the tables of a dropped index', async () => {
    const backend = memory();
    await backend.index(key, corpus);
    await backend.drop(key);
    const tables = backend
      .open()
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'fts%'")
      .all();
    expect(tables).toEqual([]);
  });

  it('reports the total of matching chunks beyond the limit', async () => {
    const backend = memory();
    await backend.index(key, corpus);
    const results = await backend.search(key, 'model', { limit: 1 });
    expect(results.hits).toHaveLength(1);
    expect(results.total).toBe(2);
    expect((await backend.search(key, 'model', { limit: 0 })).total).toBe(2);
  });
});

describe('SqliteSearchBackend ranking', () => {
  const chunks = [
    chunk('repeats', 'Fields', ['Fields'], 'alias alias alias alias alias alias alias alias'),
    chunk('both', 'Fields', ['Fields'], 'An alias generator derives every field alias. A generator is a function.'),
  ];
  it("'coverage' puts the chunk with every query word above one that repeats one of them", async () => {
    const backend = new SqliteSearchBackend({ directory: ':memory:', rank: 'coverage' });
    open.push(backend);
    await backend.index(key, [...chunks, chunk('other', 'Other', ['Other'], 'nothing here')]);
    expect((await ids(backend, 'alias generator'))[0]).toBe('both');
  });
});

describe('SqliteSearchBackend on a large index', () => {
  it('ranks by the rarer words of a query and still counts every match', async () => {
    const backend = memory();
    const many = Array.from({ length: 20_001 }, (_, i) => chunk(`c${i}`, 'Common', ['Common'], `common words ${i}`));
    many.push(chunk('rare', 'Rare', ['Rare'], 'common rare scarce'), chunk('scarce', 'Scarce', ['Scarce'], 'scarce'));
    await backend.index(key, many);
    const results = await backend.search(key, 'common rare scarce', { limit: 5 });
    expect(results.hits.map((h) => h.id)).toEqual(['rare', 'scarce']);
    expect(results.total).toBe(10_000);
  });
});

describe('identifiers made of parts', () => {
  it('rank the chunk naming the identifier above prose using its words', async () => {
    const backend = memory();
    await backend.index(key, [
      chunk(
        'prose',
        'Validators',
        ['Validators'],
        'A field validator checks one field. Field validators run in order.',
      ),
      chunk('code', 'API', ['API'], 'Decorate a method with `@field_validator` to check a value.'),
      // bm25's idf needs a corpus: in two chunks every word is common
      ...Array.from({ length: 20 }, (_, i) => chunk(`filler-${i}`, 'Other', ['Other'], `unrelated text ${i}`)),
    ]);
    expect((await ids(backend, 'field_validator'))[0]).toBe('code');
  });
});
