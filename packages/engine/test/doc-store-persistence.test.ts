import {
  type CacheEntry,
  type CacheGetOptions,
  type CacheSetOptions,
  type DocPage,
  definePlugin,
  KERNEL_VERSION,
  type StartedKernel,
  sourceAdapterToken,
  toolPluginToken,
} from '@pro-context/kernel';
import { chunkMarkdown } from '@pro-context/markdown';
import { createTestKernel, MemoryCacheStore, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { DocsRecord, StoredChunk } from '../src/indexing/doc-store.js';
import { ns } from '../src/indexing/keys.js';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

/** A memory cache that counts reads per namespace (what an answer had to read). */
class CountingCache extends MemoryCacheStore {
  readonly reads = new Map<string, number>();
  override async get<T>(namespace: string, key: string, options?: CacheGetOptions): Promise<CacheEntry<T> | undefined> {
    this.reads.set(namespace, (this.reads.get(namespace) ?? 0) + 1);
    return super.get<T>(namespace, key, options);
  }
}

/** Forty pages of about 7 KB each: the docs span several blocks. */
function manyPages(): DocPage[] {
  const filler = 'Orbits are computed step by step; each step integrates the forces on every body. '.repeat(40);
  return Array.from({ length: 40 }, (_, p) => ({
    url: `https://docs.acme.test/page-${p}`,
    title: `Page ${p}`,
    markdown: `# Page ${p}\n\n## Setup of part ${p}\n\n${filler}\n\n## Tuning knob${p}\n\nSet \`knob${p}\` to the tolerance.\n\n${filler}\n`,
  }));
}

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

async function acmeKernel(adapter: StaticSourceAdapter, cache: MemoryCacheStore) {
  const kernel = await createTestKernel({
    fakeCache: cache,
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'internal-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(sourceAdapterToken, adapter),
      }),
    ],
    config: { libraries: [{ id: 'acme', name: 'Acme', language: 'python', source: 'internal' }] },
  });
  kernels.push(kernel);
  return kernel;
}

async function getDocs(kernel: StartedKernel, topic: string) {
  const tool = kernel
    .resolveAll(toolPluginToken)
    .flatMap((p) => p.tools())
    .find((t) => t.name === 'get-docs');
  if (!tool) throw new Error('no get-docs tool');
  const result = await tool.handler(tool.inputSchema.parse({ libraryId: 'acme', topic, maxTokens: 800 }), {
    signal: new AbortController().signal,
    logger: kernel.logger,
    progress: async () => undefined,
  });
  return result.structured as { content: string; source: string; cached: boolean; confidence: number };
}

/** A first process indexes acme, persists it and stops: what the next one finds in `cache`. Returns its answer. */
async function indexThenStop(adapter: StaticSourceAdapter, cache: MemoryCacheStore) {
  const first = await acmeKernel(adapter, cache);
  const built = await getDocs(first, 'knob7 tolerance');
  await first.resolve(docsEngineToken).idle();
  await first.stop();
  return built;
}

