import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import type {
  DocPage,
  IndexableChunk,
  IndexBatchMessage,
  IndexBuild,
  IndexChannel,
  IndexKey,
  SearchBackend,
} from '@pro-context/kernel';
import { ChunkingPool } from '@pro-context/markdown';
import { afterEach, describe, expect, it } from 'vitest';
import { type BuildTarget, IndexingBuild } from '../src/indexing/indexing-build.js';
import type { StoredChunk } from '../src/indexing/stored-docs.js';

/** The chunking worker as built (`pnpm build`): the piped path runs only in a worker thread. */
const workerUrl = new URL('../../markdown/dist/prepare-worker.js', import.meta.url);

/** Forty pages of about 7 KB each: several blocks, and eight batches of five. */
function manyPages(): DocPage[] {
  const filler = 'Orbits are computed step by step; each step integrates the forces on every body. '.repeat(40);
  return Array.from({ length: 40 }, (_, p) => ({
    url: `https://docs.acme.test/page-${p % 7 === 3 ? p - 1 : p}`,
    title: `Page ${p}`,
    markdown: `# Page ${p}\n\n## Setup of part ${p}\n\n${filler}\n\n## Tuning knob${p}\n\nSet \`knob${p}\` to it.\n\n${filler}\n`,
  }));
}

/**
 * A backend that records the chunks its builds receive, through `add` or through a channel (whose port it reads
 * on this thread, acknowledging each batch after a delay, as a busy build worker would).
 */
class RecordingBackend implements SearchBackend {
  readonly id = 'recording';
  received: IndexableChunk[] = [];
  through: 'add' | 'channel' | undefined;
  constructor(private readonly offerChannel: boolean) {}
  indexer(_key: IndexKey): IndexBuild {
    const build: IndexBuild = {
      add: async (chunks) => {
        this.through ??= 'add';
        this.received.push(...chunks);
      },
      finish: async () => undefined,
      cancel: () => undefined,
    };
    if (!this.offerChannel) return build;
    return {
      ...build,
      channel: async (): Promise<IndexChannel> => {
        this.through = 'channel';
        const { port1, port2 } = new MessageChannel();
        let taken = 0;
        const waiting = new Map<number, () => void>();
        port1.on('message', (batch: IndexBatchMessage) => {
          setTimeout(() => {
            this.received.push(...batch.chunks);
            taken = batch.seq;
            waiting.get(batch.seq)?.();
            if (batch.seq === 8) port1.close();
          }, 5);
        });
        return {
          port: port2,
          taken: (seq) => (seq <= taken ? Promise.resolve() : new Promise((resolve) => waiting.set(seq, resolve))),
        };
      },
    };
  }
  async index(): Promise<void> {}
  async search() {
    return { hits: [], total: 0 };
  }
  async has() {
    return false;
  }
  async drop() {}
  async snapshot() {
    return null;
  }
  async restore() {
    return false;
  }
}

const pools: ChunkingPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

/** Builds the pages in batches of five; what the build wrote, returned and handed to the backend. */
async function build(pool: ChunkingPool, backend: RecordingBackend) {
  pools.push(pool);
  const blocks = new Map<string, readonly StoredChunk[] | Uint8Array>();
  const target: BuildTarget = {
    chunking: pool,
    search: backend,
    building: new Set(),
    writeBlock: async (key, block) => void blocks.set(key, block),
    deleteBlocks: async (keys) => {
      for (const key of keys) blocks.delete(key);
    },
  };
  const indexing = new IndexingBuild(target, { libraryId: 'acme', version: '1.0' }, 400, undefined);
  const pages = manyPages();
  for (let from = 0; from < pages.length; from += 5) await indexing.add(pages.slice(from, from + 5));
  const meta = {
    libraryId: 'acme',
    version: '1.0',
    adapterId: 'a',
    sourceUrl: 'u',
    fetchedAt: 't',
    freshness: 'fresh',
  };
  const done = await indexing.finish(meta as Parameters<IndexingBuild['finish']>[0]);
  const stored = [...blocks.entries()].map(([key, block]) => [
    key.slice(key.lastIndexOf('#')),
    block instanceof Uint8Array ? JSON.parse(Buffer.from(block).toString('utf8')) : block,
  ]);
  const { blocks: _tag, ...manifest } = done.manifest;
  return { manifest, stored, terms: Buffer.from(done.terms).toString('hex'), chunks: done.chunks };
}

describe.skipIf(!existsSync(fileURLToPath(workerUrl)))('a build whose chunking worker feeds the index itself', () => {
  it('stores, keeps and indexes exactly what a build on the calling thread does, the chunks never coming back', async () => {
    const here = new RecordingBackend(false);
    const expected = await build(new ChunkingPool({ size: 0 }), here);
    const piped = new RecordingBackend(true);
    const actual = await build(new ChunkingPool({ size: 1, workerUrl, minChars: 0, execArgv: [] }), piped);
    expect(here.through).toBe('add');
    expect(piped.through).toBe('channel');
    expect(expected.manifest.ids.length).toBeGreaterThan(80);
    expect(expected.manifest.blockStarts.length).toBeGreaterThan(10);
    expect(actual.manifest).toEqual(expected.manifest);
    expect(actual.stored).toEqual(expected.stored);
    expect(actual.terms).toBe(expected.terms);
    expect(actual.chunks).toEqual(expected.chunks);
    expect(piped.received).toEqual(here.received);
  });
});
