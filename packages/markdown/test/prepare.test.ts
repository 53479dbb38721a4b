import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ChunkingPool, chunkMarkdown, prepareDocs, TermIndex } from '../src/index.js';

const pages = [
  {
    url: 'https://docs.test/a',
    title: 'A',
    markdown:
      '# Models\n\n## field_validator\n\nUse `@field_validator` before `model_validator`.\n\n## Serialization\n\nSerialise with model.dump().',
  },
  {
    url: 'https://docs.test/b',
    title: 'B',
    markdown:
      '# Settings\n\nThe BaseSettings class reads env vars; fastapi.Depends injects them.\n\n## Validators\n\nMore validators.',
  },
  { url: 'https://docs.test/a', title: 'A again', markdown: '# Duplicate page\n\nignored' },
  {
    url: 'https://docs.test/c',
    title: 'C',
    markdown: '',
    html: '<main><h1>Html page</h1><p>Converted to markdown.</p></main>',
  },
];

describe('prepareDocs', () => {
  it('chunks each page once, converts HTML-only pages, and hashes the content into a revision', async () => {
    const progress: number[] = [];
    const prepared = await prepareDocs(pages, { maxTokens: 800 }, (done) => progress.push(done));
    expect(prepared.pages.map((p) => p.url)).toEqual([
      'https://docs.test/a',
      'https://docs.test/b',
      'https://docs.test/c',
    ]);
    expect(prepared.chunks.some((c) => c.body.includes('Converted to markdown'))).toBe(true);
    expect(prepared.chunks.some((c) => c.body.includes('ignored'))).toBe(false);
    expect(prepared.revision).toMatch(/^[0-9a-f]{16}$/);
    expect((await prepareDocs(pages, { maxTokens: 800 })).revision).toBe(prepared.revision);
    expect(progress.at(-1)).toBe(pages.length);
  });
});

describe('TermIndex', () => {
  it('counts the chunks whose lower-case text contains a needle, as a substring search over the texts does', async () => {
    const prepared = await prepareDocs(pages, { maxTokens: 800 });
    const texts = prepared.chunks.map((c) => `${c.pageTitle} ${c.headings.join(' ')} ${c.body}`.toLowerCase());
    const index = TermIndex.read(prepared.terms) as TermIndex;
    expect(index.documents).toBe(prepared.chunks.length);
    for (const needle of [
      'valid',
      'validator',
      'field_validator',
      'model',
      'fastapi.depends',
      'depends',
      'seriali',
      'dump',
      'env',
      'zzz',
      'a',
      '.',
    ]) {
      expect(index.documentFrequency(needle), needle).toBe(texts.filter((t) => t.includes(needle)).length);
      // and names them: the ordinals of exactly those chunks, ascending
      const containing = texts.flatMap((t, ordinal) => (t.includes(needle) ? [ordinal] : []));
      expect(index.chunksWith(needle), needle).toEqual(containing);
    }
  });

  it('reads an index from a view into a larger buffer (as a store may return it)', async () => {
    const prepared = await prepareDocs(pages, { maxTokens: 800 });
    const expected = (TermIndex.read(prepared.terms) as TermIndex).documentFrequency('validator');
    expect(expected).toBeGreaterThan(0);
    // off a 4-byte boundary (copied) and on one (read in place)
    for (const offset of [13, 16]) {
      const pool = Buffer.alloc(prepared.terms.byteLength + offset + 7);
      pool.set(prepared.terms, offset);
      const index = TermIndex.read(pool.subarray(offset, offset + prepared.terms.byteLength)) as TermIndex;
      expect(index.documentFrequency('validator'), `offset ${offset}`).toBe(expected);
      expect(index.documents).toBe((TermIndex.read(prepared.terms) as TermIndex).documents);
    }
  });

  it('refuses bytes that are not a term index', () => {
    expect(TermIndex.read(new Uint8Array([1, 2, 3]))).toBeUndefined();
    expect(TermIndex.read(new TextEncoder().encode('{"not":"an index"}........'))).toBeUndefined();
  });
});