describe('docs persisted in blocks', () => {
  it('after a restart, an answer reads only the blocks of its chunks, and nothing is fetched', async () => {
    const cache = new CountingCache();
    const adapter = new StaticSourceAdapter('internal', { acme: { pages: manyPages() } });
    const built = await indexThenStop(adapter, cache);
    expect(built.content).toContain('knob7');
    const blocks = (await cache.keys('chunks')).filter((k) => /#\d+$/.test(k));
    expect(blocks.length).toBeGreaterThan(4);

    cache.reads.clear();
    const again = await acmeKernel(adapter, cache);
    const answer = await getDocs(again, 'knob23');
    expect(answer.content).toContain('`knob23`');
    expect(answer.source).toContain('page-23');
    expect(answer.cached).toBe(true);
    expect(answer.confidence).toBeGreaterThan(0.5);
    expect(adapter.calls.fetchDocs).toBe(1);
    // the blocks of page 23's chunk (and its section) and the term index, not the whole library
    expect(cache.reads.get('chunks') ?? 0).toBeLessThanOrEqual(4);
  });

  it("keeps chunk blocks, term indexes, manifests and index snapshots out of the cache's memory tier (it holds them parsed)", async () => {
    const options: string[] = [];
    class RecordingCache extends MemoryCacheStore {
      override async get<T>(namespace: string, key: string, o?: CacheGetOptions): Promise<CacheEntry<T> | undefined> {
        options.push(`get ${namespace} ${o?.memory ?? 'default'}`);
        return super.get<T>(namespace, key, o);
      }
      override async set<T>(namespace: string, key: string, value: T, o?: CacheSetOptions): Promise<void> {
        options.push(`set ${namespace} ${o?.memory ?? 'default'}`);
        return super.set(namespace, key, value, o);
      }
    }
    const cache = new RecordingCache();
    const adapter = new StaticSourceAdapter('internal', { acme: { pages: manyPages() } });
    await indexThenStop(adapter, cache);
    const again = await acmeKernel(adapter, cache);
    expect((await getDocs(again, 'knob23')).content).toContain('`knob23`');
    const of = (prefix: string) => new Set(options.filter((o) => o.startsWith(prefix)));
    expect(of('set chunks')).toEqual(new Set(['set chunks false']));
    expect(of('get chunks')).toEqual(new Set(['get chunks false']));
    for (const o of [...of('set index'), ...of('get index')]) expect(o).toMatch(/ false$/);
    // and so is the docs manifest (held parsed while its docs are loaded; a big library's is megabytes of JSON)
    expect(of('get docs')).toEqual(new Set(['get docs false']));
    expect(of('set docs')).toEqual(new Set(['set docs false']));
  });

  it('names the chunks holding given words from the term index alone (what re-ranking looks up)', async () => {
    const cache = new CountingCache();
    const adapter = new StaticSourceAdapter('internal', { acme: { pages: manyPages() } });
    await indexThenStop(adapter, cache);

    const again = await acmeKernel(adapter, cache);
    const { docs } = await again.resolve(docsEngineToken).loadDocs('acme', 'latest');
    cache.reads.clear();
    const ids = await docs.containing(['knob23', 'tolerance'], 10);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((id) => id.includes('page-23'))).toBe(true);
    expect(await docs.containing(['knob23', 'nowhere-to-be-found'], 10)).toEqual([]);
    expect((await docs.containing(['orbits'], 5)).length).toBe(5);
    // the term index, at most: no block of chunks was read to find them
    expect(cache.reads.get('chunks') ?? 0).toBeLessThanOrEqual(1);
  });

  it('loads docs a cache holds in the first format (one record, every chunk inside) and rewrites them as blocks', async () => {
    const cache = new MemoryCacheStore();
    const pages = manyPages().slice(0, 5);
    const chunks: StoredChunk[] = pages.flatMap((page) =>
      chunkMarkdown(page, { maxTokens: 800 }).map((c) => ({ ...c })),
    );
    const record: DocsRecord = {
      libraryId: 'acme',
      version: 'latest',
      adapterId: 'internal',
      sourceUrl: 'https://docs.acme.test/llms.txt',
      fetchedAt: new Date().toISOString(),
      freshness: { contentHash: 'old' },
      revision: 'first-format',
      pages: pages.map((p) => ({ url: p.url, title: p.title })),
      chunks,
    };
    await cache.set(ns.docs, 'acme@latest', record, { ttlMs: 3_600_000 });
    // the source now serves other content: an answer from it would show
    const adapter = new StaticSourceAdapter('internal', {
      acme: {
        pages: [{ url: 'https://docs.acme.test/other', title: 'Other', markdown: '# Other\n\nknob3 elsewhere' }],
      },
    });
    const kernel = await acmeKernel(adapter, cache);
    const answer = await getDocs(kernel, 'knob3 tolerance');
    expect(answer.content).toContain('`knob3`');
    expect(answer.cached).toBe(true);
    expect(adapter.calls.fetchDocs).toBe(0);
    await kernel.resolve(docsEngineToken).idle();
    const manifest = (await cache.get<{ format?: number; ids?: string[] }>(ns.docs, 'acme@latest'))?.value;
    expect(manifest?.format).toBe(3);
    expect(manifest?.ids).toHaveLength(chunks.length);
    expect((await cache.keys('chunks', 'acme@latest@first-format#')).length).toBeGreaterThan(1);
  });

  it('docs whose blocks left the cache are fetched and indexed again, not a crash', async () => {
    const cache = new MemoryCacheStore();
    const adapter = new StaticSourceAdapter('internal', { acme: { pages: manyPages() } });
    await indexThenStop(adapter, cache);
    const [victim] = (await cache.keys('chunks')).filter((k) => k.endsWith('#2'));
    expect(victim).toBeDefined();
    await cache.delete('chunks', victim as string);

    const again = await acmeKernel(adapter, cache);
    const answer = await getDocs(again, 'knob31 tolerance');
    expect(answer.content).toContain('`knob31`');
    expect(adapter.calls.fetchDocs).toBe(2);
  });

  it('a block lost while the docs are loaded: that call asks to try again, the next one indexes them again', async () => {
    const cache = new MemoryCacheStore();
    const adapter = new StaticSourceAdapter('internal', { acme: { pages: manyPages() } });
    const kernel = await acmeKernel(adapter, cache);
    await getDocs(kernel, 'knob7 tolerance');
    await kernel.resolve(docsEngineToken).idle();
    for (const key of await cache.keys('chunks')) if (!key.endsWith('#terms')) await cache.delete('chunks', key);
    await expect(getDocs(kernel, 'knob12 tolerance')).rejects.toMatchObject({ code: 'INDEXING_IN_PROGRESS' });
    const answer = await getDocs(kernel, 'knob12 tolerance');
    expect(answer.content).toContain('`knob12`');
    expect(adapter.calls.fetchDocs).toBe(2);
  });
});
