import { describe, expect, it } from 'vitest';
import {
  type BlockSource,
  isManifest,
  type StoredChunk,
  StoredDocsTable,
  toManifest,
} from '../src/indexing/stored-docs.js';

const meta = {
  libraryId: 'acme',
  version: 'latest',
  adapterId: 'llms-txt',
  sourceUrl: 'https://acme.test/llms-full.txt',
  fetchedAt: '2026-01-01T00:00:00.000Z',
  freshness: {},
  revision: 'r1',
  pages: [],
};

const source: BlockSource = {
  block: async () => undefined,
  terms: async () => undefined,
  missing: () => undefined,
  resized: () => undefined,
};

let order = 0;
function chunk(url: string, id: string): StoredChunk {
  // each chunk its own section and its own block (a block holds ~8 K characters): read() returns it and the two
  // chunks beside it (read to see whether they continue its section)
  return { id, url, pageTitle: url, headings: [id], body: `body of ${id} `.repeat(1000), tokens: 3, order: order++ };
}

describe('StoredDocsTable: chunks read by id', () => {
  it('finds each chunk by its id, whatever the page URL holds (#, ~) and ids of another form, the first of twins', async () => {
    const plain = 'https://acme.test/guide';
    // an llms-full.txt page without a URL of its own, and a URL with a tilde
    const sliced = 'https://acme.test/llms-full.txt#install';
    const tilde = 'https://acme.test/~team/notes';
    const chunks = [
      chunk(plain, plain),
      chunk(plain, `${plain}#setup`),
      chunk(plain, `${plain}#setup~2`),
      chunk(sliced, sliced),
      chunk(sliced, `${sliced}#pip`),
      chunk(sliced, `${sliced}~o5`),
      chunk(tilde, `${tilde}#usage`),
      chunk(tilde, `${tilde}~2`),
      chunk('https://acme.test/other', 'custom-id-9'),
      // the same id twice (on two runs of the same page): the first answers
      chunk(plain, `${plain}#twin`),
      chunk(tilde, `${tilde}#between`),
      chunk(plain, `${plain}#twin`),
    ];
    const { manifest } = toManifest(meta, chunks);
    const docs = new StoredDocsTable(manifest, null, source, chunks);
    // (ids that begin with their page's URL are found without a map of every id)
    const fullMap = () => (docs as unknown as { ordinals?: Map<string, number> }).ordinals;
    const custom = chunks.findIndex((c) => c.id === 'custom-id-9');
    for (const [ordinal, c] of [...chunks.entries()].sort(([a], [b]) => (a === custom ? 1 : b === custom ? -1 : 0))) {
      if (ordinal === custom) expect(fullMap()).toBeUndefined();
      const read = await docs.read([c.id]);
      expect(read.has(c.id)).toBe(true);
      // the first of twins
      const first = chunks.findIndex((other) => other.id === c.id);
      expect(read.get(c.id)?.order).toBe(chunks[first]?.order);
      if (first !== ordinal) expect(read.get(c.id)?.order).not.toBe(c.order);
    }
    // ids of no chunk: of a page of these docs, of no page, and a cut of a real id
    expect((await docs.read([`${plain}#nowhere`, 'https://elsewhere.test/x#y', 'custom-id', `${sliced}#p`])).size).toBe(
      0,
    );
    const many = await docs.read([`${tilde}~2`, 'custom-id-9', `${sliced}#pip`]);
    for (const id of [`${tilde}~2`, 'custom-id-9', `${sliced}#pip`]) expect(many.get(id)?.id).toBe(id);
    expect(many.has(plain)).toBe(false);
  });

  it('writes ids without their page URL, and reads a manifest of the previous format (ids whole) the same', async () => {
    const page = 'https://acme.test/reference/api';
    const chunks = [
      chunk(page, page),
      chunk(page, `${page}#create-app`),
      chunk(page, `${page}#create-app~2`),
      chunk('https://acme.test/misc', 'custom-id-7'),
      chunk(page, `${page}#routes`),
    ];
    const { manifest } = toManifest(meta, chunks);
    expect(manifest.format).toBe(3);
    expect(manifest.ids).toEqual(['', '#create-app', '#create-app~2', '\u0000custom-id-7', '#routes']);
    // a cached manifest of format 2 (written by the previous release): its ids whole
    const previous = JSON.parse(JSON.stringify({ ...manifest, format: 2, ids: chunks.map((c) => c.id) })) as unknown;
    expect(isManifest(previous)).toBe(true);
    expect(previous).toEqual(JSON.parse(JSON.stringify(manifest)));
    for (const written of [manifest, previous as typeof manifest]) {
      const docs = new StoredDocsTable(written, null, source, chunks);
      for (const c of chunks) expect((await docs.read([c.id])).get(c.id)?.order).toBe(c.order);
    }
    expect(isManifest({ ...manifest, format: 1 })).toBe(false);
  });
});
