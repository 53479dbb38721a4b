import { describe, expect, it } from 'vitest';
import { DocsPreparer, type PreparablePage, prepareDocs, TermIndex, TermIndexBuilder } from '../src/index.js';

/** Pages with repeated words across pages, a duplicate page and a duplicate section, and an HTML-only page. */
function pages(): PreparablePage[] {
  const out: PreparablePage[] = [];
  for (let p = 0; p < 30; p++) {
    out.push({
      url: `https://docs.test/p${p % 27}`,
      title: `Page ${p}`,
      markdown: `# Page ${p}\n\nIntro to knob${p % 7} and \`retry_${p}\`.\n\n## Usage\n\nCall \`client.get()\` with timeout=${p}.\n\n## Usage\n\nAgain.\n`,
    });
  }
  out.push({
    url: 'https://docs.test/html',
    title: 'Html',
    markdown: '',
    html: '<h1>Html</h1><p>Plain <code>x</code></p>',
  });
  return out;
}

describe('DocsPreparer (a library in batches)', () => {
  it('gives exactly what one prepareDocs of all the pages gives, however the pages are cut', async () => {
    const whole = await prepareDocs(pages(), { maxTokens: 200 });
    for (const size of [1, 4, 13]) {
      const preparer = new DocsPreparer({ maxTokens: 200 });
      const all = pages();
      const batched = { pages: [] as typeof whole.pages, chunks: [] as typeof whole.chunks };
      for (let from = 0; from < all.length; from += size) {
        const batch = await preparer.add(all.slice(from, from + size));
        batched.pages.push(...batch.pages);
        batched.chunks.push(...batch.chunks);
      }
      expect({ ...batched, ...preparer.finish() }).toEqual(whole);
    }
    // duplicates dropped across batches: the page repeated 27 pages later is there once
    expect(whole.pages.filter((p) => p.url === 'https://docs.test/p1')).toHaveLength(1);
  });

  it('TermIndexBuilder finds the chunks holding a word, in order, as a per-word list would', () => {
    const texts = ['alpha beta', 'beta gamma beta', 'delta', 'alpha delta gamma', ''];
    const builder = new TermIndexBuilder();
    for (const text of texts) builder.add(text);
    const index = TermIndex.read(builder.finish());
    expect(index?.documents).toBe(5);
    const holding = (word: string) => texts.flatMap((t, i) => (t.split(' ').includes(word) ? [i] : []));
    for (const word of ['alpha', 'beta', 'gamma', 'delta']) {
      expect(index?.chunksWith(word)).toEqual(holding(word));
    }
  });

  it('TermIndexBuilder keeps 40,000 words apart, prefixes of one another among them, in chunks far apart', () => {
    // a chunk with a low and a high word number gives gaps of three varint bytes; `w1` is a prefix of `w10`…
    const words = Array.from({ length: 40_000 }, (_, i) => `w${i}`);
    const texts = [words.join(' '), 'w1 w39999', 'w1x w10', '', 'w39999 w0 w39999', 'W20000 (w1.w2) w1'];
    const builder = new TermIndexBuilder();
    for (const text of texts) builder.add(text);
    const index = TermIndex.read(builder.finish()) as TermIndex;
    expect(index.documents).toBe(texts.length);
    // what the index answers: the chunks with a word (a maximal run of word characters) containing the needle
    const holding = (needle: string) =>
      texts.flatMap((t, i) =>
        t
          .toLowerCase()
          .split(/[^a-z0-9_.$@-]+/)
          .some((w) => w.includes(needle))
          ? [i]
          : [],
      );
    for (const needle of ['w0', 'w1', 'w10', 'w1x', 'w2', 'w20000', 'w39999', 'w1.w2', 'x', 'w40000']) {
      expect(index.chunksWith(needle)).toEqual(holding(needle));
      expect(index.documentFrequency(needle)).toBe(holding(needle).length);
    }
    expect(index.documentFrequency('w39999')).toBe(3);
    expect(index.documentFrequency('w20000')).toBe(2);
  });

  it('TermIndexBuilder keeps every list whole and in order past its first slab of 65,536 postings', () => {
    // 3,000 chunks (every 7th empty) of 60 words drawn from 1,500: some 150,000 (word, chunk) pairs
    let seed = 7;
    const next = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed >>> 8;
    };
    const texts = Array.from({ length: 3000 }, (_, i) =>
      i % 7 === 3 ? '' : Array.from({ length: 60 }, () => `x${next() % 1500}y`).join(' '),
    );
    const builder = new TermIndexBuilder();
    for (const text of texts) builder.add(text);
    const index = TermIndex.read(builder.finish()) as TermIndex;
    const holding = new Map<string, number[]>();
    texts.forEach((text, i) => {
      for (const word of new Set(text.split(' ').filter(Boolean))) holding.set(word, [...(holding.get(word) ?? []), i]);
    });
    expect([...holding.values()].reduce((n, list) => n + list.length, 0)).toBeGreaterThan(2 * 65_536);
    for (const [word, chunks] of holding) {
      expect(index.chunksWith(word)).toEqual(chunks);
      expect(index.documentFrequency(word)).toBe(chunks.length);
    }
  });
});

