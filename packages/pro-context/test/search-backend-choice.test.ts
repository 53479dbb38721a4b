import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type StartedKernel, searchBackendToken } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startProContext } from '../src/index.js';

describe("the preset's search backend", () => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-preset-search-'));
  const kernels: StartedKernel[] = [];
  const start = async (env: Record<string, string>) => {
    const kernel = await startProContext({
      cwd: dir,
      env: { PRO_CONTEXT_CACHE_DIR: join(dir, 'cache'), ...env },
      logger: createSilentLogger(),
    });
    kernels.push(kernel);
    return kernel;
  };
  afterEach(async () => {
    await Promise.all(kernels.splice(0).map((k) => k.stop()));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the packed index by default, Orama with PRO_CONTEXT_SEARCH_BACKEND=orama-search', async () => {
    const packed = (await start({})).resolve(searchBackendToken);
    expect(packed.id).toBe('packed-search');
    const key = { libraryId: 'lib', version: '1' };
    const chunks = [{ id: 'a', title: 'A', headings: ['A'], body: 'setupFiles run first', url: 'https://a.test/' }];
    // built in the worker thread (from the package's dist/, as the tests run the sources)
    await packed.index(key, chunks);
    expect((await packed.search(key, 'setup files')).hits.map((h) => h.id)).toEqual(['a']);
    expect((await start({ PRO_CONTEXT_SEARCH_BACKEND: 'orama-search' })).resolve(searchBackendToken).id).toBe(
      'orama-search',
    );
  });

  it('is SQLite FTS5 with PRO_CONTEXT_SEARCH_BACKEND=sqlite-search, its database beside the cache', async () => {
    const search = (await start({ PRO_CONTEXT_SEARCH_BACKEND: 'sqlite-search' })).resolve(searchBackendToken);
    expect(search.id).toBe('sqlite-search');
    const key = { libraryId: 'lib', version: '1' };
    await search.index(key, [
      { id: 'a', title: 'A', headings: ['A'], body: 'setupFiles run first', url: 'https://a.test/' },
    ]);
    expect((await search.search(key, 'setup files')).hits.map((h) => h.id)).toEqual(['a']);
    expect(existsSync(join(dir, 'cache', 'search.db'))).toBe(true);
  });
});
