import {
  type DocPage,
  type DocsResult,
  definePlugin,
  type FetchContext,
  KERNEL_VERSION,
  type LibraryDescriptor,
  ProContextError,
  type SourceAdapter,
  type StartedKernel,
  sourceAdapterToken,
  toolPluginToken,
} from '@pro-context/kernel';
import { createTestKernel, MemoryCacheStore, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredChunk } from '../src/indexing/doc-store.js';
import { enginePlugin } from '../src/plugin.js';

/** Forty pages of about 7 KB each: the docs span several blocks and, in fives, eight batches. */
function manyPages(prefix = 'page'): DocPage[] {
  const filler = 'Orbits are computed step by step; each step integrates the forces on every body. '.repeat(40);
  return Array.from({ length: 40 }, (_, p) => ({
    url: `https://docs.acme.test/${prefix}-${p}`,
    title: `Page ${p}`,
    markdown: `# Page ${p}\n\n## Setup of part ${p}\n\n${filler}\n\n## Tuning knob${p}\n\nSet \`knob${p}\` to the tolerance.\n\n${filler}\n`,
  }));
}

/**
 * An adapter that hands its pages over in batches of five (`FetchContext.pages`) when the caller takes them so,
 * calling `onBatch` before each batch (to look at what is stored meanwhile, cancel, or fail).
 */
class StreamingAdapter extends StaticSourceAdapter {
  batches = 0;
  onBatch: ((n: number) => Promise<void> | void) | undefined;

  override async fetchDocs(library: LibraryDescriptor, _version?: string, context?: FetchContext): Promise<DocsResult> {
    const result = await super.fetchDocs(library);
    if (!context?.pages) return result;
    const pages = result.pages.splice(0);
    for (let n = 0; pages.length > 0; n++) {
      await this.onBatch?.(n);
      this.batches++;
      await context.pages(pages.splice(0, 5));
    }
    return result;
  }
}

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

async function kernelWith(adapters: SourceAdapter[], cache: MemoryCacheStore, source?: string) {
  const kernel = await createTestKernel({
    fakeCache: cache,
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'test-sources',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => {
          for (const adapter of adapters) ctx.bindValue(sourceAdapterToken, adapter);
        },
      }),
    ],
    config: {
      libraries: [
        {
          id: 'acme',
          name: 'Acme',
          language: 'python',
          ...(source ? { source } : { docsUrl: 'https://docs.acme.test/' }),
        },
      ],
    },
  });
  kernels.push(kernel);
  return kernel;
}

async function getDocs(kernel: StartedKernel, topic: string, signal = new AbortController().signal) {
  const tool = kernel
    .resolveAll(toolPluginToken)
    .flatMap((p) => p.tools())
    .find((t) => t.name === 'get-docs');
  if (!tool) throw new Error('no get-docs tool');
  const result = await tool.handler(tool.inputSchema.parse({ libraryId: 'acme', topic, maxTokens: 800 }), {
    signal,
    logger: kernel.logger,
    progress: async () => undefined,
  });
  return result.structured as { content: string; source: string };
}

/** Every chunk in the cache's blocks, in block order (the chunk store as an answer reads it). */
async function storedChunks(cache: MemoryCacheStore): Promise<StoredChunk[]> {
  const keys = (await cache.keys('chunks')).filter((k) => !k.endsWith('#terms'));
  keys.sort((a, b) => Number(a.slice(a.lastIndexOf('#') + 1)) - Number(b.slice(b.lastIndexOf('#') + 1)));
  const chunks: StoredChunk[] = [];
  for (const key of keys) chunks.push(...((await cache.get<StoredChunk[]>('chunks', key))?.value ?? []));
  return chunks;
}