describe('the term index layout', () => {
  /** The same index in the first layout (each word's chunks as 32-bit numbers), as an earlier release wrote it. */
  function firstLayout(bytes: Uint8Array, texts: readonly string[], words: readonly string[]): Uint8Array {
    const header = new Uint32Array(bytes.buffer, bytes.byteOffset, 5);
    const vocabBytes = header[3] as number;
    const padded = Math.ceil(vocabBytes / 4) * 4;
    const lists = words.map((w) =>
      texts.flatMap((t, doc) =>
        t
          .toLowerCase()
          .match(/[a-z0-9_.$@-]+/g)
          ?.includes(w)
          ? [doc]
          : [],
      ),
    );
    const total = lists.reduce((n, l) => n + l.length, 0);
    const out = new Uint8Array(20 + padded + 4 * (words.length + 1) + 4 * total);
    new Uint32Array(out.buffer, 0, 5).set([0x31544350, texts.length, words.length, vocabBytes, total]);
    out.set(bytes.subarray(20, 20 + vocabBytes), 20);
    const starts = new Uint32Array(out.buffer, 20 + padded, words.length + 1);
    const postings = new Uint32Array(out.buffer, 20 + padded + 4 * (words.length + 1), total);
    let at = 0;
    lists.forEach((list, w) => {
      starts[w] = at;
      for (const doc of list) postings[at++] = doc;
    });
    starts[words.length] = at;
    return out;
  }

  it('writes each word list as varint gaps (smaller than 32-bit numbers), and still reads the first layout', () => {
    const texts = Array.from({ length: 3000 }, (_, i) =>
      `common word${i % 50} rare${i} ${i % 997 === 0 ? 'needle_x' : ''} shared.name`.trim(),
    );
    const builder = new TermIndexBuilder();
    for (const t of texts) builder.add(t);
    const bytes = builder.finish();
    const vocabBytes = new Uint32Array(bytes.buffer, bytes.byteOffset, 5)[3] as number;
    const words = Buffer.from(bytes.subarray(20, 20 + vocabBytes))
      .toString('latin1')
      .split('\n');
    const old = firstLayout(bytes, texts, words);
    // the lists: bytes in the layout written, 32-bit numbers in the first
    const listBytes = new Uint32Array(bytes.buffer, bytes.byteOffset, 5)[4] as number;
    const oldListBytes = 4 * (new Uint32Array(old.buffer, 0, 5)[4] as number);
    expect(listBytes).toBeLessThan(oldListBytes * 0.6);
    expect(bytes.byteLength).toBeLessThan(old.byteLength);
    for (const layout of [bytes, old]) {
      const index = TermIndex.read(layout) as TermIndex;
      expect(index).toBeDefined();
      for (const needle of ['common', 'word7', 'rare2999', 'needle_x', 'shared.name', 'name', 'absent']) {
        const holding = texts.flatMap((t, doc) => (t.includes(needle) ? [doc] : []));
        expect(index.chunksWith(needle), needle).toEqual(holding);
        expect(index.documentFrequency(needle), needle).toBe(holding.length);
      }
    }
  });
});

describe('DocsPreparer on a thread that answers calls (takeTurns)', () => {
  it('lets other work run while it prepares a large batch; without turns nothing runs until it is done', async () => {
    const pages = Array.from({ length: 400 }, (_, p) => ({
      url: `https://docs.test/p${p}`,
      title: `Page ${p}`,
      markdown: `# Page ${p}\n\n${'Some text about routing and middleware. '.repeat(60)}\n\n## More\n\n${'Details. '.repeat(200)}`,
    }));
    const ticksDuring = async (takeTurns: boolean) => {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      const started = ticks;
      const preparing = new DocsPreparer({ maxTokens: 400 }, takeTurns).add(pages);
      await preparing;
      const during = ticks - started;
      clearInterval(timer);
      return during;
    };
    expect(await ticksDuring(false)).toBe(0);
    expect(await ticksDuring(true)).toBeGreaterThan(0);
  });
});