describe('ChunkingPool', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-pool-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // a stand-in worker speaking the pool's protocol: dies on a page named `crash`, never answers `hang`
  const script = join(dir, 'worker.mjs');
  writeFileSync(
    script,
    `import { parentPort } from 'node:worker_threads';
parentPort.on('message', ({ id, pages }) => {
  if (pages[0]?.url === 'crash') process.exit(3);
  if (pages[0]?.url === 'hang') return;
  parentPort.postMessage({ id, done: 1, total: pages.length });
  parentPort.postMessage({ id, result: { pages: pages.map((p) => ({ url: p.url, title: p.title })), chunks: [], revision: 'r', terms: new Uint8Array(0) } });
});
`,
  );
  const page = (url: string) => [{ url, title: url, markdown: '# x' }];

  it('prepares in a worker, reporting progress; without a worker script it prepares on the calling thread', async () => {
    const pool = new ChunkingPool({ size: 1, workerUrl: pathToFileURL(script), recycleAfterChars: 1000, minChars: 0 });
    const progress: number[] = [];
    const result = await pool.prepare(page('ok'), { maxTokens: 800 }, { progress: (done) => progress.push(done) });
    expect(pool.threaded).toBe(true);
    expect(result.pages).toEqual([{ url: 'ok', title: 'ok' }]);
    expect(progress).toEqual([1]);
    await pool.close();
    // small work stays on the calling thread
    const small = new ChunkingPool({ size: 1, workerUrl: pathToFileURL(script), minChars: 1_000_000 });
    expect((await small.prepare(page('ok'), { maxTokens: 800 })).revision).not.toBe('r');
    expect(small.workers).toBe(0);
    const inline = new ChunkingPool({ size: 0 });
    expect(inline.threaded).toBe(false);
    const chunks = (await inline.prepare(pages.slice(0, 1), { maxTokens: 800 })).chunks;
    expect(chunks.map((c) => c.id)).toEqual(
      chunkMarkdown(pages[0] as (typeof pages)[0], { maxTokens: 800 }).map((c) => c.id),
    );
  });

  it('started ahead of a task, a worker serves it and stops after it (by default); the next task starts another', async () => {
    const pool = new ChunkingPool({ size: 1, workerUrl: pathToFileURL(script), minChars: 0 });
    pool.warm();
    expect(pool.workers).toBe(1);
    await pool.prepare(page('ok'), { maxTokens: 800 });
    expect(pool.workers).toBe(0);
    pool.warm();
    pool.warm();
    expect(pool.workers).toBe(1);
    await expect(pool.prepare(page('ok'), { maxTokens: 800 })).resolves.toMatchObject({ revision: 'r' });
    await pool.close();
  });

  it('a worker that dies fails its task with INTERNAL_ERROR; the next task gets a new worker', async () => {
    const pool = new ChunkingPool({ size: 1, workerUrl: pathToFileURL(script), minChars: 0 });
    await expect(pool.prepare(page('crash'), { maxTokens: 800 })).rejects.toMatchObject({
      code: 'INTERNAL_ERROR',
      message: expect.stringContaining('exit code 3'),
    });
    await expect(pool.prepare(page('ok'), { maxTokens: 800 })).resolves.toMatchObject({ revision: 'r' });
    await pool.close();
  });

  it('cancelling stops the work with the caller’s reason, and the pool goes on serving', async () => {
    const pool = new ChunkingPool({ size: 1, workerUrl: pathToFileURL(script), minChars: 0 });
    const controller = new AbortController();
    const pending = pool.prepare(page('hang'), { maxTokens: 800 }, { signal: controller.signal });
    // queued behind the hanging task (one worker): runs once the cancelled one is gone
    const queued = pool.prepare(page('ok'), { maxTokens: 800 });
    controller.abort(new Error('the agent moved on'));
    await expect(pending).rejects.toThrow('the agent moved on');
    await expect(queued).resolves.toMatchObject({ revision: 'r' });
    await pool.close();
  });
});
