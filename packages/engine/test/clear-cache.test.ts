import {
  definePlugin,
  type FetchContext,
  KERNEL_VERSION,
  type LibraryDescriptor,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { catalogErrorOf, createTestKernel, MemoryCacheStore, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

const pages = (site: string) =>
  Array.from({ length: 12 }, (_, i) => ({
    url: `https://docs.${site}.test/page-${i}`,
    title: `Page ${i}`,
    markdown: `# Page ${i}\n\n${`Words about ${site} topic ${i}. `.repeat(200)}`,
  }));

/** A source whose fetches wait for `gate` while it is set (or fail with the caller's abort, as an HTTP fetch would). */
class GatedAdapter extends StaticSourceAdapter {
  gate: Promise<void> | undefined;
  override async fetchDocs(library: LibraryDescriptor, _version?: string, context?: FetchContext) {
    const signal = context?.signal;
    if (this.gate) {
      const gate = this.gate;
      await new Promise<void>((resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        void gate.then(resolve);
      });
    }
    return super.fetchDocs(library);
  }
}

async function start(cache = new MemoryCacheStore()) {
  const adapter = new GatedAdapter('internal', { alpha: { pages: pages('alpha') }, beta: { pages: pages('beta') } });
  const kernel = await createTestKernel({
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'internal-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(sourceAdapterToken, adapter),
      }),
    ],
    fakeCache: cache,
    config: {
      libraries: [
        { id: 'alpha', name: 'Alpha', language: 'python', source: 'internal' },
        { id: 'beta', name: 'Beta', language: 'python', source: 'internal' },
      ],
    },
  });
  kernels.push(kernel);
  return { engine: kernel.resolve(docsEngineToken), adapter, cache };
}

/** Every cache key that names `libraryId`, by namespace. */
async function keysOf(cache: MemoryCacheStore, libraryId: string): Promise<string[]> {
  const out: string[] = [];
  for (const namespace of ['toc', 'docs', 'index', 'chunks', 'answers']) {
    for (const key of await cache.keys(namespace)) if (key.includes(`${libraryId}@`)) out.push(`${namespace}:${key}`);
  }
  return out;
}

describe('clearing a library from the cache', () => {
  it('removes every entry of that library only, and the next call fetches and indexes it again', async () => {
    const { engine, adapter, cache } = await start();
    await engine.resolve('alpha'); // its TOC cached too
    await engine.getDocs('alpha', 'topic 3', undefined, 1000);
    await engine.getDocs('beta', 'topic 3', undefined, 1000);
    await engine.idle();
    const alphaKeys = await keysOf(cache, 'alpha');
    expect(alphaKeys.some((k) => k.startsWith('chunks:'))).toBe(true);
    expect(alphaKeys.some((k) => k.startsWith('docs:'))).toBe(true);
    expect(alphaKeys.some((k) => k.startsWith('toc:'))).toBe(true);
    const betaKeys = await keysOf(cache, 'beta');

    const { libraryId, removed } = await engine.clearCache('Alpha');
    expect(libraryId).toBe('alpha');
    expect(removed).toBe(alphaKeys.length);
    expect(await keysOf(cache, 'alpha')).toEqual([]);
    expect(await keysOf(cache, 'beta')).toEqual(betaKeys);

    const fetches = adapter.calls.fetchDocs;
    const answer = await engine.getDocs('alpha', 'topic 3', undefined, 1000);
    expect(answer.content).toMatch(/alpha topic 3/);
    expect(answer.cached).toBe(false);
    expect(adapter.calls.fetchDocs).toBe(fetches + 1);
    expect((await engine.clearCache('gamma')).removed).toBe(0);
  });

  it('is refused while the library is being indexed (its build would write it back)', async () => {
    const { engine, adapter } = await start();
    let open: () => void = () => undefined;
    adapter.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const indexing = engine.getDocs('alpha', 'topic 3', undefined, 1000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const error = await catalogErrorOf(engine.clearCache('alpha'));
    expect(error.code).toBe('INDEXING_IN_PROGRESS');
    open();
    await indexing;
    expect((await engine.clearCache('alpha')).removed).toBeGreaterThan(0);
  });

  it('is refused while another server sharing the cache indexes the library, and allowed once it is done', async () => {
    const cache = new MemoryCacheStore();
    const server = await start(cache);
    const admin = await start(cache); // pro-context cache clear, run beside the server
    let open: () => void = () => undefined;
    server.adapter.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const indexing = server.engine.getDocs('alpha', 'topic 3', undefined, 1000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await admin.engine.indexingNow()).toEqual([{ key: 'alpha@latest', pid: process.pid, here: false }]);
    const error = await catalogErrorOf(admin.engine.clearCache('alpha'));
    expect(error.code).toBe('INDEXING_IN_PROGRESS');
    expect(error.message).toBe(
      `alpha is being indexed right now by another server sharing the cache (process ${process.pid}).`,
    );
    expect((await admin.engine.clearCache('beta')).removed).toBe(0); // another library: not refused
    // everything: refused while any library is being indexed
    const all = await catalogErrorOf(admin.engine.clearAllCaches());
    expect(all.code).toBe('INDEXING_IN_PROGRESS');
    expect(all.message).toBe(`alpha@latest (pid ${process.pid}) is being indexed right now.`);
    open();
    expect((await indexing).content).toMatch(/alpha topic 3/);
    await server.engine.idle();
    expect(await admin.engine.indexingNow()).toEqual([]);
    expect((await admin.engine.clearCache('alpha')).removed).toBeGreaterThan(0);
    await server.engine.getDocs('beta', 'topic 3', undefined, 1000);
    await server.engine.idle();
    expect(await admin.engine.clearAllCaches()).toBeGreaterThan(0);
    expect(await cache.keys('docs')).toEqual([]);
  });

  it('a build cancelled and at once started again keeps the lease of the new build', async () => {
    const cache = new MemoryCacheStore();
    const server = await start(cache);
    const admin = await start(cache);
    let open: () => void = () => undefined;
    server.adapter.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const first = new AbortController();
    const cancelled = server.engine.getDocs('alpha', 'topic 3', undefined, 1000, { signal: first.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    first.abort(new Error('the agent moved on'));
    const again = server.engine.getDocs('alpha', 'topic 3', undefined, 1000);
    await expect(cancelled).rejects.toThrow(/moved on/);
    await server.engine.idle(); // the cancelled build's lease is released by now
    expect((await admin.engine.indexingNow()).map((b) => b.key)).toEqual(['alpha@latest']);
    open();
    expect((await again).content).toMatch(/alpha topic 3/);
    await server.engine.idle();
    expect(await admin.engine.indexingNow()).toEqual([]);
  });
});