describe('a library handed over in batches (FetchContext.pages)', () => {
  it('is stored and answered exactly as the same pages returned at once', async () => {
    const streamedCache = new MemoryCacheStore();
    const streaming = new StreamingAdapter('internal', { acme: { pages: manyPages() } });
    const streamed = await kernelWith([streaming], streamedCache, 'internal');
    const wholeCache = new MemoryCacheStore();
    const whole = await kernelWith(
      [new StaticSourceAdapter('internal', { acme: { pages: manyPages() } })],
      wholeCache,
      'internal',
    );
    for (const topic of ['knob7 tolerance', 'setup of part 31', 'orbits forces']) {
      expect((await getDocs(streamed, topic)).content).toBe((await getDocs(whole, topic)).content);
    }
    expect(streaming.batches).toBe(8);
    await Promise.all([streamed.stop(), whole.stop()]);
    const chunks = await storedChunks(streamedCache);
    expect(chunks.length).toBeGreaterThan(80);
    expect(chunks).toEqual(await storedChunks(wholeCache));
    // the same term index, byte for byte
    const terms = async (cache: MemoryCacheStore) => {
      const key = (await cache.keys('chunks')).find((k) => k.endsWith('#terms')) as string;
      return Buffer.from((await cache.get<Uint8Array>('chunks', key))?.value ?? []).toString('hex');
    };
    expect(await terms(streamedCache)).toBe(await terms(wholeCache));
  });

  it('a library handed over in one batch answers (its chunks are counted once stored)', async () => {
    const streaming = new StreamingAdapter('internal', { acme: { pages: manyPages().slice(0, 3) } });
    const kernel = await kernelWith([streaming], new MemoryCacheStore(), 'internal');
    expect((await getDocs(kernel, 'knob2 tolerance')).content).toContain('`knob2`');
    expect(streaming.batches).toBe(1);
  });

  it('writes the chunks of earlier batches while the adapter is still handing pages over', async () => {
    const cache = new MemoryCacheStore();
    const streaming = new StreamingAdapter('internal', { acme: { pages: manyPages() } });
    const storedBefore: number[] = [];
    streaming.onBatch = async (n) => {
      storedBefore[n] = (await storedChunks(cache)).length;
    };
    const kernel = await kernelWith([streaming], cache, 'internal');
    expect((await getDocs(kernel, 'knob33 tolerance')).content).toContain('`knob33`');
    expect(storedBefore[0]).toBe(0);
    // each batch's chunks are in the cache before the next batch is asked for (the last block waits for the end)
    for (let n = 2; n < 8; n++) expect(storedBefore[n]).toBeGreaterThan(storedBefore[n - 1] as number);
  });

  it('cancelled mid-stream: nothing of the library stays in the cache, and the next call indexes it', async () => {
    const cache = new MemoryCacheStore();
    const streaming = new StreamingAdapter('internal', { acme: { pages: manyPages() } });
    const controller = new AbortController();
    streaming.onBatch = (n) => {
      if (n === 4) controller.abort(new ProContextError('CANCELLED', 'The request was cancelled.'));
    };
    const kernel = await kernelWith([streaming], cache, 'internal');
    await expect(getDocs(kernel, 'knob7 tolerance', controller.signal)).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(await cache.keys('chunks')).toEqual([]);
    expect(await cache.keys('docs')).toEqual([]);
    streaming.onBatch = undefined;
    expect((await getDocs(kernel, 'knob7 tolerance')).content).toContain('`knob7`');
    expect(streaming.calls.fetchDocs).toBe(2);
  });

  it('an adapter failing mid-stream leaves no half library: the next source serves it, alone', async () => {
    const cache = new MemoryCacheStore();
    const streaming = new StreamingAdapter('streamer', { acme: { pages: manyPages('streamed') } }, 10);
    streaming.onBatch = (n) => {
      if (n === 3) throw new ProContextError('SOURCE_UNAVAILABLE', 'The connection was reset.');
    };
    const backup = new StaticSourceAdapter('backup', { acme: { pages: manyPages('backup').slice(0, 10) } }, 50);
    const kernel = await kernelWith([streaming, backup], cache);
    const answer = await getDocs(kernel, 'knob7 tolerance');
    expect(answer.content).toContain('`knob7`');
    expect(answer.content).toContain('docs.acme.test/backup-7');
    expect(streaming.batches).toBe(3);
    expect(backup.calls.fetchDocs).toBe(1);
    await kernel.stop();
    const chunks = await storedChunks(cache);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.filter((c) => !c.url.includes('/backup-'))).toEqual([]);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
  });
});
